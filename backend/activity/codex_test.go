package activity

import (
	"strings"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/store"
)

// A PreToolUse hook input as the real Codex 0.169.0 sends it (app/cli/codex_e2e_test.go
// records through it).
const codexRead = `{"session_id":"01a24de9-bc7a-74d1-bd56-d8005b05f6ad","turn_id":"01a24de9-bd0c","transcript_path":"/h/sessions/r.jsonl",` +
	`"cwd":"/work","hook_event_name":"PreToolUse","model":"m","permission_mode":"default","tool_name":"Bash",` +
	`"tool_input":{"command":"cat /pb/runtime/codex-home/0123/skills/summarize/SKILL.md"},"tool_use_id":"call_1"}`

var codexIndex = &runtime.ActivityIndex{V: 1, Home: "/pb", Backend: "codex", Fingerprint: "sha256:cxfp", Skills: map[string]runtime.IndexedSkill{
	"summarize": {Plugin: "alpha", Version: "1.2.3", Hash: "sha256:aaa", Location: "/pb/runtime/codex-home/0123/skills/summarize/SKILL.md"},
	"sum":       {Plugin: "beta", Version: "2.0.0", Hash: "sha256:bbb", Location: "/pb/runtime/codex-home/0123/skills/sum/SKILL.md"},
}}

func TestFromCodexHook(t *testing.T) {
	w := Where{Target: "agent:coder", Now: time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)}
	a, ok := FromCodexHook([]byte(codexRead), codexIndex, w)
	want := store.Activity{Time: w.Now, Target: "agent:coder", Backend: "codex", Session: "01a24de9-bc7a-74d1-bd56-d8005b05f6ad",
		Skill: "summarize", How: store.HowModel, Fingerprint: "sha256:cxfp", Plugin: "alpha", Version: "1.2.3", Hash: "sha256:aaa"}
	if !ok || a.Key == "" {
		t.Fatalf("a read of a skill: %+v, %v", a, ok)
	}
	a.Key = ""
	if a != want {
		t.Errorf("got %+v\nwant %+v", a, want)
	}
	two := strings.Replace(codexRead, `cat /pb`, `head /pb/runtime/codex-home/0123/skills/sum/SKILL.md; cat /pb`, 1)
	if a, ok := FromCodexHook([]byte(two), codexIndex, w); !ok || a.Skill != "sum" {
		t.Errorf("a command naming two skills records the first it names: %+v %v", a, ok)
	}
	for name, in := range map[string]string{
		"another tool":          strings.Replace(codexRead, `"Bash"`, `"apply_patch"`, 1),
		"after the tool":        strings.Replace(codexRead, `"PreToolUse"`, `"PostToolUse"`, 1),
		"no projected SKILL.md": strings.Replace(codexRead, `skills/summarize/SKILL.md`, `skills/summarize/notes.md`, 1),
		"the user's own copy":   strings.Replace(codexRead, `/pb/runtime/codex-home/0123/skills`, `/home/u/.agents/skills`, 1),
		"no session":            strings.Replace(codexRead, `"01a24de9-bc7a-74d1-bd56-d8005b05f6ad"`, `""`, 1),
		"not JSON":              `cat SKILL.md`,
	} {
		if a, ok := FromCodexHook([]byte(in), codexIndex, w); ok {
			t.Errorf("%s: recorded %+v", name, a)
		}
	}
	if _, ok := FromCodexHook([]byte(codexRead), nil, w); ok {
		t.Error("recorded with no index to match the command against")
	}
	// The same call recorded twice is one row: the key is a function of it.
	a1, _ := FromCodexHook([]byte(codexRead), codexIndex, w)
	a2, _ := FromCodexHook([]byte(codexRead), codexIndex, w)
	if a1.Key != a2.Key {
		t.Error("the key differs for the same call")
	}
}
