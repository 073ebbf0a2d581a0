package catalog

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/plugboard/plugboard/backend/issue"
)

// The problems are what the summary counts, no more and no fewer; each names the file it
// is about as an absolute path that exists (or no file), and errors come first.
func TestProblemsAgreeWithTheSummary(t *testing.T) {
	o, _ := fullHome(t)
	c := Load(o)
	ps := c.Problems()
	var errs, warns int
	sources := map[string]int{}
	for k, p := range ps {
		switch p.Severity {
		case issue.Error:
			errs++
			if k > 0 && ps[k-1].Severity != issue.Error {
				t.Errorf("error %s after a %s", p.Code, ps[k-1].Severity)
			}
		case issue.Warning:
			warns++
		}
		sources[p.Source]++
		if p.File != "" { // the file, or, for an issue that it is missing, its folder
			if _, err := os.Lstat(p.File); err != nil {
				if _, err := os.Stat(filepath.Dir(p.File)); err != nil {
					t.Errorf("%s [%s]: neither %s nor its folder: %v", p.Message, p.Code, p.File, err)
				}
			}
		}
		if p.Source == ProblemPlugin && p.Plugin == "" || p.Source == ProblemSkill && p.Skill == "" {
			t.Errorf("%s [%s] names no owner: %+v", p.Message, p.Code, p)
		}
	}
	if errs != c.Summary.Issues.Errors || warns != c.Summary.Issues.Warnings {
		t.Errorf("problems count %d errors, %d warnings; the summary %d and %d", errs, warns, c.Summary.Issues.Errors, c.Summary.Issues.Warnings)
	}
	for _, s := range []string{ProblemPlugin, ProblemSkill} {
		if sources[s] == 0 {
			t.Errorf("no problem of source %s in the full home: %v", s, sources)
		}
	}
}

// Each plugin has one state: invalid when the specification rejects it, "problems" when it
// is valid but something in it has an error (alpha: a server and a skill), else valid; the
// page's list part carries the same.
func TestPluginState(t *testing.T) {
	o, _ := fullHome(t)
	c := Load(o)
	seen := map[string]bool{}
	for i := range c.Plugins {
		p := &c.Plugins[i]
		want := StateValid
		if !p.Valid {
			want = StateInvalid
		} else if p.IssueCounts.Errors > 0 {
			want = StateProblems
		}
		if p.State != want {
			t.Errorf("%s: state %q, want %q (valid %v, %d errors)", p.ID, p.State, want, p.Valid, p.IssueCounts.Errors)
		}
		seen[p.State] = true
		if p.ID == "alpha" && p.State != StateProblems {
			t.Errorf("alpha: state %q, want %q", p.State, StateProblems)
		}
	}
	for _, s := range []string{StateValid, StateProblems, StateInvalid} {
		if !seen[s] {
			t.Errorf("no plugin of state %q in the full home", s)
		}
	}
	if lp := listPluginOf(&c.Plugins[0]); lp.State != c.Plugins[0].State {
		t.Errorf("list part state %q, want %q", lp.State, c.Plugins[0].State)
	}
}
