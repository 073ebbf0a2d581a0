package marketplace

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/plugboard/plugboard/backend/testhome"
)

func TestRead(t *testing.T) {
	root := t.TempDir()
	testhome.WriteFile(t, filepath.Join(root, "plugins", "good", ".claude-plugin", "plugin.json"), `{"name": "good"}`)
	testhome.WriteFile(t, filepath.Join(root, "extra", "bare", "skills", "x", "SKILL.md"), "---\nname: x\ndescription: d\n---\n")
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "plugins", "away")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "plugins", "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	testhome.WriteFile(t, filepath.Join(root, "plugins", "notes.txt"), "x")
	testhome.WriteFile(t, filepath.Join(root, File), `{
  "name": "team",
  "owner": {"name": "Team"},
  "metadata": {"pluginRoot": "./extra"},
  "plugins": [
    {"name": "good", "source": "./plugins/good", "version": "1.0.0"},
    {"name": "bare", "source": "bare"},
    {"name": "gone", "source": "./plugins/gone"},
    {"name": "up", "source": "../elsewhere"},
    {"name": "away", "source": "./plugins/away"},
    {"name": "gh", "source": {"source": "github", "repo": "owner/repo"}},
    {"name": "badgh", "source": {"source": "github", "repo": "nope"}},
    {"name": "sub", "source": {"source": "git-subdir", "url": "https://example.com/r.git", "path": "plugins/sub"}},
    {"name": "good", "source": "./plugins/good"},
    {"name": "nosource"},
    {"name": "pipe", "source": "./plugins/pipe"},
    {"name": "notes", "source": "./plugins/notes.txt"}
  ]
}`)
	m := Read(root)
	if m.Name != "team" || m.Owner != "Team" || len(m.Plugins) != 12 {
		t.Fatalf("Read = %+v", m)
	}
	want := map[int]struct {
		ok   bool
		kind string
		why  string
	}{
		0:  {true, "path", ""},
		1:  {true, "path", ""},
		2:  {false, "path", "does not exist"},
		3:  {false, "path", "inside the marketplace"},
		4:  {false, "path", "outside the marketplace"},
		5:  {true, "github", ""},
		6:  {false, "github", "owner/name"},
		7:  {true, "git-subdir", ""},
		8:  {false, "path", "duplicate"},
		9:  {false, "", "no \"source\""},
		10: {false, "path", "is a named pipe, not a folder"},
		11: {false, "path", "is a file, not a folder"},
	}
	for i, w := range want {
		e := m.Plugins[i]
		if e.OK != w.ok || e.Source.Kind != w.kind || !strings.Contains(e.Reason, w.why) {
			t.Errorf("entry %d (%s) = ok %v kind %q reason %q; want %v %q %q", i, e.Name, e.OK, e.Source.Kind, e.Reason, w.ok, w.kind, w.why)
		}
	}
	if m.Plugins[0].Dir == "" || m.Plugins[5].Dir != "" || m.Plugins[5].Source.Local() || !m.Plugins[0].Source.Local() {
		t.Errorf("Dir is set for local sources only: %+v", m.Plugins)
	}
	codes := map[string]int{}
	for _, i := range m.Issues {
		codes[i.Code]++
		if i.Path != File || i.Line == 0 {
			t.Errorf("issue without file and line: %+v", i)
		}
	}
	if codes[CodeSourceMissing] != 1 || codes[CodeDuplicate] != 1 || codes[CodeSource] < 5 {
		t.Errorf("issue codes = %v", codes)
	}
}

func TestReadBroken(t *testing.T) {
	for name, body := range map[string]string{"syntax": `{"name": `, "array": `[]`, "no-plugins": `{"name": "x"}`} {
		root := t.TempDir()
		testhome.WriteFile(t, filepath.Join(root, File), body)
		m := Read(root)
		if !m.Issues.HasErrors() || len(m.Plugins) != 0 {
			t.Errorf("%s: %+v", name, m)
		}
	}
	if Exists(t.TempDir()) {
		t.Errorf("an empty folder is no marketplace")
	}
}

