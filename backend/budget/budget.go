// Package budget predicts what a launch puts in front of the model for its skills: the
// exact skill listing each backend renders (docs/budget.md says how each client does it,
// read from Claude Code 2.1.197's and PI's own code), its size in characters and in
// estimated tokens, and, for Claude, the skills its listing budget shortens to a bare
// name, whose descriptions the model never sees. It reads only: the plan comes from a
// dry run (runtime.Build with DryRun), the skills from the plugin folders and the user's
// skill folders the client also reads.
package budget

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"golang.org/x/text/width"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/mcphealth"
	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/settings"
	"github.com/plugboard/plugboard/backend/skill"
)

// Options say where the client would run.
type Options struct {
	Home, PlugboardHome string
	// Workspace is the folder the agent is started in: Claude also loads the .claude/skills
	// of it and of each folder above it below Home. "" means none.
	Workspace string
	// Getenv reads SLASH_COMMAND_TOOL_CHAR_BUDGET (Claude's override of its budget); nil
	// means os.Getenv.
	Getenv func(string) string
	// Model is the Claude model (its context window and bytes per token set the budget);
	// "" means Claude Code 2.1.197's default with an API key, claude-opus-4-8.
	Model string
	// Now is the time Claude's skill usage scores decay to; zero means time.Now.
	Now time.Time
	// Servers are the launch's MCP servers as mcphealth.Known finds them: their tools are
	// known when a check of their current config is cached.
	Servers []mcphealth.Result
}

// Report is the answer of plugboard budget.
type Report struct {
	Backend string `json:"backend"`
	Skills  Skills `json:"skills"`
	MCP     MCP    `json:"mcp"`
	Total   int    `json:"total"` // estimated tokens of the skills, and of the MCP tools when known
}

// Skills is the skill listing.
type Skills struct {
	Chars  int `json:"chars"`  // characters of the rendered block, header included (UTF-16 units, as the clients count)
	Tokens int `json:"tokens"` // estimated: Chars/4, rounded (see docs/budget.md)
	// Listed are the names the listing holds, in the client's order, the client's own
	// entries included.
	Listed []string `json:"listed"`
	// Cut are the skills the budget shortened (Claude: to their bare name; Codex: their
	// description cut short, or, with Mode "omitted", left out of the listing).
	Cut []string `json:"cut"`
	// Budget is the listing budget (Claude: characters; Codex: tokens, 2% of the context
	// window), and Mode how the listing met it: "fits"; Claude's "priority" (the skills
	// most used keep their description, in that order, while they fit; the rest are names
	// only); Codex's "shortened" (every description shortened alike) or "omitted" (names
	// only, and the skills after the budget left out).
	Budget int    `json:"budget,omitempty"`
	Mode   string `json:"mode,omitempty"`
	// Sources says where each listed entry comes from: "target", "user", "project" or
	// "client" (the client's own bundled skills and commands).
	Sources map[string]string `json:"sources"`
	// BySource is the characters of the entries of each source (as listed, a newline
	// each); the header makes up the rest of Chars.
	BySource map[string]int `json:"bySource"`
	Text     string         `json:"text"` // the block exactly as predicted
}

// Headers the clients put before their listings.
const (
	ClaudeHeader = "The following skills are available for use with the Skill tool:\n\n"
	PIHeader     = "\n\nThe following skills provide specialized instructions for specific tasks.\n" +
		"Use the read tool to load a skill's file when the task matches its description.\n" +
		"When a skill file references a relative path, resolve it against the skill directory (parent of SKILL.md / dirname of the path) and use that absolute path in tool commands.\n" +
		"\n<available_skills>"
)

// Claude Code 2.1.197's constants (docs/budget.md).
const (
	claudeBudgetEnv      = "SLASH_COMMAND_TOOL_CHAR_BUDGET"
	claudeContext        = 200000
	claudeBudgetFraction = 0.01
	claudeMaxDescChars   = 1536
	claudeDefaultModel   = "claude-opus-4-8"
)

// claudeNative1M are the models Claude Code 2.1.197 gives a 1M-token window with no
// [1m] suffix, as measured against the scripted model (docs/budget.md).
var claudeNative1M = []string{"claude-opus-4-8"}

