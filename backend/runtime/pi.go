package runtime

import (
	"os"
	"os/exec"
	"path/filepath"

	"github.com/plugboard/plugboard/backend/manifest"
)

// PIMCPConfigMode is the environment variable that makes the pi-mcp-adapter extension
// read only the config file it is given (PIMCPConfigMode=exclusive), not the user's and
// the project's MCP files as well.
const PIMCPConfigMode = "PI_MCP_CONFIG_MODE"

// piLayout projects a launch set for PI (R2, R3):
//
//	skills/<name>/        every projected skill, each passed with its own --skill
//	mcp.json              the private config of the MCP bridge (pi-mcp-adapter)
//	stdio/, remote/       the servers' private files (see serverFiles)
//	activity.ts           the skill-activity extension, passed with -e, and the index
//	activity.json         it reads (piactivity.go)
//
// --no-skills turns PI's own skill discovery off, so exactly the projection loads. PI
// has no MCP of its own: the pi-mcp-adapter extension is loaded with -e and pointed at
// the private config with --mcp-config, in exclusive mode. When the adapter cannot be
// found, the servers are dropped with that reason and the skills still launch.
func piLayout(plan *Plan, units []unit, req Request) layout {
	l := newLayout()
	argv := []string{binOr(req.Bin, PI), "--no-skills"}
	plan.GrantsUnsupported = GrantsUnsupportedPI
	indexed := map[string]IndexedSkill{}
	servers := newServerFiles(plan, &l, req)
	adapter := req.PIMCPAdapter // found by Build when not given
	for _, u := range units {
		l.how[u.p.ID] = "skills"
		dropLegacyMCP(plan, u, "PI")
		for _, s := range u.skills {
			rel := "skills/" + s.name
			projectSkill(plan, &l, nil, &u, s, s.name, rel)
			dir := filepath.Join(plan.Projection, filepath.FromSlash(rel))
			argv = append(argv, "--skill", dir)
			indexed[s.name] = indexedSkill(&u, s, filepath.Join(dir, "SKILL.md"))
		}
		if len(u.mcp) == 0 {
			continue
		}
		if adapter == "" {
			for _, s := range u.mcp {
				plan.Dropped = append(plan.Dropped, Drop{Plugin: u.p.ID, What: "server", Name: s.Name,
					Reason: "PI loads MCP servers only through the pi-mcp-adapter extension, which was not found; install it beside pi (npm install -g pi-mcp-adapter) or set PLUGBOARD_PI_MCP_ADAPTER to its index.ts"})
			}
			continue
		}
		// "eager": connected at start, as Claude does; the adapter's default waits for a
		// metadata cache it does not have in a private launch.
		servers.add(u, func(Server) map[string]any { return map[string]any{"lifecycle": "eager"} })
	}
	// The extension that records which skills the session invokes (R8, piactivity.go).
	argv = append(argv, piActivityFiles(plan, &l, indexed, req)...)
	if len(servers.entries) > 0 {
		// scriptMode off: the adapter would otherwise add a skill of its own beside the
		// projected ones.
		l.files["mcp.json"] = mustJSON(map[string]any{"settings": map[string]any{"scriptMode": false}, "mcpServers": servers.entries})
		argv = append(argv, "-e", adapter, "--mcp-config", filepath.Join(plan.Projection, "mcp.json"))
		plan.EnvKeys = append(plan.EnvKeys, PIMCPConfigMode)
		plan.env = append(plan.env, PIMCPConfigMode+"=exclusive")
	}
	plan.Argv = append(argv, req.Args...)
	return l
}

// dropLegacyMCP says that a legacy Claude plugin's .mcp.json is not given to client,
// which gets the plugin's skills only.
func dropLegacyMCP(plan *Plan, u unit, client string) {
	if u.p.Format == manifest.FormatLegacy && hasFile(u.root, ".mcp.json") {
		plan.Dropped = append(plan.Dropped, Drop{Plugin: u.p.ID, What: "mcp",
			Reason: "a legacy Claude plugin's .mcp.json is Claude's format and is not given to " + client + "; move its servers to a portable mcp.json"})
	}
}

func hasFile(dir, name string) bool {
	st, err := os.Lstat(filepath.Join(dir, name))
	return err == nil && st.Mode().IsRegular()
}

// findPIMCPAdapter looks for pi-mcp-adapter installed beside pi: the npm folder that
// holds pi's package (a global install, or a project's node_modules) holds the adapter
// too when it was installed the same way.
func findPIMCPAdapter(bin string) string {
	p, err := exec.LookPath(bin)
	if err != nil {
		return ""
	}
	if p, err = filepath.EvalSymlinks(p); err != nil {
		return ""
	}
	for dir := filepath.Dir(p); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if filepath.Base(dir) != "node_modules" {
			continue
		}
		cand := filepath.Join(dir, "pi-mcp-adapter", "index.ts")
		if st, err := os.Stat(cand); err == nil && st.Mode().IsRegular() {
			return cand
		}
	}
	return ""
}
