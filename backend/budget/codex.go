package budget

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/settings"
	"github.com/plugboard/plugboard/backend/skill"
)

// Codex 0.169.0's skill listing (docs/budget.md), as `codex debug prompt-input` shows it
// and the real client sends it: a developer message
//
//	<skills_instructions>
//	## Skills
//	CodexIntro
//	### Skill roots
//	- `r0` = `<root>`
//	### Available skills
//	- <name>: <description> (file: r0/<folder>/SKILL.md)
//	</skills_instructions>
//
// in name order. Its budget is 2% of the model's context window, in tokens of about four
// bytes: a line costs ceil((bytes of the line and its newline)/4). When the full lines
// cost more, every skill keeps its line and the descriptions share what is left, one
// character at a time round the skills in order (a character that does not raise a
// line's token count is free); when even the bare lines ("- name: (file: …)") cost
// more, skills are left out from the end.
const (
	CodexOpen  = "<skills_instructions>"
	CodexClose = "</skills_instructions>"
	CodexIntro = "A skill is a set of local instructions to follow that is stored in a `SKILL.md` file. Below is the list of skills that can be used. Each entry includes a name, description, and a short path that can be expanded into an absolute path using the skill roots table."
	// CodexContext is the context window, in tokens, of Codex 0.169.0's default model,
	// which the budget is 2% of when the user's config.toml sets no model_context_window.
	CodexContext       = 272000
	codexBudgetPercent = 2
)

// codexEntry is one skill Codex lists.
type codexEntry struct{ name, desc, path string }

// codexEntries are the plan's skills as Codex lists them, from the launch's Codex home.
func codexEntries(plan *runtime.Plan, o Options, st settings.Settings) []codexEntry {
	var out []codexEntry
	for _, ps := range pluginSkills(plan, o, st) {
		out = append(out, codexEntry{ps.name, strings.Join(strings.Fields(ps.s.Description), " "), "r0/" + ps.name + "/SKILL.md"})
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].name < out[b].name })
	return out
}

// codexContext is the context window the user's Codex settings give the model:
// model_context_window of ~/.codex/config.toml (or $CODEX_HOME's), else CodexContext.
func codexContext(o Options) int {
	home := o.Getenv(runtime.CodexHomeEnv)
	if home == "" {
		home = filepath.Join(o.Home, ".codex")
	}
	var cfg struct {
		Window int `toml:"model_context_window"`
	}
	if data, err := os.ReadFile(filepath.Join(home, "config.toml")); err == nil {
		if _, err := toml.Decode(string(data), &cfg); err == nil && cfg.Window > 0 {
			return cfg.Window
		}
	}
	return CodexContext
}

// codexTokens is Codex's estimate of a text's tokens: its bytes over four, rounded up.
func codexTokens(bytes int) int { return (bytes + 3) / 4 }

func renderCodex(es []codexEntry, root string, window int) Skills {
	sk := Skills{Listed: []string{}, Cut: []string{}, Sources: map[string]string{}, BySource: map[string]int{}, Mode: "fits"}
	if len(es) == 0 {
		return sk
	}
	sk.Budget = max(1, window*codexBudgetPercent/100) // in tokens
	line := func(e codexEntry, chars int) string {
		d := e.desc
		if r := []rune(d); chars < len(r) {
			d = string(r[:chars])
		}
		if d == "" {
			return "- " + e.name + ": (file: " + e.path + ")"
		}
		return "- " + e.name + ": " + d + " (file: " + e.path + ")"
	}
	cost := func(s string) int { return codexTokens(len(s) + 1) }
	full, bare := 0, 0
	for _, e := range es {
		full += cost(line(e, len([]rune(e.desc))))
		bare += cost(line(e, 0))
	}
	chars := make([]int, len(es))
	keep := make([]bool, len(es))
	switch {
	case full <= sk.Budget:
		for i, e := range es {
			chars[i], keep[i] = len([]rune(e.desc)), true
		}
	case bare <= sk.Budget:
		sk.Mode = "shortened"
		left := sk.Budget - bare
		spent := make([]int, len(es)) // tokens above the bare line
		for i := range keep {
			keep[i] = true
		}
		for changed := true; changed; {
			changed = false
			for i, e := range es {
				if chars[i] >= len([]rune(e.desc)) {
					continue
				}
				next := cost(line(e, chars[i]+1)) - cost(line(e, 0))
				if d := next - spent[i]; d <= left {
					chars[i]++
					spent[i], left, changed = next, left-d, true
				}
			}
		}
	default:
		sk.Mode = "omitted"
		used := 0
		for i, e := range es {
			if c := cost(line(e, 0)); used+c <= sk.Budget {
				used += c
				keep[i] = true
			}
		}
	}
	lines := []string{CodexOpen, "## Skills", CodexIntro, "### Skill roots", "- `r0` = `" + root + "`", "### Available skills"}
	for i, e := range es {
		if !keep[i] {
			sk.Cut = append(sk.Cut, e.name)
			continue
		}
		l := line(e, chars[i])
		lines = append(lines, l)
		sk.Listed = append(sk.Listed, e.name)
		sk.Sources[e.name] = "target"
		sk.BySource["target"] += utf16Len(l) + 1
		if chars[i] < len([]rune(e.desc)) {
			sk.Cut = append(sk.Cut, e.name)
		}
	}
	sk.Text = strings.Join(append(lines, CodexClose), "\n")
	sk.Chars = utf16Len(sk.Text)
	sk.Tokens = Tokens(sk.Text)
	return sk
}

// Copilot CLI 1.0.102's skill listing, in its system prompt: an <available_skills> block
// with one <skill> per skill (name, description and location XML-escaped): the project's
// own skills first (.github/skills, .agents/skills and .claude/skills of the folder it
// runs in, location "project"), then the plugins' in the order the plugins are given,
// location "plugin", then its own built-in skills (not counted here: they are the
// client's, and its version decides them).
const (
	CopilotOpen  = "<available_skills>"
	CopilotClose = "</available_skills>"
)

func renderCopilot(plan *runtime.Plan, o Options, st settings.Settings) Skills {
	sk := Skills{Listed: []string{}, Cut: []string{}, Sources: map[string]string{}, BySource: map[string]int{}, Mode: "fits"}
	lines := []string{CopilotOpen}
	add := func(name, desc, location, source string) {
		entry := []string{"<skill>", "  <name>" + xmlEscaper.Replace(name) + "</name>", "  <description>" + xmlEscaper.Replace(desc) + "</description>",
			"  <location>" + location + "</location>", "</skill>"}
		lines = append(lines, entry...)
		sk.BySource[source] += utf16Len(strings.Join(entry, "\n")) + 1
		sk.Listed = append(sk.Listed, name)
		sk.Sources[name] = source
	}
	if o.Workspace != "" {
		for _, dir := range []string{".github", ".agents", ".claude"} {
			for _, e := range standalone(filepath.Join(o.Workspace, dir, "skills"), "project", func(s skill.Skill) string { return s.Description }) {
				add(e.name, e.desc, "project", "project")
			}
		}
	}
	for _, ps := range pluginSkills(plan, o, st) {
		add(ps.name, ps.s.Description, "plugin", "target")
	}
	if len(sk.Listed) == 0 {
		return sk
	}
	sk.Text = strings.Join(append(lines, CopilotClose), "\n")
	sk.Chars = utf16Len(sk.Text)
	sk.Tokens = Tokens(sk.Text)
	return sk
}
