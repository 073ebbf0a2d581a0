package skill

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/issue"
)

// fixtureTests judge every folder under testdata/skill. errs and warns are the sorted
// issue codes expected; check, when set, looks at the parsed fields.
var fixtureTests = []struct {
	dir   string
	errs  []string
	warns []string
	check func(t *testing.T, s Skill)
}{
	{dir: "valid/minimal-skill", check: func(t *testing.T, s Skill) {
		want(t, "Name", s.Name, "minimal-skill")
		want(t, "Description", s.Description, "A test skill")
		want(t, "ModelInvocable", s.ModelInvocable, true)
	}},
	{dir: "valid/all-fields", check: func(t *testing.T, s Skill) {
		want(t, "License", s.License, "Proprietary. LICENSE.txt has complete terms")
		want(t, "Compatibility", s.Compatibility, "Requires Python 3.11+ and uv")
		want(t, "Metadata", s.Metadata, map[string]string{"author": "example-org", "version": "1.0"})
		want(t, "AllowedTools", s.AllowedTools, []string{"Bash(git:*)", "Bash(jq:*)", "Read"})
	}},
	{dir: "valid/metadata-unquoted-number", check: func(t *testing.T, s Skill) {
		want(t, "Metadata", s.Metadata, map[string]string{"author": "Test Author", "version": "1.0", "stable": "true", "build": "42", "empty": ""})
	}},
	{dir: "valid/allowed-tools-string", check: func(t *testing.T, s Skill) {
		want(t, "AllowedTools", s.AllowedTools, []string{"Bash(jq:*)", "Bash(git:*)"})
	}},
	{dir: "valid/allowed-tools-list", check: func(t *testing.T, s Skill) {
		want(t, "AllowedTools", s.AllowedTools, []string{"Read", "Bash(git commit:*)"})
	}},
	{dir: "valid/disable-model-invocation", check: func(t *testing.T, s Skill) {
		want(t, "DisableModelInvocation", s.DisableModelInvocation, true)
		want(t, "ModelInvocable", s.ModelInvocable, false)
	}},
	{dir: "valid/crlf-line-endings", check: func(t *testing.T, s Skill) {
		want(t, "Description", s.Description, "Saved on Windows")
	}},
	{dir: "valid/utf8-bom", warns: []string{CodeByteOrderMark}, check: func(t *testing.T, s Skill) { want(t, "Name", s.Name, "utf8-bom") }},
	{dir: "valid/unknown-keys-ignored"},
	{dir: "valid/description-folded-block", check: func(t *testing.T, s Skill) {
		want(t, "Description", s.Description, "Extracts text from PDF files. Use when the user mentions PDFs.")
	}},
	{dir: "valid/optional-extras-wrong-type", warns: rep(CodeFieldType, 5), check: func(t *testing.T, s Skill) {
		want(t, "License", s.License, "")
		want(t, "Metadata", len(s.Metadata), 0)
		want(t, "AllowedTools", len(s.AllowedTools), 0)
		want(t, "DisableModelInvocation", s.DisableModelInvocation, false)
		want(t, "Paths", len(s.Paths), 0)
	}},
	{dir: "valid/paths-inside-folder", check: func(t *testing.T, s Skill) {
		want(t, "Paths", len(s.Paths), 3)
		for _, p := range s.Paths {
			if !p.Accepted || !filepath.IsAbs(p.Resolved) || p.Reason != "" {
				t.Errorf("entry %+v: want accepted with an absolute Resolved", p)
			}
		}
	}},
	{dir: "valid/paths-refused-still-valid", warns: rep(CodePathsRefused, 9)},

	{dir: "invalid/name-uppercase", errs: []string{CodeNameInvalid}},
	{dir: "invalid/name-leading-hyphen", errs: []string{CodeNameInvalid}},
	{dir: "invalid/name-trailing-hyphen", errs: []string{CodeNameInvalid}},
	{dir: "invalid/name-consecutive-hyphens", errs: []string{CodeNameInvalid}},
	{dir: "invalid/name-underscore", errs: []string{CodeNameInvalid}},
	{dir: "invalid/name-unicode", errs: []string{CodeNameInvalid, CodeNameMismatch}},
	{dir: "invalid/name-too-long", errs: []string{CodeNameMismatch, CodeNameTooLong}},
	{dir: "invalid/name-missing", errs: []string{CodeNameMissing}, check: func(t *testing.T, s Skill) {
		want(t, "Name", s.Name, "name-missing") // the folder name stands in
	}},
	{dir: "invalid/name-empty", errs: []string{CodeNameMissing}},
	{dir: "invalid/name-is-list", errs: []string{CodeFieldType}, check: func(t *testing.T, s Skill) {
		want(t, "Name", s.Name, "name-is-list")
	}},
	{dir: "invalid/name-mismatch", errs: []string{CodeNameMismatch}, check: func(t *testing.T, s Skill) {
		want(t, "Name", s.Name, "correct-name")
		want(t, "Folder", s.Folder, "name-mismatch")
	}},
	{dir: "invalid/description-missing", errs: []string{CodeDescriptionMissing}},
	{dir: "invalid/description-empty", errs: []string{CodeDescriptionMissing}},
	{dir: "invalid/description-is-mapping", errs: []string{CodeFieldType}},
	{dir: "invalid/compatibility-empty", errs: []string{CodeCompatibilityEmpty}},
	{dir: "invalid/compatibility-is-list", errs: []string{CodeFieldType}},
	{dir: "invalid/no-frontmatter", errs: []string{CodeNoFrontmatter}},
	{dir: "invalid/frontmatter-not-first-line", errs: []string{CodeNoFrontmatter}},
	{dir: "invalid/unclosed-frontmatter", errs: []string{CodeUnclosedFrontmatter}},
	{dir: "invalid/invalid-yaml-flow", errs: []string{CodeInvalidYAML}},
	{dir: "invalid/invalid-yaml-unquoted-colon", errs: []string{CodeInvalidYAML}},
	{dir: "invalid/invalid-yaml-tab-indent", errs: []string{CodeInvalidYAML}},
	{dir: "invalid/invalid-yaml-duplicate-key", errs: []string{CodeInvalidYAML}},
	{dir: "invalid/frontmatter-is-list", errs: []string{CodeFrontmatterNotMapping}},
	{dir: "invalid/frontmatter-is-scalar", errs: []string{CodeFrontmatterNotMapping}},
	{dir: "invalid/frontmatter-empty", errs: []string{CodeDescriptionMissing, CodeNameMissing}},
	{dir: "invalid/empty-file", errs: []string{CodeNoFrontmatter}},
	{dir: "invalid/yaml-alias", errs: []string{CodeYAMLAlias}},
	{dir: "invalid/invalid-utf8", errs: []string{CodeInvalidUTF8}},
}

