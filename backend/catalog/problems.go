package catalog

import (
	"path/filepath"
	"sort"

	"github.com/plugboard/plugboard/backend/issue"
)

// Problem is one issue of the catalog as the Problems view lists it: the issue with its
// file made absolute (File) and what it belongs to. The problems of a catalog are exactly
// what Summary.Issues counts, so the header, the overview and the list agree.
type Problem struct {
	issue.Issue
	// File is the issue's file, absolute ("" when the issue names none); for an issue that
	// a file is missing, the file that should be there.
	File string `json:"file"`
	// Source is what the problem belongs to: "plugin" (its manifest, a skill, an MCP
	// server), "skill" (a standalone skill) or "catalog" (settings, discovery, names).
	Source string `json:"source"`
	// Plugin is the plugin's id for a plugin's problem; Skill the standalone skill's id.
	Plugin string `json:"plugin,omitempty"`
	Skill  string `json:"skill,omitempty"`
}

// Problem sources.
const (
	ProblemPlugin  = "plugin"
	ProblemSkill   = "skill"
	ProblemCatalog = "catalog"
)

// Problems lists every issue of c: the catalog's own, each plugin's (manifest, skills,
// MCP servers) and each standalone skill's, the same sets Summary.Issues counts; errors
// first, then by file and line.
func (c *Catalog) Problems() []Problem {
	out := []Problem{}
	for _, i := range c.Issues {
		out = append(out, Problem{Issue: i, File: absFile(c.PlugboardHome, i.Path), Source: ProblemCatalog})
	}
	for k := range c.Plugins {
		p := &c.Plugins[k]
		for _, i := range p.AllIssues() {
			out = append(out, Problem{Issue: i, File: absFile(p.Path, i.Path), Source: ProblemPlugin, Plugin: p.ID})
		}
	}
	for _, e := range c.Skills {
		if e.Plugin != "" {
			continue // a plugin skill's issues are its plugin's
		}
		for _, i := range e.Issues {
			out = append(out, Problem{Issue: i, File: absFile(filepath.Dir(e.Path), i.Path), Source: ProblemSkill, Skill: e.ID})
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		x, y := out[a], out[b]
		if x.Severity != y.Severity {
			return x.Severity == issue.Error
		}
		if x.File != y.File {
			return x.File < y.File
		}
		return x.Line < y.Line
	})
	return out
}

// absFile is path made absolute against base (an issue's path is relative to its package
// root, or absolute).
func absFile(base, path string) string {
	if path == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(base, path)
}
