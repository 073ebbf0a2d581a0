package activity

import (
	"context"
	"path"
	"path/filepath"
	"sort"
	"time"

	"github.com/plugboard/plugboard/backend/assign"
	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/settings"
	"github.com/plugboard/plugboard/backend/store"
)

// Report is what "plugboard activity --json" prints.
type Report struct {
	Skills []SkillUse `json:"skills"`
	Tools  []ToolUse  `json:"tools"`
	Unused []Unused   `json:"unused"`
}

// ToolUse is one MCP tool's recorded calls, through plugboard mcp-stdio or mcp-proxy.
type ToolUse struct {
	Server string `json:"server"` // as the launch configured it
	Plugin string `json:"plugin"` // the plugin that declares the server
	Tool   string `json:"tool"`
	Calls  int    `json:"calls"`
	Errors int    `json:"errors"` // answered with a JSON-RPC error or a result with isError
	// P50ms is the median time from the call to its answer, in milliseconds.
	P50ms    int64          `json:"p50ms"`
	Last     time.Time      `json:"last"`
	ByTarget map[string]int `json:"byTarget"`
}

// SkillUse is one skill's recorded uses.
type SkillUse struct {
	ID     string    `json:"id"`     // as the agent names it
	Plugin string    `json:"plugin"` // plugin id; "" for a skill the launch did not hand over
	Uses   int       `json:"uses"`
	Last   time.Time `json:"last"`
	// ByTarget counts the uses per launched target (a claude started by hand, outside
	// plugboard launch, has none and counts in Uses only).
	ByTarget map[string]int `json:"byTarget"`
	// ByDay counts the uses per day, by the local date ("2006-01-02").
	ByDay map[string]int `json:"byDay"`
}

// DayLayout is how ByDay writes a day.
const DayLayout = "2006-01-02"

// Unused is a skill of a plugin assigned to a target that the target has not used since
// the plugin was assigned to it.
type Unused struct {
	ID     string `json:"id"`
	Plugin string `json:"plugin"`
	Target string `json:"target"`
	// AssignedSince is the time of the save that added the plugin to the target (to its
	// agent, for a slot that inherits the agent's set); null when no recorded save did
	// (the file was written by hand, or before the history began), and then no use ever
	// counts as unused.
	AssignedSince *time.Time `json:"assignedSince"`
}

// Input is what Summarize reads.
type Input struct {
	Records []store.Activity     // the records since Since
	History []store.HistoryEntry // the assignment history, newest first (store.History)
	Targets []assign.Target
	Catalog *catalog.Catalog
	Since   time.Time // zero: all time
	Target  string    // "" every target
}

// Summarize counts the records per skill (most used first) and the tool calls per server
// and tool, and lists the unused skills: for each target, each skill its backend (Claude
// or PI) gets from each plugin in effect, under the name that backend gives it, with no
// use by that target since the later of Since and the time the plugin was assigned.
func Summarize(in Input) Report {
	r := Report{Skills: []SkillUse{}, Tools: tools(in), Unused: []Unused{}}
	type skillKey struct{ id, plugin string }
	uses := map[skillKey]*SkillUse{}
	for _, a := range in.Records {
		if a.IsTool() || in.Target != "" && a.Target != in.Target {
			continue
		}
		k := skillKey{a.Skill, a.Plugin}
		u := uses[k]
		if u == nil {
			u = &SkillUse{ID: a.Skill, Plugin: a.Plugin, ByTarget: map[string]int{}, ByDay: map[string]int{}}
			uses[k] = u
		}
		u.Uses++
		if a.Time.After(u.Last) {
			u.Last = a.Time
		}
		if a.Target != "" {
			u.ByTarget[a.Target]++
		}
		u.ByDay[a.Time.Local().Format(DayLayout)]++
	}
	for _, u := range uses {
		r.Skills = append(r.Skills, *u)
	}
	sort.Slice(r.Skills, func(i, j int) bool {
		a, b := r.Skills[i], r.Skills[j]
		if a.Uses != b.Uses {
			return a.Uses > b.Uses
		}
		if a.ID != b.ID {
			return a.ID < b.ID
		}
		return a.Plugin < b.Plugin
	})
	r.Unused = unused(in)
	return r
}

// tools counts the tool calls per server and tool, most called first.
func tools(in Input) []ToolUse {
	type toolKey struct{ plugin, server, tool string }
	calls := map[toolKey]*ToolUse{}
	ms := map[toolKey][]int64{}
	for _, a := range in.Records {
		if !a.IsTool() || in.Target != "" && a.Target != in.Target {
			continue
		}
		k := toolKey{a.Plugin, a.Server, a.Tool}
		u := calls[k]
		if u == nil {
			u = &ToolUse{Server: a.Server, Plugin: a.Plugin, Tool: a.Tool, ByTarget: map[string]int{}}
			calls[k] = u
		}
		u.Calls++
		if a.Failed {
			u.Errors++
		}
		if a.Time.After(u.Last) {
			u.Last = a.Time
		}
		if a.Target != "" {
			u.ByTarget[a.Target]++
		}
		ms[k] = append(ms[k], a.MS)
	}
	out := make([]ToolUse, 0, len(calls))
	for k, u := range calls {
		u.P50ms = median(ms[k])
		out = append(out, *u)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Calls != b.Calls {
			return a.Calls > b.Calls
		}
		if a.Server != b.Server {
			return a.Server < b.Server
		}
		if a.Tool != b.Tool {
			return a.Tool < b.Tool
		}
		return a.Plugin < b.Plugin
	})
	return out
}

