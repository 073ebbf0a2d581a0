package runtime

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"

	"github.com/BurntSushi/toml"
)

// CodexHomeEnv is the variable that tells Codex where its home is (its config.toml,
// skills, auth and state).
const CodexHomeEnv = "CODEX_HOME"

// GrantsUnsupportedCodex and GrantsUnsupportedCopilot are the plans' word on grants for
// Codex and Copilot CLI.
const (
	GrantsUnsupportedCodex   = "unsupported by backend: Codex's sandbox decides what the agent reads, and a launch gives it no per-path rules; refused entries are still listed, and the model is told about them"
	GrantsUnsupportedCopilot = "unsupported by backend: Copilot CLI asks before it reads outside the working folder, and a launch gives it no per-path rules; refused entries are still listed, and the model is told about them"
)

// codexServerName is what Codex accepts as an [mcp_servers.<name>] key; it refuses the
// whole config.toml for one it does not.
var codexServerName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// codexLayout projects a launch set for Codex (R2, R3):
//
//	skills/<name>/        every projected skill
//	config.toml           the launch's part of Codex's config: the projected MCP servers
//	                      (each through the plugboard executable) and Codex's bundled
//	                      skills turned off
//	stdio/, remote/       the servers' private files (see serverFiles)
//
// Codex writes its state (sessions, logs, an installation id) into its home, so the
// home is not the sealed projection but a private folder beside it, readied by
// readyHome at each launch: its skills/ links to the projected skills, its config.toml
// is the user's own settings with the set-deciding tables replaced by the projection's,
// and auth.json links to the user's (readyCodexHome). CODEX_HOME points at it.
func codexLayout(plan *Plan, units []unit, req Request) layout {
	l := newLayout()
	plan.GrantsUnsupported = GrantsUnsupportedCodex
	servers := newServerFiles(plan, &l, req)
	home := StateHome(req.PlugboardHome, Codex, plan.Fingerprint)
	indexed := map[string]IndexedSkill{}
	for _, u := range units {
		l.how[u.p.ID] = "skills"
		dropLegacyMCP(plan, u, "Codex")
		for _, s := range u.skills {
			projectSkill(plan, &l, nil, &u, s, s.name, "skills/"+s.name)
			// Codex lists the skill in its home (CODEX_HOME/skills), and the model reads it there.
			indexed[s.name] = indexedSkill(&u, s, filepath.Join(home, "skills", s.name, "SKILL.md"))
		}
		u.mcp = keepServers(plan, u, codexServerName, "Codex accepts only letters, digits, '-' and '_' in an MCP server's name")
		servers.add(u, func(s Server) map[string]any {
			// Codex starts a server with a few variables of its environment only (HOME,
			// PATH, …): the ones the relay reads, and the ones a Cursor server refers
			// to, are passed by name.
			return map[string]any{"env_vars": append([]string{ActivityTargetEnv, ActivityRunEnv}, s.EnvRefNames()...)}
		})
	}
	var b bytes.Buffer
	doc := map[string]any{"skills": map[string]any{"bundled": map[string]any{"enabled": false}}}
	if len(servers.entries) > 0 {
		doc["mcp_servers"] = servers.entries
	}
	if req.Self != "" {
		// The skill-activity hook (codexhooks.go) and the index it reads.
		index := filepath.Join(plan.Projection, ActivityIndexFile)
		l.files[ActivityIndexFile] = mustJSON(ActivityIndex{V: 1, Home: req.PlugboardHome, Backend: Codex, Fingerprint: plan.Fingerprint, Skills: indexed})
		doc["hooks"] = map[string]any{"PreToolUse": []map[string]any{codexActivityHook(req.Self, index)}}
	}
	if err := toml.NewEncoder(&b).Encode(doc); err != nil {
		panic(err) // maps of strings and string lists: cannot fail
	}
	l.files["config.toml"] = b.Bytes()
	// The relays record each MCP tool call for the target they read here (servers.go).
	plan.SetEnv(ActivityTargetEnv, plan.Target)
	plan.SetEnv(CodexHomeEnv, home)
	plan.Argv = append([]string{binOr(req.Bin, Codex)}, req.Args...)
	return l
}

// keepServers returns u's servers whose names the client accepts; each other one is
// dropped alone with why.
func keepServers(plan *Plan, u unit, valid *regexp.Regexp, why string) []Server {
	var out []Server
	for _, s := range u.mcp {
		if valid.MatchString(s.Name) {
			out = append(out, s)
			continue
		}
		plan.Dropped = append(plan.Dropped, Drop{Plugin: u.p.ID, What: "server", Name: s.Name, Reason: why + "; rename the server"})
	}
	return out
}

