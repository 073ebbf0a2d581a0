package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/testhome"
)

// The completion scripts are valid for their shells (each checked by the shell itself,
// without running them) and name every command and every flag its usage line has; the
// manual page has a section for each command.
func TestCompletionAndManual(t *testing.T) {
	for _, sh := range []struct{ name, check string }{{"bash", "-n"}, {"zsh", "-n"}, {"fish", "--no-execute"}} {
		var out, errOut bytes.Buffer
		if code := Main([]string{"completion", sh.name}, Env{Stdout: &out, Stderr: &errOut}); code != ExitOK {
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
			t.Errorf("%s %s: %v\n%s\n%s", sh.name, sh.check, err, msg, out.String())
		}
		for _, c := range commands() {
			if c.hidden() {
				continue
			}
			if !strings.Contains(out.String(), c.name) {
				t.Errorf("the %s completion has no command %s", sh.name, c.name)
			}
			for _, fl := range commandFlags(c) {
				if want := strings.TrimLeft(fl, "-"); !strings.Contains(out.String(), want) {
					t.Errorf("the %s completion has no flag %s of %s", sh.name, fl, c.name)
				}
			}
		}
	}
	var man bytes.Buffer
	if code := Main([]string{"man"}, Env{Stdout: &man, Stderr: &man}); code != ExitOK || !strings.HasPrefix(man.String(), ".TH PLUGBOARD 1 ") {
		t.Fatalf("man: %d\n%s", code, man.String())
	}
	for _, c := range commands() {
		if !c.hidden() && !strings.Contains(man.String(), ".B "+c.name+" ") {
			t.Errorf("the manual page has no entry for %s", c.name)
		}
	}
	if strings.Contains(man.String(), "\n\n") {
		t.Error("the manual page has a blank line (roff reads it as a paragraph break)")
	}
}
