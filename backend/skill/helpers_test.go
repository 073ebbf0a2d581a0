package skill

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/plugboard/plugboard/backend/issue"
)

const testdata = "../../testdata/skill"

// allCodes is every issue code; checkSkill refuses any other.
var allCodes = []string{
	CodeMissing, CodeNotRegular, CodeUnreadable, CodeTooLarge, CodeSymlinkLoop, CodeEscapesRoot,
	CodeInvalidUTF8, CodeByteOrderMark, CodeNoFrontmatter, CodeUnclosedFrontmatter, CodeFrontmatterTooLarge,
	CodeInvalidYAML, CodeYAMLAlias, CodeFrontmatterNotMapping,
	CodeNameMissing, CodeNameInvalid, CodeNameTooLong, CodeNameMismatch,
	CodeDescriptionMissing, CodeDescriptionTooLong, CodeCompatibilityEmpty, CodeCompatibilityTooLong,
	CodeFieldType, CodePathsRefused,
}

// fileCodes are found before any line of SKILL.md is read, so they carry no line.
var fileCodes = []string{CodeMissing, CodeNotRegular, CodeUnreadable, CodeTooLarge, CodeSymlinkLoop, CodeEscapesRoot}

// checkSkill asserts what must hold for every judged skill: each issue has a known code,
// the caller's path, a message and (when it comes from the file's content) a line; Valid
// is exactly "no error issue"; Issues is never nil.
func checkSkill(t *testing.T, s Skill) {
	t.Helper()
	if s.Issues == nil {
		t.Errorf("Issues is nil, want an empty list")
	}
	for _, i := range s.Issues {
		if i.Code == "" || i.Path == "" || i.Message == "" {
			t.Errorf("issue lacks code, path or message: %+v", i)
		}
		if !slices.Contains(allCodes, i.Code) {
			t.Errorf("unknown code %q in %v", i.Code, i)
		}
		if i.Path != s.Path {
			t.Errorf("issue path = %q, want the skill's %q", i.Path, s.Path)
		}
		if i.Severity != issue.Error && i.Severity != issue.Warning {
			t.Errorf("issue severity = %q in %v", i.Severity, i)
		}
		if i.Line <= 0 && !slices.Contains(fileCodes, i.Code) {
			t.Errorf("issue has no line: %v", i)
		}
	}
	if s.Valid == s.Issues.HasErrors() {
		t.Errorf("Valid = %v with issues %v", s.Valid, s.Issues)
	}
	if s.ModelInvocable != (s.Valid && !s.DisableModelInvocation) {
		t.Errorf("ModelInvocable = %v, Valid = %v, DisableModelInvocation = %v", s.ModelInvocable, s.Valid, s.DisableModelInvocation)
	}
}

// codes returns the sorted codes of the issues of one severity.
func codes(s Skill, sev issue.Severity) []string {
	var out []string
	for _, i := range s.Issues {
		if i.Severity == sev {
			out = append(out, i.Code)
		}
	}
	slices.Sort(out)
	return out
}

// find returns the first issue with code, failing the test when there is none.
func find(t *testing.T, s Skill, code string) issue.Issue {
	t.Helper()
	for _, i := range s.Issues {
		if i.Code == code {
			return i
		}
	}
	t.Fatalf("no %s issue in %v", code, s.Issues)
	return issue.Issue{}
}

// copyFixture copies testdata/skill/<rel> into a fresh temporary folder of the same base
// name and returns its path.
func copyFixture(t *testing.T, rel string) string {
	t.Helper()
	src := filepath.Join(testdata, rel)
	dst := filepath.Join(t.TempDir(), filepath.Base(rel))
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, r), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, r), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// skillDir writes a skill folder named name holding SKILL.md with content.
func skillDir(t *testing.T, parent, name, content string) string {
	t.Helper()
	dir := filepath.Join(parent, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func mkdirs(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	mkdirs(t, filepath.Dir(p))
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
