package budget

import (
	"testing"

	"github.com/plugboard/plugboard/backend/mcphealth"
	"github.com/plugboard/plugboard/backend/runtime"
)

// TestClaudeToolSearch: when Claude Code 2.1.197 defers MCP tools to its tool search, as
// read from its code (docs/budget.md); the end-to-end test checks two of these rows
// against the real client.
func TestClaudeToolSearch(t *testing.T) {
	for _, c := range []struct {
		env    map[string]string
		chars  int
		window int
		want   string
	}{
		{nil, 100, 200000, "deferred"},
		{map[string]string{"ANTHROPIC_BASE_URL": "https://api.anthropic.com"}, 100, 200000, "deferred"},
		{map[string]string{"ANTHROPIC_BASE_URL": "http://127.0.0.1:8080/"}, 100, 200000, "inline"},
		{map[string]string{"ANTHROPIC_BASE_URL": "http://proxy", "ENABLE_TOOL_SEARCH": "true"}, 100, 200000, "deferred"},
		{map[string]string{"ENABLE_TOOL_SEARCH": "false"}, 100, 200000, "inline"},
		{map[string]string{"ENABLE_TOOL_SEARCH": "auto"}, 79999, 200000, "inline"},
		{map[string]string{"ENABLE_TOOL_SEARCH": "auto"}, 80000, 200000, "deferred"},
		{map[string]string{"ENABLE_TOOL_SEARCH": "auto:0"}, 0, 200000, "deferred"},
		{map[string]string{"ENABLE_TOOL_SEARCH": "auto:100"}, 1 << 30, 200000, "inline"},
		{map[string]string{"ENABLE_TOOL_SEARCH": "auto:50"}, 400000, 200000, "deferred"},
		{map[string]string{"CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS": "1", "ENABLE_TOOL_SEARCH": "true"}, 100, 200000, "inline"},
		{map[string]string{"CLAUDE_CODE_USE_VERTEX": "1"}, 100, 200000, "inline"},
	} {
		if got := claudeToolSearch(func(k string) string { return c.env[k] }, c.chars, c.window); got != c.want {
			t.Errorf("%v, %d chars: %s, want %s", c.env, c.chars, got, c.want)
		}
	}
}

// TestPredictMCP: each backend's count from the servers' checked tools; a server never
// checked leaves Claude's cost unknown, not PI's (its tools are not in the request).
func TestPredictMCP(t *testing.T) {
	tools := []mcphealth.Tool{{Name: "get", DescriptionChars: 10, SchemaBytes: 20}, {Name: "put.x", DescriptionChars: 5, SchemaBytes: 7}}
	servers := []mcphealth.Result{{Plugin: "p", Name: "srv", Checked: true, OK: true, Tools: tools}}
	inline := func(string) string { return "" }
	plan := &runtime.Plan{Backend: runtime.Claude, Servers: []string{"srv"}}
	m := predictMCP(plan, Options{Servers: servers, Getenv: func(k string) string {
		return map[string]string{"ANTHROPIC_BASE_URL": "http://127.0.0.1/"}[k]
	}})
	// mcp__srv__get + 10 + 20, mcp__srv__put_x + 5 + 7
	if want := 13 + 30 + 15 + 12; m.Mode != "inline" || m.Chars != want || *m.Tools != 2 || *m.Tokens != 18 || m.ServerTools != 2 {
		t.Errorf("inline: %+v, want %d chars", m, want)
	}
	m = predictMCP(plan, Options{Servers: servers, Getenv: inline})
	if want := 14 + 16; m.Mode != "deferred" || m.Chars != want || *m.Tools != 0 {
		t.Errorf("deferred: %+v, want %d chars", m, want)
	}
	plan.Servers = append(plan.Servers, "plugin:old:legacy")
	m = predictMCP(plan, Options{Servers: servers, Getenv: inline})
	if m.Tools != nil || m.Tokens != nil || len(m.Unchecked) != 1 || m.Unchecked[0] != "plugin:old:legacy" {
		t.Errorf("with an unchecked server: %+v", m)
	}
	plan.Backend = runtime.PI
	m = predictMCP(plan, Options{Servers: servers, Getenv: inline})
	if want := piGatewayChars + len("srv, plugin:old:legacy") + 2*piProxyChars + 2*len("srv") + 2*len("plugin:old:legacy"); m.Mode != "gateway" ||
		m.Chars != want || m.Tools == nil || *m.Tools != 3 {
		t.Errorf("pi: %+v, want %d chars", m, want)
	}
	if m := predictMCP(&runtime.Plan{Backend: runtime.PI}, Options{Getenv: inline}); m.Chars != 0 || *m.Tools != 0 {
		t.Errorf("pi without servers: %+v", m)
	}
}
