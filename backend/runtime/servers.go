package runtime

import (
	"path/filepath"
	"strconv"
)

// proxyConfig is the private file plugboard mcp-proxy reads (backend/mcpproxy.Config).
type proxyConfig struct {
	Type    string            `json:"type"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
	EnvRefs bool              `json:"envRefs,omitempty"`
}

// StdioConfig is the private file plugboard mcp-stdio reads: a normalised stdio server.
type StdioConfig struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Cwd     string            `json:"cwd"`
	// EnvRefs: resolve ${env:NAME} and ${NAME} in command, args and env values from the
	// environment mcp-stdio is given (a Cursor server; Server.EnvRefs).
	EnvRefs bool `json:"envRefs,omitempty"`
}

// serverFiles turns a launch's normalised servers into client config entries. Every
// entry runs this program, and what it needs sits in a private file of the projection
// (0600), never in the client's config:
//
//   - a stdio server runs "plugboard mcp-stdio --config stdio/<n>.json", which changes to
//     the server's cwd, sets its env and replaces itself with the server. Clients have no
//     working-folder setting (Claude) or expand ${VAR} in args and env values (Claude and
//     the PI bridge both), and spec §9.2 wants such text left literal;
//   - a remote server runs "plugboard mcp-proxy --config remote/<n>.json", which holds
//     the URL and headers and refuses every redirect (R4).
//
// Without the plugboard executable's path no entry can be written, and the servers are
// dropped with that reason.
type serverFiles struct {
	plan    *Plan
	l       *layout
	self    string
	entries map[string]any
	n       int
}

func newServerFiles(plan *Plan, l *layout, self string) *serverFiles {
	return &serverFiles{plan: plan, l: l, self: self, entries: map[string]any{}}
}

// add writes the entries of one plugin's servers; base gives each entry's fixed members
// (the client's own shape).
func (f *serverFiles) add(u unit, base func(Server) map[string]any) {
	for _, s := range u.mcp {
		if f.self == "" {
			f.plan.Dropped = append(f.plan.Dropped, Drop{Plugin: u.p.ID, What: "server", Name: s.Name,
				Reason: "servers are started through the plugboard executable, and its path is not known"})
			continue
		}
		f.n++
		var rel, verb string
		if s.Stdio() {
			rel, verb = "stdio/"+strconv.Itoa(f.n)+".json", "mcp-stdio"
			f.l.files[rel] = mustJSON(StdioConfig{Command: s.Command, Args: nonNil(s.Args), Env: s.Env, Cwd: s.Cwd, EnvRefs: s.EnvRefs})
		} else {
			rel, verb = "remote/"+strconv.Itoa(f.n)+".json", "mcp-proxy"
			f.l.files[rel] = mustJSON(proxyConfig{Type: s.Type, URL: s.URL, Headers: s.Headers, EnvRefs: s.EnvRefs})
		}
		e := base(s)
		e["command"] = f.self
		e["args"] = []string{verb, "--config", filepath.Join(f.plan.Projection, rel)}
		f.entries[s.Name] = e
		f.plan.Servers = append(f.plan.Servers, s.Name)
	}
}
