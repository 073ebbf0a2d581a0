package assign

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/testhome"
)

// reachHome is the main fixture with a user home holding a cached Cursor plugin (with a
// stdio server of its own), a local Cursor plugin and a skillPluginPaths package.
func reachHome(t *testing.T) (pb, home string, cat *catalog.Catalog) {
	t.Helper()
	pb = fixture(t, "home")
	home = t.TempDir()
	cursorPlugin := func(dir, name string) {
		testhome.WriteFile(t, filepath.Join(dir, ".cursor-plugin", "plugin.json"), `{"name": "`+name+`"}`)
		testhome.WriteFile(t, filepath.Join(dir, "skills", name+"-tip", "SKILL.md"), "---\nname: "+name+"-tip\ndescription: A tip from "+name+".\n---\nBody.\n")
	}
	rev := filepath.Join(home, ".cursor", "plugins", "cache", "mk", "tool", "c0ffee")
	cursorPlugin(rev, "tool")
	testhome.WriteFile(t, filepath.Join(rev, ".mcp.json"), `{"mcpServers": {"tool-srv": {"command": "${CURSOR_PLUGIN_ROOT}/bin/serve", "env": {"TOKEN": "${env:TOOL_TOKEN}"}}}}`)
	cursorPlugin(filepath.Join(home, ".cursor", "plugins", "local", "loc"), "loc")
	cursorPlugin(filepath.Join(home, "extra", "plug"), "plug")
	testhome.WriteFile(t, filepath.Join(pb, "settings.json"), `{"skillPluginPaths": ["~/extra/plug"]}`)
	cat = catalog.Load(catalog.Options{Home: home, PlugboardHome: pb, Workers: 2})
	return pb, home, cat
}

// Any catalogued plugin is assigned by its id: the entry written is the catalog's (no
// revision folder in it), it reads back as the id, a Cursor plugin's servers need an
// acknowledgment like a portable plugin's, and removing the id removes its entries.
func TestAssignAnySource(t *testing.T) {
	pb, _, cat := reachHome(t)
	file := filepath.Join(pb, "agents", "bare.json")
	before := readFile(t, file)

	_, err := Apply(pb, cat, "agent:bare", Change{Add: []string{"tool@mk"}}, "", false)
	var need *AckError
	if !errors.As(err, &need) || len(need.Servers) != 1 || need.Servers[0].Plugin != "tool@mk" || need.Servers[0].Server != "tool-srv" {
		t.Fatalf("adding a Cursor plugin with a server: %v; want an acknowledgment of tool@mk/tool-srv", err)
	}
	if !slices.Equal(readFile(t, file), before) {
		t.Fatal("a refused change wrote the file")
	}
	out, err := Apply(pb, cat, "agent:bare", Change{Add: []string{"tool@mk", "loc@cursor-local", "plug@plugin-path"}}, "", true)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"~/.cursor/plugins/cache/mk/tool", "~/.cursor/plugins/local/loc", "~/extra/plug"}
	if got, _ := dirsIn(t, file, -1); !eq(got, want) {
		t.Errorf("pluginDirs = %v, want %v", got, want)
	}
	if len(out.Acknowledged) != 1 {
		t.Errorf("acknowledged %v", out.Acknowledged)
	}
	tg := target(t, pb, cat, "agent:bare")
	if !eq(tg.Managed, []string{"tool@mk", "loc@cursor-local", "plug@plugin-path"}) || len(tg.Unmanaged) != 0 || !eq(tg.Effective, tg.Managed) {
		t.Errorf("target reads back managed %v unmanaged %v effective %v", tg.Managed, tg.Unmanaged, tg.Effective)
	}
	for _, e := range tg.Entries {
		if e.ID == "" || !e.Known || !e.Valid || e.Managed {
			t.Errorf("entry %+v", e)
		}
	}
	if _, issues := Targets(pb, cat); len(issues) != 0 {
		for _, i := range issues {
			if i.Path == file {
				t.Errorf("issue on the written entries: %v", i)
			}
		}
	}

	// Set restores an order, keeping each entry as written; Remove drops the id.
	if _, err := Apply(pb, cat, "agent:bare", Change{Set: []string{"plug@plugin-path", "tool@mk"}}, "", false); err != nil {
		t.Fatal(err)
	}
	if got, _ := dirsIn(t, file, -1); !eq(got, []string{"~/extra/plug", "~/.cursor/plugins/cache/mk/tool"}) {
		t.Errorf("after set: %v", got)
	}
	if _, err := Apply(pb, cat, "agent:bare", Change{Remove: []string{"tool@mk"}}, "", false); err != nil {
		t.Fatal(err)
	}
	if got, _ := dirsIn(t, file, -1); !eq(got, []string{"~/extra/plug"}) {
		t.Errorf("after remove: %v", got)
	}
}

// An entry written by hand with the cached revision, or with the absolute folder, reads
// as the same id; adding the id again writes nothing new, and a second entry of the id is
// reported and dropped by the next save.
func TestHandWrittenCursorEntries(t *testing.T) {
	pb, home, cat := reachHome(t)
	rev := filepath.Join(home, ".cursor", "plugins", "cache", "mk", "tool", "c0ffee")
	file := filepath.Join(pb, "agents", "bare.json")
	testhome.WriteFile(t, file, `{"name": "bare", "pluginDirs": [`+quote(rev)+`, `+quote(filepath.Join(home, ".cursor", "plugins", "cache", "mk", "tool"))+`]}`)
	tg := target(t, pb, cat, "agent:bare")
	if !eq(tg.Managed, []string{"tool@mk"}) || len(tg.Unmanaged) != 0 {
		t.Fatalf("managed %v unmanaged %v", tg.Managed, tg.Unmanaged)
	}
	_, issues := Targets(pb, cat)
	dup := false
	for _, i := range issues {
		dup = dup || i.Code == CodeDuplicateEntry && i.Path == file
	}
	if !dup {
		t.Errorf("no %s for the second entry of tool@mk: %v", CodeDuplicateEntry, issues)
	}
	if _, err := Apply(pb, cat, "agent:bare", Change{Add: []string{"tool@mk", "loc@cursor-local"}}, "", true); err != nil {
		t.Fatal(err)
	}
	if got, _ := dirsIn(t, file, -1); !eq(got, []string{rev, "~/.cursor/plugins/local/loc"}) {
		t.Errorf("pluginDirs = %v; want the revision entry kept as written, once, and the new one added", got)
	}
	// Gone from the catalog (uninstalled in Cursor): the entry stays, unmanaged.
	if err := os.RemoveAll(filepath.Join(home, ".cursor", "plugins", "local", "loc")); err != nil {
		t.Fatal(err)
	}
	cat = catalog.Load(catalog.Options{Home: home, PlugboardHome: pb, Workers: 2})
	if tg := target(t, pb, cat, "agent:bare"); !eq(tg.Unmanaged, []string{"~/.cursor/plugins/local/loc"}) {
		t.Errorf("an uninstalled Cursor plugin's entry: unmanaged %v", tg.Unmanaged)
	}
}

func quote(s string) string { return `"` + s + `"` }
