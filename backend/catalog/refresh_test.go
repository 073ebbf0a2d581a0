package catalog

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/benchhome"
	"github.com/plugboard/plugboard/backend/pathsafe"
)

// refreshCases each change the full home (with its workspace) and return the paths a
// watcher would report, usually one.
var refreshCases = []struct {
	name string
	plan string // what Refresh is to do; see describePlan
	edit func(t *testing.T, o Options) []string
}{
	{"nothing changed", "", func(t *testing.T, o Options) []string { return nil }},
	{"SKILL.md edited", "plugins=1", func(t *testing.T, o Options) []string {
		p := filepath.Join(o.PlugboardHome, "plugins", "alpha", "skills", "alpha-only", "SKILL.md")
		writeFile(t, p, "---\nname: alpha-only\ndescription: Use when the description was edited\n---\nNew body\n")
		return []string{p}
	}},
	{"SKILL.md made invalid", "plugins=1", func(t *testing.T, o Options) []string {
		p := filepath.Join(o.PlugboardHome, "plugins", "alpha", "skills", "shared-name", "SKILL.md")
		writeFile(t, p, "---\nname: Shared Name\n---\n")
		return []string{p}
	}},
	{"new skill folder", "plugins=1", func(t *testing.T, o Options) []string {
		dir := filepath.Join(o.PlugboardHome, "plugins", "alpha", "skills", "fresh")
		writeFile(t, filepath.Join(dir, "SKILL.md"), skillOf("fresh"))
		return []string{dir}
	}},
	{"plugin deleted", "discover plugins=1", func(t *testing.T, o Options) []string {
		dir := filepath.Join(o.PlugboardHome, "plugins", "legacy-one")
		os.RemoveAll(dir)
		return []string{dir}
	}},
	{"plugin deleted, only a file inside reported", "discover plugins=1", func(t *testing.T, o Options) []string {
		dir := filepath.Join(o.PlugboardHome, "plugins", "legacy-one")
		os.RemoveAll(dir)
		return []string{filepath.Join(dir, "skills", "legacy-skill", "SKILL.md")}
	}},
	{"new plugin folder", "discover", func(t *testing.T, o Options) []string {
		dir := filepath.Join(o.PlugboardHome, "plugins", "newcomer")
		writeFile(t, filepath.Join(dir, "plugin.json"), manifestOf("newcomer"))
		writeFile(t, filepath.Join(dir, "skills", "new-one", "SKILL.md"), skillOf("new-one"))
		return []string{dir}
	}},
	{"plugin folder renamed", "discover plugins=1", func(t *testing.T, o Options) []string {
		from, to := filepath.Join(o.PlugboardHome, "plugins", "alpha"), filepath.Join(o.PlugboardHome, "plugins", "zeta")
		if err := os.Rename(from, to); err != nil {
			t.Fatal(err)
		}
		return []string{from, to}
	}},
	{"plugin mcp.json edited", "plugins=1", func(t *testing.T, o Options) []string {
		p := filepath.Join(o.PlugboardHome, "plugins", "alpha", "mcp.json")
		writeFile(t, p, `{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json",
			"mcpServers": {"db": {"type": "stdio", "command": "./bin/db2"}, "fresh": {"type": "stdio", "command": "./bin/fresh"}}}`)
		return []string{p}
	}},
	{"user mcp.json edited", "", func(t *testing.T, o Options) []string {
		p := filepath.Join(o.Home, ".cursor", "mcp.json")
		writeFile(t, p, `{"mcpServers": {"solo-user": {"command": "/usr/bin/tool"}}}`)
		return []string{p}
	}},
	{"settings.json changed", "settings discover", func(t *testing.T, o Options) []string {
		p := filepath.Join(o.PlugboardHome, SettingsFile)
		writeFile(t, p, `{"skillPluginPaths": [], "skillsEnabled": {"alpha-only": false}}`)
		return []string{p}
	}},
	{"settings.json trusts the workspace", "settings discover", func(t *testing.T, o Options) []string {
		p := filepath.Join(o.PlugboardHome, SettingsFile)
		writeFile(t, p, `{"skillPluginPaths": ["~/extra/plug"], "trustedWorkspaces": ["`+o.Workspace+`"]}`)
		return []string{p}
	}},
	{"standalone skill edited", "roots=1", func(t *testing.T, o Options) []string {
		p := filepath.Join(o.Home, ".claude", "skills", "shared-name", "SKILL.md")
		writeFile(t, p, "---\nname: shared-name\n---\nno description: invalid, so the next one wins\n")
		return []string{p}
	}},
	{"standalone skill added", "roots=1", func(t *testing.T, o Options) []string {
		dir := filepath.Join(o.Home, ".codex", "skills", "alpha-only")
		writeFile(t, filepath.Join(dir, "SKILL.md"), skillOf("alpha-only"))
		return []string{dir}
	}},
	{"standalone root created", "roots=2", func(t *testing.T, o Options) []string {
		writeFile(t, filepath.Join(o.PlugboardHome, ".claude", "skills", "pb-two", "SKILL.md"), skillOf("pb-two"))
		os.RemoveAll(filepath.Join(o.Home, ".cursor", "skills"))
		return []string{filepath.Join(o.Home, ".cursor", "skills"), filepath.Join(o.PlugboardHome, ".claude")}
	}},
	{"project skill edited", "roots=1", func(t *testing.T, o Options) []string {
		p := filepath.Join(o.Workspace, ".claude", "skills", "proj-skill", "SKILL.md")
		writeFile(t, p, skillOf("proj-skill")+"edited\n")
		return []string{p}
	}},
	{"new monorepo package", "rewalk", func(t *testing.T, o Options) []string {
		dir := filepath.Join(o.Workspace, "packages", "cli")
		writeFile(t, filepath.Join(dir, ".agents", "skills", "cli-skill", "SKILL.md"), skillOf("cli-skill"))
		return []string{dir}
	}},
	{"symlinked Cursor plugin edited through its link", "plugins=1", func(t *testing.T, o Options) []string {
		p := filepath.Join(o.Home, ".cursor", "plugins", "local", "hf-skills", "skills", "hf-datasets", "SKILL.md")
		writeFile(t, p, skillOf("hf-datasets")+"edited\n")
		return []string{p}
	}},
	{"change reported under a link's target (falls back to Load)", "load", func(t *testing.T, o Options) []string {
		p := filepath.Join(o.Home, "src", "hf-skills", "skills", "hf-datasets", "SKILL.md")
		writeFile(t, p, "---\nname: hf-datasets\n---\n")
		return []string{p}
	}},
	{"Cursor install index changed", "discover", func(t *testing.T, o Options) []string {
		p := filepath.Join(o.Home, ".cursor", "plugins", "cache", cursorIndexFile)
		writeFile(t, p, `{"plugins": [{"marketplace": "acme", "pluginId": "tool", "gitSha": "bbb222"}]}`)
		return []string{p}
	}},
	{"skillPluginPaths package edited", "plugins=1", func(t *testing.T, o Options) []string {
		p := filepath.Join(o.Home, "extra", "plug", "skills", "extra-skill", "SKILL.md")
		os.Remove(p)
		return []string{p}
	}},
}

