package skill

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/backend/issue"
)

// FuzzParse checks that no input makes Parse panic, that Valid is exactly "no error
// issue", and that every issue has a code, a path and a message.
func FuzzParse(f *testing.F) {
	err := filepath.WalkDir(testdata, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == FileName {
			data, readErr := os.ReadFile(p)
			if readErr != nil {
				return readErr
			}
			f.Add(data)
		}
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	for _, tt := range parseTests {
		if len(tt.text) < 4096 {
			f.Add([]byte(tt.text))
		}
	}
	f.Add([]byte("---\na: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n---\n"))
	f.Add([]byte("---\nname: " + strings.Repeat("[", 200) + "\n---\n"))
	f.Add([]byte("\ufeff---\r\nname: s\r\ndescription: d\r\n---\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := Parse(data, "s", "", Options{Path: "skills/s/SKILL.md"})
		if s.Valid == s.Issues.HasErrors() {
			t.Fatalf("Valid = %v with issues %v", s.Valid, s.Issues)
		}
		if s.Issues == nil {
			t.Fatal("Issues is nil")
		}
		for _, i := range s.Issues {
			if i.Code == "" || i.Message == "" || i.Path == "" {
				t.Fatalf("issue lacks code, message or path: %+v", i)
			}
			if i.Severity != issue.Error && i.Severity != issue.Warning {
				t.Fatalf("severity %q", i.Severity)
			}
		}
	})
}

// benchSkill is a typical 40-line SKILL.md.
var benchSkill = []byte(`---
name: pdf-processing
description: Extracts text and tables from PDF files, fills PDF forms, and merges multiple PDFs. Use when working with PDF documents or when the user mentions PDFs, forms, or document extraction.
license: Apache-2.0
compatibility: Requires Python 3.11+ and pdfplumber
metadata:
  author: example-org
  version: "1.0"
allowed-tools: Bash(python:*) Read Write
---
# PDF processing

## When to use
Use this skill when the user asks to read, fill or merge PDF files.

## Steps
1. Find the PDF files the user names.
2. Run scripts/extract.py on each file to get its text and tables.
3. For forms, read references/FORMS.md and fill the fields with scripts/fill.py.
4. To merge, run scripts/merge.py with the files in the order the user gave.
5. Report what was done and where the output files are.

## Examples
Input: "Extract the tables from report.pdf"
Output: a CSV file per table, next to report.pdf.

Input: "Merge a.pdf and b.pdf"
Output: merged.pdf holding a.pdf then b.pdf.

## Edge cases
- Scanned PDFs have no text layer: say so and suggest OCR.
- Encrypted PDFs need a password: ask for it.
- Very large PDFs: process page ranges.

## References
- references/REFERENCE.md for the scripts' options.
- references/FORMS.md for form field names.
- assets/template.pdf is a blank form for tests.
`)

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchSkill)))
	for b.Loop() {
		s := Parse(benchSkill, "pdf-processing", "", Options{Path: "skills/pdf-processing/SKILL.md"})
		if !s.Valid {
			b.Fatal(s.Issues)
		}
	}
}

// TestDescribe maps read errors that a root-run test cannot provoke.
func TestDescribe(t *testing.T) {
	tests := []struct {
		err  error
		code string
	}{
		{&fs.PathError{Op: "open", Path: "SKILL.md", Err: fs.ErrPermission}, CodeUnreadable},
		{&capread.TooLargeError{Max: capread.SkillMax}, CodeTooLarge},
		{capread.ErrNotRegular, CodeNotRegular},
		{&fs.PathError{Op: "stat", Path: "SKILL.md", Err: fs.ErrNotExist}, CodeMissing},
		{errors.New("disk on fire"), CodeUnreadable},
	}
	for _, tt := range tests {
		p := describe("SKILL.md", tt.err)
		if p.code != tt.code || !strings.HasPrefix(p.msg, "SKILL.md ") {
			t.Errorf("describe(%v) = %+v, want code %s", tt.err, p, tt.code)
		}
	}
}
