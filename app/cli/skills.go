package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/plugboard/plugboard/backend/catalog"
)

// SkillGroup is one plugin's skills (Plugin empty: standalone skills of one source).
type SkillGroup struct {
	Plugin string                `json:"plugin,omitempty"`
	Source string                `json:"source"`
	Skills []*catalog.SkillEntry `json:"skills"`
}

// groupSkills keeps precedence order and groups consecutive entries of one origin.
func groupSkills(c *catalog.Catalog) []SkillGroup {
	var groups []SkillGroup
	for _, s := range c.Skills {
		src := string(s.Source)
		if s.Plugin != "" {
			src = s.PluginSource
		}
		if n := len(groups); n > 0 && groups[n-1].Plugin == s.Plugin && groups[n-1].Source == src {
			groups[n-1].Skills = append(groups[n-1].Skills, s)
			continue
		}
		groups = append(groups, SkillGroup{Plugin: s.Plugin, Source: src, Skills: []*catalog.SkillEntry{s}})
	}
	return groups
}

func runSkills(f *flags) body {
	return func(env Env, pos []string) int {
		c, code := loadCatalog(env, f, pos)
		if c == nil {
			return code
		}
		groups := groupSkills(c)
		if f.json {
			if groups == nil {
				groups = []SkillGroup{}
			}
			if err := writeCompactJSON(env.Stdout, map[string]any{"groups": groups}); err != nil {
				return ExitUsage
			}
			return ExitOK
		}
		for _, g := range groups {
			if g.Plugin != "" {
				fmt.Fprintf(env.Stdout, "plugin %s (%s):\n", g.Plugin, g.Source)
			} else {
				fmt.Fprintf(env.Stdout, "%s skills:\n", g.Source)
			}
			for _, s := range g.Skills {
				fmt.Fprintf(env.Stdout, "  %s\n", skillLine(s, c.Home))
			}
		}
		return ExitOK
	}
}

func isDirPath(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func absPath(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}