// TestRefreshEqualsLoad: after each change, Refresh of the previous catalog with the
// changed paths is exactly the catalog a fresh Load makes, and the previous catalog is
// left as it was.
func TestRefreshEqualsLoad(t *testing.T) {
	for _, tc := range refreshCases {
		t.Run(tc.name, func(t *testing.T) {
			o, dir := fullHome(t)
			o.Workspace = filepath.Join(dir, "ws")
			prev := Load(o)
			before := catalogJSON(t, prev)
			changed := tc.edit(t, o)
			if got := describePlan(planRefresh(prev, o, changed)); got != tc.plan {
				t.Errorf("planRefresh(%v) = %q, want %q", changed, got, tc.plan)
			}
			got := Refresh(prev, o, changed)
			want := Load(o)
			if !reflect.DeepEqual(got, want) {
				g, w := catalogJSON(t, got), catalogJSON(t, want)
				if g == w {
					t.Fatalf("Refresh(%v) = the JSON of Load, but its reuse state differs", changed)
				}
				t.Fatalf("Refresh(%v) differs from Load:\n%s", changed, firstDifference(g, w))
			}
			if after := catalogJSON(t, prev); after != before {
				t.Errorf("Refresh modified the previous catalog:\n%s", firstDifference(after, before))
			}
		})
	}
}

