package runtime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/manifest"
	"github.com/plugboard/plugboard/backend/mcpconfig"
	"github.com/plugboard/plugboard/backend/pathsafe"
)

// TestDropReasonsShowNoCommandOrCwd: a portable server whose "./" command or cwd no longer
// resolves inside its folder at launch (changed since the catalog judged it) is left out
// with a reason that names the field, never its text nor the resolved path (a command or
// cwd may hold a token; a failed lookup's error names the whole path).
func TestDropReasonsShowNoCommandOrCwd(t *testing.T) {
	root, err := pathsafe.Root(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	file := func(name string) {
		if err := os.WriteFile(filepath.Join(root, name), []byte("a file, not a folder"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	file("S3CRET-CMD1")
	link(outside, "S3CRET-CMD2")
	link("S3CRET-CMD3", "S3CRET-CMD3")
	file("S3CRET-CWD1")
	file("S3CRET-CWD2")
	link(outside, "S3CRET-CWD5")
	rows := []struct {
		server       mcpconfig.Server
		secret, want string
	}{
		{mcpconfig.Server{Name: "cmd-through-file", Command: "./S3CRET-CMD1/serve"}, "S3CRET-CMD1", `"command"`},
		{mcpconfig.Server{Name: "cmd-out-through-link", Command: "./S3CRET-CMD2/serve"}, "S3CRET-CMD2", `"command"`},
		{mcpconfig.Server{Name: "cmd-loop", Command: "./S3CRET-CMD3"}, "S3CRET-CMD3", `"command"`},
		{mcpconfig.Server{Name: "cwd-through-file", Command: "x", Cwd: "./S3CRET-CWD1/sub"}, "S3CRET-CWD1", `"cwd"`},
		{mcpconfig.Server{Name: "cwd-root-through-file", Command: "x", Cwd: "${PLUGIN_ROOT}/S3CRET-CWD2/sub"}, "S3CRET-CWD2", `"cwd"`},
		{mcpconfig.Server{Name: "cwd-root-leaves", Command: "x", Cwd: "${PLUGIN_ROOT}/../S3CRET-CWD3"}, "S3CRET-CWD3", `"cwd"`},
		{mcpconfig.Server{Name: "cwd-data-leaves", Command: "x", Cwd: "${PLUGIN_DATA}/../S3CRET-CWD4"}, "S3CRET-CWD4", `"cwd"`},
		{mcpconfig.Server{Name: "cwd-out-through-link", Command: "x", Cwd: "./S3CRET-CWD5"}, "S3CRET-CWD5", `"cwd"`},
	}
	cfg := &mcpconfig.Config{Path: "mcp.json", Valid: true}
	for _, r := range rows {
		s := r.server
		s.Type, s.Valid = "stdio", true
		cfg.Servers = append(cfg.Servers, s)
	}
	p := &catalog.Plugin{ID: "p", Format: manifest.FormatPortable, MCP: cfg}
	reasons := map[string]string{}
	kept := mcpServers(p, root, t.TempDir(), mcpconfig.CursorVars{}, func(d Drop) { reasons[d.Name] = d.Reason })
	if len(kept) != 0 {
		t.Errorf("kept %+v; every server should be left out", kept)
	}
	for _, r := range rows {
		reason, ok := reasons[r.server.Name]
		switch {
		case !ok:
			t.Errorf("server %s was not left out", r.server.Name)
		case strings.Contains(reason, r.secret) || strings.Contains(reason, root) || strings.Contains(reason, outside):
			t.Errorf("server %s: the reason shows the %s text or a path: %s", r.server.Name, r.want, reason)
		case !strings.Contains(reason, r.want):
			t.Errorf("server %s: the reason does not name %s: %s", r.server.Name, r.want, reason)
		}
	}
}
