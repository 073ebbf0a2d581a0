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
