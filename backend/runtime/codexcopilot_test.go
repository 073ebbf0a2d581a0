package runtime

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/plugboard/plugboard/backend/assign"
	"github.com/plugboard/plugboard/backend/pathsafe"
	"github.com/plugboard/plugboard/backend/testhome"
)

// Codex gets the set through CODEX_HOME alone: no argument of its own, the projected
// skills by their bare names, the servers in the projection's config.toml through the
// plugboard executable, each passing the relays' variables by name; nothing of the
// config points into an installed package, and no env or header value is in it.
func TestCodexProjection(t *testing.T) {
	pb := home(t)
	req := request(pb, "coder")
	req.Backend, req.Bin = Codex, "/usr/bin/codex"
	p := build(t, req)
	if !slices.Equal(p.Argv, []string{"/usr/bin/codex"}) || !slices.Equal(p.EnvKeys, []string{ActivityTargetEnv, CodexHomeEnv}) {
		t.Errorf("argv %v, env keys %v", p.Argv, p.EnvKeys)
	}
	if !slices.Equal(p.Skills, []string{"check", "explain", "grep-help"}) || !slices.Equal(p.Servers, []string{"docs", "lint"}) {
		t.Errorf("skills %v, servers %v", p.Skills, p.Servers)
	}
	if p.SkillPlugin("grep-help") != "legacy-tools" || p.SkillPlugin("check") != "review" {
		t.Errorf("skill owners: grep-help %q, check %q", p.SkillPlugin("grep-help"), p.SkillPlugin("check"))
	}
	home := StateHome(pb, Codex, p.Fingerprint)
	if !slices.ContainsFunc(p.Dropped, func(d Drop) bool {
		return d.What == "hooks" && strings.Contains(d.Reason, "/usr/bin/codex cannot be started")
	}) {
		t.Errorf("a Codex that cannot be asked for its hook's hash is not reported: %+v", p.Dropped)
	}
	if env := p.Env(nil); !slices.Contains(env, CodexHomeEnv+"="+home) {
		t.Errorf("env %v", env)
	}
	// The command a person would run names the home, and nothing else of the env.
	if c := p.Command(); !slices.Equal(c, []string{CodexHomeEnv + "=" + home, "/usr/bin/codex"}) {
		t.Errorf("command %v", c)
	}
	data, err := os.ReadFile(filepath.Join(p.Projection, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
			EnvVars []string `toml:"env_vars"`
		} `toml:"mcp_servers"`
		Skills struct{ Bundled struct{ Enabled bool } }
	}
	if _, err := toml.Decode(string(data), &cfg); err != nil {
		t.Fatal(err)
	}
	for name, s := range cfg.MCPServers {
		if s.Command != req.Self || len(s.Args) != 3 || !slices.Contains(s.EnvVars, ActivityTargetEnv) {
			t.Errorf("server %s: %+v", name, s)
		}
	}
	if len(cfg.MCPServers) != 2 || cfg.Skills.Bundled.Enabled {
		t.Errorf("config.toml:\n%s", data)
	}
	// The skill-activity hook and its index: each skill where Codex lists it, in its home.
	index := filepath.Join(p.Projection, ActivityIndexFile)
	if !strings.Contains(string(data), ShellQuote([]string{req.Self, "activity", "record", "--codex", index})) {
		t.Errorf("config.toml has no activity hook:\n%s", data)
	}
	ix, err := ReadActivityIndex(index)
	if err != nil || ix.Backend != Codex || ix.Skills["check"].Location != filepath.Join(home, "skills", "check", "SKILL.md") || ix.Skills["check"].Plugin != "review" {
		t.Errorf("activity index %+v (%v)", ix, err)
	}
	if strings.Contains(string(data), envSecret) || strings.Contains(string(data), headerSecret) || strings.Contains(string(data), filepath.Join(pb, "plugins")) {
		t.Errorf("config.toml holds a secret or a path into a package:\n%s", data)
	}
	for _, name := range p.Skills {
		link := filepath.Join(home, "skills", name)
		if to, err := os.Readlink(link); err != nil || to != filepath.Join(p.Projection, "skills", name) || !pathsafe.Within(p.Projection, to) {
			t.Errorf("%s links to %q (%v)", link, to, err)
		}
	}
	if m := mode(t, home); m.Perm() != 0o700 {
		t.Errorf("the Codex home is %v", m)
	}
}

