package native

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/testhome"
)

func write(t *testing.T, dir, rel, body string) {
	t.Helper()
	testhome.WriteFile(t, filepath.Join(dir, rel), body)
}

// TestListNamesWhatClaudeStarts: each default file Claude Code reads (.mcp.json,
// hooks/hooks.json, .lsp.json) is listed with the basename of what it runs, and nothing
// of a command line but that: not the variables set before it, not its arguments.
func TestListNamesWhatClaudeStarts(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, ".claude-plugin/plugin.json", `{"name": "p"}`)
	write(t, dir, ".mcp.json", `{"mcpServers": {"db": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/db-server", "args": ["--token", "s3cret"]}}}`)
	write(t, dir, ".lsp.json", `{"go": {"command": "gopls", "args": ["serve"], "extensionToLanguage": {".go": "go"}}}`)
	write(t, dir, "hooks/hooks.json", `{"hooks": {
		"SessionStart": [{"hooks": [{"type": "command", "command": "API_KEY=s3cret DEBUG=1 \"${CLAUDE_PLUGIN_ROOT}/hooks/start.sh\" --fast"}]}],
		"Stop": [{"hooks": [{"type": "command", "command": "  notify-send done"}, {"type": "prompt", "prompt": "x"}]}]}}`)
	var got []string
	for _, it := range List(dir) {
		got = append(got, fmt.Sprintf("%s %s %s %s", it.Kind, it.Name, strings.Join(it.Runs, ","), it.File))
	}
	want := []string{
		"hook SessionStart start.sh hooks/hooks.json",
		"hook Stop notify-send hooks/hooks.json",
		"lsp go gopls .lsp.json",
		"mcp db db-server .mcp.json",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("List =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestListInlineDeclarations: the manifest may declare each inline, or name another file.
func TestListInlineDeclarations(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, ".claude-plugin/plugin.json", `{"name": "p", "lspServers": {"ts": {"command": "typescript-language-server"}},
		"mcpServers": "./config/servers.json"}`)
	write(t, dir, "config/servers.json", `{"mcpServers": {"web": {"type": "http", "url": "http://127.0.0.1:9/mcp"}}}`)
	write(t, dir, ".lsp.json", `{"ignored": {"command": "x"}}`)
	var got []string
	for _, it := range List(dir) {
		got = append(got, fmt.Sprintf("%s %s [%s] %s", it.Kind, it.Name, strings.Join(it.Runs, ","), it.File))
	}
	want := "lsp ts [typescript-language-server] .claude-plugin/plugin.json\nmcp web [] config/servers.json"
	if strings.Join(got, "\n") != want {
		t.Errorf("List =\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
}

func TestCommandName(t *testing.T) {
	for in, want := range map[string]string{
		"FOO=secret ./x":             "x",
		"A=1 B_2=two node server.js": "node",
		"'/opt/my tools/run'":        "run",
		"":                           "",
		"   ":                        "",
		"=x y":                       "=x",
		"1A=2 z":                     "1A=2",
		"/usr/bin/env python3 -m x":  "env",
	} {
		if got := commandName(in); got != want {
			t.Errorf("commandName(%q) = %q; want %q", in, got, want)
		}
	}
}
