package budget

import (
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/plugboard/plugboard/backend/mcphealth"
	"github.com/plugboard/plugboard/backend/runtime"
)

// MCP is what the clients put in front of the model for the launch's MCP servers
// (docs/budget.md): tool definitions, or only their names, or one gateway tool.
type MCP struct {
	// Mode is how the client offers the servers' tools:
	//   - "inline": Claude sends every tool's definition (name, description, input schema);
	//   - "deferred": Claude's tool search: the model sees each tool's name, and a
	//     definition only once it searches for it;
	//   - "gateway": PI's MCP adapter offers one mcp tool and one proxy tool per server,
	//     whatever the servers' tools; the model lists or searches them when it needs them.
	Mode string `json:"mode"`
	// Tools is how many tool definitions the servers add to every request; nil when it
	// depends on servers never checked (see Unchecked).
	Tools *int `json:"tools"`
	// ServerTools is how many tools the checked servers offer.
	ServerTools int `json:"serverTools"`
	// Chars is what the model sees for them: each definition's name, description and
	// input schema (compact JSON), or each name and its newline when deferred.
	Chars  int  `json:"chars"`
	Tokens *int `json:"tokens"` // Chars/4, nil with Tools
	// Servers are the launch's servers; Unchecked those whose tools are not known because
	// no plugboard mcp check has run on their current config (Claude's legacy .mcp.json
	// servers, which Claude starts itself, are never checked).
	Servers   []MCPServer `json:"servers"`
	Unchecked []string    `json:"unchecked"`
}

// MCPServer is one server's share of MCP.
type MCPServer struct {
	Plugin  string `json:"plugin,omitempty"`
	Name    string `json:"name"`
	Checked bool   `json:"checked"`
	OK      bool   `json:"ok"`
	Tools   int    `json:"tools"`
	Chars   int    `json:"chars"`
}

// PI's MCP adapter (pi-mcp-adapter 2.x): the mcp gateway tool's name, description and
// schema, less the "Servers: a, b" list it names the servers in; and a server's proxy
// tool, less the server's name, which it holds twice (tool name mcp__NAME, and in its
// description). Measured against the real adapter's request by budget_e2e_test.go.
const (
	piGatewayChars = 3246
	piProxyChars   = 609
)

// claudeNameRe is what Claude Code keeps of a server or tool name in a tool name.
var claudeNameRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-zA-Z0-9_-]`) })

func claudeToolName(server, tool string) string {
	return "mcp__" + claudeNameRe().ReplaceAllString(server, "_") + "__" + claudeNameRe().ReplaceAllString(tool, "_")
}

// predictMCP is the MCP part of plan's report from what is known of its servers.
func predictMCP(plan *runtime.Plan, o Options) MCP {
	m := MCP{Servers: []MCPServer{}, Unchecked: []string{}}
	known := map[string]mcphealth.Result{}
	for _, r := range o.Servers {
		known[r.Name] = r
	}
	for _, name := range plan.Servers {
		r, ok := known[name]
		s := MCPServer{Plugin: r.Plugin, Name: name, Checked: ok && r.Checked, OK: r.OK, Tools: len(r.Tools)}
		if !s.Checked {
			m.Unchecked = append(m.Unchecked, name)
		}
		m.ServerTools += s.Tools
		m.Servers = append(m.Servers, s)
	}
	if plan.Backend == runtime.PI {
		m.Mode = "gateway"
		var names []string
		for i := range m.Servers {
			s := &m.Servers[i]
			s.Chars = piProxyChars + 2*utf16Len(s.Name)
			m.Chars += s.Chars
			names = append(names, s.Name)
		}
		if len(names) > 0 {
			m.Chars += piGatewayChars + utf16Len(strings.Join(names, ", "))
		}
		m.set(len(names) + min(len(names), 1))
		return m
	}
	inline := 0
	for i := range m.Servers {
		s := &m.Servers[i]
		for _, t := range known[s.Name].Tools {
			s.Chars += utf16Len(claudeToolName(s.Name, t.Name)) + t.DescriptionChars + t.SchemaBytes
		}
		inline += s.Chars
	}
	m.Mode = claudeToolSearch(o.Getenv, inline, contextWindow(o.Model))
	tools := m.ServerTools
	if m.Mode == "deferred" {
		tools = 0
		for i := range m.Servers {
			s := &m.Servers[i]
			s.Chars = 0
			for _, t := range known[s.Name].Tools {
				s.Chars += utf16Len(claudeToolName(s.Name, t.Name)) + 1
			}
		}
	}
	for _, s := range m.Servers {
		m.Chars += s.Chars
	}
	if len(m.Unchecked) == 0 {
		m.set(tools)
	}
	return m
}

func (m *MCP) set(tools int) {
	tok := int(math.Round(float64(m.Chars) / 4))
	m.Tools, m.Tokens = &tools, &tok
}

// claudeToolSearch says whether Claude Code 2.1.197 defers MCP tools to its tool search
// (docs/budget.md): not when experimental betas are off; as ENABLE_TOOL_SEARCH says
// (auto:N: when the tools take N% of the context or more, N 10 for "auto"); unset, only
// against Anthropic's own API (no ANTHROPIC_BASE_URL, or api.anthropic.com) and not on
// Vertex.
func claudeToolSearch(getenv func(string) string, inlineChars, window int) string {
	if truthy(getenv("CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS")) {
		return "inline"
	}
	v := getenv("ENABLE_TOOL_SEARCH")
	if v == "auto" || strings.HasPrefix(v, "auto:") {
		pct := 10
		if n, err := strconv.Atoi(strings.TrimPrefix(v, "auto:")); err == nil {
			pct = max(0, min(100, n))
		}
		switch {
		case pct == 0:
			return "deferred"
		case pct == 100:
			return "inline"
		case float64(inlineChars)/4 >= float64(window)*float64(pct)/100:
			return "deferred"
		}
		return "inline"
	}
	if v != "" {
		if falsy(v) {
			return "inline"
		}
		return "deferred"
	}
	switch {
	case truthy(getenv("CLAUDE_CODE_USE_VERTEX")):
		return "inline"
	case truthy(getenv("CLAUDE_CODE_USE_BEDROCK")):
		return "deferred"
	}
	if base := getenv("ANTHROPIC_BASE_URL"); base != "" {
		if u, err := url.Parse(base); err != nil || u.Host != "api.anthropic.com" {
			return "inline"
		}
	}
	return "deferred"
}

func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

func falsy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "0", "false", "no", "off":
		return true
	}
	return false
}