// claudeFourBytes are the model families Claude Code counts at 4 bytes a token; others 3.
var claudeFourBytes = []string{"claude-3-opus", "claude-3-sonnet", "claude-3-haiku", "claude-3-5-sonnet", "claude-3-5-haiku",
	"claude-3-7-sonnet", "claude-opus-4-0", "claude-opus-4-1", "claude-opus-4-5", "claude-opus-4-6", "claude-sonnet-4-0",
	"claude-sonnet-4-5", "claude-sonnet-4-6", "claude-haiku-4-5"}

type clientEntry struct {
	Name, Description     string
	Locked, BeforePlugins bool
}

type entry struct {
	name, desc, source string
	locked             bool
}

// Predict renders plan's skill listing as its backend would.
func Predict(plan *runtime.Plan, o Options) (*Report, error) {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	st, _, _ := settings.Read(o.PlugboardHome)
	var sk Skills
	switch plan.Backend {
	case runtime.PI:
		sk = renderPI(piEntries(plan, o, st))
	case runtime.Codex:
		sk = renderCodex(codexEntries(plan, o, st), filepath.Join(runtime.StateHome(o.PlugboardHome, runtime.Codex, plan.Fingerprint), "skills"), codexContext(o))
	case runtime.Copilot:
		sk = renderCopilot(plan, o, st)
	default:
		sk = renderClaude(claudeEntries(plan, o, st), o)
	}
	rep := &Report{Backend: plan.Backend, Skills: sk, MCP: predictMCP(plan, o), Total: sk.Tokens}
	if rep.MCP.Tokens != nil {
		rep.Total += *rep.MCP.Tokens
	}
	return rep, nil
}

// Tokens estimates tokens as Claude Code does (its roughTokenCount: length/4, rounded).
func Tokens(s string) int { return int(math.Round(float64(utf16Len(s)) / 4)) }

// planSkill is one skill of a plugin of the plan, as the backend names it.
type planSkill struct {
	name string
	s    skill.Skill
}

// pluginSkills reads each plugin of the plan afresh and returns the skills the plan
// hands the backend that the model is told of, in the order it hands them: a skill with
// disable-model-invocation is in no client's listing.
func pluginSkills(plan *runtime.Plan, o Options, st settings.Settings) []planSkill {
	want := map[string]bool{}
	for _, s := range plan.Skills {
		want[s] = true
	}
	var out []planSkill
	add := func(name string, s skill.Skill) {
		if !s.DisableModelInvocation {
			out = append(out, planSkill{name, s})
		}
	}
	co := catalog.Options{Home: o.Home, PlugboardHome: o.PlugboardHome}
	for _, pp := range plan.Plugins {
		if pp.How == "dropped" {
			continue
		}
		p := catalog.LoadEntry(pp.Dir, co, st)
		ns := p.Name
		if ns == "" {
			ns = p.ID
		}
		if plan.Backend == runtime.Claude && pp.How != "projected" {
			// Claude reads the folder itself: the skills its load model finds.
			if p.Clients == nil {
				continue
			}
			ls := p.Clients.Claude.LoadedSkills()
			sort.Slice(ls, func(a, b int) bool { return ls[a].Name < ls[b].Name })
			for _, l := range ls {
				if want[l.Name] {
					add(l.Name, skill.Load(filepath.Join(p.Path, filepath.FromSlash(l.Dir)), skill.Options{Keep: true}))
				}
			}
			continue
		}
		for _, s := range p.Skills {
			name := s.Name
			if plan.Backend == runtime.Claude {
				name = ns + ":" + s.Name
			}
			if want[name] {
				if s.Front == nil {
					s = skill.Load(s.Dir, skill.Options{Keep: true})
				}
				add(name, s)
			}
		}
	}
	return out
}

// claudeDescription is the description Claude lists: description, then " - " and
// when_to_use when the skill has one.
func claudeDescription(s skill.Skill) string {
	d := s.Description
	if w, _ := s.Front["when_to_use"].(string); w != "" {
		d += " - " + w
	}
	return d
}

// standalone reads the skills of a folder of skill folders as Claude and Copilot CLI
// name them (the folder's name), sorted, each described by describe.
func standalone(dir, source string, describe func(skill.Skill) string) []entry {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []entry
	for _, de := range des {
		sd := filepath.Join(dir, de.Name())
		if st, err := os.Stat(filepath.Join(sd, "SKILL.md")); err != nil || !st.Mode().IsRegular() {
			continue
		}
		s := skill.Load(sd, skill.Options{Keep: true, Trusted: true})
		if s.DisableModelInvocation {
			continue
		}
		out = append(out, entry{name: de.Name(), desc: describe(s), source: source})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].name < out[b].name })
	return out
}

