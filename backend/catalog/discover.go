package catalog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/pathsafe"
	"github.com/plugboard/plugboard/backend/settings"
)

// location is one package folder to load, and where it came from.
type location struct {
	dir          string
	source       string
	preferCursor bool
	marketplace  string
	revision     string
	notes        issue.List        // issues found while discovering it (older cached versions)
	unsupported  []string          // capability kinds the Cursor index lists for it
	root         string            // the resolved folder, when discovery already knows it
	id           string            // the plugin id (identity.go)
	entry        string            // the pluginDirs entry that assigns it (identity.go)
	installed    map[string]string // the clients installed here (Options.Installed)
}

// found is a child folder and whether it is a plain folder (not reached through a link).
type found struct {
	path  string
	plain bool
}

// listFolders returns the child folders of dir (symlinks followed), sorted, skipping
// hidden names. A missing dir is empty; an unreadable one is an issue.
func listFolders(dir string, issues *issue.List) []found {
	entries, err := os.ReadDir(dir)
	if err != nil {
		switch {
		case errors.Is(err, syscall.ENOTDIR):
			// A file where the folder should be is a mistake to fix; a file above it
			// (no such folder can exist there) is as good as a missing folder.
			if fi, serr := os.Stat(dir); serr == nil && !fi.IsDir() {
				issues.Errorf(CodeRootUnreadable, dir, "", "%s is a file, not a folder, so nothing is catalogued from it; move the file aside and make it a folder", dir)
			}
		case !errors.Is(err, os.ErrNotExist):
			issues.Errorf(CodeRootUnreadable, dir, "", "%s cannot be listed: %v, so nothing in it is catalogued; give your user access to it (chmod u+rx) or remove it", dir, unwrapPath(err))
		}
		return nil
	}
	var out []found // ReadDir sorts by name
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		// The listing says what a plain folder is; only links need a Stat.
		if e.IsDir() || e.Type()&os.ModeSymlink != 0 && isDir(p) {
			out = append(out, found{p, e.IsDir()})
		}
	}
	return out
}

// listDirs is listFolders without the plain flags.
func listDirs(dir string, issues *issue.List) []string {
	var out []string
	for _, f := range listFolders(dir, issues) {
		out = append(out, f.path)
	}
	return out
}

// managedLocations lists $PLUGBOARD_HOME/plugins/*. The folder is resolved once, so a
// plain child folder needs no resolution of its own (a system call per path component
// saved for every plugin).
func managedLocations(dir string, issues *issue.List) []location {
	var locs []location
	resolvedDir, err := pathsafe.Root(dir)
	for _, f := range listFolders(dir, issues) {
		l := managedLocation(f.path)
		if err == nil && f.plain {
			l.root = filepath.Join(resolvedDir, filepath.Base(f.path))
		}
		locs = append(locs, l)
	}
	return locs
}

// pluginRoots names the folders discovery lists for packages. Discovery, Roots and Refresh
// all take them from here.
type pluginRoots struct {
	managed     string   // $PLUGBOARD_HOME/plugins: children are packages
	cursorLocal string   // ~/.cursor/plugins/local: children are packages (often links)
	cursorCache string   // ~/.cursor/plugins/cache: <marketplace>/<plugin>/<revision>/
	paths       []string // skillPluginPaths entries, expanded: each is itself a package
	written     []string // the same entries as written in settings.json
}

// pluginRootsOf returns the package roots for o and settings s; a relative
// skillPluginPaths entry is an issue and is left out.
func pluginRootsOf(o Options, s Settings, issues *issue.List) pluginRoots {
	cursor := filepath.Join(o.Home, ".cursor", "plugins")
	r := pluginRoots{managed: filepath.Join(o.PlugboardHome, "plugins"),
		cursorLocal: filepath.Join(cursor, "local"), cursorCache: filepath.Join(cursor, "cache")}
	for i, p := range s.SkillPluginPaths {
		full := settings.ExpandHome(p, o.Home)
		if !filepath.IsAbs(full) {
			issues.Errorf(CodeSettings, settings.Path(o.PlugboardHome), fmt.Sprintf("/skillPluginPaths/%d", i),
				"skillPluginPaths entry %q is relative; use an absolute path or one starting with ~/", p)
			continue
		}
		r.paths, r.written = append(r.paths, full), append(r.written, p)
	}
	return r
}

