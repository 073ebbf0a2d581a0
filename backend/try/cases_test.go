package try

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeCases(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "cases.json")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadCases(t *testing.T) {
	p := writeCases(t, `[{"prompt": "sum this up", "expect": "alpha:summarize"},
		{"name": "two", "prompt": "translate and sum", "expect": ["translate", "alpha:summarize"]},
		{"prompt": "what time is it", "expect": []}]`)
	cases, err := ReadCases(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 3 || cases[0].Name != "1" || len(cases[0].Expect) != 1 || cases[0].Expect[0] != "alpha:summarize" ||
		cases[1].Name != "two" || len(cases[1].Expect) != 2 || cases[2].Expect == nil || len(cases[2].Expect) != 0 {
		t.Errorf("cases = %+v", cases)
	}
	if c, err := ReadCases(writeCases(t, `{"cases": [{"prompt": "p", "expect": "s"}]}`)); err != nil || len(c) != 1 {
		t.Errorf("an object with cases: %+v, %v", c, err)
	}
	for name, c := range map[string]struct{ body, want string }{
		"no prompt":   {`[{"expect": "s"}]`, "case 1: no prompt"},
		"no expect":   {`[{"prompt": "p"}, {"prompt": "q"}]`, "case 1: no expect"},
		"null expect": {`[{"prompt": "p", "expect": "s"}, {"prompt": "q", "expect": null}]`, "case 2: expect is null"},
		"bad expect":  {`[{"prompt": "p", "expect": 3}]`, "neither a skill name nor a list"},
		"not a list":  {`"p"`, "is not a JSON list of cases"},
		"no cases":    {`[]`, "has no cases"},
		"object":      {`{"tests": []}`, `needs a "cases" list`},
	} {
		p := writeCases(t, c.body)
		if _, err := ReadCases(p); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v; want one naming %s and saying %q", name, err, p, c.want)
		}
	}
}

func TestJudge(t *testing.T) {
	invoked := func(names ...string) *Result {
		r := &Result{}
		for _, n := range names {
			r.Skills = append(r.Skills, Invocation{Skill: n})
		}
		return r
	}
	for _, c := range []struct {
		expect Expect
		got    *Result
		pass   bool
		why    string
	}{
		{Expect{"alpha:summarize"}, invoked("alpha:summarize"), true, ""},
		{Expect{"summarize"}, invoked("alpha:summarize"), true, ""}, // a bare name matches plugin:name
		{Expect{"summarize"}, invoked("summarize"), true, ""},       // PI's bare names
		{Expect{"alpha:summarize"}, invoked("summarize"), false, "expected alpha:summarize; the model invoked summarize"},
		{Expect{"alpha:summarize"}, invoked("beta:draft"), false, "expected alpha:summarize; the model invoked beta:draft"},
		{Expect{"alpha:summarize"}, invoked(), false, "the model invoked no skill"},
		{Expect{"a:x", "a:y"}, invoked("a:y", "b:z"), false, "expected a:x; the model invoked a:y, b:z"},
		{Expect{"a:x"}, invoked("a:x", "b:z"), true, ""}, // others may be invoked too
		{Expect{}, invoked(), true, ""},
		{Expect{}, invoked("a:x"), false, "expected no skill; the model invoked a:x"},
		{Expect{"rize"}, invoked("alpha:summarize"), false, "expected rize"},
	} {
		pass, why := Judge(Case{Expect: c.expect}, c.got)
		if pass != c.pass || !strings.Contains(why, c.why) || (c.pass && why != "") {
			t.Errorf("Judge(%v, %+v) = %v %q; want %v %q", c.expect, c.got.Skills, pass, why, c.pass, c.why)
		}
	}
}
