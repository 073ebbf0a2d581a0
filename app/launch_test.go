package app

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/testhome"
)

// A recording stand-in terminal: it writes its arguments, one per line, and exits.
func standInTerminal(t *testing.T) (bin, record string) {
	dir := t.TempDir()
	bin, record = filepath.Join(dir, "term"), filepath.Join(dir, "argv")
	os.WriteFile(bin, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > "+record+".tmp && mv "+record+".tmp "+record+"\n"), 0o755)
	return bin, record
}

// terminalArgv waits for the stand-in terminal a launch opened to write its record, and
// returns the arguments and removes the record. A test waits for it after every launch
// that opens one: the stand-in runs on its own (the launch does not wait for a terminal)
// and must be done writing before the test's folders are removed.
func terminalArgv(t *testing.T, record string) []string {
	t.Helper()
	b := testhome.WaitFile(t, record)
	os.Remove(record)
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// clientsOnPath puts stand-ins for claude and pi first on PATH: a launch looks for its
// client before it opens a terminal, and the terminal of these tests is a stand-in too, so
// they never run.
func clientsOnPath(t *testing.T) {
	bin := t.TempDir()
	for _, name := range []string{"claude", "pi"} {
		os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\nexit 0\n"), 0o755)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func TestLaunchOpensTheTerminal(t *testing.T) {
	pb := testhome.CopyTestdata(t, filepath.Join("runtime", "home"))
	term, record := standInTerminal(t)
	svc := NewService(t.TempDir(), pb, nil)
	env := map[string]string{"TERMINAL": term}
	svc.getenv = func(k string) string { return env[k] }
	clientsOnPath(t)

	res, err := svc.Launch("agent:coder", "", false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Command, "claude --plugin-dir "+filepath.Join(pb, "runtime", "claude")) || res.Plan.Backend != "claude" {
		t.Errorf("command = %s", res.Command)
	}
	self, _ := os.Executable()
	want := []string{"-e", self, "launch", "agent:coder", "--backend", "claude", "--home", pb}
	if got := terminalArgv(t, record); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("terminal argv = %q\nwant %q", got, want)
	}
	if !strings.HasPrefix(res.Terminal, term+" -e ") {
		t.Errorf("terminal line = %s", res.Terminal)
	}

	// A colliding set is refused before any terminal opens, naming the names.
	_, err = svc.Launch("agent:clash", "pi", false)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeRefused || len(e.Collisions) != 1 || e.Names[0] != "check" {
		t.Errorf("clash: %v", err)
	}
	if _, err := os.Stat(record); err == nil {
		t.Error("a refused launch opened a terminal")
	}
	if _, err = svc.Launch("agent:nobody", "", false); !errors.As(err, &e) || e.Code != CodeNotFound {
		t.Errorf("unknown target: %v", err)
	}
	// No terminal: a sentence, and the command to run by hand as a hint apart from it.
	env["TERMINAL"] = filepath.Join(t.TempDir(), "no-such-terminal")
	if _, err = svc.Launch("agent:coder", "", false); !errors.As(err, &e) || e.Code != CodeNoTerminal || !strings.Contains(e.Hint, "launch agent:coder") || strings.Contains(e.Message, "launch agent:coder") {
		t.Errorf("no terminal: %v (hint %q)", err, e.Hint)
	}
	// No client: said before any terminal opens, with how to install it as the hint.
	env["TERMINAL"] = term
	env["PLUGBOARD_PI_BIN"] = filepath.Join(t.TempDir(), "pi")
	if _, err = svc.Launch("agent:coder", "pi", false); !errors.As(err, &e) || e.Code != CodeClientMissing ||
		!strings.Contains(e.Message, "PI (") || e.Hint != "npm install -g @mariozechner/pi-coding-agent" {
		t.Errorf("no pi: %v (hint %q)", err, e.Hint)
	}
	if _, err := os.Stat(record); err == nil {
		t.Error("a launch of a missing client opened a terminal")
	}
}
