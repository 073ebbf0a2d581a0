package runtime

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
)

// CopilotHomeEnv is the variable that tells Copilot CLI where its home is (its
// settings, skills, installed plugins, MCP config and state).
const CopilotHomeEnv = "COPILOT_HOME"

// copilotServerName is what Copilot CLI accepts as an MCP server's name.
var copilotServerName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// copilotLayout projects a launch set for GitHub Copilot CLI (R2, R3):
//
//	plugins/<namespace>/.claude-plugin/plugin.json   one plugin per package of the set,
//	plugins/<namespace>/skills/<skill>/              its skills copied; each passed with
//	                                                 --plugin-dir (Copilot CLI 1.0.86 on)
//	mcp.json                                         the projected MCP servers, passed with
//	                                                 --additional-mcp-config @mcp.json
//	stdio/, remote/                                  the servers' private files (serverFiles)
//
// Copilot CLI names a plugin's skills without its plugin's name, so two skills of one
// name collide as they do for PI. It writes its state into its home, so COPILOT_HOME is a
// private folder beside the projection (readyCopilotHome): the user's settings less the
// set-deciding ones, with the user's ~/.agents/skills ignored, and without the user's
// installed plugins or MCP config.
func copilotLayout(plan *Plan, units []unit, req Request) layout {
	l := newLayout()
	plan.GrantsUnsupported = GrantsUnsupportedCopilot
	argv := []string{binOr(req.Bin, Copilot)}
	servers := newServerFiles(plan, &l, req)
	for _, u := range units {
		l.how[u.p.ID] = "projected"
		dropLegacyMCP(plan, u, "Copilot CLI")
		ns := namespace(&u.p)
		folder := "plugins/" + safeName(ns, u.p.ID)
		l.files[folder+"/.claude-plugin/plugin.json"] = mustJSON(compatManifest(&u.p, ns))
		for _, s := range u.skills {
			projectSkill(plan, &l, nil, &u, s, s.name, folder+"/skills/"+s.name)
		}
		argv = append(argv, "--plugin-dir", filepath.Join(plan.Projection, filepath.FromSlash(folder)))
		u.mcp = keepServers(plan, u, copilotServerName, "Copilot CLI accepts only letters, digits, '.', '-' and '_' in an MCP server's name")
		// "tools": every tool of the server, as Claude and PI offer them.
		servers.add(u, func(Server) map[string]any { return map[string]any{"type": "local", "tools": []string{"*"}} })
	}
	if len(servers.entries) > 0 {
		l.files["mcp.json"] = mustJSON(map[string]any{"mcpServers": servers.entries})
		argv = append(argv, "--additional-mcp-config", "@"+filepath.Join(plan.Projection, "mcp.json"))
	}
	// The relays record each MCP tool call for the target they read here (servers.go).
	plan.SetEnv(ActivityTargetEnv, plan.Target)
	plan.SetEnv(CopilotHomeEnv, StateHome(req.PlugboardHome, Copilot, plan.Fingerprint))
	plan.Argv = append(argv, req.Args...)
	return l
}

// copilotUserHome is the user's own Copilot CLI home: $COPILOT_HOME, else ~/.copilot.
func copilotUserHome(req Request) string {
	if h := req.getenv(CopilotHomeEnv); h != "" {
		return h
	}
	return filepath.Join(req.Home, ".copilot")
}

// copilotSetKeys are the settings.json members that decide what a Copilot CLI session
// loads; a launch replaces them and carries over the rest of the user's settings.
var copilotSetKeys = []string{"installedPlugins", "enabledPlugins", "skillDirectories", "ignoredSkillsLocations", "disabledSkills",
	"disabledMcpServers", "enabledMcpServers", "marketplaces", "extraKnownMarketplaces"}

// readyCopilotHome makes the Copilot CLI home of a launch: settings.json (the user's
// settings less the set-deciding members and any that may hold a secret, with
// ~/.agents/skills ignored, which Copilot reads from HOME whatever COPILOT_HOME says) and
// config.json as a link to the user's, where Copilot CLI keeps who is signed in. A token
// in the system keychain or in COPILOT_GITHUB_TOKEN / GH_TOKEN / GITHUB_TOKEN is found as
// in any session.
func readyCopilotHome(plan *Plan, req Request) error {
	home := StateHome(req.PlugboardHome, Copilot, plan.Fingerprint)
	if err := readyStateHome(home, "", filepath.Join(home, "skills")); err != nil {
		return err
	}
	user := copilotUserHome(req)
	settings := map[string]any{}
	if data, err := os.ReadFile(filepath.Join(user, "settings.json")); err == nil {
		if err := json.Unmarshal(data, &settings); err != nil || settings == nil {
			plan.Dropped = append(plan.Dropped, Drop{What: "settings", Name: filepath.Join(user, "settings.json"),
				Reason: "your Copilot CLI settings could not be read, so the launch uses its defaults; fix the file to carry them over"})
			settings = map[string]any{}
		}
	}
	for _, k := range copilotSetKeys {
		delete(settings, k)
	}
	dropSecrets(settings)
	settings["ignoredSkillsLocations"] = []string{filepath.Join(req.Home, ".agents", "skills")}
	if err := writePrivate(filepath.Join(home, "settings.json"), mustJSON(settings)); err != nil {
		return err
	}
	return linkUserFile(filepath.Join(user, "config.json"), filepath.Join(home, "config.json"))
}
