package runtime

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/assign"
	"github.com/plugboard/plugboard/backend/pathsafe"
	"github.com/plugboard/plugboard/backend/testhome"
)

// Values planted in the fixture's mcp.json that must never appear in a plan.
const (
	envSecret    = "env-value-do-not-leak"
	headerSecret = "header-value-do-not-leak"
)

// home copies testdata/runtime/home into a fresh $PLUGBOARD_HOME, MCP acknowledged.
func home(t testing.TB) string {
	t.Helper()
	pb := testhome.CopyTestdata(t, filepath.Join("runtime", "home"))
	acknowledgeFixture(t, pb) // its MCP servers launch; ack_test.go shows the drop without
	return pb
}

func request(pb, target string) Request {
	return Request{Home: filepath.Dir(pb), PlugboardHome: pb, Target: target, Self: "/opt/plugboard/bin/plugboard"}
}

func build(t testing.TB, req Request) *Plan {
	t.Helper()
	p, err := Build(req)
	if err != nil {
		t.Fatalf("Build(%s): %v", req.Target, err)
	}
	return p
}

func mode(t testing.TB, p string) os.FileMode {
	t.Helper()
	st, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode()
}

func readJSON(t testing.TB, p string, v any) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
}

// argAfter returns every value that follows flag in argv.
func argAfter(argv []string, flag string) []string {
	var out []string
	for i := 0; i+1 < len(argv); i++ {
		if argv[i] == flag {
			out = append(out, argv[i+1])
		}
	}
	return out
}

func TestClaudeProjection(t *testing.T) {
	pb := home(t)
	p := build(t, request(pb, "coder"))
	if p.Backend != Claude || p.Target != "agent:coder" || p.Reused {
		t.Fatalf("plan = %s/%s reused=%v", p.Backend, p.Target, p.Reused)
	}
	if want := []string{"legacy-tools:grep-help", "review:check", "review:explain"}; !slices.Equal(p.Skills, want) {
		t.Errorf("skills = %v, want %v", p.Skills, want)
	}
	// The legacy folder's own .mcp.json is Claude's to start; the plan lists it as Claude names it.
	if want := []string{"docs", "lint", "plugin:legacy-tools:legacy-search"}; !slices.Equal(p.Servers, want) {
		t.Errorf("servers = %v, want %v", p.Servers, want)
	}
	installed := filepath.Join(pb, "plugins", "review")
	legacy := filepath.Join(pb, "plugins", "legacy-tools")
	dirs := argAfter(p.Argv, "--plugin-dir")
	if want := []string{filepath.Join(p.Projection, "plugins", "review"), legacy}; !slices.Equal(dirs, want) {
		t.Errorf("--plugin-dir = %v, want %v", dirs, want)
	}
	for _, a := range p.Argv {
		if pathsafe.Within(installed, a) {
			t.Errorf("argument %q points into the installed portable package", a)
		}
	}
	if !slices.Contains(p.Argv, "--mcp-config="+filepath.Join(p.Projection, "mcp.json")) {
		t.Errorf("no --mcp-config=FILE in %v", p.Argv)
	}
	if slices.Contains(p.Argv, "--strict-mcp-config") {
		t.Error("the MCP config must be supplemental: the user's own servers stay")
	}

	// Private and content-addressed.
	for _, d := range []string{RuntimeDir(pb), filepath.Dir(p.Projection)} {
		if m := mode(t, d); m.Perm() != 0o700 {
			t.Errorf("%s mode %v, want 0700", d, m)
		}
	}
	if !strings.HasSuffix(p.Projection, strings.TrimPrefix(p.Fingerprint, "sha256:")[:32]) {
		t.Errorf("projection %s is not named after fingerprint %s", p.Projection, p.Fingerprint)
	}
	var man map[string]any
	readJSON(t, filepath.Join(p.Projection, "plugins", "review", ".claude-plugin", "plugin.json"), &man)
	if man["name"] != "review" || man["version"] != "1.2.0" || man["author"].(map[string]any)["name"] != "Plugboard tests" {
		t.Errorf("compatibility manifest = %v", man)
	}
	copied := filepath.Join(p.Projection, "plugins", "review", "skills", "explain")
	for rel, want := range map[string]string{"references/style.md": "Prefer short sentences.\n", "scripts/outline.sh": "#!/bin/sh\necho outline\n"} {
		b, err := os.ReadFile(filepath.Join(copied, rel))
		if err != nil || string(b) != want {
			t.Errorf("copied %s = %q, %v", rel, b, err)
		}
	}
	if m := mode(t, filepath.Join(copied, "scripts", "outline.sh")); m&0o100 == 0 || m&0o077 != 0 {
		t.Errorf("script mode %v: want executable by its owner only", m)
	}
	if m := mode(t, filepath.Join(copied, "SKILL.md")); m.Perm() != 0o600 {
		t.Errorf("SKILL.md mode %v, want 0600", m)
	}

	// Nothing secret in the plan.
	b, _ := json.Marshal(p)
	for _, s := range []string{envSecret, headerSecret} {
		if strings.Contains(string(b), s) {
			t.Errorf("the plan carries %q", s)
		}
	}
}