// containers are the folders whose contents discovery lists (not the skillPluginPaths
// packages themselves).
func (r pluginRoots) containers() []string { return []string{r.managed, r.cursorLocal, r.cursorCache} }

// userMCPFile is the user's MCP file, first in the merge (F9).
func userMCPFile(o Options) string { return filepath.Join(o.Home, ".cursor", "mcp.json") }

// workspaceMCPFiles are the project MCP files, in merge order; none without a workspace.
func workspaceMCPFiles(ws string) []string {
	if ws == "" {
		return nil
	}
	return []string{filepath.Join(ws, ".cursor", "mcp.json"), filepath.Join(ws, ".mcp.json")}
}

// discoverPlugins lists package folders in catalog order: managed, Cursor local, Cursor
// cache, then skillPluginPaths.
func discoverPlugins(o Options, s Settings, issues *issue.List) []location {
	var pathIssues issue.List // reported after the listings, as they are met in order
	r := pluginRootsOf(o, s, &pathIssues)
	locs := managedLocations(r.managed, issues)
	for _, d := range listDirs(r.cursorLocal, issues) {
		locs = append(locs, cursorLocalLocation(d))
	}
	locs = append(locs, discoverCursorCache(r.cursorCache, issues)...)
	for i, full := range r.paths {
		locs = append(locs, pluginPathLocation(full, r.written[i]))
	}
	*issues = append(*issues, pathIssues...)
	return locs
}

// discoverCursorCache picks one installed version of each cached Cursor plugin:
// cache/<marketplace>/<plugin>/<revision>/ (cacheLocation).
func discoverCursorCache(cache string, issues *issue.List) []location {
	index := readCursorIndex(filepath.Join(cache, cursorIndexFile), issues)
	var locs []location
	for _, market := range listDirs(cache, issues) {
		for _, plugin := range listDirs(market, issues) {
			if loc, ok := cacheLocation(cache, plugin, index, issues); ok {
				locs = append(locs, loc)
			}
		}
	}
	return locs
}

// cacheLocation picks the installed version of the cached Cursor plugin whose folder is
// plugin (cache/<marketplace>/<plugin>): the revision Cursor's install index names wins;
// without an index entry the most recently modified revision folder does. It is false
// when the folder holds no revision.
func cacheLocation(cache, plugin string, index map[string]indexEntry, issues *issue.List) (location, bool) {
	revs := listDirs(plugin, issues)
	if len(revs) == 0 {
		return location{}, false
	}
	market := filepath.Dir(plugin)
	key := filepath.Base(market) + "/" + filepath.Base(plugin)
	entry, indexed := index[key]
	chosen := ""
	if indexed && entry.Revision != "" {
		for _, r := range revs {
			if filepath.Base(r) == entry.Revision {
				chosen = r
			}
		}
	}
	if chosen == "" {
		chosen = newest(revs)
	}
	loc := cachedLocation(chosen)
	loc.unsupported = entry.Unsupported
	if len(revs) > 1 {
		how := "the most recently modified"
		if indexed && filepath.Base(chosen) == entry.Revision {
			how = "the one Cursor's install index names"
		}
		loc.notes.Add(issue.Info, CodeCursorVersions, chosen, "", "%d cached versions of %s; cataloguing %s (%s)", len(revs), key, filepath.Base(chosen), how)
	}
	if indexed && entry.Revision != "" && filepath.Base(chosen) != entry.Revision {
		loc.notes.Add(issue.Warning, CodeCursorIndex, filepath.Join(cache, cursorIndexFile), "",
			"Cursor's install index names revision %s of %s, which is not in the cache; cataloguing %s instead (reinstall the plugin in Cursor to repair the cache)", entry.Revision, key, filepath.Base(chosen))
	}
	return loc, true
}

// newest returns the most recently modified folder (ties: the last by name).
func newest(dirs []string) string {
	best := dirs[0]
	var bestT int64
	for _, d := range dirs {
		st, err := os.Stat(d)
		if err != nil {
			continue
		}
		if t := st.ModTime().UnixNano(); t >= bestT {
			best, bestT = d, t
		}
	}
	return best
}
