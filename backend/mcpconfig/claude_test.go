package mcpconfig

import (
	"os"
	"path/filepath"
	"testing"
)

// claudeCases are files of the Claude Code / Cursor shape. servers maps each server to
// its error codes (none: valid); types to the transport it is given.
var claudeCases = []struct {
	name     string
	doc      string
	config   []string
	servers  map[string][]string
	types    map[string]string
	warnings []string
}{
	{name: "cursor user file", doc: `{"mcpServers": {
		"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/u"], "env": {"DEBUG": "1"}},
		"gh": {"url": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer ${env:GITHUB_TOKEN}"}},
		"typed": {"type": "stdio", "command": "uvx mcp-server-git", "envFile": ".env"},
		"legacy": {"type": "sse", "url": "http://example.com/sse"}}}`,
		servers:  map[string][]string{"fs": nil, "gh": nil, "typed": nil, "legacy": nil},
		types:    map[string]string{"fs": "stdio", "gh": "http", "typed": "stdio", "legacy": "sse"},
		warnings: []string{CodeURLInsecure}},
	{name: "claude code project file", doc: `{"mcpServers": {
		"api": {"type": "http", "url": "https://mcp.example.com/mcp"},
		"stream": {"type": "streamable-http", "url": "https://mcp.example.com/mcp"}}}`,
		servers: map[string][]string{"api": nil, "stream": nil}, types: map[string]string{"api": "http", "stream": "streamable-http"}},
	{name: "empty object", doc: `{}`, warnings: []string{CodeServersMissing}},
	{name: "unknown members are warnings", doc: `{"mcpServers": {"a": {"command": "x", "disabled": true, "url": "https://x"}}, "inputs": []}`,
		servers: map[string][]string{"a": {CodeClaudeTransport}}, types: map[string]string{"a": ""}, warnings: []string{CodeClaudeUnknownField}},
	{name: "typed entry ignores other fields", doc: `{"mcpServers": {"a": {"type": "stdio", "command": "x", "timeout": 5, "url": "https://x"}}}`,
		servers: map[string][]string{"a": nil}, types: map[string]string{"a": "stdio"}, warnings: []string{CodeClaudeUnknownField}},
	{name: "neither command nor url", doc: `{"mcpServers": {"a": {"args": []}, "b": "npx"}}`,
		servers: map[string][]string{"a": {CodeClaudeTransport}, "b": {CodeServerNotObject}}, types: map[string]string{"a": "", "b": ""}},
	{name: "typed without its field", doc: `{"mcpServers": {"a": {"type": "stdio"}, "b": {"type": "http", "command": "x"}}}`,
		servers: map[string][]string{"a": {CodeServerRequired}, "b": {CodeServerRequired}}, warnings: []string{CodeClaudeUnknownField}},
	{name: "unknown type", doc: `{"mcpServers": {"a": {"type": "websocket", "url": "wss://x"}, "b": {"type": 1, "command": "x"}}}`,
		servers: map[string][]string{"a": {CodeServerType}, "b": {CodeServerType}}},
	{name: "wrong field types", doc: `{"mcpServers": {
		"args": {"command": "x", "args": "-y"}, "argn": {"command": "x", "args": [1]}, "env": {"command": "x", "env": {"A": 1}},
		"cmd": {"command": ""}, "hdr": {"url": "https://x", "headers": []}, "url": {"url": 5}}}`,
		servers: map[string][]string{"args": {CodeServerSchema}, "argn": {CodeServerSchema}, "env": {CodeServerSchema},
			"cmd": {CodeServerSchema}, "hdr": {CodeServerSchema}, "url": {CodeServerSchema}}},
	{name: "url must parse", doc: `{"mcpServers": {"rel": {"url": "/mcp"}, "ftp": {"url": "ftp://x"}, "bad": {"url": "https://a b"},
		"placeholder": {"url": "${API_BASE}/mcp"}, "userinfo": {"url": "https://u:p@x/mcp#f"}}}`,
		servers:  map[string][]string{"rel": {CodeURLInvalid}, "ftp": {CodeURLInvalid}, "bad": {CodeURLInvalid}, "placeholder": nil, "userinfo": nil},
		warnings: []string{CodeClaudeURLUnchecked, CodeURLFragment, CodeURLUserinfo}},
	{name: "header rules", doc: `{"mcpServers": {"a": {"url": "https://x", "headers": {"A": "1", "a": "2"}}, "b": {"url": "https://x", "headers": {"B C": "1"}},
		"c": {"url": "https://x", "headers": {"C": "1\r\n"}}}}`,
		servers: map[string][]string{"a": {CodeHeaderDuplicate}, "b": {CodeHeaderName}, "c": {CodeHeaderValue}}},
	{name: "env names are not checked", doc: `{"mcpServers": {"a": {"command": "x", "env": {"PLUGIN_ROOT": "y"}}}}`,
		servers: map[string][]string{"a": nil}},
	{name: "servers not an object", doc: `{"mcpServers": []}`, config: []string{CodeServersNotObject}},
	{name: "not an object", doc: `[]`, config: []string{CodeNotObject}},
	{name: "not JSON", doc: `{"mcpServers": {`, config: []string{CodeInvalidJSON}},
}

func TestParseClaude(t *testing.T) {
	for _, tc := range claudeCases {
		t.Run(tc.name, func(t *testing.T) {
			c := ParseClaude([]byte(tc.doc), "/home/u/.cursor/mcp.json")
			checkIssues(t, &c)
			if got := errorCodes(c.Issues); !equal(got, tc.config) {
				t.Errorf("config errors = %v, want %v", got, tc.config)
			}
			if len(c.Servers) != len(tc.servers) {
				t.Errorf("%d servers, want %d", len(c.Servers), len(tc.servers))
			}
			for _, s := range c.Servers {
				want, ok := tc.servers[s.Name]
				if !ok {
					t.Errorf("unexpected server %q", s.Name)
				}
				if got := errorCodes(s.Issues); !equal(got, want) {
					t.Errorf("server %q errors = %v, want %v\n%v", s.Name, got, want, s.Issues)
				}
				if typ, ok := tc.types[s.Name]; ok && s.Type != typ {
					t.Errorf("server %q Type = %q, want %q", s.Name, s.Type, typ)
				}
			}
			if got := warningCodes(c); !equal(got, tc.warnings) {
				t.Errorf("warnings = %v, want %v", got, tc.warnings)
			}
		})
	}
}

func TestLoadClaude(t *testing.T) {
	dir := t.TempDir()
	if c := LoadClaude(filepath.Join(dir, "mcp.json"), "~/.cursor/mcp.json"); c != nil {
		t.Errorf("absent file: LoadClaude = %+v, want nil", c)
	}
	p := filepath.Join(dir, ".mcp.json")
	write(t, dir, ".mcp.json", `{"mcpServers": {"a": {"command": "npx"}}}`)
	c := LoadClaude(p, ".mcp.json")
	checkIssues(t, c)
	if c == nil || !c.Valid || len(c.Servers) != 1 || c.Servers[0].Summary.Executable != "npx" || c.Path != ".mcp.json" {
		t.Errorf("LoadClaude = %+v", c)
	}
	if err := os.Mkdir(filepath.Join(dir, "folder.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	c = LoadClaude(filepath.Join(dir, "folder.json"), "folder.json")
	checkIssues(t, c)
	if c == nil || c.Valid || !equal(errorCodes(c.Issues), []string{CodeNotRegular}) {
		t.Errorf("folder: LoadClaude = %+v, want %s", c, CodeNotRegular)
	}
}
