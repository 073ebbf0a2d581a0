package catalog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/testhome"
)

// fullHome lays out testdata/homes/full with its symlinks and returns catalog options.
func fullHome(t *testing.T) (Options, string) {
	t.Helper()
	dir := testhome.Copy(t, "full")
	home := filepath.Join(dir, "home")
	// Cursor's local plugins are symlinks to working copies.
	local := filepath.Join(home, ".cursor", "plugins", "local")
	os.MkdirAll(local, 0o755)
	if err := os.Symlink(filepath.Join(home, "src", "hf-skills"), filepath.Join(local, "hf-skills")); err != nil {
		t.Fatal(err)
	}
	os.Symlink(filepath.Join(home, "src", "missing"), filepath.Join(local, "dangling"))
	// The index names aaa111; make bbb222 the newer folder so the index visibly wins.
	cache := filepath.Join(home, ".cursor", "plugins", "cache", "acme", "tool")
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(cache, "aaa111"), old, old)
	return Options{Home: home, PlugboardHome: filepath.Join(home, ".plugboard")}, dir
}

func findPlugin(c *Catalog, id string) *Plugin {
	for i := range c.Plugins {
		if c.Plugins[i].ID == id {
			return &c.Plugins[i]
		}
	}
	return nil
}

func TestLoadFullHome(t *testing.T) {
	o, _ := fullHome(t)
	c := Load(o)

	wantPlugins := map[string]struct {
		source, format string
		valid          bool
		skills         int
	}{
		"alpha":                  {SourceManaged, "portable", true, 3},
		"legacy-one":             {SourceManaged, "legacy", true, 1},
		"broken":                 {SourceManaged, "portable", false, 0},
		"empty-folder":           {SourceManaged, "none", false, 0},
		"hf-skills@cursor-local": {SourceCursorLocal, "cursor", true, 2},
		"tool@acme":              {SourceCursorCache, "cursor", true, 1},
		"solo@other":             {SourceCursorCache, "cursor", true, 0},
		"plug@plugin-path":       {SourcePluginPath, "cursor", true, 1},
	}
	if len(c.Plugins) != len(wantPlugins) {
		t.Errorf("got %d plugins, want %d", len(c.Plugins), len(wantPlugins))
	}
	for id, w := range wantPlugins {
		p := findPlugin(c, id)
		if p == nil {
			t.Errorf("plugin %s missing", id)
			continue
		}
		if p.Source != w.source || string(p.Format) != w.format || p.Valid != w.valid || len(p.Skills) != w.skills {
			t.Errorf("plugin %s = source %s format %s valid %v skills %d; want %+v\n%v", id, p.Source, p.Format, p.Valid, len(p.Skills), w, p.AllIssues())
		}
	}
	if tool := findPlugin(c, "tool@acme"); tool == nil || tool.Revision != "aaa111" || tool.Marketplace != "acme" || tool.Version != "1.0.0" {
		t.Errorf("cursor cache: want revision aaa111 from the index, got %+v", tool)
	} else if !strings.Contains(codesOf(tool.Issues), CodeCursorVersions) || !contains(tool.Unsupported, "commands") {
		t.Errorf("cursor cache: want older-versions note and commands unsupported, got %v %v", tool.Issues, tool.Unsupported)
	}
	if hf := findPlugin(c, "hf-skills@cursor-local"); hf != nil && (hf.MCP == nil || len(hf.MCP.Servers) != 2 || !contains(hf.Unsupported, "commands")) {
		t.Errorf("hf-skills: want 2 MCP servers and commands unsupported, got %+v", hf)
	}
	if lg := findPlugin(c, "legacy-one"); lg != nil && (lg.MCP != nil || !strings.Contains(codesOf(lg.Issues), CodeLegacyMCP)) {
		t.Errorf("legacy .mcp.json must not be catalogued but noted: %+v", lg)
	}

	// Every package carries each client's verdict beside the spec's (issue 10).
	for _, p := range c.Plugins {
		if p.Clients == nil {
			t.Errorf("%s has no client verdicts", p.ID)
		}
	}
	if a := findPlugin(c, "alpha"); a == nil || !a.Clients.Claude.Loads || a.Clients.Claude.Plugin != "alpha" || len(a.Clients.Claude.Skills) != 3 {
		t.Errorf("alpha's claude verdict = %+v", a.Clients.Claude)
	}
	for _, p := range c.Plugins {
		for _, s := range p.Skills {
			if s.Data != nil {
				t.Errorf("%s keeps the bytes of %s", p.ID, s.Path)
			}
		}
	}
	// Precedence (issue 10): a skill is hidden only where one client reads both
	// copies. Plugin skills are namespaced (plugin:skill) and never hide each other.
	rel := func(p string) string { r, _ := filepath.Rel(o.Home, p); return r }
	shadowed := map[string]*SkillEntry{}
	for _, s := range c.Skills {
		if s.ShadowedBy != "" && strings.HasPrefix(s.Path, "builtin:") {
			shadowed[s.Path] = s
		} else if s.ShadowedBy != "" {
			shadowed[rel(s.Path)] = s
		}
		if s.Plugin != "" && s.Valid && !s.Active {
			t.Errorf("plugin skill %s is not active: plugin skills are namespaced", s.ID)
		}
	}
	wantShadowed := map[string]struct{ by, in string }{
		// ~/.cursor/skills and ~/.claude/skills are both read by Cursor, not by Claude.
		".claude/skills/shared-name/SKILL.md": {".cursor/skills/shared-name/SKILL.md", "cursor"},
		// The built-in gives way to the user's copy, in Plugboard's own order.
		"builtin:plugboard-authoring/SKILL.md": {".claude/skills/plugboard-authoring/SKILL.md", "plugboard"},
	}
	for path, w := range wantShadowed {
		s, ok := shadowed[path]
		if !ok || rel(s.ShadowedBy) != w.by || strings.Join(s.ShadowedIn, ",") != w.in {
			t.Errorf("%s: shadowed %v by %s in %v, want by %s in %s (shadowed: %v)", path, ok, s.ShadowedBy, s.ShadowedIn, w.by, w.in, shadowed)
		}
	}
	if len(shadowed) != len(wantShadowed) {
		t.Errorf("shadowed = %v, want %d", shadowed, len(wantShadowed))
	}
	for _, s := range c.Skills {
		switch {
		case s.Name == "agent-only" && s.Enabled:
			t.Errorf("agent-only is disabled in settings but Enabled")
		case s.Name == "codex-skill" && s.ModelInvocable:
			t.Errorf("codex-skill has disable-model-invocation but is model-invocable")
		case s.Plugin == "alpha" && s.ID != "alpha:"+s.Name:
			t.Errorf("plugin skill id = %s, want alpha:%s", s.ID, s.Name)
		case s.Plugin == "" && strings.Contains(s.ID, ":"):
			t.Errorf("standalone skill id %s is qualified", s.ID)
		case s.Source == "user" && !s.Trusted, s.Source == "plugin" && s.Trusted, s.Source == "cursor-plugin" && s.Trusted:
			t.Errorf("trust of %s (%s) = %v", s.ID, s.Source, s.Trusted)
		case s.Name == "pb-skill":
			var acc, ref int
			for _, pe := range s.Paths {
				if pe.Accepted {
					acc++
				} else {
					ref++
				}
			}
			if acc != 1 || ref != 2 {
				t.Errorf("pb-skill paths = %+v, want 1 accepted, 2 refused", s.Paths)
			}
		}
	}

	// MCP: user first, then plugins; legacy .mcp.json never; invalid entries never.
	merged := map[string]MergedServer{}
	for _, m := range c.MCP {
		merged[m.Name] = m
	}
	if db := merged["db"]; db.Winner.Source != "user" || len(db.Shadowed) != 2 {
		t.Errorf("db = %+v, want user winner and 2 shadowed (alpha, hf)", db)
	}
	for _, name := range []string{"github", "api", "hf"} {
		if _, ok := merged[name]; !ok {
			t.Errorf("server %s missing from merge", name)
		}
	}
	for _, name := range []string{"legacy-db", "bad", "proj"} {
		if _, ok := merged[name]; ok {
			t.Errorf("server %s must not be merged", name)
		}
	}
	assertNoSecrets(t, c)
	checkAllIssues(t, c)
}

