package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/testhome"
)

// assignHome copies the assignment fixture home; env points --home at it.
func assignHome(t *testing.T) (pb string, env map[string]string) {
	pb = testhome.CopyTestdata(t, "assign/home")
	return pb, map[string]string{"HOME": t.TempDir(), "PLUGBOARD_HOME": pb}
}

func targetHash(t *testing.T, env map[string]string, id string) string {
	t.Helper()
	code, out, _ := run(t, env, "targets", "--json")
	var doc struct {
		Targets []struct{ ID, Hash string }
	}
	if code != ExitOK || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("targets --json = %d %s", code, out)
	}
	for _, tg := range doc.Targets {
		if tg.ID == id {
			return tg.Hash
		}
	}
	t.Fatalf("no target %s", id)
	return ""
}

func TestAssignExitCodes(t *testing.T) {
	pb, env := assignHome(t)
	agent := filepath.Join(pb, "agents", "researcher.json")
	hash := targetHash(t, env, "agent:researcher")

	// 1: refused by a rule (an invalid plugin cannot be added), nothing written.
	before, _ := os.ReadFile(filepath.Join(pb, "agents", "bare.json"))
	if code, _, errOut := run(t, env, "assign", "agent:bare", "--add", "broken"); code != ExitInvalid || !strings.Contains(errOut, "refused") || !strings.Contains(errOut, "broken") {
		t.Errorf("invalid add = %d %q, want 1 naming the plugin", code, errOut)
	}
	if code, _, errOut := run(t, env, "assign", "agent:bare", "--set", "notes,nosuch"); code != ExitInvalid || !strings.Contains(errOut, "nosuch") {
		t.Errorf("unknown id = %d %q, want 1 naming the id", code, errOut)
	}
	if after, _ := os.ReadFile(filepath.Join(pb, "agents", "bare.json")); string(after) != string(before) {
		t.Errorf("a refused save wrote the file")
	}
	// 4: an MCP acknowledgment is needed; the servers are listed, sanitised.
	code, _, errOut := run(t, env, "assign", "agent:researcher", "--add", "tools", "--expect-hash", hash)
	if code != ExitNeedAck || !strings.Contains(errOut, "--ack-mcp") || strings.Contains(errOut, "PLANTED") {
		t.Errorf("MCP add without ack = %d %q, want 4", code, errOut)
	}
	// 0: saved with the acknowledgment.
	code, out, _ := run(t, env, "assign", "agent:researcher", "--add", "tools", "--expect-hash", hash, "--ack-mcp", "--json")
	if code != ExitOK || !strings.Contains(out, `"history"`) {
		t.Fatalf("ack save = %d %s", code, out)
	}
	if b, _ := os.ReadFile(agent); !strings.Contains(string(b), "plugins/tools") || !strings.Contains(string(b), "/opt/shared/plugins/house") {
		t.Errorf("saved file lacks the new entry or lost the unmanaged one:\n%s", b)
	}
	// 3: the old hash is stale now; the fresh target is printed and nothing is written.
	saved, _ := os.ReadFile(agent)
	code, out, _ = run(t, env, "assign", "agent:researcher", "--remove", "notes", "--expect-hash", hash)
	if code != ExitStale || !strings.Contains(out, "agent:researcher") {
		t.Errorf("stale save = %d %s, want 3 with the fresh target", code, out)
	}
	if now, _ := os.ReadFile(agent); string(now) != string(saved) {
		t.Errorf("a stale save wrote the file")
	}
	// 2: usage.
	for _, args := range [][]string{{"assign", "agent:researcher"}, {"assign", "agent:researcher", "--add", "a", "--remove", "b"}, {"assign"}} {
		if code, _, _ := run(t, env, args...); code != ExitUsage {
			t.Errorf("%v = %d, want 2", args, code)
		}
	}
	// Read-only targets are refused.
	if code, _, _ := run(t, env, "assign", "shell:main-shell", "--add", "notes"); code == ExitOK {
		t.Errorf("a read-only shell binding was saved")
	}
}

// A save re-run with --json (a CI job run twice) prints the same JSON document, written
// false and no history entry, instead of a sentence a JSON reader cannot parse.
func TestAssignJSONWhenNothingChanges(t *testing.T) {
	_, env := assignHome(t)
	var docs [2]struct {
		After     []string `json:"after"`
		AfterHash string   `json:"afterHash"`
		Written   *bool    `json:"written"`
		History   int64    `json:"history"`
	}
	for i := range docs {
		code, out, errOut := run(t, env, "assign", "agent:bare", "--set", "notes", "--json")
		if code != ExitOK {
			t.Fatalf("run %d: assign = %d %s %s", i+1, code, out, errOut)
		}
		if err := json.Unmarshal([]byte(out), &docs[i]); err != nil {
			t.Fatalf("run %d: assign --json printed %q: %v", i+1, out, err)
		}
	}
	first, again := docs[0], docs[1]
	if first.Written == nil || !*first.Written || first.History == 0 {
		t.Errorf("first save: written %v, history %d; want true and an entry", first.Written, first.History)
	}
	if again.Written == nil || *again.Written || again.History != 0 {
		t.Errorf("same save again: written %v, history %d; want false and 0", again.Written, again.History)
	}
	if again.AfterHash != first.AfterHash || strings.Join(again.After, ",") != strings.Join(first.After, ",") {
		t.Errorf("same save again: after %v %s, want %v %s", again.After, again.AfterHash, first.After, first.AfterHash)
	}
	// Without --json the sentence stays.
	if code, out, _ := run(t, env, "assign", "agent:bare", "--set", "notes"); code != ExitOK || !strings.Contains(out, "nothing to save") {
		t.Errorf("same save in text = %d %q", code, out)
	}
}

