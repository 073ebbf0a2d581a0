package runtime

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/plugboard/plugboard/backend/manifest"
)

// claudeLayout projects a launch set for Claude Code (R2, R3):
//
//	plugins/<namespace>/.claude-plugin/plugin.json   one compatibility plugin per portable
//	plugins/<namespace>/skills/<skill>/              or Cursor package, its skills copied
//	mcp.json                                         the supplemental --mcp-config
//	remote/<n>.json                                  url and headers of remote server n (0600)
//
// Legacy Claude folders are passed with --plugin-dir as they are (R1).
func claudeLayout(plan *Plan, units []unit, req Request) layout {
	l := newLayout()
	argv := []string{binOr(req.Bin, Claude)}
	servers := map[string]any{}
	remote := 0
	for _, u := range units {
		ns := namespace(&u.p)
		if u.p.Format == manifest.FormatLegacy {
			l.how[u.p.ID] = "as-is"
			argv = append(argv, "--plugin-dir", u.dir)
			for _, s := range u.p.Skills {
				if s.Valid {
					plan.Skills = append(plan.Skills, ns+":"+s.Folder)
				}
			}
		} else {
			l.how[u.p.ID] = "projected"
			folder := "plugins/" + safeName(ns, u.p.ID)
			m := map[string]string{"name": ns}
			if u.p.Version != "" {
				m["version"] = u.p.Version
			}
			if u.p.Description != "" {
				m["description"] = u.p.Description
			}
			l.files[folder+"/.claude-plugin/plugin.json"] = mustJSON(m)
			for _, s := range u.skills {
				l.trees[folder+"/skills/"+s.name] = s.t
				plan.Skills = append(plan.Skills, ns+":"+s.name)
			}
			argv = append(argv, "--plugin-dir", filepath.Join(plan.Projection, filepath.FromSlash(folder)))
		}
		for _, s := range u.mcp {
			if s.Stdio() {
				servers[s.Name] = stdioEntry(s, req.Self)
			} else {
				if req.Self == "" {
					plan.Dropped = append(plan.Dropped, Drop{Plugin: u.p.ID, What: "server", Name: s.Name,
						Reason: "remote servers need the plugboard executable as their proxy, and its path is not known"})
					continue
				}
				remote++
				rel := "remote/" + strconv.Itoa(remote) + ".json"
				l.files[rel] = mustJSON(proxyConfig{Type: s.Type, URL: s.URL, Headers: s.Headers})
				servers[s.Name] = map[string]any{"type": "stdio", "command": req.Self,
					"args": []string{"mcp-proxy", "--config", filepath.Join(plan.Projection, rel)}}
			}
			plan.Servers = append(plan.Servers, s.Name)
		}
	}
	if len(servers) > 0 {
		l.files["mcp.json"] = mustJSON(map[string]any{"mcpServers": servers})
		// Supplemental: without --strict-mcp-config the user's own servers stay.
		argv = append(argv, "--mcp-config", filepath.Join(plan.Projection, "mcp.json"))
	}
	plan.Argv = append(argv, req.Args...)
	return l
}

// proxyConfig is the private file plugboard mcp-proxy reads (backend/mcpproxy.Config).
type proxyConfig struct {
	Type    string            `json:"type"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
}

// stdioEntry is a normalised stdio server as a client config entry. Neither Claude's
// config nor the PI bridge's has a working-folder field, so the server is started
// through "plugboard mcp-stdio", which changes to the normalised cwd and then replaces
// itself with the server (no process stays between them). Without the plugboard
// executable the server is started directly, in the agent's working folder.
func stdioEntry(s Server, self string) map[string]any {
	e := map[string]any{"type": "stdio", "command": s.Command, "args": nonNil(s.Args), "env": s.Env}
	if self != "" {
		e["command"] = self
		e["args"] = append([]string{"mcp-stdio", "--cwd", s.Cwd, "--", s.Command}, s.Args...)
	}
	return e
}

func binOr(bin, name string) string {
	if bin != "" {
		return bin
	}
	return name
}

// safeName is name when it can be a folder name, else fallback.
func safeName(name, fallback string) string {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`+"\x00") {
		return fallback
	}
	return name
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

func mustJSON(v any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err) // maps of strings: cannot fail
	}
	return append(b, '\n')
}