func TestWorkspace(t *testing.T) {
	o, dir := fullHome(t)
	o.Workspace = filepath.Join(dir, "ws")
	// Nested repositories: git cannot carry a .git folder in a fixture, so make them here.
	writeFile(t, filepath.Join(o.Workspace, "vendored", ".git", "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(o.Workspace, ".claude", "worktrees", "wt1", ".git"), "gitdir: ../../../.git/worktrees/wt1\n")
	writeFile(t, filepath.Join(o.Workspace, ".claude", "worktrees", "wt1", ".claude", "skills", "wt-skill", "SKILL.md"), skillOf("wt-skill"))
	c := Load(o)
	found := map[string]*SkillEntry{}
	for _, s := range c.Skills {
		if s.Source == "project" {
			found[s.Name] = s
		}
	}
	for _, name := range []string{"proj-skill", "shared-name", "web-skill", "deep-skill"} {
		if _, ok := found[name]; !ok {
			t.Errorf("project skill %s not found", name)
		}
	}
	for _, name := range []string{"nested-skill", "wt-skill"} {
		if _, ok := found[name]; ok {
			t.Errorf("%s inside a nested repository was catalogued", name)
		}
	}
	if s := found["shared-name"]; s.Active || s.ShadowedBy == "" || s.Trusted {
		t.Errorf("project shared-name must be shadowed by the user copy and untrusted: %+v", s)
	}
	if c.WorkspaceTrusted || !strings.Contains(codesOf(c.Issues), CodeWorkspaceMCP) {
		t.Errorf("untrusted workspace MCP must be noted and not loaded: %v", c.Issues)
	}
	for _, m := range c.MCP {
		if m.Name == "proj" {
			t.Errorf("untrusted workspace server loaded")
		}
	}

	// Trust the workspace: its servers join the merge, after user and plugins.
	settings := `{"skillPluginPaths":["~/extra/plug"],"trustedWorkspaces":["` + o.Workspace + `"]}`
	os.WriteFile(filepath.Join(o.PlugboardHome, SettingsFile), []byte(settings), 0o644)
	c = Load(o)
	var proj, db *MergedServer
	for i := range c.MCP {
		switch c.MCP[i].Name {
		case "proj":
			proj = &c.MCP[i]
		case "db":
			db = &c.MCP[i]
		}
	}
	if !c.WorkspaceTrusted || proj == nil || proj.Winner.Source != "project" || db == nil || len(db.Shadowed) != 3 || db.Shadowed[2].Source != "project" {
		t.Errorf("trusted workspace merge wrong: trusted=%v proj=%+v db=%+v", c.WorkspaceTrusted, proj, db)
	}
}

func TestSettingsBroken(t *testing.T) {
	o, _ := fullHome(t)
	os.WriteFile(filepath.Join(o.PlugboardHome, SettingsFile), []byte("{\n \"skillPluginPaths\": [1]\n}"), 0o644)
	c := Load(o)
	if !strings.Contains(codesOf(c.Issues), CodeSettings) || findPlugin(c, "alpha") == nil {
		t.Errorf("broken settings must be an issue and the rest must load: %v", c.Issues)
	}
	os.WriteFile(filepath.Join(o.PlugboardHome, SettingsFile), []byte("{\n \"skillPluginPaths\": [\n"), 0o644)
	c = Load(o)
	if !strings.Contains(codesOf(c.Issues), CodeSettings) || c.Issues[0].Line != 3 {
		t.Errorf("unparsable settings must be an issue with a line: %v", c.Issues)
	}
}

func TestProgress(t *testing.T) {
	o, _ := fullHome(t)
	var calls []int
	total := 0
	o.Progress = func(done, n int) { calls = append(calls, done); total = n }
	c := Load(o)
	if total != len(c.Plugins) || len(calls) != total || calls[len(calls)-1] != total {
		t.Errorf("progress calls %v of %d, want 1..%d", calls, total, len(c.Plugins))
	}
	for i, d := range calls {
		if d != i+1 {
			t.Fatalf("progress not monotonic: %v", calls)
		}
	}
}

func TestEmptyHome(t *testing.T) {
	home := t.TempDir()
	c := Load(Options{Home: home, PlugboardHome: filepath.Join(home, ".plugboard")})
	if len(c.Plugins) != 0 || len(c.Issues) != 0 || c.Summary.Issues.Errors != 0 {
		t.Errorf("empty home: %+v", c)
	}
	// Only the built-in skill.
	if len(c.Skills) != 1 || c.Skills[0].Source != "builtin" || !c.Skills[0].Active {
		t.Errorf("empty home skills = %+v", c.Skills)
	}
	b, _ := json.Marshal(c)
	if strings.Contains(string(b), "null") {
		t.Errorf("empty catalog JSON has null lists: %s", b)
	}
}

// assertNoSecrets: no env value, header value or URL query ever leaves the backend.
func assertNoSecrets(t *testing.T, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "PLANTED") {
		i := strings.Index(string(b), "PLANTED")
		t.Errorf("a planted secret reached the JSON: ...%s...", string(b)[max(0, i-80):min(len(b), i+40)])
	}
}

func checkAllIssues(t *testing.T, c *Catalog) {
	t.Helper()
	all := append(issue.List{}, c.Issues...)
	for i := range c.Plugins {
		all = append(all, c.Plugins[i].AllIssues()...)
	}
	for _, s := range c.Skills {
		all = append(all, s.Issues...)
	}
	for _, i := range all {
		if i.Code == "" || i.Path == "" || i.Message == "" || i.Severity == "" {
			t.Errorf("issue without code, path, severity or message: %+v", i)
		}
	}
}

func codesOf(l issue.List) string {
	var s []string
	for _, i := range l {
		s = append(s, i.Code)
	}
	return strings.Join(s, ",")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
