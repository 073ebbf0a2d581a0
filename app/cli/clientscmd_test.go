package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/testhome"
)

// clientsHome lays out a machine with claude from its native installer (in
// ~/.local/bin, off PATH), codex from npm on PATH, a pi whose --version prints no
// version, and no cursor-agent; it returns the folder, HOME and PATH.
func clientsHome(t *testing.T) (r, home, path string) {
	r, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home = filepath.Join(r, "home")
	exe := func(p, body string) {
		t.Helper()
		write(t, p, "#!/bin/sh\n"+body+"\n")
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	version := filepath.Join(home, ".local/share/claude/versions/2.1.300")
	exe(version, "echo '9.9.9 (Claude Code)'")
	if err := os.MkdirAll(filepath.Join(home, ".local/bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	testhome.Symlink(t, version, filepath.Join(home, ".local/bin/claude"))
	pkg := filepath.Join(r, "lib/node_modules/@openai/codex")
	write(t, filepath.Join(pkg, "package.json"), `{"name": "@openai/codex", "version": "0.169.0"}`)
	exe(filepath.Join(pkg, "bin/codex.js"), "echo 'codex-cli 9.9.9'")
	exe(filepath.Join(r, "bin/pi"), "echo 'pi: a coding agent'")
	testhome.Symlink(t, "../lib/node_modules/@openai/codex/bin/codex.js", filepath.Join(r, "bin/codex"))
	return r, home, filepath.Join(r, "bin")
}

// plugboard clients prints one line per client, in a fixed order, saying where each is
// and how its version was learned, or why it is unknown.
func TestClientsText(t *testing.T) {
	r, home, path := clientsHome(t)
	code, out, errOut := run(t, map[string]string{"HOME": home, "PATH": path}, "clients")
	if code != ExitOK || errOut != "" {
		t.Fatalf("clients = %d, stderr %q", code, errOut)
	}
	pi := filepath.Join(r, "bin/pi")
	want := []string{
		"claude 2.1.300  ~/.local/bin/claude (version from install folder; not on PATH)",
		"codex 0.169.0  " + filepath.Join(r, "bin/codex") + " (version from package.json)",
		"pi  " + pi + ` (version unknown: ` + pi + ` --version printed no version ("pi: a coding agent"); run it in a terminal to see what it is, or reinstall it)`,
		"cursor-agent  not installed",
	}
	if got := strings.Split(strings.TrimSuffix(out, "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("clients printed\n%s\nwant\n%s", out, strings.Join(want, "\n"))
	}
}

// plugboard clients --json prints {"clients": [...]}, one object per client with the
// contract's camelCase names.
func TestClientsJSON(t *testing.T) {
	r, home, path := clientsHome(t)
	code, out, errOut := run(t, map[string]string{"HOME": home, "PATH": path}, "clients", "--json")
	if code != ExitOK || errOut != "" {
		t.Fatalf("clients --json = %d, stderr %q", code, errOut)
	}
	var doc map[string][]map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc) != 1 {
		t.Fatalf("clients --json printed %q (%v), want one object with clients", out, err)
	}
	cs := doc["clients"]
	want := []map[string]any{
		{"name": "claude", "found": true, "onPath": false, "path": filepath.Join(home, ".local/bin/claude"),
			"target": filepath.Join(home, ".local/share/claude/versions/2.1.300"), "version": "2.1.300", "from": "install folder"},
		{"name": "codex", "found": true, "onPath": true, "path": filepath.Join(r, "bin/codex"),
			"target": filepath.Join(r, "lib/node_modules/@openai/codex/bin/codex.js"), "version": "0.169.0", "from": "package.json"},
		{"name": "pi", "found": true, "onPath": true, "path": filepath.Join(r, "bin/pi"), "target": filepath.Join(r, "bin/pi"),
			"problem": filepath.Join(r, "bin/pi") + ` --version printed no version ("pi: a coding agent"); run it in a terminal to see what it is, or reinstall it`},
		{"name": "cursor-agent", "found": false, "onPath": false},
	}
	if len(cs) != len(want) {
		t.Fatalf("clients --json has %d clients, want %d:\n%s", len(cs), len(want), out)
	}
	for i := range want {
		got, _ := json.Marshal(cs[i])
		w, _ := json.Marshal(want[i])
		if string(got) != string(w) {
			t.Errorf("clients[%d] = %s\nwant        %s", i, got, w)
		}
	}
}

// An argument, or a flag the command does not take, is a usage error (2) on stderr.
func TestClientsUsage(t *testing.T) {
	env := map[string]string{"HOME": t.TempDir()}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"clients", "claude"}, `plugboard clients: unexpected argument "claude"; usage: plugboard clients [verify] [--json]`},
		{[]string{"clients", "--home", "x"}, "the list of clients needs neither"},
		{[]string{"clients", "--bogus"}, "unknown flag: --bogus"},
	} {
		code, out, errOut := run(t, env, c.args...)
		if code != ExitUsage || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%v = %d %q %q, want 2 and %q on stderr", c.args, code, out, errOut, c.want)
		}
	}
}