// projectDirs are the folders from ws up to, not including, home (and not /).
func projectDirs(ws, home string) []string {
	if ws == "" {
		return nil
	}
	var out []string
	for d := filepath.Clean(ws); d != home && d != filepath.Dir(d); d = filepath.Dir(d) {
		out = append(out, d)
	}
	return out
}

// claudeEntries are Claude's listing entries in its order: the user's standalone skills,
// the project's, the client's entries that come before plugins, the plugins' skills,
// then the rest of the client's own.
func claudeEntries(plan *runtime.Plan, o Options, st settings.Settings) []entry {
	out := standalone(filepath.Join(o.Home, ".claude", "skills"), "user", claudeDescription)
	for _, d := range projectDirs(o.Workspace, o.Home) {
		out = append(out, standalone(filepath.Join(d, ".claude", "skills"), "project", claudeDescription)...)
	}
	own := func(before bool) {
		for _, c := range claudeOwn {
			if c.BeforePlugins == before {
				out = append(out, entry{name: c.Name, desc: c.Description, source: "client", locked: c.Locked})
			}
		}
	}
	own(true)
	for _, ps := range pluginSkills(plan, o, st) {
		out = append(out, entry{name: ps.name, desc: claudeDescription(ps.s), source: "target"})
	}
	own(false)
	return out
}

// claudeSettings reads the members of ~/.claude/settings.json the listing depends on.
func claudeSettings(home string) (fraction float64, maxDesc int) {
	fraction, maxDesc = claudeBudgetFraction, claudeMaxDescChars
	var s struct {
		Fraction *float64 `json:"skillListingBudgetFraction"`
		MaxDesc  *int     `json:"skillListingMaxDescChars"`
	}
	if b, err := os.ReadFile(filepath.Join(home, ".claude", "settings.json")); err == nil && json.Unmarshal(b, &s) == nil {
		if s.Fraction != nil {
			fraction = *s.Fraction
		}
		if s.MaxDesc != nil {
			maxDesc = *s.MaxDesc
		}
	}
	return
}

// ClaudeBudget is Claude Code's listing budget in characters: SLASH_COMMAND_TOOL_CHAR_BUDGET
// when it is a number other than 0, else the context window (200k; 1M for a [1m] model
// and claude-opus-4-8) times the model's
// bytes per token (4 for the families it lists, else 3) times the budget fraction (1%).
func ClaudeBudget(getenv func(string) string, model string, fraction float64) int {
	if v, err := strconv.ParseFloat(strings.TrimSpace(getenv(claudeBudgetEnv)), 64); err == nil && v != 0 {
		return int(v)
	}
	if model == "" {
		model = claudeDefaultModel
	}
	ctx := contextWindow(model)
	bpt := 3
	m := strings.ToLower(model)
	for _, f := range claudeFourBytes {
		if strings.Contains(m, f) {
			bpt = 4
		}
	}
	return max(1, int(math.Floor(float64(ctx)*float64(bpt)*fraction)))
}

// contextWindow is the context window Claude Code gives model, in tokens: 1M for a [1m]
// model and the ones with a native 1M window, else 200k.
func contextWindow(model string) int {
	if model == "" {
		model = claudeDefaultModel
	}
	if m := strings.ToLower(model); strings.Contains(m, "[1m]") || slices.Contains(claudeNative1M, m) {
		return 1000000
	}
	return claudeContext
}

// skillUsage is Claude's usage score of each skill (~/.claude.json skillUsage): the count
// times 0.5^(days since last use / 7), at least a tenth of the count.
func skillUsage(home string, now time.Time) map[string]float64 {
	var doc struct {
		SkillUsage map[string]struct {
			UsageCount float64 `json:"usageCount"`
			LastUsedAt float64 `json:"lastUsedAt"`
		} `json:"skillUsage"`
	}
	out := map[string]float64{}
	b, err := os.ReadFile(filepath.Join(home, ".claude.json"))
	if err != nil || json.Unmarshal(b, &doc) != nil {
		return out
	}
	for name, u := range doc.SkillUsage {
		days := (float64(now.UnixMilli()) - u.LastUsedAt) / 86400000
		out[name] = u.UsageCount * math.Max(math.Pow(0.5, days/7), 0.1)
	}
	return out
}