// TestRefreshReloadsOnlyTheChangedPlugin: one SKILL.md edit loads one plugin; every
// other plugin is the previous value, sharing its skills.
func TestRefreshReloadsOnlyTheChangedPlugin(t *testing.T) {
	o, changed := benchHome(t, 20)
	prev := Load(o)
	edited := 7
	changed = strings.Replace(changed, "plugin-0000", "plugin-0007", 1)
	changed = strings.Replace(changed, "p0000", "p0007", 1)
	writeFile(t, changed, skillOf("p0007-skill-00"))
	if pl := planRefresh(prev, o, []string{changed}); pl.full || pl.rediscover || len(pl.reload) != 1 || !pl.reload[edited] {
		t.Fatalf("planRefresh(one SKILL.md) = %+v, want plugin %d reloaded alone", pl, edited)
	}
	got := Refresh(prev, o, []string{changed})
	for i := range got.Plugins {
		shared := &got.Plugins[i].Skills[0] == &prev.Plugins[i].Skills[0]
		if shared != (i != edited) {
			t.Errorf("plugin %d: shares its skills with the previous catalog = %v, want %v", i, shared, i != edited)
		}
	}
	if got.Plugins[edited].Skills[0].Description != "Use when testing p0007-skill-00" {
		t.Errorf("edited skill not reloaded: %+v", got.Plugins[edited].Skills[0])
	}
	if !reflect.DeepEqual(got, Load(o)) {
		t.Errorf("Refresh differs from Load")
	}
	// The skill entries of the plugins kept are the previous catalog's (no copy), also
	// when a new plugin folder moves the others' positions.
	sharedEntries(t, prev, got, filepath.Join(o.PlugboardHome, "plugins", "plugin-0007"))
	fresh := filepath.Join(o.PlugboardHome, "plugins", "plugin-0003a")
	writeFile(t, filepath.Join(fresh, "plugin.json"), manifestOf("plugin-0003a"))
	writeFile(t, filepath.Join(fresh, "skills", "fresh", "SKILL.md"), skillOf("fresh"))
	moved := Refresh(got, o, []string{fresh})
	if moved.Plugins[4].Path != fresh {
		t.Fatalf("the new plugin is at %s, want position 4", moved.Plugins[4].Path)
	}
	sharedEntries(t, got, moved, fresh)
	if !reflect.DeepEqual(moved, Load(o)) {
		t.Errorf("Refresh after a new plugin differs from Load")
	}
}

// sharedEntries checks that next's plugin skill entries are prev's, except those of the
// plugin at changed, which are new.
func sharedEntries(t *testing.T, prev, next *Catalog, changed string) {
	t.Helper()
	before := map[string]*SkillEntry{}
	for _, e := range prev.Skills {
		before[e.Path] = e
	}
	n := 0
	for _, e := range next.Skills {
		if e.Plugin == "" {
			continue
		}
		n++
		want := !strings.HasPrefix(e.Path, changed+"/")
		if got := before[e.Path] == e; got != want {
			t.Errorf("entry %s is the previous catalog's = %v, want %v", e.ID, got, want)
		}
	}
	if n == 0 {
		t.Error("no plugin skill entries")
	}
}

// TestRefreshWhilePrevIsRead: Refresh writes nothing the previous catalog holds, so
// readers of it may run meanwhile (run with -race).
func TestRefreshWhilePrevIsRead(t *testing.T) {
	o, dir := fullHome(t)
	o.Workspace = filepath.Join(dir, "ws")
	prev := Load(o)
	var edits [][]string
	for _, tc := range refreshCases {
		edits = append(edits, tc.edit(t, o))
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 3 {
			var buf bytes.Buffer
			prev.WriteJSON(&buf)
			Diff(prev, prev)
			SnapshotRows(prev)
		}
	}()
	next := prev
	for _, changed := range edits {
		next = Refresh(next, o, changed)
		Refresh(prev, o, changed)
	}
	<-done
	if !reflect.DeepEqual(next, Load(o)) {
		t.Errorf("a chain of Refresh calls differs from Load")
	}
}

// TestRefreshOtherOptions: another workspace or a nil catalog is a plain Load.
func TestRefreshOtherOptions(t *testing.T) {
	o, dir := fullHome(t)
	prev := Load(o)
	o.Workspace = filepath.Join(dir, "ws")
	if got, want := Refresh(prev, o, nil), Load(o); !reflect.DeepEqual(got, want) {
		t.Errorf("Refresh with a new workspace differs from Load")
	}
	if got, want := Refresh(nil, o, nil), Load(o); !reflect.DeepEqual(got, want) {
		t.Errorf("Refresh(nil) differs from Load")
	}
}

