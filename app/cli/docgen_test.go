package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/testhome"
)

// The completion scripts are valid for their shells (each checked by the shell itself,
// without running them); the manual pages, one per command, have their examples.
func TestCompletionAndManual(t *testing.T) {
	for _, sh := range []struct{ name, check string }{{"bash", "-n"}, {"zsh", "-n"}, {"fish", "--no-execute"}} {
		var out, errOut bytes.Buffer
		if code := Main([]string{"completion", sh.name}, Env{Stdout: &out, Stderr: &errOut}); code != ExitOK || !strings.Contains(out.String(), "__complete") {
			t.Fatalf("completion %s: %d %s", sh.name, code, errOut.String())
		}
		script := filepath.Join(t.TempDir(), "plugboard."+sh.name)
		if err := os.WriteFile(script, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := exec.LookPath(sh.name); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not installed: make deps installs it", sh.name)
			}
			testhome.CannotRun(t, "%s is not installed", sh.name)
		}
		if msg, err := exec.Command(sh.name, sh.check, script).CombinedOutput(); err != nil {
			t.Errorf("%s %s: %v\n%s", sh.name, sh.check, err, msg)
		}
	}
	var man bytes.Buffer
	if code := Main([]string{"man"}, Env{Stdout: &man, Stderr: &man}); code != ExitOK || !strings.Contains(man.String(), `.TH "PLUGBOARD" "1"`) || !strings.Contains(man.String(), "plugboard-launch(1)") {
		t.Fatalf("man: %d\n%s", code, man.String())
	}
	dir := t.TempDir()
	if code, out, errOut := run(t, map[string]string{"HOME": t.TempDir()}, "man", "--dir", dir); code != ExitOK {
		t.Fatalf("man --dir = %d %s %s", code, out, errOut)
	}
	root := newRoot(&Env{})
	for _, c := range leaves(root) {
		if c.Hidden {
			continue
		}
		page := filepath.Join(dir, strings.ReplaceAll(c.CommandPath(), " ", "-")+".1")
		b, err := os.ReadFile(page)
		if err != nil {
			t.Errorf("no manual page for %s: %v", c.CommandPath(), err)
			continue
		}
		if c.Example == "" {
			t.Errorf("%s has no examples", c.CommandPath())
		} else if !strings.Contains(string(b), ".SH EXAMPLE") {
			t.Errorf("%s: the page has no EXAMPLE section", page)
		}
	}
}

// A typo gets the command, subcommand or flag that was probably meant (exit 2);
// `help CMD` and `CMD --help` print the same usage, flags and examples; a Go-style
// single-dash long flag (-json) still works.
func TestTyposAndHelp(t *testing.T) {
	env := map[string]string{"HOME": t.TempDir()}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"lauch", "coder"}, "Did you mean launch"},
		{[]string{"agent", "nwe", "x"}, "Did you mean new?"},
		{[]string{"catalog", "--jsn"}, "Did you mean --json?"},
		{[]string{"launch", "coder", "--dry"}, "Did you mean --dry-run?"},
		{[]string{"marketplace"}, "name a subcommand: add, list, remove"},
	} {
		code, out, errOut := run(t, env, c.args...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "--help' for usage") || len(strings.Split(errOut, "\n")) > 5 || out != "" {
			t.Errorf("%v = %d %q %q, want 2 and %q in a few lines", c.args, code, out, errOut, c.want)
		}
	}
	_, viaHelp, _ := run(t, env, "help", "assign")
	code, viaFlag, _ := run(t, env, "assign", "--help")
	if code != ExitOK || viaHelp != viaFlag || !strings.Contains(viaFlag, "--expect-hash") || !strings.Contains(viaFlag, "plugboard assign coder --add review") {
		t.Errorf("help assign and assign --help differ or lack the flags and examples:\n%s\n---\n%s", viaHelp, viaFlag)
	}
	_, goStyle, _ := run(t, env, "version", "-json")
	_, two, _ := run(t, env, "version", "--json")
	if goStyle != two || !strings.HasPrefix(two, "{") {
		t.Errorf("version -json = %q, version --json = %q", goStyle, two)
	}
}

// Completion asks plugboard for the ids: agent names and slots where a target goes,
// plugin ids where a plugin goes (and in --add's comma list), the words of --backend.
func TestCompletionOfIDs(t *testing.T) {
	pb := t.TempDir()
	env := map[string]string{"HOME": t.TempDir(), "PLUGBOARD_HOME": pb}
	for _, id := range []string{"good", "lint"} {
		write(t, filepath.Join(pb, "plugins", id, "plugin.json"), strings.Replace(manifest, "%s", id, 1))
	}
	for _, args := range [][]string{{"agent", "new", "coder"}, {"template", "add-slot", "review", "coder"}} {
		if code, _, errOut := run(t, env, args...); code != ExitOK {
			t.Fatalf("%v: %d %s", args, code, errOut)
		}
	}
	complete := func(args ...string) []string {
		code, out, errOut := run(t, env, append([]string{"__complete"}, args...)...)
		if code != ExitOK {
			t.Fatalf("__complete %v = %d %s", args, code, errOut)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		return lines[:len(lines)-1] // the last line is cobra's directive (:4)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"launch", ""}, []string{"coder", "template:review/coder"}},
		{[]string{"agent", "rm", ""}, []string{"coder"}},
		{[]string{"assign", "coder", "--add", ""}, []string{"good", "lint"}},
		{[]string{"assign", "coder", "--set", "good,"}, []string{"good,good", "good,lint"}},
		{[]string{"mcp", "check", ""}, []string{"coder", "template:review/coder", "good", "lint"}},
		{[]string{"launch", "coder", "--backend", ""}, []string{"claude", "pi", "codex", "copilot"}},
		{[]string{"ack", "coder", ""}, []string{"good", "lint"}},
	} {
		got := complete(c.args...)
		slices.Sort(got)
		want := slices.Clone(c.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("complete %q = %q, want %q", c.args, got, want)
		}
	}
}
