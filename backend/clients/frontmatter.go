package clients

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/plugboard/plugboard/backend/capread"
)

var sprintf = fmt.Sprintf

// front is a markdown file's frontmatter as a client reads it.
type front struct {
	found  bool           // a frontmatter block was there
	fields map[string]any // nil when absent or when it did not parse
	err    error          // the YAML error, when it did not parse
}

// str returns a string field, and whether it is a string at all.
func (f front) str(key string) (string, bool) {
	s, ok := f.fields[key].(string)
	return s, ok
}

// boolean returns a field that is exactly the YAML boolean true or false.
func (f front) boolean(key string) (bool, bool) {
	b, ok := f.fields[key].(bool)
	return b, ok
}

// files reads markdown files (SKILL.md, commands, agents) with the size cap every reader
// here keeps, following links as the clients do, and keeps what it read: the four models
// of one Judge read each file once. Not safe for concurrent use; one per Judge.
type files struct{ m map[string]fileRead }

type fileRead struct {
	data []byte
	err  error
}

func newFiles() *files { return &files{m: map[string]fileRead{}} }

func (r *files) read(path string) ([]byte, error) {
	if f, ok := r.m[path]; ok {
		return f.data, f.err
	}
	data, err := capread.ReadFile(path, capread.SkillMax)
	r.m[path] = fileRead{data, err}
	return data, err
}

// parseYAMLMap parses a frontmatter block into a map; a document that is not a mapping
// (empty, a scalar) is an empty map, as JavaScript's YAML libraries give an object-less
// value the clients then read fields from.
func parseYAMLMap(b []byte) (map[string]any, error) {
	var v any
	if err := yaml.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	m, _ := v.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// piFrontmatter splits and parses frontmatter as PI does (utils/frontmatter.js of
// pi-coding-agent 0.73.1): line endings normalised to \n, the file must start with
// "---" (a byte-order mark in front means no frontmatter), the block ends at the first
// "\n---" after it, and the block is YAML; a YAML error is an error of the whole file.
func piFrontmatter(data []byte) front {
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	if !strings.HasPrefix(s, "---") {
		return front{}
	}
	block, ok := fenced(s)
	if !ok {
		return front{}
	}
	m, err := parseYAMLMap([]byte(block))
	return front{found: true, fields: m, err: err}
}

// isDirFollow reports whether p is a folder, following links.
func isDirFollow(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// isFileFollow reports whether p is a regular file, following links.
func isFileFollow(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// rel returns p relative to root in slash form ("" for root itself).
func rel(root, p string) string {
	r, err := filepath.Rel(root, p)
	if err != nil || r == "." {
		return ""
	}
	return filepath.ToSlash(r)
}

// hasBOM reports whether data starts with a UTF-8 byte-order mark.
func hasBOM(data []byte) bool { return bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) }

// fenced returns the frontmatter block of s, which starts with "---": the text after the
// opening line up to the first line that starts with "---".
func fenced(s string) (string, bool) {
	end := strings.Index(s[3:], "\n---")
	if end < 0 {
		return "", false
	}
	if end == 0 {
		return "", true // "---\n---": an empty block
	}
	start := strings.IndexByte(s, '\n') + 1
	if start <= 0 || start > 3+end {
		return "", true
	}
	return s[start : 3+end], true
}
