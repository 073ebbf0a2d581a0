package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// From an empty home: agent new makes the file, the bare name works wherever a target
// is named (assign, history), history prints what was added and what the file
// operations wrote, and revert undoes the agent.
func TestAgentCommands(t *testing.T) {
	pb := t.TempDir()
	env := map[string]string{"HOME": t.TempDir(), "PLUGBOARD_HOME": pb}
	write(t, filepath.Join(pb, "plugins", "good", "plugin.json"), strings.Replace(manifest, "%s", "good", 1))

	for _, c := range []struct{ cmd, want string }{{"history", "no history yet"}, {"targets", "no agents or template slots"}, {"links", "no links"}} {
		if code, out, _ := run(t, env, c.cmd); code != ExitOK || !strings.Contains(out, c.want) {
			t.Errorf("%s of a new home = %d %q, want %q", c.cmd, code, out, c.want)
		}
	}
	// catalog --strict: 0 while no error; the broken plugin below makes it 1
	if code, _, _ := run(t, env, "catalog", "--strict"); code != ExitOK {
		t.Errorf("catalog --strict of a valid home = %d, want 0", code)
	}
	write(t, filepath.Join(pb, "plugins", "bad", "plugin.json"), "{\n  \"name\": \"bad\"\n}\n")
	if code, _, errOut := run(t, env, "catalog", "--strict"); code != ExitInvalid || !strings.Contains(errOut, "--strict") {
		t.Errorf("catalog --strict with an invalid plugin = %d %q, want 1", code, errOut)
	}
	if code, _, _ := run(t, env, "catalog"); code != ExitOK {
		t.Errorf("catalog without --strict = %d, want 0", code)
	}
	code, out, errOut := run(t, env, "agent", "new", "coder", "--backend", "pi", "--json")
	var saved struct {
		Target  string
		History int64
		Files   []struct{ Path, Change string }
	}
	if code != ExitOK || json.Unmarshal([]byte(out), &saved) != nil || saved.Target != "agent:coder" || len(saved.Files) != 1 || saved.Files[0].Change != "created" {
		t.Fatalf("agent new = %d %s %s", code, out, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(pb, "agents", "coder.json")); err != nil || !strings.Contains(string(b), `"backend": "pi"`) {
		t.Fatalf("agents/coder.json = %s, %v", b, err)
	}
	if code, _, errOut := run(t, env, "agent", "new", "coder"); code != ExitInvalid || !strings.Contains(errOut, "already an agent") {
		t.Errorf("second agent new coder = %d %q", code, errOut)
	}
	if code, _, errOut := run(t, env, "agent", "new", "a/b"); code != ExitInvalid || !strings.Contains(errOut, "cannot name an agent") {
		t.Errorf("agent new a/b = %d %q", code, errOut)
	}
	if code, _, errOut := run(t, env, "assign", "coder", "--add", "good"); code != ExitOK {
		t.Fatalf("assign coder = %d %s", code, errOut)
	}
	code, out, _ = run(t, env, "history", "coder")
	if code != ExitOK || !strings.Contains(out, "agent:coder") || !strings.Contains(out, "  + plugins/good") || !strings.Contains(out, "  created agents/coder.json") {
		t.Errorf("history coder = %d\n%s", code, out)
	}
	if code, out, errOut := run(t, env, "agent", "rename", "coder", "builder"); code != ExitOK || !strings.Contains(out, "created "+filepath.Join(pb, "agents", "builder.json")) || !strings.Contains(out, "removed "+filepath.Join(pb, "agents", "coder.json")) {
		t.Errorf("agent rename = %d %s %s", code, out, errOut)
	}
	if code, out, _ := run(t, env, "template", "add-slot", "pair", "builder"); code != ExitOK || !strings.Contains(out, "template:pair/builder") {
		t.Errorf("template add-slot = %d %s", code, out)
	}
	code, out, _ = run(t, env, "agent", "copy", "agent:builder", "tester", "--json")
	if code != ExitOK || json.Unmarshal([]byte(out), &saved) != nil {
		t.Fatalf("agent copy = %d %s", code, out)
	}
	if code, _, _ := run(t, env, "revert", jsonNumber(saved.History)); code != ExitOK {
		t.Errorf("revert of the copy = %d", code)
	}
	if _, err := os.Stat(filepath.Join(pb, "agents", "tester.json")); !os.IsNotExist(err) {
		t.Errorf("the copy is still there after its revert (%v)", err)
	}
	if code, _, errOut := run(t, env, "agent", "rm", "nobody"); code != ExitInvalid || !strings.Contains(errOut, "the agents are builder") {
		t.Errorf("agent rm nobody = %d %q", code, errOut)
	}
	for _, args := range [][]string{{"agent"}, {"agent", "make", "x"}, {"agent", "new"}, {"template", "rm-slot"}} {
		if code, _, _ := run(t, env, args...); code != ExitUsage {
			t.Errorf("%v = %d, want 2", args, code)
		}
	}
}
