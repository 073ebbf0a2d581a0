package clients

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/plugboard/plugboard/backend/manifest"
	"github.com/plugboard/plugboard/backend/skill"
)

// Container is a folder of standalone skills under the home folder or a workspace, and
// the clients that read it there.
type Container struct {
	Dir     string   // relative to the home folder or the workspace
	User    []string // clients that read ~/<Dir>
	Project []string // clients that read <workspace>/<Dir>
}

// Containers lists the standalone skill folders Plugboard catalogs and who reads them:
// Claude Code its .claude/skills (code.claude.com/docs skills); Cursor its own and, for
// compatibility, Claude's and Codex's, and a workspace's .agents/skills (cursor.com/docs
// skills, as quoted); Codex ~/.codex/skills, ~/.agents/skills and a repository's
// .codex/skills and .agents/skills (codex-rs core-skills/src/loader.rs @c9d127c).
var Containers = []Container{
	{Dir: ".cursor/skills", User: []string{Cursor}, Project: []string{Cursor}},
	{Dir: ".agents/skills", User: []string{Codex}, Project: []string{Codex, Cursor}},
	{Dir: ".claude/skills", User: []string{Claude, Cursor}, Project: []string{Claude, Cursor}},
	{Dir: ".codex/skills", User: []string{Codex, Cursor}, Project: []string{Codex, Cursor}},
}

// JudgeSkill says how each client reads a standalone skill folder placed in its own
// skills folder (~/.claude/skills, ~/.cursor/skills, ~/.codex/skills) or handed to PI
// with --skill.
func JudgeSkill(dir string) Set {
	abs, _ := filepath.Abs(dir)
	folder := filepath.Base(abs)
	r := newFiles()
	one := func(name, reason, rule, why string) Verdict {
		v := Verdict{Package: true, Why: why}
		if reason != "" {
			v.drop("SKILL.md", rule, "%s", reason)
		} else {
			v.Loads, v.Skills = true, []string{name}
			v.loaded = []LoadedSkill{{Name: name, Dir: ""}}
		}
		v.finish()
		return v
	}
	var s Set
	// Claude names a standalone skill after its folder, as it does a plugin's, and lists
	// it only with a description (claude.skill-description).
	var claude Verdict
	claudeSkills(abs, &claude, claudeManifest{rel: claudeReleaseFor("")}, r) // the newest modelled release
	switch {
	case len(claude.Dropped) > 0:
		s.Claude = one("", claude.Dropped[0].Reason, claude.Dropped[0].Rule, "as a folder of ~/.claude/skills")
	case len(claude.loaded) > 0:
		s.Claude = one(folder, "", "", "as a folder of ~/.claude/skills")
	default:
		s.Claude = one("", "there is no SKILL.md", "claude.skills-default", "as a folder of ~/.claude/skills")
	}
	file := filepath.Join(abs, skill.FileName)
	name, reason := cursorSkill(file, r)
	s.Cursor = one(name, reason, "cursor.skills", "as a folder of ~/.cursor/skills")
	name, reason = codexSkillName(abs, r)
	s.Codex = one(name, reason, "codex.skill-frontmatter", "as a folder of ~/.codex/skills")
	pname, ok, preason, prule := piSkill(abs, file, r)
	if ok {
		preason = ""
	}
	s.PI = one(pname, preason, prule, "handed to pi with --skill")
	return s
}

// HasErrors reports whether any client refuses something with an error.
func (s *Set) HasErrors() bool {
	for _, v := range []*Verdict{&s.Claude, &s.Cursor, &s.Codex, &s.PI} {
		if v.Issues.HasErrors() {
			return true
		}
	}
	return false
}

// Summary is a one-line verdict for a person: "loads 7 skills as demo (2 dropped)".
func Summary(v *Verdict) string {
	if !v.Package {
		return v.Why
	}
	if !v.Loads {
		return "does not load: " + v.Why
	}
	parts := []string{fmt.Sprintf("loads %s", count(len(v.Skills), "skill"))}
	if v.Plugin != "" {
		parts[0] += " as " + v.Plugin
	}
	if n := len(v.Commands); n > 0 {
		parts = append(parts, count(n, "command"))
	}
	if n := len(v.Agents); n > 0 {
		parts = append(parts, count(n, "agent"))
	}
	if n := len(v.Dropped); n > 0 {
		parts = append(parts, fmt.Sprintf("%d dropped", n))
	}
	return strings.Join(parts, ", ")
}

func count(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// SuggestKebab suggests a kebab-case form of a name (accents folded: café → cafe).
func SuggestKebab(s string) string {
	if k := manifest.SuggestName(s); k != "" {
		return k
	}
	return "my-plugin"
}
