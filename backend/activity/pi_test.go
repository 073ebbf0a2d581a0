package activity

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

// Events as piactivity.ts sends them.
const (
	piRead    = `{"event":"read","skill":"summarize","session":"019b2c1e-5d2a-7000-8000-4f1a2b3c4d5e","call":"toolu_e2e_1"}`
	piCommand = `{"event":"command","skill":"translate","session":"019b2c1e-5d2a-7000-8000-4f1a2b3c4d5e","call":"6f1c9e2a-0d4b-4c8e-9a7f-3b2d1e0c9f8a"}`
)

var piIndex = &runtime.ActivityIndex{V: 1, Home: "/pb", Backend: "pi", Fingerprint: "sha256:pifp", Skills: map[string]runtime.IndexedSkill{
	"summarize": {Plugin: "alpha", Version: "1.2.3", Hash: "sha256:aaa", Location: "/pb/runtime/pi/0123/skills/summarize/SKILL.md"},
	"translate": {Plugin: "beta@market", Version: "2.0.0", Hash: "sha256:ccc", Location: "/pb/runtime/pi/0123/skills/translate/SKILL.md"},
}}

func TestFromPIEvent(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	w := Where{Target: "agent:pi-coder", Now: now}
	tests := []struct {
		name, input                       string
		ok                                bool
		skill, plugin, version, hash, how string
	}{
		{"a read of a skill", piRead, true, "summarize", "alpha", "1.2.3", "sha256:aaa", store.HowModel},
		{"a skill command", piCommand, true, "translate", "beta@market", "2.0.0", "sha256:ccc", store.HowUser},
		{"a name the index does not know", strings.Replace(piRead, `"summarize"`, `"other"`, 1), true, "other", "", "", "", store.HowModel},
		{"members beside the extension's are not read", strings.Replace(piCommand, `{`, `{"prompt":"SECRET-PROMPT","args":{"path":"SECRET"},`, 1), true, "translate", "beta@market", "2.0.0", "sha256:ccc", store.HowUser},
		{"another event", strings.Replace(piRead, `"read"`, `"tool_call"`, 1), false, "", "", "", "", ""},
		{"no event", `{"skill":"summarize","session":"s","call":"c"}`, false, "", "", "", "", ""},
		{"no skill", strings.Replace(piRead, `"summarize"`, `""`, 1), false, "", "", "", "", ""},
		{"no session", strings.Replace(piRead, `"019b2c1e-5d2a-7000-8000-4f1a2b3c4d5e"`, `""`, 1), false, "", "", "", "", ""},
		{"no call id", strings.Replace(piCommand, `"6f1c9e2a-0d4b-4c8e-9a7f-3b2d1e0c9f8a"`, `""`, 1), false, "", "", "", "", ""},
		{"a name with a space", strings.Replace(piCommand, `"translate"`, `"translate SECRET-PROMPT"`, 1), false, "", "", "", "", ""},
		{"a name with a newline", strings.Replace(piCommand, `"translate"`, `"translate\nSECRET"`, 1), false, "", "", "", "", ""},
		{"a name with a NUL", strings.Replace(piCommand, `"translate"`, `"trans\u0000late"`, 1), false, "", "", "", "", ""},
		{"a session with an escape", strings.Replace(piRead, `"019b2c1e`, `"\u001b[2J019b2c1e`, 1), false, "", "", "", "", ""},
		{"a call id with DEL", strings.Replace(piRead, `"toolu_e2e_1"`, `"toolu\u007f"`, 1), false, "", "", "", "", ""},
		{"a long call id", strings.Replace(piRead, `"toolu_e2e_1"`, `"`+strings.Repeat("x", maxPIID+1)+`"`, 1), false, "", "", "", "", ""},
		{"a name of the wrong type", strings.Replace(piRead, `"summarize"`, `["summarize"]`, 1), false, "", "", "", "", ""},
		{"a Claude hook's input", postSkill, false, "", "", "", "", ""},
		{"not JSON", "hello", false, "", "", "", "", ""},
		{"nothing", "", false, "", "", "", "", ""},
	}
	for _, tt := range tests {
		a, ok := FromPIEvent([]byte(tt.input), piIndex, w)
		if ok != tt.ok {
			t.Errorf("%s: FromPIEvent ok = %v, want %v (%+v)", tt.name, ok, tt.ok, a)
			continue
		}
		if !ok {
			continue
		}
		if a.Skill != tt.skill || a.Plugin != tt.plugin || a.Version != tt.version || a.Hash != tt.hash || a.How != tt.how ||
			a.Target != "agent:pi-coder" || a.Backend != runtime.PI || a.Fingerprint != "sha256:pifp" || a.Session == "" ||
			!a.Time.Equal(now) || !strings.HasPrefix(a.Key, "p:") {
			t.Errorf("%s: FromPIEvent = %+v\nwant skill %s, plugin %q, version %q, hash %q, how %s", tt.name, a, tt.skill, tt.plugin, tt.version, tt.hash, tt.how)
		}
		if strings.Contains(a.Skill+a.Plugin+a.Session+a.Key, "SECRET") {
			t.Errorf("%s: the record holds an argument: %+v", tt.name, a)
		}
	}
	// Without an index the event is still a PI one, with no plugin.
	if a, ok := FromPIEvent([]byte(piRead), nil, w); !ok || a.Backend != runtime.PI || a.Plugin != "" || a.Fingerprint != "" {
		t.Errorf("FromPIEvent with no index = %+v, %v", a, ok)
	}
	// The key names the invocation: the same event is the same key; another call, another
	// session or another kind of event with the same id is another key.
	key := func(input string) string {
		a, _ := FromPIEvent([]byte(input), piIndex, w)
		return a.Key
	}
	same := key(piRead)
	for name, other := range map[string]string{
		"another call":    strings.Replace(piRead, "toolu_e2e_1", "toolu_e2e_2", 1),
		"another session": strings.Replace(piRead, "019b2c1e", "029b2c1e", 1),
		"a command":       strings.Replace(piRead, `"read"`, `"command"`, 1),
	} {
		if k := key(other); k == same || k == "" {
			t.Errorf("%s: key %q, the read's %q", name, k, same)
		}
	}
	if again := key(piRead); again != same {
		t.Errorf("the same event: keys %s and %s", same, again)
	}
}