// The source forms of Claude Code's schema: ref and sha carried (sha a full lowercase
// commit), strict read, npm and pip packages valid but not installed by Plugboard, a
// url's password stripped with a warning, and the forms Claude Code rejects refused.
func TestReadSources(t *testing.T) {
	root := t.TempDir()
	testhome.WriteFile(t, filepath.Join(root, "plugins", "here", ".claude-plugin", "plugin.json"), `{"name": "here"}`)
	testhome.WriteFile(t, filepath.Join(root, File), `{
  "name": "forms",
  "plugins": [
    {"name": "here", "source": "./plugins/here", "strict": false},
    {"name": "pinned", "source": {"source": "github", "repo": "o/r", "ref": "v1", "sha": "0123456789abcdef0123456789abcdef01234567"}},
    {"name": "sub", "source": {"source": "git-subdir", "url": "o/mono", "path": "tools/sub"}},
    {"name": "npm", "source": {"source": "npm", "package": "@acme/p", "version": "^2.0", "registry": "https://npm.example.com"}},
    {"name": "pip", "source": {"source": "pip", "package": "acme-p"}},
    {"name": "secret", "source": {"source": "url", "url": "https://me:tok@git.example.com/r.git"}},
    {"name": "shortsha", "source": {"source": "github", "repo": "o/r", "sha": "abc123"}},
    {"name": "nopath", "source": {"source": "git-subdir", "url": "https://x/r.git"}},
    {"name": "nopkg", "source": {"source": "npm"}},
    {"name": "odd", "source": {"source": "gist", "url": "x"}},
    {"name": "badref", "source": {"source": "url", "url": "https://x/r.git", "ref": 3}},
    {"name": "bare", "source": "plugins/here"},
    {"name": "badstrict", "source": "./plugins/here", "strict": "no"},
    {"name": "dots", "source": {"source": "github", "repo": "../r"}},
    {"name": "here-url", "source": {"source": "url", "url": "."}},
    {"name": "abs-url", "source": {"source": "url", "url": "/home/me/plugin"}},
    {"name": "file-url", "source": {"source": "url", "url": "file:///home/me/plugin"}},
    {"name": "file-subdir", "source": {"source": "git-subdir", "url": "file:///home/me/mono", "path": "p"}},
    {"name": "scp", "source": {"source": "url", "url": "git@github.com:o/r.git"}},
    {"name": "ssh", "source": {"source": "url", "url": "ssh://git@host/o/r.git"}}
  ]
}`)
	m := Read(root)
	byName := map[string]Entry{}
	for _, e := range m.Plugins {
		byName[e.Name] = e
	}
	for name, want := range map[string]struct {
		ok, installable bool
		why             string
	}{
		"here": {true, true, ""}, "pinned": {true, true, ""}, "sub": {true, true, ""},
		"npm": {true, false, "npm sources are not installed"}, "pip": {true, false, "pip sources are not installed"},
		"secret": {true, true, ""}, "shortsha": {false, false, "40-character"}, "nopath": {false, false, "needs a \"path\""},
		"nopkg": {false, false, "needs a \"package\""}, "odd": {false, false, "unknown"}, "badref": {false, false, "\"ref\" must be a string"},
		"bare": {false, false, "must start with ./"}, "badstrict": {false, false, "\"strict\" must be true or false"},
		"dots":     {false, false, "owner/name"},
		"here-url": {false, false, "not a git URL"}, "abs-url": {false, false, "cannot point at a folder"},
		"file-url": {false, false, "file:// repository"}, "file-subdir": {false, false, "neither GitHub owner/name nor a git URL"},
		"scp": {true, true, ""}, "ssh": {true, true, ""},
	} {
		e := byName[name]
		ok, why := e.Installable()
		if e.OK != want.ok || ok != want.installable || !strings.Contains(why, want.why) {
			t.Errorf("%s: ok %v, installable %v (%q); want %v, %v (%q)", name, e.OK, ok, why, want.ok, want.installable, want.why)
		}
	}
	if e := byName["here"]; e.Strict || !byName["pinned"].Strict {
		t.Errorf("strict: here %v (written false), pinned %v (absent: true)", e.Strict, byName["pinned"].Strict)
	}
	if s := byName["pinned"].Source; s.Ref != "v1" || s.SHA != "0123456789abcdef0123456789abcdef01234567" {
		t.Errorf("pinned source = %+v", s)
	}
	if s := byName["npm"].Source; s.Package != "@acme/p" || s.Version != "^2.0" || s.Registry != "https://npm.example.com" {
		t.Errorf("npm source = %+v", s)
	}
	if u := byName["secret"].Source.URL; u != "https://git.example.com/r.git" {
		t.Errorf("the url keeps its userinfo: %s", u)
	}
	warned := false
	for _, i := range m.Issues {
		if strings.Contains(i.Message, "tok") || strings.Contains(i.Message, "me:") {
			t.Errorf("an issue shows the userinfo: %s", i.Message)
		}
		warned = warned || i.Severity == "warning" && strings.Contains(i.Message, "\"secret\"") && strings.Contains(i.Message, "strips it") && i.Line == 9
	}
	if !warned {
		t.Errorf("no warning on line 9 says the url's userinfo was stripped: %v", m.Issues)
	}
}

// Cursor's marketplace file (.cursor-plugin/marketplace.json, as cursor/plugins has
// it) names each plugin's folder by a bare name relative to the root; it is read when
// there is no Claude file, and Claude's wins when both are there.
func TestReadCursorMarketplace(t *testing.T) {
	root := t.TempDir()
	testhome.WriteFile(t, filepath.Join(root, "teaching", ".cursor-plugin", "plugin.json"), `{"name": "teaching"}`)
	testhome.WriteFile(t, filepath.Join(root, "third_party", "gmail", ".cursor-plugin", "plugin.json"), `{"name": "gmail"}`)
	testhome.WriteFile(t, filepath.Join(root, CursorFile), `{"name": "cursor-plugins", "owner": {"name": "Cursor"}, "plugins": [
  {"name": "teaching", "source": "teaching", "description": "Skill mapping."},
  {"name": "gmail", "source": "third_party/gmail"},
  {"name": "gone", "source": "third_party/gone"}
]}`)
	if !Exists(root) {
		t.Fatal("a Cursor marketplace root is not recognised")
	}
	m := Read(root)
	if m.Name != "cursor-plugins" || m.Format != FormatCursor || m.File != CursorFile || len(m.Plugins) != 3 {
		t.Fatalf("read %+v", m)
	}
	for i, want := range []struct {
		dir string
		ok  bool
	}{{filepath.Join(root, "teaching"), true}, {filepath.Join(root, "third_party", "gmail"), true}, {"", false}} {
		e := m.Plugins[i]
		if e.OK != want.ok || (want.ok && e.Dir != want.dir) {
			t.Errorf("entry %s: ok %v dir %q (%s); want ok %v dir %q", e.Name, e.OK, e.Dir, e.Reason, want.ok, want.dir)
		}
	}
	testhome.WriteFile(t, filepath.Join(root, File), `{"name": "claude-side", "plugins": []}`)
	if m := Read(root); m.Name != "claude-side" || m.Format != FormatClaude {
		t.Errorf("with both files: %+v; want Claude's", m)
	}
}
