package mcpconfig

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/pathsafe"
)

// fixtures is the corpus folder of this package.
const fixtures = "../../testdata/mcpconfig"

// checkIssues asserts what every issue of a Config must carry (F10): a code, the file, a
// message and a line, and that validity follows from the errors.
func checkIssues(t testing.TB, c *Config) {
	t.Helper()
	if c == nil {
		return
	}
	one := func(where string, l issue.List) {
		if l == nil {
			t.Errorf("%s: issues are nil; want [] in JSON", where)
		}
		for _, i := range l {
			if i.Code == "" || i.Path == "" || i.Message == "" || i.Line <= 0 || i.Severity == "" {
				t.Errorf("%s: incomplete issue %+v", where, i)
			}
			if i.Path != c.Path {
				t.Errorf("%s: issue path %q, want %q", where, i.Path, c.Path)
			}
		}
	}
	one("config", c.Issues)
	if c.Valid == c.Issues.HasErrors() {
		t.Errorf("config Valid = %v with errors = %v", c.Valid, c.Issues.HasErrors())
	}
	if c.Servers == nil {
		t.Errorf("Servers is nil; want [] in JSON")
	}
	if !c.Valid && len(c.Servers) > 0 {
		t.Errorf("invalid config lists %d servers; want none (MCP disabled)", len(c.Servers))
	}
	if !sort.SliceIsSorted(c.Servers, func(a, b int) bool { return c.Servers[a].Name < c.Servers[b].Name }) {
		t.Errorf("servers not sorted by name")
	}
	for _, s := range c.Servers {
		one("server "+s.Name, s.Issues)
		if s.Valid == s.Issues.HasErrors() {
			t.Errorf("server %q Valid = %v with errors = %v", s.Name, s.Valid, s.Issues.HasErrors())
		}
	}
}

// errorCodes returns the sorted, distinct codes of the errors in l.
func errorCodes(l issue.List) []string {
	seen := map[string]bool{}
	var out []string
	for _, i := range l {
		if i.Severity == issue.Error && !seen[i.Code] {
			seen[i.Code] = true
			out = append(out, i.Code)
		}
	}
	sort.Strings(out)
	return out
}

// warningCodes returns the sorted, distinct codes of the warnings in c, anywhere.
func warningCodes(c Config) []string {
	seen := map[string]bool{}
	var out []string
	add := func(l issue.List) {
		for _, i := range l {
			if i.Severity == issue.Warning && !seen[i.Code] {
				seen[i.Code] = true
				out = append(out, i.Code)
			}
		}
	}
	add(c.Issues)
	for _, s := range c.Servers {
		add(s.Issues)
	}
	sort.Strings(out)
	return out
}

// tempRoot returns a resolved, empty plugin root.
func tempRoot(t testing.TB) string {
	t.Helper()
	root, err := pathsafe.Root(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// copyFixture copies testdata/mcpconfig/<rel> into a fresh root and returns that root.
func copyFixture(t testing.TB, rel string) string {
	t.Helper()
	root := tempRoot(t)
	src := filepath.Join(fixtures, rel)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(root, r), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(root, r), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// write creates root/rel with content, making folders as needed.
func write(t testing.TB, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func serverByName(c *Config, name string) *Server {
	for i := range c.Servers {
		if c.Servers[i].Name == name {
			return &c.Servers[i]
		}
	}
	return nil
}
