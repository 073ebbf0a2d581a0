package activity

import (
	"bytes"
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

// Hook inputs as Claude Code 2.1.197 gives them (seen with the real claude driven by the
// scripted model), with values that must never be kept.
const (
	postSkill = `{"session_id":"eb9bb451-a3c0-40d2-aabc-a1b2d9182347","transcript_path":"/h/.claude/projects/-w/eb9bb451.jsonl","cwd":"/w","prompt_id":"d039bcc3","permission_mode":"default","effort":{"level":"high"},"hook_event_name":"PostToolUse","tool_name":"Skill","tool_input":{"skill":"SKILL","args":"SECRET-ARGS"},"tool_response":{"success":true,"commandName":"RESOLVED"},"tool_use_id":"toolu_1","duration_ms":13}`
	expansion = `{"session_id":"09a6434d-1df2-48d8-9a37-13a4410e2e95","transcript_path":"/h/.claude/projects/-w/09a6434d.jsonl","cwd":"/w","prompt_id":"d3ff6003","permission_mode":"default","hook_event_name":"UserPromptExpansion","expansion_type":"slash_command","command_name":"alpha:summarize","command_args":"SECRET-PROMPT","command_source":"plugin","prompt":"/alpha:summarize SECRET-PROMPT"}`
	submit    = `{"session_id":"09a6434d","cwd":"/w","prompt_id":"d3ff6003","hook_event_name":"UserPromptSubmit","prompt":"/alpha:summarize SECRET-PROMPT"}`
)

func skillInput(skill, resolved string) string {
	return strings.NewReplacer("SKILL", skill, "RESOLVED", resolved).Replace(postSkill)
}

var testIndex = &runtime.ActivityIndex{V: 1, Home: "/pb", Backend: "claude", Fingerprint: "sha256:fp", Skills: map[string]runtime.IndexedSkill{
	"alpha:summarize": {Plugin: "alpha", Version: "1.2.3", Hash: "sha256:aaa"},
	"beta:summarize":  {Plugin: "beta@market", Version: "2.0.0", Hash: "sha256:bbb"},
	"beta:translate":  {Plugin: "beta@market", Version: "2.0.0", Hash: "sha256:ccc"},
}}

func TestFromClaudeHook(t *testing.T) {
	home := t.TempDir()
	testhome.WriteFile(t, filepath.Join(home, ".claude", "skills", "review", "SKILL.md"), "---\nname: review\n---\n")
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	w := Where{Target: "agent:coder", Home: home, Now: now}
	tests := []struct {
		name, input              string
		ok                       bool
		skill, plugin, hash, how string
	}{
		{"Skill call", skillInput("alpha:summarize", "alpha:summarize"), true, "alpha:summarize", "alpha", "sha256:aaa", store.HowModel},
		{"Skill call, the name Claude resolved wins", skillInput("x", "beta:translate"), true, "beta:translate", "beta@market", "sha256:ccc", store.HowModel},
		{"bare name of one plugin skill", skillInput("translate", "translate"), true, "beta:translate", "beta@market", "sha256:ccc", store.HowModel},
		{"bare name two plugins have", skillInput("summarize", "summarize"), true, "summarize", "", "", store.HowModel},
		{"bare name of a standalone skill", skillInput("review", "review"), true, "review", "", "", store.HowModel},
		{"a skill the launch did not hand over", skillInput("other:thing", "other:thing"), true, "other:thing", "", "", store.HowModel},
		{"slash command", expansion, true, "alpha:summarize", "alpha", "sha256:aaa", store.HowUser},
		{"failed Skill call", strings.Replace(skillInput("alpha:summarize", "alpha:summarize"), `"success":true`, `"success":false`, 1), false, "", "", "", ""},
		{"another tool", strings.Replace(skillInput("a", "a"), `"tool_name":"Skill"`, `"tool_name":"Read"`, 1), false, "", "", "", ""},
		{"PreToolUse", strings.Replace(skillInput("a", "a"), "PostToolUse", "PreToolUse", 1), false, "", "", "", ""},
		{"an MCP prompt", strings.Replace(expansion, "slash_command", "mcp_prompt", 1), false, "", "", "", ""},
		{"the prompt itself", submit, false, "", "", "", ""},
		{"a name with a space", skillInput("a b", "a b"), false, "", "", "", ""},
		{"not JSON", "hello", false, "", "", "", ""},
	}
	for _, tt := range tests {
		a, ok := FromClaudeHook([]byte(tt.input), testIndex, w)
		if ok != tt.ok {
			t.Errorf("%s: FromClaudeHook ok = %v, want %v (%+v)", tt.name, ok, tt.ok, a)
			continue
		}
		if !ok {
			continue
		}
		if a.Skill != tt.skill || a.Plugin != tt.plugin || a.Hash != tt.hash || a.How != tt.how || a.Target != "agent:coder" ||
			a.Backend != "claude" || a.Fingerprint != "sha256:fp" || a.Session == "" || !a.Time.Equal(now) || a.Key == "" {
			t.Errorf("%s: FromClaudeHook = %+v\nwant skill %s, plugin %q, hash %q, how %s", tt.name, a, tt.skill, tt.plugin, tt.hash, tt.how)
		}
		if strings.Contains(a.Skill+a.Plugin+a.Session+a.Key, "SECRET") {
			t.Errorf("%s: the record holds an argument: %+v", tt.name, a)
		}
	}
	// The key names the call: the same input is the same key, another call another.
	a1, _ := FromClaudeHook([]byte(skillInput("alpha:summarize", "alpha:summarize")), testIndex, w)
	a2, _ := FromClaudeHook([]byte(skillInput("alpha:summarize", "alpha:summarize")), nil, w)
	a3, _ := FromClaudeHook([]byte(strings.Replace(skillInput("alpha:summarize", "alpha:summarize"), "toolu_1", "toolu_2", 1)), testIndex, w)
	if a1.Key != a2.Key || a1.Key == a3.Key {
		t.Errorf("keys %s, %s, %s: want the first two equal and the third different", a1.Key, a2.Key, a3.Key)
	}
}

// Record reads the index, the target from the environment and writes the store of the
// index's home; an input that reports nothing writes nothing.
func TestRecord(t *testing.T) {
	pb := filepath.Join(t.TempDir(), ".plugboard")
	st, _, err := store.Open(context.Background(), pb)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	index := filepath.Join(pb, "runtime", "claude", "0123", runtime.ActivityIndexFile)
	testhome.WriteFile(t, index, `{"v": 1, "home": "`+pb+`", "backend": "claude", "fingerprint": "sha256:fp",
		"skills": {"alpha:summarize": {"plugin": "alpha", "version": "1.2.3", "hash": "sha256:aaa"}}}`)
	getenv := func(k string) string { return map[string]string{runtime.ActivityTargetEnv: "agent:coder"}[k] }
	ctx := context.Background()
	for _, input := range []string{submit, "", "{", skillInput("alpha:summarize", "alpha:summarize"), expansion} {
		if _, err := Record(ctx, index, strings.NewReader(input), getenv); err != nil {
			t.Errorf("Record(%.30q) = %v", input, err)
		}
	}
	// Without its index (a projection pruned under a live session) the record still
	// goes to the home that holds the projection, with no plugin.
	if err := os.Remove(index); err != nil {
		t.Fatal(err)
	}
	out, err := Record(ctx, index, strings.NewReader(strings.Replace(skillInput("alpha:summarize", "alpha:summarize"), "toolu_1", "toolu_9", 1)), getenv)
	if err != nil || !out.Recorded || out.Spooled || out.Activity.Plugin != "" || out.Activity.Backend != "claude" {
		t.Errorf("Record without an index = %+v, %v", out, err)
	}
	if _, err := Record(ctx, index, bytes.NewReader(bytes.Repeat([]byte(" "), maxHookInput+1)), getenv); err == nil {
		t.Error("Record of an input larger than a hook's: no error")
	}
	recs, err := st.Activity(ctx, time.Time{})
	if err != nil || len(recs) != 3 {
		t.Fatalf("stored %+v, %v; want 3 rows", recs, err)
	}
	for i, want := range []struct{ skill, plugin, how string }{
		{"alpha:summarize", "alpha", store.HowModel}, {"alpha:summarize", "alpha", store.HowUser}, {"alpha:summarize", "", store.HowModel}} {
		if r := recs[i]; r.Skill != want.skill || r.Plugin != want.plugin || r.How != want.how || r.Target != "agent:coder" {
			t.Errorf("row %d = %+v, want %+v", i, r, want)
		}
	}
}
