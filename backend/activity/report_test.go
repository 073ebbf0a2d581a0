package activity

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/assign"
	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/store"
	"github.com/plugboard/plugboard/backend/testhome"
)

// reportHome has two portable plugins, a Claude agent with both, a template slot that
// inherits it and a PI agent.
func reportHome(t *testing.T) (*catalog.Catalog, []assign.Target) {
	t.Helper()
	root := t.TempDir()
	pb := filepath.Join(root, ".plugboard")
	for name, skills := range map[string][]string{"alpha": {"summarize", "translate"}, "beta": {"draft"}} {
		dir := filepath.Join(pb, "plugins", name)
		testhome.WriteFile(t, filepath.Join(dir, "plugin.json"), `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "`+name+`", "version": "1.0.0", "description": "A test plugin"}`)
		for _, s := range skills {
			testhome.WriteFile(t, filepath.Join(dir, "skills", s, "SKILL.md"), "---\nname: "+s+"\ndescription: Do "+s+". Use when asked.\n---\nBody.\n")
		}
	}
	testhome.WriteFile(t, filepath.Join(pb, "agents", "coder.json"), `{"name": "coder", "pluginDirs": ["plugins/alpha", "plugins/beta"]}`)
	testhome.WriteFile(t, filepath.Join(pb, "agents", "pier.json"), `{"name": "pier", "backend": "pi", "pluginDirs": ["plugins/alpha"]}`)
	testhome.WriteFile(t, filepath.Join(pb, "templates", "team.json"), `{"name": "team", "agents": [{"ref": "coder"}]}`)
	cat := catalog.Load(catalog.Options{Home: root, PlugboardHome: pb})
	targets, issues := assign.Targets(pb, cat)
	if len(issues) > 0 {
		t.Fatalf("targets: %v", issues)
	}
	return cat, targets
}

func TestSummarize(t *testing.T) {
	cat, targets := reportHome(t)
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	at := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }
	save := func(h int, before, after []string) store.HistoryEntry {
		return store.HistoryEntry{Time: at(h), Target: "agent:coder", Before: before, After: after}
	}
	history := []store.HistoryEntry{ // newest first, as store.History returns it
		save(30, []string{"plugins/alpha"}, []string{"plugins/alpha", "plugins/beta"}), // beta again
		{Time: at(25), Target: "agent:coder", Kind: store.KindAck, Before: []string{"plugins/alpha"}, After: []string{"plugins/alpha"}},
		save(20, []string{"plugins/alpha", "plugins/beta"}, []string{"plugins/alpha"}), // beta removed
		save(10, []string{"./plugins/alpha"}, []string{"plugins/alpha", "plugins/beta"}),
		save(0, nil, []string{"plugins/alpha"}),
	}
	use := func(h int, target, skill, plugin, how string) store.Activity {
		return store.Activity{Key: skill + target, Time: at(h), Target: target, Skill: skill, Plugin: plugin, How: how}
	}
	records := []store.Activity{
		use(-1, "agent:coder", "alpha:translate", "alpha", store.HowModel), // before alpha was assigned
		use(5, "agent:coder", "alpha:summarize", "alpha", store.HowModel),
		use(15, "agent:coder", "beta:draft", "beta", store.HowUser), // before beta was assigned again
		use(40, "agent:coder", "alpha:summarize", "alpha", store.HowUser),
		use(41, "", "alpha:summarize", "", store.HowModel), // a claude run by hand
	}
	type unused struct {
		id, target string
		since      int // hours after t0; -1: null
	}
	tests := []struct {
		name   string
		in     Input
		skills map[string]string // id → uses, byTarget
		unused []unused
	}{{
		name:   "all",
		in:     Input{Records: records, History: history, Targets: targets, Catalog: cat},
		skills: map[string]string{"alpha:summarize/alpha": `2 {"agent:coder":2}`, "alpha:summarize/": `1 {}`, "alpha:translate/alpha": `1 {"agent:coder":1}`, "beta:draft/beta": `1 {"agent:coder":1}`},
		unused: []unused{{"alpha:translate", "agent:coder", 0}, {"beta:draft", "agent:coder", 30},
			// PI names a skill by its bare name; its file has no recorded save
			{"summarize", "agent:pier", -1}, {"translate", "agent:pier", -1},
			// the slot inherits the agent's set, assigned when the agent's was; launched never
			{"alpha:summarize", "template:team/coder", 0}, {"alpha:translate", "template:team/coder", 0}, {"beta:draft", "template:team/coder", 30}},
	}, {
		name:   "one target, since a time",
		in:     Input{Records: records[3:], History: history, Targets: targets, Catalog: cat, Since: at(35), Target: "agent:coder"},
		skills: map[string]string{"alpha:summarize/alpha": `1 {"agent:coder":1}`},
		unused: []unused{{"alpha:translate", "agent:coder", 0}, {"beta:draft", "agent:coder", 30}},
	}, {
		name:   "no history",
		in:     Input{Targets: targets, Catalog: cat, Target: "agent:coder"},
		skills: map[string]string{},
		unused: []unused{{"alpha:summarize", "agent:coder", -1}, {"alpha:translate", "agent:coder", -1}, {"beta:draft", "agent:coder", -1}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Summarize(tt.in)
			got := map[string]string{}
			for _, s := range r.Skills {
				b, _ := json.Marshal(s.ByTarget)
				got[s.ID+"/"+s.Plugin] = fmt.Sprintf("%d %s", s.Uses, b)
			}
			if len(got) != len(tt.skills) {
				t.Errorf("skills %v, want %v", got, tt.skills)
			}
			for k, v := range tt.skills {
				if got[k] != v {
					t.Errorf("skill %s = %q, want %q", k, got[k], v)
				}
			}
			if len(r.Skills) > 1 && r.Skills[0].Uses < r.Skills[len(r.Skills)-1].Uses {
				t.Errorf("skills not most used first: %+v", r.Skills)
			}
			var gotUnused []unused
			for _, u := range r.Unused {
				since := -1
				if u.AssignedSince != nil {
					since = int(u.AssignedSince.Sub(t0) / time.Hour)
				}
				gotUnused = append(gotUnused, unused{u.ID, u.Target, since})
			}
			if !slices.Equal(gotUnused, tt.unused) {
				t.Errorf("unused = %v\nwant %v", gotUnused, tt.unused)
			}
			if r.Tools == nil || len(r.Tools) != 0 {
				t.Errorf("tools = %v, want []", r.Tools)
			}
		})
	}
}