// RecordPI reads a PI index and writes the store of its home, once per invocation; an
// event that reports nothing writes nothing, and a missing index still records, as PI's.
func TestRecordPI(t *testing.T) {
	pb := filepath.Join(t.TempDir(), ".plugboard")
	st, _, err := store.Open(context.Background(), pb)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	index := filepath.Join(pb, "runtime", "pi", "0123", runtime.ActivityIndexFile)
	testhome.WriteFile(t, index, `{"v": 1, "home": "`+pb+`", "backend": "pi", "fingerprint": "sha256:pifp",
		"record": ["/opt/plugboard", "activity", "record", "--pi", "`+index+`"],
		"skills": {"summarize": {"plugin": "alpha", "version": "1.2.3", "hash": "sha256:aaa", "location": "/x/SKILL.md"}}}`)
	env := map[string]string{runtime.ActivityTargetEnv: "agent:pi-coder", runtime.ActivityRunEnv: "run-7"}
	getenv := func(k string) string { return env[k] }
	ctx := context.Background()
	for _, input := range []string{piRead, "", "{", piRead, strings.Replace(piRead, `"read"`, `"other"`, 1), strings.Replace(piCommand, "translate", "summarize", 1)} {
		if _, err := RecordPI(ctx, index, strings.NewReader(input), getenv); err != nil {
			t.Errorf("RecordPI(%.30q) = %v", input, err)
		}
	}
	// A Claude hook's input given to the PI recorder, and a PI event to Claude's, are not
	// invocations.
	if out, err := RecordPI(ctx, index, strings.NewReader(postSkill), getenv); err != nil || out.Recorded {
		t.Errorf("RecordPI of a Claude hook's input = %+v, %v", out, err)
	}
	if out, err := Record(ctx, index, strings.NewReader(piRead), getenv); err != nil || out.Recorded {
		t.Errorf("Record of a PI event = %+v, %v", out, err)
	}
	if err := os.Remove(index); err != nil {
		t.Fatal(err)
	}
	out, err := RecordPI(ctx, index, strings.NewReader(strings.Replace(piRead, "toolu_e2e_1", "toolu_e2e_9", 1)), getenv)
	if err != nil || !out.Recorded || out.Spooled || out.Activity.Plugin != "" || out.Activity.Backend != runtime.PI {
		t.Errorf("RecordPI without an index = %+v, %v", out, err)
	}
	recs, err := st.Activity(ctx, time.Time{})
	if err != nil || len(recs) != 3 {
		t.Fatalf("stored %+v, %v; want 3 rows", recs, err)
	}
	for i, want := range []struct{ skill, plugin, fp, how string }{
		{"summarize", "alpha", "sha256:pifp", store.HowModel}, {"summarize", "alpha", "sha256:pifp", store.HowUser}, {"summarize", "", "", store.HowModel}} {
		if r := recs[i]; r.Skill != want.skill || r.Plugin != want.plugin || r.Fingerprint != want.fp || r.How != want.how ||
			r.Target != "agent:pi-coder" || r.Backend != runtime.PI || r.Run != "run-7" {
			t.Errorf("row %d = %+v, want %+v", i, r, want)
		}
	}
}