func TestClaudeMCPConfig(t *testing.T) {
	pb := home(t)
	p := build(t, request(pb, "coder"))
	root, _ := pathsafe.Root(filepath.Join(pb, "plugins", "review"))
	data := DataDir(pb, "review")
	var cfg struct {
		MCPServers map[string]struct {
			Type    string            `json:"type"`
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcpServers"`
	}
	cfgFile := filepath.Join(p.Projection, "mcp.json")
	readJSON(t, cfgFile, &cfg)
	if m := mode(t, cfgFile); m.Perm() != 0o600 {
		t.Errorf("mcp.json mode %v", m)
	}
	lint := cfg.MCPServers["lint"]
	if lint.Type != "stdio" || lint.Command != "/opt/plugboard/bin/plugboard" || len(lint.Args) != 3 || lint.Args[0] != "mcp-stdio" || lint.Args[1] != "--config" || lint.Env != nil {
		t.Fatalf("lint = %+v", lint)
	}
	var sc StdioConfig
	readJSON(t, lint.Args[2], &sc)
	wantArgs := []string{"--root", root, "--cache", data + "/cache", "${HOME}"}
	if sc.Command != filepath.Join(root, "bin", "lint") || sc.Cwd != filepath.Join(root, "bin") || !slices.Equal(sc.Args, wantArgs) {
		t.Errorf("lint server = %+v\nwant args %v", sc, wantArgs)
	}
	if sc.Env["PLUGIN_ROOT"] != root || sc.Env["PLUGIN_DATA"] != data || sc.Env["LINT_CONFIG"] != root+"/lint.json" || sc.Env["LINT_TOKEN"] != envSecret {
		t.Errorf("lint env = %v", sc.Env)
	}
	if m := mode(t, lint.Args[2]); m.Perm() != 0o600 {
		t.Errorf("stdio config mode %v", m)
	}
	if st, err := os.Stat(data); err != nil || !st.IsDir() || st.Mode().Perm() != 0o700 {
		t.Errorf("data folder %s: %v %v", data, st, err)
	}

	docs := cfg.MCPServers["docs"]
	if docs.Type != "stdio" || docs.Command != "/opt/plugboard/bin/plugboard" || len(docs.Args) != 3 || docs.Args[0] != "mcp-proxy" || docs.Args[1] != "--config" {
		t.Fatalf("docs = %+v", docs)
	}
	raw, _ := os.ReadFile(cfgFile)
	for _, v := range []string{headerSecret, "127.0.0.1:9", envSecret, "${HOME}"} {
		if strings.Contains(string(raw), v) {
			t.Errorf("Claude's config carries %q: values stay in the private files, where Claude cannot expand or show them", v)
		}
	}
	var proxy proxyConfig
	readJSON(t, docs.Args[2], &proxy)
	if proxy.Type != "streamable-http" || proxy.URL != "https://127.0.0.1:9/mcp" || proxy.Headers["X-Tenant"] != headerSecret {
		t.Errorf("proxy config = %+v", proxy)
	}
	if m := mode(t, docs.Args[2]); m.Perm() != 0o600 {
		t.Errorf("proxy config mode %v", m)
	}
}

func TestUnchangedAssignmentReusesProjection(t *testing.T) {
	pb := home(t)
	first := build(t, request(pb, "coder"))
	skill := filepath.Join(first.Projection, "plugins", "review", "skills", "check", "SKILL.md")
	before, _ := os.Stat(skill)
	again := build(t, request(pb, "coder"))
	if !again.Reused || again.Projection != first.Projection || again.Fingerprint != first.Fingerprint {
		t.Fatalf("second build: reused=%v %s vs %s", again.Reused, again.Projection, first.Projection)
	}
	after, _ := os.Stat(skill)
	if !os.SameFile(before, after) || !before.ModTime().Equal(after.ModTime()) {
		t.Error("the reused projection was rewritten")
	}
	// Agent arguments are not capabilities.
	req := request(pb, "coder")
	req.Args = []string{"--model", "x"}
	if p := build(t, req); p.Fingerprint != first.Fingerprint || !slices.Equal(p.Argv[len(p.Argv)-2:], req.Args) {
		t.Errorf("agent args changed the fingerprint or were not passed: %v", p.Argv)
	}
}

// Every change the fingerprint covers gives a new one; the old projection stays valid.
func TestFingerprintCoversEveryCapability(t *testing.T) {
	edits := map[string]func(pb string){
		"portable skill content": func(pb string) {
			appendFile(t, filepath.Join(pb, "plugins/review/skills/explain/references/style.md"), "More.\n")
		},
		"portable skill file mode": func(pb string) {
			os.Chmod(filepath.Join(pb, "plugins/review/skills/explain/references/style.md"), 0o755)
		},
		"projected manifest": func(pb string) {
			rewrite(t, filepath.Join(pb, "plugins/review/plugin.json"), `"1.2.0"`, `"1.3.0"`)
		},
		"MCP env value": func(pb string) {
			rewrite(t, filepath.Join(pb, "plugins/review/mcp.json"), envSecret, "another-value")
		},
		"MCP header value": func(pb string) {
			rewrite(t, filepath.Join(pb, "plugins/review/mcp.json"), headerSecret, "another-value")
		},
		"legacy skill content": func(pb string) {
			appendFile(t, filepath.Join(pb, "plugins/legacy-tools/skills/grep-help/SKILL.md"), "More.\n")
		},
		"legacy .mcp.json": func(pb string) {
			rewrite(t, filepath.Join(pb, "plugins/legacy-tools/.mcp.json"), `"args": []`, `"args": ["--fast"]`)
		},
		"effective plugin paths": func(pb string) {
			rewrite(t, filepath.Join(pb, "agents/coder.json"), `, "plugins/legacy-tools"`, ``)
		},
	}
	for name, edit := range edits {
		t.Run(name, func(t *testing.T) {
			pb := home(t)
			before := build(t, request(pb, "coder"))
			edit(pb)
			after := build(t, request(pb, "coder"))
			if after.Fingerprint == before.Fingerprint || after.Projection == before.Projection || after.Reused {
				t.Errorf("fingerprint unchanged (%s)", after.Fingerprint)
			}
		})
	}
	pb := home(t)
	a := build(t, request(pb, "coder"))
	bm := request(pb, "coder")
	bm.Mode = ModeBenchmark
	if b := build(t, bm); b.Fingerprint == a.Fingerprint {
		t.Error("a benchmark launch (no MCP) shares the fingerprint of a full one")
	}
}

func appendFile(t testing.TB, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(s)
	f.Close()
}

func rewrite(t testing.TB, p, old, new string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil || !strings.Contains(string(b), old) {
		t.Fatalf("%s: %v (or no %q)", p, err, old)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCollisionFailsClosed(t *testing.T) {
	pb := home(t)
	p, err := Build(request(pb, "clash"))
	var ce *CollisionError
	if !errors.As(err, &ce) || !errors.Is(err, ErrCollision) {
		t.Fatalf("err = %v", err)
	}
	want := []assign.Collision{{Kind: assign.CollisionSkill, Name: "check", Plugins: []string{"other", "review"}}}
	if len(ce.Collisions) != 1 || ce.Collisions[0].Name != "check" || !slices.Equal(ce.Collisions[0].Plugins, want[0].Plugins) || ce.Collisions[0].Kind != want[0].Kind {
		t.Errorf("collisions = %+v", ce.Collisions)
	}
	if p == nil || len(p.Collisions) != 1 || len(p.Argv) != 0 {
		t.Errorf("plan = %+v", p)
	}
	if !strings.Contains(err.Error(), `skill "check" is provided by other and review`) {
		t.Errorf("message = %v", err)
	}
	if _, err := os.Stat(RuntimeDir(pb)); !errors.Is(err, os.ErrNotExist) {
		t.Error("a refused launch projected something")
	}
	if _, err := os.Stat(DataDir(pb, "review")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a refused launch created a data folder")
	}
}

// Two folders with one plugin id would share a data folder and a place in the
// projection: refused. The same folder listed twice is launched once.
func TestPluginIDsAreUnique(t *testing.T) {
	pb := home(t)
	other := filepath.Join(t.TempDir(), "review")
	os.CopyFS(other, os.DirFS(filepath.Join(pb, "plugins", "review")))
	rewrite(t, filepath.Join(pb, "agents/coder.json"), `"plugins/legacy-tools"`, `"`+other+`"`)
	_, err := Build(request(pb, "coder"))
	var ce *CollisionError
	if !errors.As(err, &ce) || len(ce.Collisions) != 1 || ce.Collisions[0].Kind != CollisionPluginID || ce.Collisions[0].Name != "review" {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(DataDir(pb, "review")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a refused launch created a data folder")
	}
	rewrite(t, filepath.Join(pb, "agents/coder.json"), `"`+other+`"`, `"`+filepath.Join(pb, "plugins", "review")+`"`)
	p := build(t, request(pb, "coder"))
	if len(p.Plugins) != 1 || !slices.Equal(p.Servers, []string{"docs", "lint"}) || len(p.Dropped) != 1 {
		t.Errorf("the same folder twice: plugins %+v servers %v dropped %+v", p.Plugins, p.Servers, p.Dropped)
	}
}

func TestNamespaceAndMCPCollisions(t *testing.T) {
	pb := home(t)
	rewrite(t, filepath.Join(pb, "plugins/other/plugin.json"), `"name": "other"`, `"name": "review"`)
	os.WriteFile(filepath.Join(pb, "plugins/other/mcp.json"), []byte(`{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json",
		"mcpServers": {"lint": {"type": "stdio", "command": "lint"}}}`), 0o644)
	os.RemoveAll(filepath.Join(pb, "plugins/other/skills"))
	_, err := Build(request(pb, "clash"))
	var ce *CollisionError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v", err)
	}
	var kinds []string
	for _, c := range ce.Collisions {
		kinds = append(kinds, c.Kind+":"+c.Name)
	}
	if want := []string{"mcp-server:lint", "namespace:review"}; !slices.Equal(kinds, want) {
		t.Errorf("collisions = %v, want %v", kinds, want)
	}
	// Without MCP (a benchmark run) the server names no longer collide; the namespace does.
	req := request(pb, "clash")
	req.Mode = ModeBenchmark
	_, err = Build(req)
	if !errors.As(err, &ce) || len(ce.Collisions) != 1 || ce.Collisions[0].Kind != assign.CollisionNamespace {
		t.Errorf("benchmark: %v", err)
	}
}

func TestSuppression(t *testing.T) {
	for _, m := range []string{ModeBenchmark, ModeSubagent} {
		t.Run(m, func(t *testing.T) {
			pb := home(t)
			req := request(pb, "coder")
			req.Mode = m
			p := build(t, req)
			// Portable MCP only: a legacy folder is passed as it is (R1), its .mcp.json with it.
			if !slices.Equal(p.Servers, []string{"plugin:legacy-tools:legacy-search"}) || strings.Contains(strings.Join(p.Argv, " "), "--mcp-config") {
				t.Errorf("servers %v argv %v", p.Servers, p.Argv)
			}
			if len(p.Suppressed) != 2 || p.Suppressed[0].Reason == "" {
				t.Errorf("suppressed = %+v", p.Suppressed)
			}
			if len(p.Skills) != 3 {
				t.Errorf("skills = %v: suppression is for MCP only", p.Skills)
			}
			if _, err := os.Stat(DataDir(pb, "review")); !errors.Is(err, os.ErrNotExist) {
				t.Error("the data folder was created for a launch with no stdio server")
			}
		})
	}
	pb := home(t)
	req := request(pb, "coder")
	req.NoPlugins = true
	p := build(t, req)
	// Nothing but the skill-activity hooks (every Claude launch records what it invokes).
	if !slices.Equal(p.Argv, []string{"claude", "--settings", filepath.Join(p.Projection, ActivitySettingsFile)}) ||
		len(p.Skills)+len(p.Servers)+len(p.Plugins) != 0 {
		t.Errorf("--plugins none: %+v", p)
	}
}

func TestPIProjection(t *testing.T) {
	pb := home(t)
	req := request(pb, "pi-coder")
	req.Bin = filepath.Join(t.TempDir(), "pi") // not installed: no MCP bridge to find beside it
	p := build(t, req)                         // backend from the agent file
	if p.Backend != PI {
		t.Fatalf("backend = %s", p.Backend)
	}
	want := []string{req.Bin, "--no-skills",
		"--skill", filepath.Join(p.Projection, "skills", "check"),
		"--skill", filepath.Join(p.Projection, "skills", "explain"),
		"-e", filepath.Join(p.Projection, PIActivityExtensionFile)} // skill activity (piactivity.go)
	if !slices.Equal(p.Argv, want) {
		t.Errorf("argv = %v\nwant %v", p.Argv, want)
	}
	if !slices.Equal(p.Skills, []string{"check", "explain"}) {
		t.Errorf("skills = %v", p.Skills)
	}
	if _, err := os.Stat(filepath.Join(p.Projection, "skills", "explain", "references", "style.md")); err != nil {
		t.Error(err)
	}
	// The invalid package is dropped alone, with its reason.
	if len(p.Dropped) == 0 || p.Dropped[0].Plugin != "broken" || p.Dropped[0].What != "plugin" || p.Dropped[0].Reason == "" {
		t.Errorf("dropped = %+v", p.Dropped)
	}
	// Without the MCP bridge the servers are dropped with the reason; the skills launch.
	var noBridge int
	for _, d := range p.Dropped {
		if d.What == "server" && strings.Contains(d.Reason, "pi-mcp-adapter") {
			noBridge++
		}
	}
	if noBridge != 2 || len(p.Servers) != 0 {
		t.Errorf("dropped = %+v", p.Dropped)
	}
	if _, err := os.Stat(DataDir(pb, "review")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a data folder was created for stdio servers PI does not get")
	}
	// A legacy plugin's skills are copied for PI too: no path into the package.
	req = request(pb, "coder")
	req.Backend = PI
	p = build(t, req)
	if !slices.Contains(p.Skills, "grep-help") {
		t.Errorf("skills = %v", p.Skills)
	}
	if !slices.ContainsFunc(p.Dropped, func(d Drop) bool { return d.Plugin == "legacy-tools" && d.What == "mcp" }) {
		t.Errorf("the legacy .mcp.json PI does not get is not reported: %+v", p.Dropped)
	}
	for _, a := range p.Argv {
		if pathsafe.Within(filepath.Join(pb, "plugins"), a) {
			t.Errorf("PI argument %q points into an installed package", a)
		}
	}
}

// A link leaving the plugin is left out of its skill's projection, with the code the
// catalog warns of; a link that stays inside is copied as a file.
func TestOutsideLinkIsLeftOutOfItsSkill(t *testing.T) {
	pb := home(t)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(outside, []byte("outside"), 0o644)
	if err := os.Symlink(outside, filepath.Join(pb, "plugins/review/skills/explain/references/leak.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../check/SKILL.md", filepath.Join(pb, "plugins/review/skills/explain/references/check.md")); err != nil {
		t.Fatal(err)
	}
	p := build(t, request(pb, "coder"))
	if !slices.Contains(p.Skills, "review:explain") || !slices.Contains(p.Skills, "review:check") {
		t.Errorf("skills = %v", p.Skills)
	}
	if len(p.Dropped) != 1 || p.Dropped[0].What != "file" || p.Dropped[0].Name != "explain/references/leak.md" ||
		p.Dropped[0].Code != "skill.tree-outside" || !strings.Contains(p.Dropped[0].Reason, "leaves the plugin folder") {
		t.Errorf("dropped = %+v", p.Dropped)
	}
	refs := filepath.Join(p.Projection, "plugins/review/skills/explain/references")
	if _, err := os.Lstat(filepath.Join(refs, "leak.md")); !os.IsNotExist(err) {
		t.Errorf("the outside link reached the projection: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(refs, "check.md"))
	if err != nil || !strings.Contains(string(b), "name: check") {
		t.Errorf("inside link copied as %q, %v", b, err)
	}
	if m := mode(t, filepath.Join(refs, "check.md")); !m.IsRegular() {
		t.Errorf("copied link is %v, want a regular file", m)
	}
}

// A skill folder beyond the limits cannot be projected: only that skill is dropped (R5).
func TestOversizedSkillDropsOnlyItself(t *testing.T) {
	pb := home(t)
	refs := filepath.Join(pb, "plugins/review/skills/explain/references")
	for i := 0; i <= 2000; i++ {
		os.WriteFile(filepath.Join(refs, "n"+strconv.Itoa(i)+".md"), []byte("x"), 0o644)
	}
	p := build(t, request(pb, "coder"))
	if slices.Contains(p.Skills, "review:explain") || !slices.Contains(p.Skills, "review:check") {
		t.Errorf("skills = %v", p.Skills)
	}
	if len(p.Dropped) != 1 || p.Dropped[0].Name != "explain" || !strings.Contains(p.Dropped[0].Reason, "invalid") {
		t.Errorf("dropped = %+v", p.Dropped)
	}
}

// R5: when the data folder cannot be made, only the stdio servers that need it go.
func TestUnavailableDataFolderDropsOnlyStdio(t *testing.T) {
	pb := home(t)
	os.MkdirAll(filepath.Join(pb, "data"), 0o700)
	os.WriteFile(filepath.Join(pb, "data", "plugin-data"), []byte("a file in the way"), 0o600)
	p := build(t, request(pb, "coder"))
	if !slices.Equal(p.Servers, []string{"docs", "plugin:legacy-tools:legacy-search"}) {
		t.Errorf("servers = %v", p.Servers)
	}
	if len(p.Dropped) != 1 || p.Dropped[0].Name != "lint" || !strings.Contains(p.Dropped[0].Reason, "data folder") {
		t.Errorf("dropped = %+v", p.Dropped)
	}
	if len(p.Skills) != 3 {
		t.Errorf("skills = %v", p.Skills)
	}
}

func TestTargets(t *testing.T) {
	pb := home(t)
	// A template slot inheriting its agent launches the agent's set.
	p := build(t, request(pb, "template:team/coder"))
	if p.Target != "template:team/coder" || len(p.Skills) != 3 {
		t.Errorf("slot plan: %s %v", p.Target, p.Skills)
	}
	for _, id := range []string{"template:team/__active__", "nobody"} {
		if _, err := Build(request(pb, id)); !errors.Is(err, ErrTarget) {
			t.Errorf("%s: err = %v", id, err)
		}
	}
	// A target whose file cannot be parsed is not found, and the error names the file.
	clash := filepath.Join(pb, "agents", "clash.json")
	good, _ := os.ReadFile(clash)
	os.WriteFile(clash, append([]byte("{,"), good[1:]...), 0o644)
	if _, err := Build(request(pb, "clash")); !errors.Is(err, ErrTarget) || !strings.Contains(err.Error(), clash+":1: ") {
		t.Errorf("a target in a damaged file: %v", err)
	}
	os.WriteFile(clash, good, 0o644)
	req := request(pb, "coder")
	req.Backend = "cursor"
	if _, err := Build(req); !errors.Is(err, ErrTarget) || !strings.Contains(err.Error(), "claude, pi, codex, copilot") {
		t.Errorf("unknown backend: %v", err)
	}
	// An unmanaged absolute entry is launched too.
	ext := filepath.Join(t.TempDir(), "ext")
	os.MkdirAll(filepath.Join(ext, "skills", "tidy"), 0o755)
	os.WriteFile(filepath.Join(ext, "plugin.json"), []byte(`{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "ext"}`), 0o644)
	os.WriteFile(filepath.Join(ext, "skills", "tidy", "SKILL.md"), []byte("---\nname: tidy\ndescription: Tidy things.\n---\n"), 0o644)
	rewrite(t, filepath.Join(pb, "agents/coder.json"), `"plugins/legacy-tools"`, `"`+ext+`"`)
	p = build(t, request(pb, "coder"))
	if !slices.Contains(p.Skills, "ext:tidy") {
		t.Errorf("skills = %v", p.Skills)
	}
}

func TestPIMCPBridge(t *testing.T) {
	pb := home(t)
	req := request(pb, "pi-coder")
	req.PIMCPAdapter = "/opt/pi-mcp-adapter/index.ts"
	p := build(t, req)
	cfg := filepath.Join(p.Projection, "mcp.json")
	tail := p.Argv[len(p.Argv)-4:]
	if !slices.Equal(tail, []string{"-e", req.PIMCPAdapter, "--mcp-config", cfg}) || !slices.Contains(p.Argv, "--no-skills") {
		t.Errorf("argv = %v", p.Argv)
	}
	if !slices.Equal(p.EnvKeys, []string{ActivityTargetEnv, PIMCPConfigMode}) || !slices.Contains(p.Env(nil), PIMCPConfigMode+"=exclusive") {
		t.Errorf("env keys %v, env %v", p.EnvKeys, p.Env(nil))
	}
	if !slices.Equal(p.Servers, []string{"docs", "lint"}) {
		t.Errorf("servers = %v", p.Servers)
	}
	var doc struct {
		Settings   map[string]any `json:"settings"`
		MCPServers map[string]struct {
			Command   string   `json:"command"`
			Args      []string `json:"args"`
			Lifecycle string   `json:"lifecycle"`
		} `json:"mcpServers"`
	}
	readJSON(t, cfg, &doc)
	if doc.Settings["scriptMode"] != false {
		t.Errorf("settings = %v", doc.Settings)
	}
	for name, verb := range map[string]string{"lint": "mcp-stdio", "docs": "mcp-proxy"} {
		e := doc.MCPServers[name]
		if e.Command != req.Self || len(e.Args) != 3 || e.Args[0] != verb || e.Lifecycle != "eager" {
			t.Errorf("%s = %+v", name, e)
		}
	}
	// Benchmark runs: no bridge at all (the activity extension stays).
	req.Mode = ModeBenchmark
	if p := build(t, req); slices.Contains(p.Argv, req.PIMCPAdapter) || slices.Contains(p.EnvKeys, PIMCPConfigMode) {
		t.Errorf("benchmark argv = %v", p.Argv)
	}
}

// The adapter is found beside pi when both are installed in the same node_modules.
func TestFindPIMCPAdapter(t *testing.T) {
	nm := filepath.Join(t.TempDir(), "node_modules")
	cli := filepath.Join(nm, "@mariozechner", "pi-coding-agent", "dist", "cli.js")
	os.MkdirAll(filepath.Dir(cli), 0o755)
	os.WriteFile(cli, []byte("#!/usr/bin/env node\n"), 0o755)
	bin := filepath.Join(nm, ".bin", "pi")
	os.MkdirAll(filepath.Dir(bin), 0o755)
	os.Symlink("../@mariozechner/pi-coding-agent/dist/cli.js", bin)
	if got := findPIMCPAdapter(bin); got != "" {
		t.Errorf("found %q with no adapter installed", got)
	}
	adapter := filepath.Join(nm, "pi-mcp-adapter", "index.ts")
	os.MkdirAll(filepath.Dir(adapter), 0o755)
	os.WriteFile(adapter, []byte("export default {}\n"), 0o644)
	if got := findPIMCPAdapter(bin); got != adapter {
		t.Errorf("found %q, want %q", got, adapter)
	}
}

// The adapter found beside pi is part of the fingerprint: installing it later gives a new
// projection with the bridge's config, never the old one without it.
func TestPIAdapterFoundLaterGivesNewProjection(t *testing.T) {
	pb := home(t)
	nm := filepath.Join(t.TempDir(), "node_modules")
	cli := filepath.Join(nm, "pi", "cli.js")
	os.MkdirAll(filepath.Dir(cli), 0o755)
	os.WriteFile(cli, []byte("#!/bin/sh\n"), 0o755)
	req := request(pb, "pi-coder")
	req.Bins = map[string]string{PI: cli}
	before := build(t, req)
	if len(before.Servers) != 0 || before.Argv[0] != cli {
		t.Fatalf("before: %v %v", before.Argv, before.Servers)
	}
	adapter := filepath.Join(nm, "pi-mcp-adapter", "index.ts")
	os.MkdirAll(filepath.Dir(adapter), 0o755)
	os.WriteFile(adapter, []byte("export default {}\n"), 0o644)
	after := build(t, req)
	if after.Fingerprint == before.Fingerprint || after.Reused || len(after.Servers) != 2 {
		t.Errorf("after installing the adapter: reused=%v servers=%v", after.Reused, after.Servers)
	}
	if _, err := os.Stat(filepath.Join(after.Projection, "mcp.json")); err != nil {
		t.Error(err)
	}
}

// Old projections go when a new one is made; the one in use and recent ones stay.
func TestPruneOldProjections(t *testing.T) {
	pb := home(t)
	first := build(t, request(pb, "coder"))
	parent := filepath.Dir(first.Projection)
	old := filepath.Join(parent, "0123456789abcdef0123456789abcdef")
	tmp := filepath.Join(parent, ".tmp-123")
	recentTmp := filepath.Join(parent, ".tmp-456")
	for _, d := range []string{old, tmp, recentTmp} {
		os.MkdirAll(d, 0o700)
	}
	long := time.Now().Add(-pruneAge - time.Hour)
	os.Chtimes(old, long, long)
	// Remembered hashes: another set's, not launched for a month, go; this set's (here
	// with no file in it, since the fixture's files are too new to remember) is touched
	// by the launch that reuses the projection, so it stays.
	oldSums, ownSums := sumsFile(pb, Claude, "agent:gone"), sumsFile(pb, Claude, "agent:coder")
	if err := os.MkdirAll(filepath.Dir(oldSums), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{oldSums, ownSums} {
		if err := os.WriteFile(f, []byte("plugboard-sums 1\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(f, long, long)
	}
	os.Chtimes(tmp, time.Now().Add(-2*pruneTmpAge), time.Now().Add(-2*pruneTmpAge))
	os.Chtimes(first.Projection, long, long) // reused below: touched, so kept
	if again := build(t, request(pb, "coder")); !again.Reused {
		t.Fatal("not reused")
	}
	req := request(pb, "coder")
	req.Mode = ModeBenchmark // a new projection: prunes
	build(t, req)
	for d, want := range map[string]bool{old: false, tmp: false, recentTmp: true, first.Projection: true, oldSums: false, ownSums: true} {
		if _, err := os.Stat(d); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", filepath.Base(d), err == nil, want)
		}
	}
}
