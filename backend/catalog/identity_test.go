package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Every catalogued package's entry, read back by LoadEntry, is the same package under the
// same id: what the page assigns is what a launch loads.
func TestLoadEntryAgreesWithDiscovery(t *testing.T) {
	o, _ := fullHome(t)
	c := Load(o)
	for _, p := range c.Plugins {
		if p.Entry == "" {
			t.Errorf("%s (%s) has no entry", p.ID, p.Source)
			continue
		}
		got := LoadEntry(p.Entry, o, c.Settings)
		if got.ID != p.ID || got.Path != p.Path || got.Source != p.Source || got.Revision != p.Revision {
			t.Errorf("LoadEntry(%q) = %s %s %s %q; the catalog has %s %s %s %q", p.Entry, got.ID, got.Source, got.Path, got.Revision, p.ID, p.Source, p.Path, p.Revision)
		}
	}
	if p := findPlugin(c, "tool@acme"); p == nil || p.Entry != "~/.cursor/plugins/cache/acme/tool" {
		t.Errorf("the cached plugin's entry holds no revision: %+v", p)
	}
	// A folder no source lists is read as it is, named by its folder.
	dir := filepath.Join(o.Home, "src", "hf-skills")
	if got := LoadEntry(dir, o, c.Settings); got.ID != "hf-skills" || got.Source != SourceInspect || !got.Valid {
		t.Errorf("LoadEntry(%s) = %s %s valid=%v", dir, got.ID, got.Source, got.Valid)
	}
}

// A Cursor update installs a new revision folder and points the install index at it; the
// stored entry then loads the new revision, under the same id. Without an index entry the
// newest revision loads.
func TestCursorEntrySurvivesAnUpdate(t *testing.T) {
	o, _ := fullHome(t)
	st := Load(o).Settings
	const entry = "~/.cursor/plugins/cache/acme/tool"
	cache := filepath.Join(o.Home, ".cursor", "plugins", "cache")
	if p := LoadEntry(entry, o, st); p.Revision != "aaa111" || p.ID != "tool@acme" {
		t.Fatalf("before the update: %s revision %q", p.ID, p.Revision)
	}
	next := filepath.Join(cache, "acme", "tool", "ddd444")
	writeFile(t, filepath.Join(next, ".cursor-plugin", "plugin.json"), `{"name": "tool", "version": "2.0.0"}`)
	writeFile(t, filepath.Join(cache, cursorIndexFile), `{"plugins": [{"marketplace": "acme", "pluginId": "tool", "gitSha": "ddd444"}]}`)
	p := LoadEntry(entry, o, st)
	if p.Revision != "ddd444" || p.Version != "2.0.0" || p.ID != "tool@acme" || p.Path != next {
		t.Errorf("after the update: %s revision %q version %q at %s", p.ID, p.Revision, p.Version, p.Path)
	}
	// The index gone: the most recently modified revision.
	os.Remove(filepath.Join(cache, cursorIndexFile))
	future := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(cache, "acme", "tool", "bbb222"), future, future)
	if p := LoadEntry(entry, o, st); p.Revision != "bbb222" {
		t.Errorf("without an index: revision %q, want the newest (bbb222)", p.Revision)
	}
	// Every revision gone: nothing loads, and the id stays.
	os.RemoveAll(filepath.Join(cache, "acme", "tool"))
	os.MkdirAll(filepath.Join(cache, "acme", "tool"), 0o755)
	if p := LoadEntry(entry, o, st); p.Valid || p.ID != "tool@acme" {
		t.Errorf("with no revision: %s valid=%v", p.ID, p.Valid)
	}
}

// Two packages with one id: a warning, naming both folders.
func TestDuplicateIDWarns(t *testing.T) {
	o, _ := fullHome(t)
	dup := filepath.Join(o.PlugboardHome, "plugins", "tool@acme")
	writeFile(t, filepath.Join(dup, ".claude-plugin", "plugin.json"), `{"name": "other-tool"}`)
	warned := func(c *Catalog) bool {
		for _, i := range c.Issues {
			if i.Code == CodeDuplicateID && strings.Contains(i.Message, `"tool@acme"`) {
				return true
			}
		}
		return false
	}
	c := Load(o)
	if !warned(c) {
		t.Errorf("no %s issue: %v", CodeDuplicateID, c.Issues)
	}
	// A Refresh that changes no plugin's id keeps the warning (reused, not recomputed);
	// one that removes the duplicate drops it.
	edited := filepath.Join(o.PlugboardHome, "plugins", "alpha", "skills", "alpha-only", "SKILL.md")
	writeFile(t, edited, skillOf("alpha-only")+"edited\n")
	if c = Refresh(c, o, []string{edited}); !warned(c) {
		t.Errorf("after a SKILL.md edit: no %s issue: %v", CodeDuplicateID, c.Issues)
	}
	os.RemoveAll(dup)
	if c = Refresh(c, o, []string{dup}); warned(c) {
		t.Errorf("after the duplicate went: %s issue still there", CodeDuplicateID)
	}
}
