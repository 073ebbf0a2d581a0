package mcpconfig

import (
	"fmt"
	"github.com/plugboard/plugboard/backend/testhome"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/schemas"
)

const v1 = `"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json"`

// escapingPlugin builds <tmp>/outside and <tmp>/plugin, in which "escape" links to
// ../outside, "lib" links to ./real inside the plugin, and mcp.json is servers.
func escapingPlugin(t *testing.T, servers string) string {
	t.Helper()
	base := tempRoot(t)
	root := filepath.Join(base, "plugin")
	write(t, base, "outside/server", "#!/bin/sh\n")
	write(t, root, "real/server", "#!/bin/sh\n")
	symlink(t, "../outside", filepath.Join(root, "escape"))
	symlink(t, "./real", filepath.Join(root, "lib"))
	write(t, root, "mcp.json", "{"+v1+`, "mcpServers": {`+servers+"}}")
	return root
}

// TestContainmentThroughSymlinks: a command or cwd that leaves the root through a link is
// invalid; one that stays inside through a link is valid (spec §4.1, F4).
func TestContainmentThroughSymlinks(t *testing.T) {
	root := escapingPlugin(t, `
		"command-through-escape": {"type": "stdio", "command": "./escape/server"},
		"cwd-through-escape": {"type": "stdio", "command": "server", "cwd": "./escape/work"},
		"root-cwd-through-escape": {"type": "stdio", "command": "server", "cwd": "${PLUGIN_ROOT}/escape"},
		"command-through-inner-link": {"type": "stdio", "command": "./lib/server", "cwd": "./lib"},
		"missing-target-inside": {"type": "stdio", "command": "./lib/not-yet-built", "cwd": "${PLUGIN_ROOT}/lib/work"}`)
	c := LoadPortable(root, schemas.PluginV1)
	checkIssues(t, c)
	want := map[string][]string{
		"command-through-escape":     {CodeCommandEscapes},
		"cwd-through-escape":         {CodeCwdEscapes},
		"root-cwd-through-escape":    {CodeCwdEscapes},
		"command-through-inner-link": nil,
		"missing-target-inside":      nil,
	}
	if !c.Valid || len(c.Servers) != len(want) {
		t.Fatalf("config valid=%v servers=%d: %v", c.Valid, len(c.Servers), c.Issues)
	}
	for _, s := range c.Servers {
		if got := errorCodes(s.Issues); !equal(got, want[s.Name]) {
			t.Errorf("server %q errors = %v, want %v\n%v", s.Name, got, want[s.Name], s.Issues)
		}
	}
}

// TestLinkCopiedAsFile: where a copy turned the link into a regular file holding its
// target (as in the peer corpus), a path through it cannot resolve and is refused.
func TestLinkCopiedAsFile(t *testing.T) {
	root := tempRoot(t)
	write(t, root, "escape", "../outside")
	write(t, root, "mcp.json", "{"+v1+`, "mcpServers": {
		"command": {"type": "stdio", "command": "./escape/server"},
		"cwd": {"type": "stdio", "command": "server", "cwd": "./escape/work"}}}`)
	c := LoadPortable(root, schemas.PluginV1)
	checkIssues(t, c)
	if !c.Valid {
		t.Fatalf("config invalid: %v", c.Issues)
	}
	for name, code := range map[string]string{"command": CodeCommandResolve, "cwd": CodeCwdResolve} {
		s := serverByName(c, name)
		if s == nil || !equal(errorCodes(s.Issues), []string{code}) {
			t.Errorf("server %q = %+v, want one %s", name, s, code)
		}
	}
}

// validFile is the smallest valid mcp.json.
const validFile = "{" + v1 + `, "mcpServers": {}}`