func TestFixtures(t *testing.T) {
	seen := map[string]bool{}
	for _, tt := range fixtureTests {
		seen[tt.dir] = true
		t.Run(tt.dir, func(t *testing.T) {
			s := Load(filepath.Join(testdata, tt.dir), Options{Path: "skills/x/SKILL.md"})
			checkSkill(t, s)
			if got := codes(s, issue.Error); !slices.Equal(got, tt.errs) {
				t.Errorf("error codes = %v, want %v; issues: %v", got, tt.errs, s.Issues)
			}
			if got := codes(s, issue.Warning); !slices.Equal(got, tt.warns) {
				t.Errorf("warning codes = %v, want %v; issues: %v", got, tt.warns, s.Issues)
			}
			if wantValid := strings.HasPrefix(tt.dir, "valid/"); s.Valid != wantValid {
				t.Errorf("Valid = %v, want %v", s.Valid, wantValid)
			}
			if tt.check != nil {
				tt.check(t, s)
			}
		})
	}
	// Every fixture folder must be in the table, so none is silently untested.
	for _, kind := range []string{"valid", "invalid"} {
		entries, err := os.ReadDir(filepath.Join(testdata, kind))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !seen[kind+"/"+e.Name()] {
				t.Errorf("fixture %s/%s is not in fixtureTests", kind, e.Name())
			}
		}
	}
}

func want[T any](t *testing.T, field string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", field, got, want)
	}
}

func rep(code string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = code
	}
	return out
}
