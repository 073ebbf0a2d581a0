package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestIssueCodesDocumented: every issue code constant in backend/ is listed in
// docs/issue-codes.md, and the document lists no code the source lacks.
func TestIssueCodesDocumented(t *testing.T) {
	doc, err := os.ReadFile("docs/issue-codes.md")
	if err != nil {
		t.Fatal(err)
	}
	constRE := regexp.MustCompile(`Code[A-Za-z0-9]+\s+=\s+"([a-z]+\.[a-z0-9-]+)"`)
	inSource := map[string]bool{}
	filepath.Walk("backend", func(p string, info os.FileInfo, err error) error {
		if err != nil || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, _ := os.ReadFile(p)
		for _, m := range constRE.FindAllSubmatch(b, -1) {
			inSource[string(m[1])] = true
		}
		return nil
	})
	if len(inSource) < 50 {
		t.Fatalf("found only %d codes in backend/; the pattern is stale", len(inSource))
	}
	inDoc := map[string]bool{}
	for _, m := range regexp.MustCompile("\\| `([a-z]+\\.[a-z0-9-]+)` \\|").FindAllSubmatch(doc, -1) {
		inDoc[string(m[1])] = true
	}
	for c := range inSource {
		if !inDoc[c] {
			t.Errorf("issue code %s is not documented in docs/issue-codes.md", c)
		}
	}
	for c := range inDoc {
		if !inSource[c] {
			t.Errorf("docs/issue-codes.md lists %s, which no code in backend/ defines", c)
		}
	}
}