// fileKindCases cover the fixed location itself (spec §6.2, §4.1): want is "" for valid,
// "absent" for nil, else the one whole-file error code.
var fileKindCases = []struct {
	name  string
	setup func(t *testing.T, root string)
	want  string // "" valid, "absent" nil
}{
	{"absent", func(t *testing.T, root string) {}, "absent"},
	{"regular file", func(t *testing.T, root string) { write(t, root, "mcp.json", validFile) }, ""},
	{"symlink inside the root", func(t *testing.T, root string) {
		write(t, root, "conf/mcp.json", validFile)
		symlink(t, "conf/mcp.json", filepath.Join(root, "mcp.json"))
	}, ""},
	{"symlink out of the root", func(t *testing.T, root string) {
		outside := t.TempDir()
		write(t, outside, "mcp.json", validFile)
		symlink(t, filepath.Join(outside, "mcp.json"), filepath.Join(root, "mcp.json"))
	}, CodeEscapesRoot},
	{"relative symlink out of the root", func(t *testing.T, root string) {
		write(t, filepath.Dir(root), "shared.json", validFile)
		symlink(t, "../shared.json", filepath.Join(root, "mcp.json"))
	}, CodeEscapesRoot},
	{"folder", func(t *testing.T, root string) {
		if err := os.Mkdir(filepath.Join(root, "mcp.json"), 0o755); err != nil {
			t.Fatal(err)
		}
	}, CodeNotRegular},
	{"symlink loop", func(t *testing.T, root string) {
		symlink(t, "b.json", filepath.Join(root, "mcp.json"))
		symlink(t, "mcp.json", filepath.Join(root, "b.json"))
	}, CodeNotRegular},
	{"dangling symlink", func(t *testing.T, root string) {
		symlink(t, "missing.json", filepath.Join(root, "mcp.json"))
	}, CodeNotRegular},
	{"fifo", func(t *testing.T, root string) {
		if err := syscall.Mkfifo(filepath.Join(root, "mcp.json"), 0o644); err != nil {
			testhome.CannotRun(t, "mkfifo: %v", err)
		}
	}, CodeNotRegular},
	{"2 MB file", func(t *testing.T, root string) {
		write(t, root, "mcp.json", "{"+v1+`, "mcpServers": {}, "pad": "`+strings.Repeat("x", 2<<20)+`"}`)
	}, CodeTooLarge},
}

// TestLoadPortableFileKinds loads each case from a plugin root inside a temporary folder.
func TestLoadPortableFileKinds(t *testing.T) {
	tests := fileKindCases
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := tempRoot(t)
			root := filepath.Join(base, "plugin")
			if err := os.Mkdir(root, 0o755); err != nil {
				t.Fatal(err)
			}
			tc.setup(t, root)
			c := LoadPortable(root, schemas.PluginV1)
			checkIssues(t, c)
			switch {
			case tc.want == "absent":
				if c != nil {
					t.Fatalf("LoadPortable = %+v, want nil for an absent mcp.json", c)
				}
			case c == nil:
				t.Fatal("LoadPortable = nil, want a Config")
			case tc.want == "":
				if !c.Valid {
					t.Errorf("invalid: %v", c.Issues)
				}
			default:
				if c.Valid || !equal(errorCodes(c.Issues), []string{tc.want}) {
					t.Errorf("issues = %v, want one %s", c.Issues, tc.want)
				}
				if c.Path != "mcp.json" {
					t.Errorf("Path = %q, want mcp.json", c.Path)
				}
			}
		})
	}
}

// TestParseLimits: limits hold when content is handed over directly, not only through
// LoadPortable.
func TestParseLimits(t *testing.T) {
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	tests := []struct {
		name string
		data string
		code string
	}{
		{"2 MB", `{"pad": "` + strings.Repeat("x", 2<<20) + `"}`, CodeTooLarge},
		{"just over the cap", strings.Repeat(" ", capread.MCPMax+1), CodeTooLarge},
		{"nested 100,000 deep", `{` + v1 + `, "mcpServers": {"a": ` + deep + `}}`, CodeInvalidJSON},
		{"invalid UTF-8", "{" + v1 + ", \"mcpServers\": {\"\xff\": {}}}", CodeInvalidJSON},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, c := range []Config{ParsePortable([]byte(tc.data), "mcp.json", "", schemas.PluginV1), ParseClaude([]byte(tc.data), "/home/u/.cursor/mcp.json")} {
				checkIssues(t, &c)
				if c.Valid || !equal(errorCodes(c.Issues), []string{tc.code}) {
					t.Errorf("%s: issues = %v, want one %s", c.Path, c.Issues, tc.code)
				}
			}
		})
	}
}

// TestUnreadable: an mcp.json of mode 000 is an unreadable component, read as a user that
// is not root (root reads it anyway).
func TestUnreadable(t *testing.T) {
	root := tempRoot(t)
	write(t, root, "mcp.json", "{}")
	if err := os.Chmod(filepath.Join(root, "mcp.json"), 0); err != nil {
		t.Fatal(err)
	}
	out := string(testhome.AsNonRoot(t, "TestUnreadableHelper", root, root))
	if !strings.Contains(out, "valid=false codes=["+CodeUnreadable+"]\n") {
		t.Errorf("LoadPortable as a user that is not root: %q, want one %s", out, CodeUnreadable)
	}
}

// TestUnreadableHelper is TestUnreadable's non-root part.
func TestUnreadableHelper(t *testing.T) {
	root := os.Getenv(testhome.NonRootEnv)
	if root == "" {
		return // run by TestUnreadable
	}
	c := LoadPortable(root, schemas.PluginV1)
	if c == nil {
		fmt.Println("nil")
		return
	}
	checkIssues(t, c)
	fmt.Printf("valid=%v codes=%v\n", c.Valid, errorCodes(c.Issues))
}
