package catalog

import (
	"path/filepath"
	"strings"

	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/settings"
)

// A package's identity, the same whether discovery lists it or a launch resolves the
// pluginDirs entry that assigns it:
//
//	source        id                   entry (what an assignment writes)
//	plugboard     <folder>             plugins/<folder>
//	cursor-local  <folder>@cursor-local ~/.cursor/plugins/local/<folder>
//	cursor-cache  <plugin>@<marketplace> ~/.cursor/plugins/cache/<marketplace>/<plugin>
//	plugin-path   <folder>@plugin-path  the skillPluginPaths entry, as written
//
// The id names the plugin's data folder, its acknowledgments and its launch-as choice,
// so it must not change when Cursor installs a new revision: neither it nor the entry
// holds the revision folder, and a launch takes the revision installed then (the one
// Cursor's install index names, else the newest), as discovery does. The suffixes keep a
// managed package and a Cursor plugin of the same folder name (a working copy linked
// into both) apart; Claude Code writes a marketplace plugin the same way, name@marketplace.

// Suffixes of the ids of packages outside $PLUGBOARD_HOME/plugins.
const (
	cursorLocalSuffix = "@" + SourceCursorLocal
	pluginPathSuffix  = "@" + SourcePluginPath
)

// cursorEntry is where Cursor keeps its plugins, as an entry writes it.
const cursorEntry = "~/.cursor/plugins/"

func managedLocation(dir string) location {
	base := filepath.Base(dir)
	return location{dir: dir, source: SourceManaged, id: base, entry: "plugins/" + base}
}

func cursorLocalLocation(dir string) location {
	base := filepath.Base(dir)
	return location{dir: dir, source: SourceCursorLocal, preferCursor: true, id: base + cursorLocalSuffix,
		entry: cursorEntry + "local/" + base}
}

// cachedLocation is the revision folder rev of a cached Cursor plugin
// (cache/<marketplace>/<plugin>/<rev>).
func cachedLocation(rev string) location {
	plugin := filepath.Dir(rev)
	market := filepath.Base(filepath.Dir(plugin))
	return location{dir: rev, source: SourceCursorCache, preferCursor: true,
		marketplace: market, revision: filepath.Base(rev),
		id: filepath.Base(plugin) + "@" + market, entry: cursorEntry + "cache/" + market + "/" + filepath.Base(plugin)}
}

func pluginPathLocation(full, written string) location {
	return location{dir: full, source: SourcePluginPath, preferCursor: true, id: filepath.Base(full) + pluginPathSuffix, entry: written}
}

// EntryPath is the folder a pluginDirs entry names, absolute and clean: ~/ is the home
// folder, and any other relative entry is relative to $PLUGBOARD_HOME (A1).
func EntryPath(entry, home, pbHome string) string {
	p := settings.ExpandHome(entry, home)
	if !filepath.IsAbs(p) {
		p = filepath.Join(pbHome, p)
	}
	return filepath.Clean(p)
}

// LoadEntry reads the package a pluginDirs entry names, afresh, identified as the
// catalog identifies it: a folder in $PLUGBOARD_HOME/plugins, a Cursor plugin (a cached
// one resolved to the revision installed now), a skillPluginPaths package, or else any
// folder (id: its name). The plugin's Path is the folder read.
func LoadEntry(entry string, o Options, st Settings) Plugin {
	l := locateEntry(entry, o, st)
	l.installed = o.Installed
	return loadLocation(l, o.Home)
}

// locateEntry finds the package folder of an entry and its identity.
func locateEntry(entry string, o Options, st Settings) location {
	full := EntryPath(entry, o.Home, o.PlugboardHome)
	var ignored issue.List
	r := pluginRootsOf(o, st, &ignored)
	rel := func(root string) []string {
		if !within(full, root) {
			return nil
		}
		r, _ := filepath.Rel(root, full)
		return strings.Split(r, string(filepath.Separator))
	}
	switch parts := rel(r.cursorCache); {
	case filepath.Dir(full) == r.managed:
		return managedLocation(full)
	case filepath.Dir(full) == r.cursorLocal:
		return cursorLocalLocation(full)
	case len(parts) == 2:
		index := readCursorIndex(filepath.Join(r.cursorCache, cursorIndexFile), &ignored)
		if loc, ok := cacheLocation(r.cursorCache, full, index, &ignored); ok {
			return loc
		}
		// No revision installed: the folder itself, which will not load, under the id
		// the catalog gave it.
		loc := cachedLocation(filepath.Join(full, "-"))
		loc.dir, loc.revision = full, ""
		return loc
	case len(parts) == 3:
		return cachedLocation(full) // a revision written out: that one
	}
	for i, p := range r.paths {
		if p == full {
			return pluginPathLocation(full, r.written[i])
		}
	}
	return location{dir: full, source: SourceInspect}
}

// Plugin returns the package with id, the first in catalog order (the one an assignment
// of the id takes), or nil.
func (c *Catalog) Plugin(id string) *Plugin {
	for i := range c.Plugins {
		if c.Plugins[i].ID == id {
			return &c.Plugins[i]
		}
	}
	return nil
}

// checkIDs reports two packages with one id (a managed folder named like a Cursor
// plugin's id, say): only the first in catalog order can be assigned by it.
func (c *Catalog) checkIDs() {
	seen := make(map[string]string, len(c.Plugins))
	for i := range c.Plugins {
		p := &c.Plugins[i]
		if other, ok := seen[p.ID]; ok {
			c.Issues.Warnf(CodeDuplicateID, p.Path, "", "plugins %s and %s have the same id %q; only the first can be assigned by it — rename the folder of one", other, p.Path, p.ID)
			continue
		}
		seen[p.ID] = p.Path
	}
}
