package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Every command registers exactly the flags its usage line names, and the README's CLI
// reference names the same ones: a flag that does nothing, or one nobody is told about,
// fails here. The registered flags are what the command prints for -h.
func TestFlagsMatchUsageAndREADME(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := readmeRows(string(readme))
	flagName := regexp.MustCompile(`(?:^|[\s\[(|])--?([a-z][a-z-]*)`) // --name, or a one-letter -p
	names := func(s string) []string {
		var out []string
		for _, m := range flagName.FindAllStringSubmatch(s, -1) {
			if !slices.Contains(out, m[1]) {
				out = append(out, m[1])
			}
		}
		slices.Sort(out)
		return out
	}
	for _, c := range commands() {
		var stderr bytes.Buffer
		// Asked for, the flags are printed and the command exits 0, as Go's flag package does.
		if code := Main([]string{c.name, "-h"}, Env{Stdout: &bytes.Buffer{}, Stderr: &stderr, Getenv: func(string) string { return "" }}); code != ExitOK {
			t.Errorf("%s -h exited %d, want 0", c.name, code)
		}
		var registered []string
		for _, line := range strings.Split(stderr.String(), "\n") {
			if m := regexp.MustCompile(`^  -([a-z][a-z-]*)`).FindStringSubmatch(line); m != nil {
				registered = append(registered, m[1])
			}
		}
		slices.Sort(registered)
		// The agent's own arguments after "--" are not flags of the command.
		usage := strings.Split(c.args, " -- ")[0]
		if got := names(usage); !slices.Equal(got, registered) {
			t.Errorf("%s: the usage line names %v, the command registers %v", c.name, got, registered)
		}
		row, ok := rows[c.name]
		if !ok {
			t.Errorf("%s: no row in the README's CLI reference", c.name)
			continue
		}
		if got := names(strings.Split(row, " -- ")[0]); !slices.Equal(got, registered) {
			t.Errorf("%s: the README names %v, the command registers %v", c.name, got, registered)
		}
	}
}

// -h, -help or --help exits 0; a flag error before the -h is still an error (2), and so
// is a command that prints its usage unasked (no subcommand, no argument).
func TestHelpExitsZeroOnlyWhenAsked(t *testing.T) {
	env := map[string]string{"HOME": t.TempDir()}
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"inspect", "--help"}, ExitOK},
		{[]string{"inspect", "-help"}, ExitOK},
		{[]string{"launch", "--help"}, ExitOK},
		{[]string{"marketplace", "--help"}, ExitOK},
		{[]string{"inspect", "--bogus", "-h"}, ExitUsage},
		{[]string{"marketplace"}, ExitUsage},
		{[]string{"inspect"}, ExitUsage},
	} {
		if code, _, errOut := run(t, env, c.args...); code != c.want {
			t.Errorf("%v exited %d, want %d (%s)", c.args, code, c.want, errOut)
		}
	}
}

// readmeRows maps each command of the README's CLI reference table to the synopsis in its
// first cell (a cell may hold two commands, "`a …`, `b …`").
func readmeRows(readme string) map[string]string {
	out := map[string]string{}
	start := strings.Index(readme, "## CLI reference")
	if start < 0 {
		return out
	}
	synopsis := regexp.MustCompile("`plugboard ([a-z-]+)([^`]*)`")
	for _, line := range strings.Split(readme[start:], "\n")[1:] {
		if strings.HasPrefix(line, "## ") {
			break
		}
		if !strings.HasPrefix(line, "| `plugboard") {
			continue
		}
		first := strings.SplitN(line[1:], " | ", 2)[0]
		for _, m := range synopsis.FindAllStringSubmatch(first, -1) {
			out[m[1]] = m[2]
		}
	}
	return out
}

// A Plugboard home that is a file is refused by every command that reads one (exit 2,
// naming it), instead of an empty catalog that blames its settings.json.
func TestHomeThatIsAFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "plugboard-home")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, args := range [][]string{{"catalog", "--home", file}, {"targets", "--home", file}, {"links", "--home", file}} {
		code, _, errOut := run(t, map[string]string{"HOME": dir}, args...)
		if code != ExitUsage || !strings.Contains(errOut, file+" is a file, not a folder") {
			t.Errorf("%v = %d %q, want 2 naming the file", args, code, errOut)
		}
	}
	code, _, errOut := run(t, map[string]string{"HOME": dir, "PLUGBOARD_HOME": file}, "catalog")
	if code != ExitUsage || !strings.Contains(errOut, "PLUGBOARD_HOME") {
		t.Errorf("PLUGBOARD_HOME a file: %d %q", code, errOut)
	}
}

// plugboard --version takes version's flags: --version --json is version --json.
func TestVersionFlag(t *testing.T) {
	env := map[string]string{"HOME": t.TempDir()}
	code, text, _ := run(t, env, "--version")
	if code != ExitOK || strings.HasPrefix(strings.TrimSpace(text), "{") || text == "" {
		t.Errorf("--version = %d %q, want text", code, text)
	}
	_, want, _ := run(t, env, "version", "--json")
	code, got, _ := run(t, env, "--version", "--json")
	var doc map[string]any
	if code != ExitOK || got != want || json.Unmarshal([]byte(got), &doc) != nil {
		t.Errorf("--version --json = %d %q, want version --json's %q", code, got, want)
	}
}
