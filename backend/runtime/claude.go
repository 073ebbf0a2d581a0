package runtime

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/clients"
	"github.com/plugboard/plugboard/backend/mcpconfig"
)

// claudeLayout projects a launch set for Claude Code (R2, R3):
//
//	plugins/<namespace>/.claude-plugin/plugin.json   one compatibility plugin per portable
//	plugins/<namespace>/skills/<skill>/              or Cursor package, its skills copied
//	mcp.json                                         the supplemental --mcp-config
//	stdio/<n>.json, remote/<n>.json                  the servers' private files (serverFiles)
//	settings.json, activity.json                     --settings with the skill-activity hooks
//	                                                 and the skills' read grants (grants.go),
//	                                                 and the index the hooks read (activity.go)
//
// Legacy Claude folders are passed with --plugin-dir as they are (R1).
func claudeLayout(plan *Plan, units []unit, req Request) layout {
	l := newLayout()
	argv := []string{binOr(req.Bin, Claude)}
	servers := newServerFiles(plan, &l, req)
	unmet := claudeUnmet(units)
	for i, u := range units {
		ns := claudeNamespace(&u)
		if need, ok := unmet[i]; ok {
			// Claude would leave it out: it is not given.
			l.how[u.p.ID] = "dropped"
			plan.Dropped = append(plan.Dropped, Drop{Plugin: u.p.ID, What: "plugin", Code: clients.CodeClaudeNeeds,
				Reason: "Claude leaves it out: it depends on " + need + ", which this launch does not load; add that plugin to the launch"})
			continue
		}
		if u.asIs() {
			l.how[u.p.ID] = "as-is"
			if u.asClaude {
				l.how[u.p.ID] = "as-claude-loads-it"
			}
			argv = append(argv, "--plugin-dir", u.dir)
			// Claude reads the folder itself: what it lists and leaves out is its own
			// load model's (backend/clients), not the specification's.
			if c := u.p.Clients; c != nil {
				for _, name := range c.Claude.Skills {
					plan.addSkill(name, u.p.ID)
				}
				for _, d := range c.Claude.Dropped {
					plan.Dropped = append(plan.Dropped, Drop{Plugin: u.p.ID, What: "skill", Name: d.Path, Reason: "Claude leaves it out: " + d.Reason})
				}
			}
			// Claude starts a legacy folder's own .mcp.json servers itself, named
			// plugin:<namespace>:<server>; they are listed so the plan says what loads.
			if hasFile(u.root, ".mcp.json") {
				if c := mcpconfig.LoadClaude(filepath.Join(u.root, ".mcp.json"), ".mcp.json"); c != nil {
					for _, s := range c.Servers {
						plan.Servers = append(plan.Servers, "plugin:"+ns+":"+s.Name)
					}
				}
			}
		} else {
			l.how[u.p.ID] = "projected"
			folder := "plugins/" + safeName(ns, u.p.ID)
			l.files[folder+"/.claude-plugin/plugin.json"] = mustJSON(compatManifest(&u.p, ns))
			for _, s := range u.skills {
				projectSkill(plan, &l, &plan.perms, &u, s, ns+":"+s.name, folder+"/skills/"+s.name)
			}
			argv = append(argv, "--plugin-dir", filepath.Join(plan.Projection, filepath.FromSlash(folder)))
		}
		servers.add(u, func(s Server) map[string]any { return map[string]any{"type": "stdio"} })
	}
	if len(servers.entries) > 0 {
		l.files["mcp.json"] = mustJSON(map[string]any{"mcpServers": servers.entries})
		// Supplemental: without --strict-mcp-config the user's own servers stay. The "="
		// form, because --mcp-config takes several files and would swallow what follows.
		argv = append(argv, "--mcp-config="+filepath.Join(plan.Projection, "mcp.json"))
	}
	// The hooks that record which skills the session invokes (R8, activity.go).
	argv = append(argv, activityFiles(plan, &l, units, req)...)
	plan.Argv = append(argv, req.Args...)
	return l
}

// claudeNamespace is the name Claude gives the plugin: its own model's reading of a
// folder Claude gets as it is, else the namespace of the compatibility plugin.
func claudeNamespace(u *unit) string {
	if u.asIs() && u.p.Clients != nil {
		return u.p.Clients.Claude.Plugin
	}
	return namespace(&u.p)
}

// claudeUnmet finds the plugins of the launch Claude leaves out for their dependencies
// (clients.Verdict.Needs): a need is met by a plugin of the same launch of that name
// (name, or name@inline: a --plugin-dir plugin's marketplace) that Claude loads, its own
// needs met. It returns the index of each plugin left out and the first need it lacks.
func claudeUnmet(units []unit) map[int]string {
	loads := func(u *unit) bool { // before needs: refused manifests load nothing
		c := u.p.Clients
		return !u.asIs() || c == nil || c.Claude.Loads || len(c.Claude.Needs) > 0
	}
	out := map[int]string{}
	for changed := true; changed; {
		changed = false
		loaded := map[string]bool{}
		for i := range units {
			if _, left := out[i]; !left && loads(&units[i]) {
				loaded[claudeNamespace(&units[i])] = true
			}
		}
		for i := range units {
			u := &units[i]
			if _, left := out[i]; left || !u.asIs() || u.p.Clients == nil {
				continue
			}
			for _, n := range u.p.Clients.Claude.Needs {
				plugin, market, _ := strings.Cut(n, "@")
				if market != "" && market != "inline" || !loaded[plugin] {
					out[i], changed = n, true
					break
				}
			}
		}
	}
	return out
}

// compatManifest is the .claude-plugin/plugin.json of a compatibility plugin: the
// portable namespace as its name, and the metadata Claude shows.
func compatManifest(p *catalog.Plugin, ns string) map[string]any {
	m := map[string]any{"name": ns}
	if p.Version != "" {
		m["version"] = p.Version
	}
	if p.Description != "" {
		m["description"] = p.Description
	}
	if p.Author != nil && p.Author.Name != "" {
		m["author"] = p.Author
	}
	return m
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
