package mcpconfig

import (
	"strings"
	"testing"

	"github.com/plugboard/plugboard/schemas"
)

// TestDigest: each fact an acknowledgment covers changes the digest; a value (env,
// header, argument, URL path) does not. Servers are parsed from mcp.json text, as the
// catalog reads them.
func TestDigest(t *testing.T) {
	const stdio = `{"type": "stdio", "command": "./bin/lint", "args": ["--root", "x"], "cwd": "${PLUGIN_ROOT}/bin", "env": {"TOKEN": "secret", "CONFIG": "a"}}`
	const remote = `{"type": "streamable-http", "url": "https://docs.example.com/mcp?k=1", "headers": {"X-Tenant": "secret"}}`
	tests := []struct {
		name     string
		base, to string
		changes  bool
	}{
		{"stdio: same declaration", stdio, stdio, false},
		{"stdio: env key order", stdio, strings.Replace(stdio, `"TOKEN": "secret", "CONFIG": "a"`, `"CONFIG": "a", "TOKEN": "secret"`, 1), false},
		{"stdio: env value", stdio, strings.Replace(stdio, `"secret"`, `"other-secret"`, 1), false},
		{"stdio: argument value", stdio, strings.Replace(stdio, `"x"`, `"y"`, 1), false},
		{"stdio: type", stdio, strings.Replace(stdio, `"stdio"`, `"sse"`, 1), true},
		{"stdio: command path", stdio, strings.Replace(stdio, `./bin/lint`, `./other/lint`, 1), true},
		{"stdio: command name", stdio, strings.Replace(stdio, `./bin/lint`, `./bin/evil`, 1), true},
		{"stdio: argument count", stdio, strings.Replace(stdio, `"x"]`, `"x", "--exec"]`, 1), true},
		{"stdio: cwd", stdio, strings.Replace(stdio, `${PLUGIN_ROOT}/bin`, `${PLUGIN_DATA}`, 1), true},
		{"stdio: cwd added", `{"type": "stdio", "command": "lint"}`, `{"type": "stdio", "command": "lint", "cwd": "./bin"}`, true},
		{"stdio: env key added", stdio, strings.Replace(stdio, `"CONFIG": "a"`, `"CONFIG": "a", "LD_PRELOAD": "x"`, 1), true},
		{"stdio: env key renamed", stdio, strings.Replace(stdio, `"TOKEN"`, `"API_TOKEN"`, 1), true},
		{"remote: same declaration", remote, remote, false},
		{"remote: header value", remote, strings.Replace(remote, `"secret"`, `"other"`, 1), false},
		{"remote: path and query", remote, strings.Replace(remote, `/mcp?k=1`, `/v2/mcp`, 1), false},
		{"remote: host case", remote, strings.Replace(remote, `docs.example.com`, `Docs.Example.com`, 1), false},
		{"remote: type", remote, strings.Replace(remote, `streamable-http`, `sse`, 1), true},
		{"remote: host", remote, strings.Replace(remote, `docs.example.com`, `docs.example.net`, 1), true},
		{"remote: port", remote, strings.Replace(remote, `docs.example.com`, `docs.example.com:8443`, 1), true},
		{"remote: scheme", remote, strings.Replace(remote, `https:`, `http:`, 1), true},
		{"remote: header added", remote, strings.Replace(remote, `"X-Tenant": "secret"`, `"X-Tenant": "secret", "Authorization": "Bearer x"`, 1), true},
		{"remote: header renamed", remote, strings.Replace(remote, `X-Tenant`, `X-Org`, 1), true},
	}
	for _, tt := range tests {
		a, b := digestOf(t, tt.base), digestOf(t, tt.to)
		if (a != b) != tt.changes {
			t.Errorf("%s: Digest changed = %v, want %v\n  %s\n  %s", tt.name, a != b, tt.changes, tt.base, tt.to)
		}
		if !strings.HasPrefix(a, "sha256:") || len(a) != len("sha256:")+64 {
			t.Errorf("%s: Digest = %q, want sha256:<64 hex>", tt.name, a)
		}
	}
}

func digestOf(t *testing.T, server string) string {
	t.Helper()
	c := ParsePortable([]byte(`{`+v1+`, "mcpServers": {"s": `+server+`}}`), "mcp.json", "", schemas.PluginV1)
	if len(c.Servers) != 1 {
		t.Fatalf("%s: %d servers", server, len(c.Servers))
	}
	return Digest(c.Servers[0])
}

func TestShortDigest(t *testing.T) {
	if got := ShortDigest("sha256:0123456789abcdef"); got != "0123456789ab" {
		t.Errorf("ShortDigest = %q", got)
	}
}