// Copilot CLI gets one --plugin-dir per projected plugin and the servers through
// --additional-mcp-config, in its own config shape; a legacy plugin's skills are copied
// too and its .mcp.json is not given.
func TestCopilotProjection(t *testing.T) {
	pb := home(t)
	req := request(pb, "coder")
	req.Backend, req.Bin = Copilot, "/usr/bin/copilot"
	p := build(t, req)
	dirs := argAfter(p.Argv, "--plugin-dir")
	want := []string{filepath.Join(p.Projection, "plugins", "review"), filepath.Join(p.Projection, "plugins", "legacy-tools")}
	if !slices.Equal(dirs, want) {
		t.Errorf("plugin dirs %v, want %v", dirs, want)
	}
	if cfg := argAfter(p.Argv, "--additional-mcp-config"); !slices.Equal(cfg, []string{"@" + filepath.Join(p.Projection, "mcp.json")}) {
		t.Errorf("argv %v", p.Argv)
	}
	var mcp struct {
		MCPServers map[string]struct {
			Type, Command string
			Tools         []string
		} `json:"mcpServers"`
	}
	readJSON(t, filepath.Join(p.Projection, "mcp.json"), &mcp)
	if s := mcp.MCPServers["lint"]; s.Type != "local" || s.Command != req.Self || !slices.Equal(s.Tools, []string{"*"}) || len(mcp.MCPServers) != 2 {
		t.Errorf("mcp.json %+v", mcp)
	}
	if _, err := os.Stat(filepath.Join(p.Projection, "plugins", "legacy-tools", "skills", "grep-help", "SKILL.md")); err != nil {
		t.Error(err)
	}
	var m map[string]any
	readJSON(t, filepath.Join(p.Projection, "plugins", "review", ".claude-plugin", "plugin.json"), &m)
	if m["name"] != "review" {
		t.Errorf("compatibility manifest %v", m)
	}
}

// Codex and Copilot CLI name skills without their plugin, so the same skill name in two
// packages fails the launch closed, as for PI (Claude keeps them apart by namespace).
func TestFlatBackendsRefuseASkillNameTwice(t *testing.T) {
	pb := home(t)
	for _, b := range []string{Codex, Copilot} {
		req := request(pb, "clash")
		req.Backend = b
		_, err := Build(req)
		var ce *CollisionError
		if !errors.As(err, &ce) || !slices.ContainsFunc(ce.Collisions, func(c assign.Collision) bool { return c.Name == "check" }) {
			t.Errorf("%s: %v", b, err)
		}
	}
}