// median is the middle value of v (the lower of the two middle ones for an even count).
func median(v []int64) int64 {
	if len(v) == 0 {
		return 0
	}
	sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	return v[(len(v)-1)/2]
}

func unused(in Input) []Unused {
	out := []Unused{}
	if in.Catalog == nil {
		return out
	}
	plugins := map[string]*catalog.Plugin{}
	for i := range in.Catalog.Plugins {
		if p := &in.Catalog.Plugins[i]; plugins[p.ID] == nil {
			plugins[p.ID] = p
		}
	}
	agents := map[string]*assign.Target{}
	for i := range in.Targets {
		if t := &in.Targets[i]; t.Kind == assign.KindAgent {
			agents[t.Name] = t
		}
	}
	last := newLastUses(in.Records) // tool calls have no skill name, so they never match one
	for _, t := range in.Targets {
		if t.Kind == assign.KindActive || in.Target != "" && t.ID != in.Target {
			continue
		}
		holder, backend := t, t.Backend
		if a := agents[t.Ref]; t.Kind != assign.KindAgent && a != nil {
			backend = a.Backend
			if t.Inherits {
				holder = *a
			}
		}
		if backend != runtime.PI {
			backend = runtime.Claude // an agent with no backend launches Claude
		}
		for _, pid := range t.Effective {
			p := plugins[pid]
			if p == nil {
				continue
			}
			since := assignedSince(in.History, holder, pid)
			cutoff := in.Since
			if since != nil && since.After(cutoff) {
				cutoff = *since
			}
			for _, name := range runtime.SkillNames(backend, p, in.Catalog.Settings) {
				if !last.usedSince(t.ID, pid, name, cutoff) {
					out = append(out, Unused{ID: name, Plugin: pid, Target: t.ID, AssignedSince: since})
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Target != out[j].Target {
			return out[i].Target < out[j].Target
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// lastUses is the latest use of each skill by each target, by plugin ("" for a use the
// launch could not attribute to a plugin).
type lastUses map[[3]string]time.Time

func newLastUses(recs []store.Activity) lastUses {
	m := lastUses{}
	for _, a := range recs {
		k := [3]string{a.Target, a.Skill, a.Plugin}
		if a.Time.After(m[k]) {
			m[k] = a.Time
		}
	}
	return m
}

// usedSince reports whether target used plugin's skill at or after cutoff.
func (m lastUses) usedSince(target, plugin, skill string, cutoff time.Time) bool {
	for _, p := range []string{plugin, ""} {
		if t, ok := m[[3]string{target, skill, p}]; ok && !t.Before(cutoff) {
			return true
		}
	}
	return false
}

// assignedSince is the time of the latest save of holder's file that added the entry
// for plugin pid while it has stayed assigned since, or nil when no recorded save did.
func assignedSince(history []store.HistoryEntry, holder assign.Target, pid string) *time.Time {
	var dir string
	for _, e := range holder.Entries {
		if e.ID == pid {
			dir = cleanEntry(e.Dir)
			break
		}
	}
	if dir == "" {
		return nil
	}
	var since *time.Time
	for i := len(history) - 1; i >= 0; i-- { // oldest first
		e := history[i]
		if e.Target != holder.ID || e.Kind == store.KindAck {
			continue
		}
		now, was := hasEntry(e.After, dir), hasEntry(e.Before, dir)
		switch {
		case now && !was:
			t := e.Time
			since = &t
		case !now:
			since = nil
		}
	}
	return since
}

func hasEntry(dirs []string, dir string) bool {
	for _, d := range dirs {
		if cleanEntry(d) == dir {
			return true
		}
	}
	return false
}

func cleanEntry(d string) string { return path.Clean(filepath.ToSlash(d)) }

// Load reads what a report needs from the Plugboard home pbHome — the records since
// since (zero: all), the history, the targets over cat — and summarises them for target
// ("" every target). Opening the store imports what hooks spooled; its warnings (a
// database moved aside) are returned. Records older than the retention the settings
// give (activityRetentionDays) are removed first.
func Load(ctx context.Context, pbHome string, cat *catalog.Catalog, since time.Time, target string) (Report, []string, error) {
	st, warnings, err := store.Open(ctx, pbHome, store.PartActivity, store.PartHistory)
	if err != nil {
		return Report{}, warnings, err
	}
	defer st.Close()
	if err := Prune(ctx, st, cat.Settings, time.Now()); err != nil {
		return Report{}, warnings, err
	}
	recs, err := st.Activity(ctx, since)
	if err != nil {
		return Report{}, warnings, err
	}
	history, err := st.History(ctx, "", 0)
	if err != nil {
		return Report{}, warnings, err
	}
	targets, _ := assign.Targets(pbHome, cat)
	return Summarize(Input{Records: recs, History: history, Targets: targets, Catalog: cat, Since: since, Target: target}), warnings, nil
}

// Prune removes the records older than the settings' retention (none when it is 0).
func Prune(ctx context.Context, st *store.Store, s settings.Settings, now time.Time) error {
	if s.ActivityRetentionDays <= 0 {
		return nil
	}
	_, err := st.PruneActivity(ctx, now.AddDate(0, 0, -s.ActivityRetentionDays))
	return err
}