// Tool calls are counted per plugin, server and tool with their errors and median time,
// never as skills; each skill's uses are counted per local day.
func TestSummarizeToolsAndDays(t *testing.T) {
	day := time.Date(2026, 11, 3, 12, 0, 0, 0, time.Local)
	call := func(h int, tool string, ms int64, failed bool) store.Activity {
		return store.Activity{Key: fmt.Sprint(tool, h), Time: day.Add(time.Duration(h) * time.Hour), Target: "agent:coder",
			Kind: store.KindTool, Server: "db", Plugin: "alpha", Tool: tool, MS: ms, Failed: failed, How: store.HowModel}
	}
	skill := func(h int) store.Activity {
		return store.Activity{Key: fmt.Sprint("s", h), Time: day.Add(time.Duration(h) * time.Hour), Target: "agent:coder",
			Skill: "alpha:summarize", Plugin: "alpha", How: store.HowModel}
	}
	rep := Summarize(Input{Records: []store.Activity{
		call(0, "query", 40, false), call(1, "query", 10, true), call(2, "query", 30, false), call(3, "query", 20, false),
		call(4, "schema", 5, false), skill(0), skill(1), skill(24),
	}})
	want := []ToolUse{
		{Server: "db", Plugin: "alpha", Tool: "query", Calls: 4, Errors: 1, P50ms: 20, Last: day.Add(3 * time.Hour), ByTarget: map[string]int{"agent:coder": 4}},
		{Server: "db", Plugin: "alpha", Tool: "schema", Calls: 1, P50ms: 5, Last: day.Add(4 * time.Hour), ByTarget: map[string]int{"agent:coder": 1}},
	}
	got, _ := json.Marshal(rep.Tools)
	if w, _ := json.Marshal(want); string(got) != string(w) {
		t.Errorf("tools = %s\nwant %s", got, w)
	}
	if len(rep.Skills) != 1 || rep.Skills[0].Uses != 3 {
		t.Fatalf("skills = %+v, want alpha:summarize used 3 times (tool calls are not skills)", rep.Skills)
	}
	if got := rep.Skills[0].ByDay; len(got) != 2 || got["2026-11-03"] != 2 || got["2026-11-04"] != 1 {
		t.Errorf("byDay = %v, want 2026-11-03: 2, 2026-11-04: 1", got)
	}
}
