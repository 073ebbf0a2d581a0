package catalog

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/clients"
)

// The catalog hands the client models what it has read (file bytes, parsed frontmatter,
// listings, a skill folder's among them); the verdicts must be exactly those the models
// reach reading everything themselves, on every fixture of every client rule.
func TestClientVerdictsFromTheCatalogsReads(t *testing.T) {
	n := 0
	for _, client := range []string{"claude", "codex"} {
		root := filepath.Join("..", "..", "testdata", "clients", client)
		entries, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			n++
			dir := filepath.Join(root, e.Name())
			p := Inspect(dir, t.TempDir())
			want := clients.Judge(dir)
			if p.Clients == nil || !reflect.DeepEqual(*p.Clients, want) {
				t.Errorf("%s/%s: from the catalog's reads %+v\nread afresh %+v", client, e.Name(), p.Clients, want)
			}
		}
	}
	if n < 250 {
		t.Fatalf("only %d fixtures", n)
	}
}

// A legacy plugin names what Claude Code starts itself from it — an .mcp.json server and
// a hook — by name and command basename, never arguments or values; a portable package
// names none.
func TestLegacyPluginNamesClaudeNativeCode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "legacy")
	for p, body := range map[string]string{
		".claude-plugin/plugin.json": `{"name": "legacy"}`,
		".mcp.json":                  `{"mcpServers": {"db": {"command": "/opt/bin/node", "args": ["server.js"], "env": {"K": "PLANTED"}}}}`,
		"hooks/hooks.json":           `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "./bin/start.sh --x"}]}]}}`,
		"skills/s/SKILL.md":          "---\nname: s\ndescription: A skill.\n---\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := Inspect(dir, t.TempDir())
	got := fmt.Sprintf("%+v", p.ClaudeNative)
	if got != "[{Kind:hook Name:SessionStart Runs:[start.sh] File:hooks/hooks.json Sum:"+p.ClaudeNative[0].Sum+"} {Kind:mcp Name:db Runs:[node] File:.mcp.json Sum:"+p.ClaudeNative[1].Sum+"}]" {
		t.Errorf("ClaudeNative = %s", got)
	}
	b, _ := json.Marshal(p)
	if strings.Contains(string(b), "PLANTED") || strings.Contains(string(b), "server.js") {
		t.Errorf("an argument or value is in the catalog: %s", b)
	}
	if q := Inspect(filepath.Join("..", "..", "testdata", "runtime", "home", "plugins", "review"), t.TempDir()); len(q.ClaudeNative) != 0 {
		t.Errorf("a portable package: %+v", q.ClaudeNative)
	}
}
