package try

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/plugboard/plugboard/backend/capread"
)

// maxCasesFile bounds a cases file: prompts a person wrote, not data.
const maxCasesFile = 4 << 20

// Case is one prompt of a cases file and the skills it should make the model invoke.
type Case struct {
	Name   string `json:"name,omitempty"`
	Prompt string `json:"prompt"`
	// Expect are the skills the turn must invoke (each as the agent names it, or a bare
	// skill name that matches plugin:name too, so that one file serves Claude and PI); an
	// empty list means the turn must invoke none.
	Expect Expect `json:"expect"`
}

// Expect is a case's expected skills: a JSON string (one skill) or a list of them.
type Expect []string

// UnmarshalJSON reads a string or a list of strings; null is refused (say [] for "no
// skill").
func (e *Expect) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if bytes.Equal(data, []byte("null")) {
		return errors.New(`expect is null; give the skill the prompt should invoke, a list of them, or [] for none`)
	}
	var one string
	if json.Unmarshal(data, &one) == nil {
		*e = Expect{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(data, &many); err != nil {
		return errors.New(`expect is neither a skill name nor a list of skill names`)
	}
	*e = Expect(many)
	return nil
}

// ReadCases reads a cases file: a JSON list of cases, or an object whose "cases" member is
// one. Every case needs a prompt and an expect; an error names the file, the case and the
// fix.
func ReadCases(path string) ([]Case, error) {
	data, err := capread.ReadFile(path, maxCasesFile)
	if err != nil {
		return nil, fmt.Errorf("cases file %s: %w", path, err)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		var wrap struct {
			Cases json.RawMessage `json:"cases"`
		}
		if err := json.Unmarshal(trimmed, &wrap); err != nil || wrap.Cases == nil {
			return nil, fmt.Errorf(`cases file %s: an object needs a "cases" list (or give the list itself): %v`, path, err)
		}
		trimmed = wrap.Cases
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(trimmed, &raw); err != nil {
		return nil, fmt.Errorf(`cases file %s is not a JSON list of cases ([{"prompt": "...", "expect": "plugin:skill"}]): %v`, path, err)
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("cases file %s has no cases", path)
	}
	cases := make([]Case, len(raw))
	for i, r := range raw {
		var c struct {
			Case
			Expect json.RawMessage `json:"expect"` // nil when absent, "null" when null
		}
		if err := json.Unmarshal(r, &c); err != nil {
			return nil, fmt.Errorf("cases file %s, case %d: %v", path, i+1, err)
		}
		if strings.TrimSpace(c.Prompt) == "" {
			return nil, fmt.Errorf(`cases file %s, case %d: no prompt; give "prompt": "what the user asks"`, path, i+1)
		}
		if c.Expect == nil {
			return nil, fmt.Errorf(`cases file %s, case %d: no expect; give the skill the prompt should invoke, a list of them, or [] for none`, path, i+1)
		}
		if err := json.Unmarshal(c.Expect, &c.Case.Expect); err != nil {
			return nil, fmt.Errorf("cases file %s, case %d: %v", path, i+1, err)
		}
		if c.Name == "" {
			c.Name = fmt.Sprint(i + 1)
		}
		cases[i] = c.Case
	}
	return cases, nil
}

// CaseResult is one case's outcome.
type CaseResult struct {
	Case
	Pass bool `json:"pass"`
	// Why says what failed: the expected skills not invoked, the skills invoked when none
	// were expected, or the error that stopped the turn.
	Why    string  `json:"why,omitempty"`
	Result *Result `json:"result"`
}

// Judge decides a case from its result: it passes when every expected skill was invoked
// (others may be too), and, for an empty expect, when none was.
func Judge(c Case, r *Result) (bool, string) {
	invoked := make([]string, len(r.Skills))
	for i, s := range r.Skills {
		invoked[i] = s.Skill
	}
	if len(c.Expect) == 0 {
		if len(invoked) > 0 {
			return false, "expected no skill; the model invoked " + strings.Join(invoked, ", ")
		}
		return true, ""
	}
	var missing []string
	for _, want := range c.Expect {
		if !slices.ContainsFunc(invoked, func(got string) bool { return matches(want, got) }) {
			missing = append(missing, want)
		}
	}
	if len(missing) == 0 {
		return true, ""
	}
	why := "expected " + strings.Join(missing, ", ") + "; the model invoked "
	if len(invoked) == 0 {
		return false, why + "no skill"
	}
	return false, why + strings.Join(invoked, ", ")
}

// matches reports whether an expected name names an invoked skill: the same name, or a
// bare name equal to the skill part of plugin:skill.
func matches(want, got string) bool {
	if want == got {
		return true
	}
	_, short, ok := strings.Cut(got, ":")
	return ok && !strings.Contains(want, ":") && short == want
}

// RunCases tries every case in order on one Runner (so a pool keeps one warm process for
// them) and judges each. A case whose turn fails is failed with the error; the others
// still run.
func (r *Runner) RunCases(ctx context.Context, cases []Case, progress func(i int, cr CaseResult)) []CaseResult {
	out := make([]CaseResult, len(cases))
	for i, c := range cases {
		res, err := r.Try(ctx, c.Prompt)
		cr := CaseResult{Case: c, Result: res}
		if err != nil {
			cr.Why = err.Error()
		} else {
			cr.Pass, cr.Why = Judge(c, res)
		}
		out[i] = cr
		if progress != nil {
			progress(i, cr)
		}
	}
	return out
}