func renderClaude(es []entry, o Options) Skills {
	fraction, maxDesc := claudeSettings(o.Home)
	budget := ClaudeBudget(o.Getenv, o.Model, fraction)
	sk := Skills{Budget: budget, Mode: "fits", Listed: []string{}, Cut: []string{}, Sources: map[string]string{}}
	full := make([]string, len(es))
	total := max(0, len(es)-1)
	for i, e := range es {
		d := e.desc
		if u := utf16.Encode([]rune(d)); len(u) > maxDesc {
			d = string(utf16.Decode(u[:maxDesc-1])) + "…"
		}
		full[i] = "- " + e.name + ": " + d
		total += strWidth(full[i])
		sk.Listed = append(sk.Listed, e.name)
		sk.Sources[e.name] = e.source
	}
	lines := slices.Clone(full)
	free := 0
	for _, e := range es {
		if !e.locked {
			free++
		}
	}
	if total > budget && free > 0 {
		sk.Mode = "priority"
		base := max(0, len(es)-1)
		var cand []int
		for i, e := range es {
			if e.locked {
				base += strWidth(full[i])
			} else {
				base += strWidth(e.name) + 2
				cand = append(cand, i)
			}
		}
		left := budget - base
		score := skillUsage(o.Home, o.Now)
		sort.SliceStable(cand, func(a, b int) bool { return score[es[cand[a]].name] > score[es[cand[b]].name] })
		keep := map[int]bool{}
		for _, i := range cand {
			if x := strWidth(full[i]) - (strWidth(es[i].name) + 2); x <= left {
				keep[i] = true
				left -= x
			}
		}
		for i, e := range es {
			if !e.locked && !keep[i] {
				lines[i] = "- " + e.name
				sk.Cut = append(sk.Cut, e.name)
			}
		}
	}
	sk.BySource = map[string]int{}
	for i, e := range es {
		sk.BySource[e.source] += utf16Len(lines[i]) + 1
	}
	sk.Text = ClaudeHeader + strings.Join(lines, "\n")
	sk.Chars = utf16Len(sk.Text)
	sk.Tokens = Tokens(sk.Text)
	return sk
}

// piEntry is one skill PI lists.
type piEntry struct{ name, desc, location string }

// piEntries are the plan's skills in the order the launch passes them (--skill, plugin by
// plugin); the launch passes --no-skills, so PI loads no skill of the user's own.
func piEntries(plan *runtime.Plan, o Options, st settings.Settings) []piEntry {
	var out []piEntry
	for _, ps := range pluginSkills(plan, o, st) {
		out = append(out, piEntry{ps.name, ps.s.Description, filepath.Join(plan.Projection, "skills", ps.name, "SKILL.md")})
	}
	return out
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")

func renderPI(es []piEntry) Skills {
	sk := Skills{Listed: []string{}, Cut: []string{}, Sources: map[string]string{}, BySource: map[string]int{}}
	if len(es) == 0 {
		return sk
	}
	lines := []string{PIHeader}
	for _, e := range es {
		entry := []string{"  <skill>", "    <name>" + xmlEscaper.Replace(e.name) + "</name>",
			"    <description>" + xmlEscaper.Replace(e.desc) + "</description>",
			"    <location>" + xmlEscaper.Replace(e.location) + "</location>", "  </skill>"}
		lines = append(lines, entry...)
		sk.BySource["target"] += utf16Len(strings.Join(entry, "\n")) + 1
		sk.Listed = append(sk.Listed, e.name)
		sk.Sources[e.name] = "target"
	}
	lines = append(lines, "</available_skills>")
	sk.Text = strings.Join(lines, "\n")
	sk.Chars = utf16Len(sk.Text)
	sk.Tokens = Tokens(sk.Text)
	return sk
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// strWidth is the terminal width Claude measures entries by (Bun.stringWidth with
// ambiguous characters narrow): East Asian wide and fullwidth characters count two,
// combining marks none, the rest one.
func strWidth(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case r < 0x20 || r == 0x7f || (r >= 0x300 && r <= 0x36f) || r == 0x200d || (r >= 0xfe00 && r <= 0xfe0f):
		default:
			switch width.LookupRune(r).Kind() {
			case width.EastAsianWide, width.EastAsianFullwidth:
				n += 2
			default:
				n++
			}
		}
	}
	return n
}
