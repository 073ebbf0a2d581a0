package runtime

import (
	"path/filepath"
	"strconv"

	"github.com/plugboard/plugboard/backend/mcptap"
)

// proxyConfig is the private file plugboard mcp-proxy reads (backend/mcpproxy.Config).
type proxyConfig struct {
	Type     string            `json:"type"`
	URL      string            `json:"url"`
	Headers  map[string]string `json:"headers,omitempty"`
	EnvRefs  bool              `json:"envRefs,omitempty"`
	Activity *mcptap.Info      `json:"activity,omitempty"`
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
	// Activity names the server for the records of its tool calls (backend/mcptap):
	// with it mcp-stdio starts the server as its child and counts the calls it relays;
	// without it (a file an older launch wrote) it replaces itself with the server.
	Activity *mcptap.Info `json:"activity,omitempty"`
}

// serverFiles turns a launch's normalised servers into client config entries. Every
// entry runs this program, and what it needs sits in a private file of the projection
// (0600), never in the client's config:
//
//   - a stdio server runs "plugboard mcp-stdio --config stdio/<n>.json", which changes to
//     the server's cwd, sets its env and starts the server as its child, relaying its
//     stdin and stdout (ExecStdio). Clients have no working-folder setting (Claude) or
//     expand ${VAR} in args and env values (Claude and the PI bridge both), and spec
//     §9.2 wants such text left literal;
//   - a remote server runs "plugboard mcp-proxy --config remote/<n>.json", which holds
//     the URL and headers and refuses every redirect (R4).
//
// Both files name the server for the records of its tool calls (R8, backend/mcptap):
// the store's home, the backend, the fingerprint, the plugin and the server's name, all
// functions of the projection's path and of what its fingerprint covers, so the files
// are sealed and reused with the projection. The target is not in them: the relays read
// it from the agent's environment (ActivityTargetEnv), and a try's run from
// ActivityRunEnv.
//
// Without the plugboard executable's path no entry can be written, and the servers are
// dropped with that reason.
type serverFiles struct {
	plan         *Plan
	l            *layout
	self, pbHome string
	entries      map[string]any
	n            int
}

func newServerFiles(plan *Plan, l *layout, req Request) *serverFiles {
	return &serverFiles{plan: plan, l: l, self: req.Self, pbHome: req.PlugboardHome, entries: map[string]any{}}
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
		info := &mcptap.Info{Home: f.pbHome, Backend: f.plan.Backend, Fingerprint: f.plan.Fingerprint, Plugin: u.p.ID, Server: s.Name}
		if s.Stdio() {
			rel, verb = "stdio/"+strconv.Itoa(f.n)+".json", "mcp-stdio"
			f.l.files[rel] = mustJSON(StdioConfig{Command: s.Command, Args: nonNil(s.Args), Env: s.Env, Cwd: s.Cwd, EnvRefs: s.EnvRefs,
				Activity: info})
		} else {
			rel, verb = "remote/"+strconv.Itoa(f.n)+".json", "mcp-proxy"
			f.l.files[rel] = mustJSON(proxyConfig{Type: s.Type, URL: s.URL, Headers: s.Headers, EnvRefs: s.EnvRefs, Activity: info})
		}
		e := base(s)
		e["command"] = f.self
		e["args"] = []string{verb, "--config", filepath.Join(f.plan.Projection, rel)}
		f.entries[s.Name] = e
		f.plan.Servers = append(f.plan.Servers, s.Name)
	}
}
