package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/activity"
	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/store"
	"github.com/plugboard/plugboard/backend/testhome"
)

// runWith runs one command line with stdin and the environment env.
func runWith(args []string, stdin string, env map[string]string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = Main(args, Env{Stdout: &out, Stderr: &errOut, Stdin: strings.NewReader(stdin), Getenv: func(k string) string { return env[k] }})
	return code, out.String(), errOut.String()
}

// The hook never fails the agent and never prints on stdout (which Claude may hand to
// the model): not with a wrong command line, not with input that is no hook's, not when
// the record can be neither written nor spooled.
func TestActivityRecordNeverFailsTheAgent(t *testing.T) {
	home := t.TempDir()
	pb := filepath.Join(home, ".plugboard")
	index := filepath.Join(pb, "runtime", "claude", "0123", runtime.ActivityIndexFile)
	testhome.WriteFile(t, index, `{"v": 1, "home": "`+pb+`", "backend": "claude", "fingerprint": "sha256:fp", "skills": {}}`)
	// "state" is a file: there is no database and no spool can be made.
	testhome.WriteFile(t, filepath.Join(pb, "state"), "not a folder")
	skill := `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Skill","tool_input":{"skill":"kit:brief"},"tool_use_id":"t"}`
	env := map[string]string{"HOME": home, runtime.ActivityTargetEnv: "agent:coder"}
	for _, c := range []struct {
		name, stdin string
		args        []string
		stderr      string
	}{
		{"no index", skill, []string{"activity", "record"}, "usage: plugboard activity record INDEX"},
		{"not a hook's input", "hello", []string{"activity", "record", index}, ""},
		{"no index file", skill, []string{"activity", "record", filepath.Join(t.TempDir(), "a", "b", "c", "activity.json")}, ""},
		{"nowhere to write", skill, []string{"activity", "record", index}, "plugboard activity record: record skill activity"},
	} {
		code, stdout, stderr := runWith(c.args, c.stdin, env)
		if code != ExitOK || stdout != "" || !strings.Contains(stderr, c.stderr) || (c.stderr == "" && stderr != "") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 0, nothing on stdout, stderr %q", c.name, code, stdout, stderr, c.stderr)
		}
	}
}

func TestActivityCommand(t *testing.T) {
	pb, env := launchHome(t)
	st, _, err := store.Open(context.Background(), pb)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	recs := []store.Activity{
		{Key: "1", Time: now.Add(-48 * time.Hour), Target: "agent:coder", Skill: "review:check", Plugin: "review", How: store.HowModel},
		{Key: "2", Time: now.Add(-time.Hour), Target: "agent:coder", Skill: "review:check", Plugin: "review", How: store.HowUser},
		{Key: "3", Time: now.Add(-time.Hour), Target: "template:team/coder", Skill: "legacy-tools:grep-help", Plugin: "legacy-tools", How: store.HowModel},
	}
	if _, err := st.AddActivity(context.Background(), recs...); err != nil {
		t.Fatal(err)
	}
	st.Close()

	code, stdout, stderr := run(t, env, "activity")
	if code != ExitOK {
		t.Fatalf("activity: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"SKILL", "review:check", "agent:coder 2", "legacy-tools:grep-help", "template:team/coder 1",
		"not used since they were assigned:", "review:explain", "before the recorded history"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("activity printed\n%s\nwant it to say %q", stdout, want)
		}
	}

	code, stdout, stderr = run(t, env, "activity", "--json", "--since", "1d", "coder")
	var rep activity.Report
	if code != ExitOK || json.Unmarshal([]byte(stdout), &rep) != nil {
		t.Fatalf("activity --json --since 1d coder: exit %d: %s%s", code, stdout, stderr)
	}
	if len(rep.Skills) != 1 || rep.Skills[0].ID != "review:check" || rep.Skills[0].Uses != 1 || rep.Skills[0].ByTarget["agent:coder"] != 1 {
		t.Errorf("activity of agent:coder in the last day: %+v, want review:check once", rep.Skills)
	}
	for _, u := range rep.Unused {
		if u.Target != "agent:coder" || u.ID == "review:check" {
			t.Errorf("unused %+v: want agent:coder's skills but review:check", u)
		}
	}

	for _, args := range [][]string{{"activity", "--since", "5x"}, {"activity", "--since", "-1h"}, {"activity", "a", "b"}} {
		if code, _, _ := run(t, env, args...); code != ExitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, ExitUsage)
		}
	}
}
