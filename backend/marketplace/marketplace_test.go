package marketplace

import (
	"os"
	"path/filepath"
	"strings"
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
    {"name": "nosource"}
  ]
}`)
	m := Read(root)
	if m.Name != "team" || m.Owner != "Team" || len(m.Plugins) != 10 {
		t.Fatalf("Read = %+v", m)
	}
	want := map[int]struct {
		ok   bool
		kind string
		why  string
	}{
		0: {true, "path", ""},
		1: {true, "path", ""},
		2: {false, "path", "does not exist"},
		3: {false, "path", "inside the marketplace"},
		4: {false, "path", "outside the marketplace"},
		5: {true, "github", ""},
		6: {false, "github", "owner/name"},
		7: {true, "git-subdir", ""},
		8: {false, "path", "duplicate"},
		9: {false, "", "no \"source\""},
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
	if codes[CodeSourceMissing] != 1 || codes[CodeDuplicate] != 1 || codes[CodeSource] < 3 {
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