// StateHome is the private, writable home a Codex or Copilot launch gives the client
// beside its sealed projection: $PLUGBOARD_HOME/runtime/<backend>-home/<fingerprint>.
func StateHome(pbHome, backend, fingerprint string) string {
	fp := fingerprint
	if len(fp) > len("sha256:")+32 {
		fp = fp[len("sha256:") : len("sha256:")+32]
	}
	return filepath.Join(RuntimeDir(pbHome), backend+"-home", fp)
}

// codexUserHome is the user's own Codex home: $CODEX_HOME, else ~/.codex.
func codexUserHome(req Request) string {
	if h := req.getenv(CodexHomeEnv); h != "" {
		return h
	}
	return filepath.Join(req.Home, ".codex")
}

// codexSetTables are the config.toml tables that decide what a Codex session loads; a
// launch replaces them with its own and carries over the rest of the user's settings.
var codexSetTables = []string{"mcp_servers", "plugins", "marketplaces", "skills"}

// readyCodexHome makes the Codex home of a launch: skills/ with a link per projected
// skill, config.toml (the user's settings, less the set-deciding tables and any
// setting that may hold a secret, plus the projection's config.toml and a
// skills.config entry turning off each skill of the user's ~/.agents/skills, which
// Codex reads from HOME whatever CODEX_HOME says), and auth.json as a link to the
// user's, so that Codex signs in as the user does and no credential is copied.
func readyCodexHome(plan *Plan, req Request) error {
	home := StateHome(req.PlugboardHome, Codex, plan.Fingerprint)
	if err := readyStateHome(home, filepath.Join(plan.Projection, "skills"), filepath.Join(home, "skills")); err != nil {
		return err
	}
	user := codexUserHome(req)
	settings := map[string]any{}
	if data, err := os.ReadFile(filepath.Join(user, "config.toml")); err == nil {
		if _, err := toml.Decode(string(data), &settings); err != nil {
			// Not the parser's message: it may quote the line, and a line may hold a token.
			where := ""
			var pe toml.ParseError
			if errors.As(err, &pe) {
				where = fmt.Sprintf(" (line %d)", pe.Position.Line)
			}
			plan.Dropped = append(plan.Dropped, Drop{What: "settings", Name: filepath.Join(user, "config.toml"),
				Reason: "your Codex settings are not valid TOML" + where + ", so the launch uses Codex's defaults; fix the file to carry them over"})
			settings = map[string]any{}
		}
	}
	for _, k := range codexSetTables {
		delete(settings, k)
	}
	// Hooks are kept whole: their trust is keyed by paths, which may hold any word.
	userHooks, hasHooks := settings["hooks"]
	delete(settings, "hooks")
	dropSecrets(settings)
	if hasHooks {
		settings["hooks"] = userHooks
	}
	var own map[string]any
	data, err := os.ReadFile(filepath.Join(plan.Projection, "config.toml"))
	if err != nil {
		return err
	}
	if _, err := toml.Decode(string(data), &own); err != nil {
		return err
	}
	ownHooks, _ := own["hooks"].(map[string]any)
	delete(own, "hooks")
	for k, v := range own {
		settings[k] = v
	}
	config := filepath.Join(home, "config.toml")
	mergeCodexHooks(settings, ownHooks, filepath.Join(user, "config.toml"), config)
	if off := userAgentsSkills(req.Home); len(off) > 0 {
		entries := make([]map[string]any, len(off))
		for i, p := range off {
			entries[i] = map[string]any{"path": p, "enabled": false}
		}
		skills, _ := settings["skills"].(map[string]any)
		skills["config"] = entries
	}
	if err := writeCodexConfig(config, settings); err != nil {
		return err
	}
	if ownHooks != nil {
		if why := trustCodexHook(plan, req, home, settings); why != "" {
			plan.Dropped = append(plan.Dropped, Drop{What: "hooks", Name: "skill activity",
				Reason: "Codex will not run the hook that records which skills the session uses, so they are not recorded (its MCP tool calls are): " + why})
		}
	}
	return linkUserFile(filepath.Join(user, "auth.json"), filepath.Join(home, "auth.json"))
}

// userAgentsSkills lists the SKILL.md files Codex finds under ~/.agents/skills (a
// SKILL.md in a folder, nested down to six levels, links followed), sorted.
func userAgentsSkills(home string) []string {
	var out []string
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		entries, err := os.ReadDir(dir)
		if err != nil || depth > 6 {
			return
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			st, err := os.Stat(p)
			if err != nil || !st.IsDir() {
				continue
			}
			if f, err := os.Stat(filepath.Join(p, "SKILL.md")); err == nil && f.Mode().IsRegular() {
				out = append(out, filepath.Join(p, "SKILL.md"))
			}
			walk(p, depth+1)
		}
	}
	walk(filepath.Join(home, ".agents", "skills"), 1)
	sort.Strings(out)
	return out
}
