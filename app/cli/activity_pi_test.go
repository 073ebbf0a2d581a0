package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/store"
	"github.com/plugboard/plugboard/backend/testhome"
)

// "activity record --pi INDEX", what a launched pi's extension runs, records the event
// on stdin for the index's home and, like the Claude form, never fails the agent and
// never prints on stdout (pi's answer in print mode): not with a wrong command line, not
// with input that is not the extension's, not when the record can be neither written
// nor spooled.
func TestActivityRecordPI(t *testing.T) {
	home := t.TempDir()
	pb := filepath.Join(home, ".plugboard")
	index := filepath.Join(pb, "runtime", "pi", "0123", runtime.ActivityIndexFile)
	testhome.WriteFile(t, index, `{"v": 1, "home": "`+pb+`", "backend": "pi", "fingerprint": "sha256:fp",
		"skills": {"brief": {"plugin": "kit", "version": "1.0.0", "hash": "sha256:aaa", "location": "/p/skills/brief/SKILL.md"}}}`)
	read := `{"event":"read","skill":"brief","session":"s-1","call":"toolu_1"}`
	env := map[string]string{"HOME": home, runtime.ActivityTargetEnv: "agent:pi-coder"}
	for _, c := range []struct {
		name, stdin string
		args        []string
		stderr      string
	}{
		{"no index", read, []string{"activity", "record", "--pi"}, "usage: plugboard activity record INDEX"},
		{"two indexes", read, []string{"activity", "record", "--pi", index, index}, "usage: plugboard activity record INDEX"},
		{"not the extension's input", "hello", []string{"activity", "record", "--pi", index}, ""},
		{"a read", read, []string{"activity", "record", "--pi", index}, ""},
		{"the same read again", read, []string{"activity", "record", "--pi", index}, ""},
		{"a Claude hook's input", `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Skill","tool_input":{"skill":"kit:brief"},"tool_use_id":"t"}`,
			[]string{"activity", "record", "--pi", index}, ""},
	} {
		code, stdout, stderr := runWith(c.args, c.stdin, env)
		if code != ExitOK || stdout != "" || !strings.Contains(stderr, c.stderr) || (c.stderr == "" && stderr != "") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 0, nothing on stdout, stderr %q", c.name, code, stdout, stderr, c.stderr)
		}
	}
	st, _, err := store.Open(context.Background(), pb)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := st.Activity(context.Background(), time.Time{})
	st.Close()
	if err != nil || len(recs) != 1 || recs[0].Skill != "brief" || recs[0].Plugin != "kit" || recs[0].How != store.HowModel ||
		recs[0].Backend != runtime.PI || recs[0].Target != "agent:pi-coder" {
		t.Fatalf("stored %+v, %v; want the read once", recs, err)
	}

	// "state" is a file: there is no database and no spool can be made.
	if err := os.RemoveAll(filepath.Join(pb, "state")); err != nil {
		t.Fatal(err)
	}
	testhome.WriteFile(t, filepath.Join(pb, "state"), "not a folder")
	code, stdout, stderr := runWith([]string{"activity", "record", "--pi", index}, strings.Replace(read, "toolu_1", "toolu_2", 1), env)
	if code != ExitOK || stdout != "" || !strings.Contains(stderr, "plugboard activity record: record skill activity") {
		t.Errorf("nowhere to write: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