func TestRoots(t *testing.T) {
	o, dir := fullHome(t)
	o.Workspace = filepath.Join(dir, "ws")
	got := Roots(o)
	h, pb, ws := o.Home, o.PlugboardHome, o.Workspace
	want := []string{
		pb + "/plugins", h + "/.cursor/plugins/local", h + "/.cursor/plugins/cache", h + "/extra/plug",
		h + "/.cursor/skills", h + "/.agents/skills", h + "/.claude/skills", h + "/.codex/skills", pb + "/.claude/skills",
		ws + "/.cursor/skills", ws + "/.agents/skills", ws + "/.claude/skills", ws + "/.codex/skills",
		ws + "/packages/api/sub/.cursor/skills", ws + "/packages/api/sub/.agents/skills", ws + "/packages/api/sub/.claude/skills", ws + "/packages/api/sub/.codex/skills",
		ws + "/packages/web/.cursor/skills", ws + "/packages/web/.agents/skills", ws + "/packages/web/.claude/skills", ws + "/packages/web/.codex/skills",
		// Not a nested repository here: TestWorkspace adds its .git.
		ws + "/vendored/.cursor/skills", ws + "/vendored/.agents/skills", ws + "/vendored/.claude/skills", ws + "/vendored/.codex/skills",
		pb + "/settings.json", h + "/.cursor/mcp.json", ws + "/.cursor/mcp.json", ws + "/.mcp.json",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Roots() =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Every file the catalog read lies under a root (symlinked packages through their link).
	c := Load(o)
	for _, p := range c.Plugins {
		if !underAny(p.Path, got) {
			t.Errorf("plugin %s is under no root", p.Path)
		}
	}
	for _, s := range c.Skills {
		if s.Source != "builtin" && !underAny(s.Path, got) {
			t.Errorf("skill %s is under no root", s.Path)
		}
	}
	o.Workspace = ""
	for _, r := range Roots(o) {
		if strings.HasPrefix(r, ws) {
			t.Errorf("Roots() without a workspace lists %s", r)
		}
	}
}

func TestMayMoveWorkspaceRoots(t *testing.T) {
	ws := "/w"
	for p, want := range map[string]bool{
		"/w": true, "/": true, "/w/packages/new": true, "/w/a/b/.claude": true, "/w/a/.claude/skills": true,
		"/w/a/.claude/skills/x/SKILL.md": true, "/w/.git/index": false, "/w/node_modules/x/.claude/skills": false,
		"/w/a/.claude/settings.json": false, "/w/.idea/x": false, "/other": false,
	} {
		if got := mayMoveWorkspaceRoots(ws, p); got != want {
			t.Errorf("mayMoveWorkspaceRoots(%q, %q) = %v, want %v", ws, p, got, want)
		}
	}
}

// BenchmarkRefreshOneChange measures Refresh after one SKILL.md edit in homes of N
// portable plugins × 10 skills + mcp.json each; compare with BenchmarkLoad.
func BenchmarkRefreshOneChange(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("plugins=%d", n), func(b *testing.B) {
			o, changed := benchHome(b, n)
			prev := Load(o)
			if err := os.WriteFile(changed, []byte(skillOf("p0000-skill-00")), 0o644); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				c := Refresh(prev, o, []string{changed})
				if len(c.Plugins) != n {
					b.Fatalf("refreshed %d plugins", len(c.Plugins))
				}
			}
		})
	}
}

// benchHome generates a home of n benchmark plugins and returns its options and the
// first plugin's first SKILL.md.
func benchHome(tb testing.TB, n int) (Options, string) {
	tb.Helper()
	home, err := pathsafe.Root(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	pb := filepath.Join(home, ".plugboard")
	if err := benchhome.Generate(pb, n, 10); err != nil {
		tb.Fatal(err)
	}
	return Options{Home: home, PlugboardHome: pb}, filepath.Join(pb, "plugins", "plugin-0000", "skills", "p0000-skill-00", "SKILL.md")
}

// describePlan summarises a plan: "load", or what is read again.
func describePlan(pl refreshPlan) string {
	if pl.full {
		return "load"
	}
	var d []string
	if pl.settings {
		d = append(d, "settings")
	}
	if pl.rediscover {
		d = append(d, "discover")
	}
	if len(pl.reload) > 0 {
		d = append(d, fmt.Sprintf("plugins=%d", len(pl.reload)))
	}
	if len(pl.roots) > 0 {
		d = append(d, fmt.Sprintf("roots=%d", len(pl.roots)))
	}
	if pl.rewalk {
		d = append(d, "rewalk")
	}
	return strings.Join(d, " ")
}

func catalogJSON(t *testing.T, c *Catalog) string {
	t.Helper()
	var buf bytes.Buffer
	if err := c.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// firstDifference shows the two strings around where they first differ.
func firstDifference(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-200)
	return fmt.Sprintf("got:  …%s…\nwant: …%s…", got[from:min(len(got), i+200)], want[from:min(len(want), i+200)])
}

func underAny(p string, roots []string) bool {
	for _, r := range roots {
		if p == r || within(p, r) {
			return true
		}
	}
	return false
}