func TestHistoryAndRevert(t *testing.T) {
	pb, env := assignHome(t)
	slot := filepath.Join(pb, "templates", "review.json")
	original, _ := os.ReadFile(slot)

	// A slot that inherits gets a custom set, then the save is reverted: the file is back,
	// the slot inherits again, and the revert is itself a history entry.
	if code, _, errOut := run(t, env, "assign", "template:review/researcher", "--set", "notes"); code != ExitOK {
		t.Fatalf("custom set = %d %s", code, errOut)
	}
	code, out, _ := run(t, env, "history", "--json", "template:review/researcher")
	var h struct {
		Entries []struct {
			ID          int64
			Target      string
			Before      []string
			After       []string
			BeforeUnset bool
			RevertOf    int64
		}
	}
	if code != ExitOK || json.Unmarshal([]byte(out), &h) != nil || len(h.Entries) != 1 || !h.Entries[0].BeforeUnset || h.Entries[0].After[0] != "plugins/notes" {
		t.Fatalf("history = %d %s", code, out)
	}
	id := h.Entries[0].ID
	if code, _, errOut := run(t, env, "revert", strings.TrimSpace(jsonNumber(id))); code != ExitOK {
		t.Fatalf("revert = %d %s", code, errOut)
	}
	if b, _ := os.ReadFile(slot); string(b) != string(original) {
		t.Errorf("revert did not restore the file:\n%s\nwant\n%s", b, original)
	}
	code, out, _ = run(t, env, "history", "--json")
	json.Unmarshal([]byte(out), &h)
	if code != ExitOK || len(h.Entries) != 2 || h.Entries[0].RevertOf != id {
		t.Errorf("history after revert = %s", out)
	}
	// Reverting the same entry again is refused: it says the entry was reverted.
	if code, _, errOut := run(t, env, "revert", jsonNumber(id)); code != ExitInvalid || !strings.Contains(errOut, "already reverted by entry") {
		t.Errorf("second revert = %d %s, want 1 and that it was already reverted", code, errOut)
	}
	code, out, _ = run(t, env, "history")
	if code != ExitOK || !strings.Contains(out, "(revert of") {
		t.Errorf("history text = %s", out)
	}
	for _, args := range [][]string{{"revert"}, {"revert", "x"}, {"revert", "999"}} {
		if code, _, _ := run(t, env, args...); code != ExitUsage {
			t.Errorf("%v = %d, want 2", args, code)
		}
	}
}

func jsonNumber(n int64) string { b, _ := json.Marshal(n); return string(b) }

// A file its owner may not write is refused with the fix named and left as it is; an
// unknown history entry points at plugboard history.
func TestAssignRefusesReadOnlyFile(t *testing.T) {
	pb, env := assignHome(t)
	p := filepath.Join(pb, "templates", "review.json")
	before, _ := os.ReadFile(p)
	os.Chmod(p, 0o444)
	code, _, errOut := run(t, env, "assign", "template:review/bare", "--defaults")
	if code != ExitUsage || !strings.Contains(errOut, "chmod u+w "+p) {
		t.Errorf("assign to a read-only file = %d %q; want 2 naming chmod u+w %s", code, errOut, p)
	}
	if after, _ := os.ReadFile(p); string(after) != string(before) {
		t.Errorf("a read-only file was replaced")
	}
	if code, _, errOut := run(t, env, "revert", "999"); code != ExitUsage || !strings.Contains(errOut, "(see plugboard history)") {
		t.Errorf("revert 999 = %d %q", code, errOut)
	}
}

// A revert of an entry that does not exist says so once, as revert, with where to look.
func TestRevertOfAMissingEntry(t *testing.T) {
	_, env := assignHome(t)
	run(t, env, "assign", "agent:bare", "--set", "notes") // a database with history in it
	code, _, errOut := run(t, env, "revert", "999")
	want := "plugboard revert: history entry 999: not found (see plugboard history)\n"
	if code != ExitUsage || errOut != want {
		t.Errorf("revert 999 = %d %q, want %d %q", code, errOut, ExitUsage, want)
	}
}