// The Codex home carries the user's settings over, less the tables that decide the set
// and every setting whose name says it may hold a secret; the user's ~/.agents/skills
// are turned off by path and the user's auth.json is linked, never copied. A second
// launch remakes it; an auth.json Codex wrote in place of the link is left alone.
func TestCodexHomeCarriesSettingsNotSecrets(t *testing.T) {
	pb := home(t)
	root := filepath.Dir(pb)
	testhome.WriteFile(t, filepath.Join(root, ".codex", "config.toml"), `model = "gpt-test"
model_provider = "corp"

[model_providers.corp]
name = "Corp"
base_url = "http://127.0.0.1:9/v1"
env_key = "CORP_KEY"
experimental_bearer_token = "bearer-do-not-copy"
http_headers = { "X-Key" = "header-do-not-copy" }

[shell_environment_policy]
inherit = "core"
set = { TOKEN = "set-do-not-copy" }

[mcp_servers.mine]
command = "mine"

[projects."/work"]
trust_level = "trusted"

[[hooks.PreToolUse]]
matcher = "^Bash$"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "my-guard"

[hooks.state."`+filepath.Join(root, ".codex", "config.toml")+`:pre_tool_use:0:0"]
trusted_hash = "sha256:users-own-trust"
`)
	testhome.WriteFile(t, filepath.Join(root, ".codex", "auth.json"), `{"tokens": "do-not-copy"}`)
	testhome.WriteFile(t, filepath.Join(root, ".agents", "skills", "own", "SKILL.md"), "---\nname: own\ndescription: d\n---\n")
	testhome.WriteFile(t, filepath.Join(root, ".agents", "skills", "group", "nested", "SKILL.md"), "---\nname: nested\ndescription: d\n---\n")
	req := request(pb, "coder")
	req.Backend = Codex
	req.Getenv = func(string) string { return "" }
	p := build(t, req)
	home := StateHome(pb, Codex, p.Fingerprint)
	data, err := os.ReadFile(filepath.Join(home, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, secret := range []string{"bearer-do-not-copy", "header-do-not-copy", "set-do-not-copy", "do-not-copy\"}", `command = "mine"`} {
		if strings.Contains(text, secret) {
			t.Errorf("the Codex home's config.toml holds %q:\n%s", secret, text)
		}
	}
	var cfg map[string]any
	if _, err := toml.Decode(text, &cfg); err != nil {
		t.Fatal(err)
	}
	provider, _ := cfg["model_providers"].(map[string]any)["corp"].(map[string]any)
	policy, _ := cfg["shell_environment_policy"].(map[string]any)
	if cfg["model"] != "gpt-test" || provider["env_key"] != "CORP_KEY" || policy["inherit"] != "core" || cfg["projects"] == nil {
		t.Errorf("settings not carried over:\n%s", text)
	}
	// The user's hook keeps its place, and its trust moves to the launch's config; the
	// launch's hook comes after it.
	hooks, _ := cfg["hooks"].(map[string]any)
	pre, _ := hooks["PreToolUse"].([]map[string]any)
	state, _ := hooks["state"].(map[string]any)
	userKey := filepath.Join(home, "config.toml") + ":pre_tool_use:0:0"
	if len(pre) != 2 || pre[0]["hooks"].([]map[string]any)[0]["command"] != "my-guard" ||
		!strings.Contains(pre[1]["hooks"].([]map[string]any)[0]["command"].(string), "--codex") ||
		fmt.Sprint(state[userKey]) != "map[trusted_hash:sha256:users-own-trust]" || len(state) != 1 {
		t.Errorf("hooks in the Codex home:\n%s", text)
	}
	skills, _ := cfg["skills"].(map[string]any)
	var off []string
	for _, e := range skills["config"].([]map[string]any) {
		if e["enabled"] == false {
			off = append(off, e["path"].(string))
		}
	}
	wantOff := []string{filepath.Join(root, ".agents", "skills", "group", "nested", "SKILL.md"), filepath.Join(root, ".agents", "skills", "own", "SKILL.md")}
	if !slices.Equal(off, wantOff) {
		t.Errorf("skills turned off %v, want %v", off, wantOff)
	}
	auth := filepath.Join(home, "auth.json")
	if to, err := os.Readlink(auth); err != nil || to != filepath.Join(root, ".codex", "auth.json") {
		t.Errorf("auth.json links to %q (%v)", to, err)
	}
	// Codex replaced the link with a file of its own: the next launch leaves it.
	if err := os.Remove(auth); err != nil {
		t.Fatal(err)
	}
	testhome.WriteFile(t, auth, "{}")
	link := filepath.Join(home, "skills", "check")
	before, err := os.Lstat(link)
	if err != nil {
		t.Fatal(err)
	}
	p2 := build(t, req)
	if p2.Fingerprint != p.Fingerprint {
		t.Fatal("the fingerprint changed")
	}
	// The skills a session of the same launch may be reading are left in place.
	if after, err := os.Lstat(link); err != nil || !os.SameFile(before, after) {
		t.Errorf("a second launch remade the skill links: %v", err)
	}
	if b, _ := os.ReadFile(auth); string(b) != "{}" {
		t.Errorf("auth.json is now %q", b)
	}
}

// The Copilot CLI home carries the user's settings less the set-deciding and
// secret-named ones, and ignores ~/.agents/skills.
func TestCopilotHomeCarriesSettingsNotSecrets(t *testing.T) {
	pb := home(t)
	root := filepath.Dir(pb)
	testhome.WriteFile(t, filepath.Join(root, ".copilot", "settings.json"), `{"theme": "dark", "model": "m", "installedPlugins": [{"name": "x"}],
  "enabledPlugins": {"x": true}, "githubToken": "do-not-copy", "nested": {"apiKey": "do-not-copy", "keep": 1}}`)
	testhome.WriteFile(t, filepath.Join(root, ".copilot", "config.json"), `{"logged_in_users": []}`)
	req := request(pb, "coder")
	req.Backend = Copilot
	req.Getenv = func(string) string { return "" }
	p := build(t, req)
	home := StateHome(pb, Copilot, p.Fingerprint)
	var s map[string]any
	readJSON(t, filepath.Join(home, "settings.json"), &s)
	nested, _ := s["nested"].(map[string]any)
	if s["theme"] != "dark" || s["model"] != "m" || s["installedPlugins"] != nil || s["enabledPlugins"] != nil || s["githubToken"] != nil ||
		nested["apiKey"] != nil || nested["keep"] != float64(1) {
		t.Errorf("settings.json %v", s)
	}
	if l, _ := s["ignoredSkillsLocations"].([]any); len(l) != 1 || l[0] != filepath.Join(root, ".agents", "skills") {
		t.Errorf("ignoredSkillsLocations %v", s["ignoredSkillsLocations"])
	}
	if to, err := os.Readlink(filepath.Join(home, "config.json")); err != nil || to != filepath.Join(root, ".copilot", "config.json") {
		t.Errorf("config.json links to %q (%v)", to, err)
	}
}

// A dry run makes no client home; pruning a projection removes its client home too.
func TestStateHomeFollowsItsProjection(t *testing.T) {
	pb := home(t)
	req := request(pb, "coder")
	req.Backend, req.DryRun = Codex, true
	p := build(t, req)
	home := StateHome(pb, Codex, p.Fingerprint)
	if _, err := os.Lstat(home); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a dry run made the Codex home: %v", err)
	}
	req.DryRun = false
	p = build(t, req)
	if _, err := os.Stat(filepath.Join(home, "config.toml")); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * pruneAge)
	if err := os.Chtimes(p.Projection, old, old); err != nil {
		t.Fatal(err)
	}
	prune(filepath.Dir(p.Projection), "", time.Now())
	if _, err := os.Lstat(home); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the Codex home outlived its projection: %v", err)
	}
}

// A config.toml that is not TOML is said, by line, without the parser's quote of it, and
// the launch goes on with Codex's defaults.
func TestCodexSettingsThatDoNotParse(t *testing.T) {
	pb := home(t)
	root := filepath.Dir(pb)
	testhome.WriteFile(t, filepath.Join(root, ".codex", "config.toml"), "model = \"m\"\ntoken = sk-not-toml-do-not-leak\n")
	req := request(pb, "coder")
	req.Backend = Codex
	req.Getenv = func(string) string { return "" }
	p := build(t, req)
	i := slices.IndexFunc(p.Dropped, func(d Drop) bool { return d.What == "settings" })
	if i < 0 || !strings.Contains(p.Dropped[i].Reason, "(line 2)") || strings.Contains(p.Dropped[i].Reason, "do-not-leak") {
		t.Errorf("dropped %+v", p.Dropped)
	}
}
