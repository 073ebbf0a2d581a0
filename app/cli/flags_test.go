package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// leaves are the commands people run (with their subcommands), hidden ones included.
func leaves(c *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, s := range c.Commands() {
		if s.Name() == "help" {
			continue
		}
		if s.HasSubCommands() {
			out = append(out, leaves(s)...)
		}
		if s.Runnable() && !s.DisableFlagParsing && (!s.HasSubCommands() || s.Flags().HasFlags()) {
			out = append(out, s)
		}
	}
	return out
}

// ownFlags are the flags a command registers, by long name (-h/--help aside).
func ownFlags(c *cobra.Command) []string {
	var out []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Name != "help" {
			out = append(out, f.Name)
		}
	})
	slices.Sort(out)
	return out
}

// Every command registers exactly the flags its usage line names, and the README's CLI
// reference names the same ones: a flag that does nothing, or one nobody is told about,
// fails here. --help prints them, and exits 0.
func TestFlagsMatchUsageAndREADME(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := readmeRows(string(readme))
	root := newRoot(&Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }})
	short := map[string]string{} // -p is --prompt
	for _, c := range leaves(root) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Shorthand != "" && f.Name != "help" {
				short[f.Shorthand] = f.Name
			}
		})
	}
	flagName := regexp.MustCompile(`(?:^|[\s\[(|])--?([a-z][a-z-]*)`) // --name, or a one-letter -p
	names := func(s string) []string {
		var out []string
		for _, m := range flagName.FindAllStringSubmatch(strings.Split(s, " -- ")[0], -1) {
			n := m[1]
			if long, ok := short[n]; ok && len(n) == 1 {
				n = long
			}
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
		slices.Sort(out)
		return out
	}
	readmeFlags := map[string][]string{} // a README row per top-level command, its subcommands' flags together
	for _, c := range leaves(root) {
		path := strings.TrimPrefix(c.CommandPath(), "plugboard ")
		var stdout bytes.Buffer
		if code := Main(append(strings.Fields(path), "--help"), Env{Stdout: &stdout, Stderr: &bytes.Buffer{}, Getenv: func(string) string { return "" }}); code != ExitOK {
			t.Errorf("%s --help exited %d, want 0", path, code)
		}
		registered := ownFlags(c)
		for _, n := range registered {
			if !strings.Contains(stdout.String(), "--"+n) {
				t.Errorf("%s --help does not list --%s", path, n)
			}
		}
		if got := names(c.Use); !slices.Equal(got, registered) {
			t.Errorf("%s: the usage line names %v, the command registers %v", path, got, registered)
		}
		top := strings.Fields(path)[0]
		if _, ok := readmeFlags[top]; !ok {
			readmeFlags[top] = []string{}
		}
		for _, n := range registered {
			if !slices.Contains(readmeFlags[top], n) {
				readmeFlags[top] = append(readmeFlags[top], n)
			}
		}
	}
	for top, want := range readmeFlags {
		slices.Sort(want)
		if row, ok := rows[top]; !ok {
			t.Errorf("%s: no row in the README's CLI reference", top)
		} else if got := names(row); !slices.Equal(got, want) {
			t.Errorf("%s: the README names %v, the commands register %v", top, got, want)
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
