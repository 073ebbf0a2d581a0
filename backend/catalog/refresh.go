package catalog

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/settings"
)

// Roots returns every folder and file a watcher must watch for the catalog of o, in this
// order: the package roots ($PLUGBOARD_HOME/plugins, ~/.cursor/plugins/local,
// ~/.cursor/plugins/cache, each skillPluginPaths package), the standalone skill roots
// (user, then the workspace's and its monorepo packages'), then the files
// ($PLUGBOARD_HOME/settings.json, ~/.cursor/mcp.json, the workspace's MCP files).
//
// Folders are to be watched with everything below them, following symlinked packages
// (a change under a link's target is to be reported under the link's path, the one the
// catalog knows; see Refresh). Entries may not exist yet: a watcher watches the nearest
// existing parent until they appear. The list comes from the tables discovery uses, and
// reads settings.json for skillPluginPaths, so it is to be asked again when that file
// changes. A new monorepo package in the workspace is seen at the next rescan.
func Roots(o Options) []string {
	st, _, _ := settings.Read(o.PlugboardHome)
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p = filepath.Clean(p); !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	pr := pluginRootsOf(o, st, new(issue.List))
	for _, d := range append(pr.containers(), pr.paths...) {
		add(d)
	}
	for _, r := range append(userRoots(o), workspaceRoots(o.Workspace)...) {
		add(r.dir)
	}
	add(settings.Path(o.PlugboardHome))
	add(userMCPFile(o))
	for _, f := range workspaceMCPFiles(o.Workspace) {
		add(f)
	}
	return out
}

// Place is one folder the catalog looks in, for a person: what it holds and whether it
// is there. Kind names what it holds for a program (the page words it in its language);
// What says it in English.
type Place struct {
	Path  string `json:"path"`
	Kind  string `json:"kind"`
	What  string `json:"what"`
	Found bool   `json:"found"`
}

// The kinds of Place, with what each holds in English.
var placeKinds = map[string]string{
	"plugins":          "Plugboard's plugins (installed, linked)",
	"cursor-local":     "Cursor's local plugins",
	"cursor-cache":     "Cursor Marketplace plugins",
	"plugin-path":      "a skillPluginPaths package",
	"cursor-skills":    "Cursor's skills",
	"agents-skills":    "Agent Skills (~/.agents)",
	"claude-skills":    "Claude Code's skills",
	"codex-skills":     "Codex's skills",
	"plugboard-skills": "Plugboard's own skills",
	"workspace-skills": "the workspace's skills",
}

// Places lists the folders the catalog of o looks in for packages and standalone skills
// (the folders of Roots, named), each with whether it exists: what a first run shows.
func Places(o Options) []Place {
	st, _, _ := settings.Read(o.PlugboardHome)
	pr := pluginRootsOf(o, st, new(issue.List))
	var out []Place
	add := func(p, kind string) {
		fi, err := os.Stat(p)
		out = append(out, Place{Path: filepath.Clean(p), Kind: kind, What: placeKinds[kind], Found: err == nil && fi.IsDir()})
	}
	add(pr.managed, "plugins")
	add(pr.cursorLocal, "cursor-local")
	add(pr.cursorCache, "cursor-cache")
	for _, p := range pr.paths {
		add(p, "plugin-path")
	}
	for i, r := range userRoots(o) {
		kind := "plugboard-skills"
		if i < len(skillContainers) {
			// ".cursor/skills" -> "cursor-skills"
			kind = strings.TrimPrefix(filepath.Dir(skillContainers[i]), ".") + "-skills"
		}
		add(r.dir, kind)
	}
	for _, r := range workspaceRoots(o.Workspace) {
		add(r.dir, "workspace-skills")
	}
	return out
}

// Refresh returns the Catalog Load(o) would return now, given that the files and folders
// in changed (absolute paths, as a watcher reports them under Roots) are all that changed
// since prev was loaded. prev is not modified and may be in use elsewhere; the result
// shares unchanged plugins, skills and lists with it.
//
// A path inside a known package folder (its Path: the link, not the link's target)
// reloads that package only; a path in a standalone skill root re-reads that root; the
// user and project MCP files are re-read on every refresh anyway. A path that can change
// what discovery finds — settings.json, a root folder or one of its parents, a package
// folder itself (added, removed, renamed), anything else in the Cursor cache — re-runs
// discovery, and then loads only the packages that are new or whose location changed.
// A path Refresh cannot attribute (outside every root, such as a symlink target) makes
// it fall back to Load. Skill precedence, the MCP merge, duplicate names and the summary
// are always recomputed: they cost memory traffic proportional to the catalog, not
// file reads. With a nil prev, or options naming other homes or another workspace,
// Refresh is Load. o.Progress, when set, counts the packages Refresh loads.
func Refresh(prev *Catalog, o Options, changed []string) *Catalog {
	if prev == nil || prev.scan == nil || prev.Home != o.Home || prev.PlugboardHome != o.PlugboardHome || prev.Workspace != o.Workspace {
		return Load(o)
	}
	pl := planRefresh(prev, o, changed)
	if pl.full {
		return Load(o)
	}
	old := prev.scan
	s := *old // shallow: each field that changes is replaced, never written into
	st := prev.Settings
	if pl.settings {
		st, _, s.settingsIssues = settings.Read(o.PlugboardHome)
	}
	var plugins []Plugin
	if pl.rediscover {
		s.discoverIssues = nil
		s.locs = discoverPlugins(o, st, &s.discoverIssues)
		s.index = indexLocations(s.locs)
		plugins = rediscovered(prev.Plugins, old, s.locs, pl.reload, o)
	} else {
		plugins = reloaded(prev.Plugins, s.locs, pl.reload, o)
	}
	s.user = rereadRoots(old.user, old.user, pl.roots, o.Home)
	if pl.rewalk {
		s.project = rereadRoots(rootScans(workspaceRoots(o.Workspace)), old.project, pl.roots, o.Home)
	} else {
		s.project = rereadRoots(old.project, old.project, pl.roots, o.Home)
	}
	return assemble(o, st, &s, plugins)
}

// refreshPlan is what a set of changed paths asks for.
type refreshPlan struct {
	full       bool            // attribute nothing: run Load
	settings   bool            // re-read settings.json (and rediscover)
	rediscover bool            // list the package roots again
	reload     map[int]bool    // packages (indexes into prev's locations) to load again
	roots      map[string]bool // standalone skill roots (folders) to read again
	rewalk     bool            // look for the workspace's skill roots again
}

func planRefresh(prev *Catalog, o Options, changed []string) refreshPlan {
	s := prev.scan
	pl := refreshPlan{reload: map[int]bool{}, roots: map[string]bool{}}
	settingsFile := settings.Path(o.PlugboardHome)
	mcpFiles := append([]string{userMCPFile(o)}, workspaceMCPFiles(o.Workspace)...)
	pr := pluginRootsOf(o, prev.Settings, new(issue.List))
	for _, p := range changed {
		p = absClean(p)
		switch {
		case p == settingsFile:
			pl.settings, pl.rediscover = true, true
			continue
		case slices.Contains(mcpFiles, p):
			continue // re-read by every assemble
		}
		known := false
		// Every package folder containing p (usually one): walk p's ancestors.
		for d := p; ; d = filepath.Dir(d) {
			if i, ok := s.index[d]; ok {
				known = true
				pl.reload[i] = true
				if d == p { // the package folder itself: added, removed or replaced
					pl.rediscover = true
				}
			}
			if d == filepath.Dir(d) {
				break
			}
		}
		for _, d := range append(pr.containers(), pr.paths...) {
			// A root, a parent of one, or something in a root outside every package (a new
			// package folder, the Cursor index, another cached revision).
			if p == d || within(d, p) || within(p, d) && !known {
				pl.rediscover, known = true, true
			}
		}
		inRoot := false
		for _, rs := range [][]rootScan{s.user, s.project} {
			for _, r := range rs {
				if p == r.root.dir || within(r.root.dir, p) || within(p, r.root.dir) {
					pl.roots[r.root.dir], known = true, true
					inRoot = inRoot || within(p, r.root.dir)
				}
			}
		}
		if o.Workspace != "" && !inRoot && mayMoveWorkspaceRoots(o.Workspace, p) {
			// Maybe a skill root of a monorepo package appeared or went.
			pl.rewalk, known = true, true
		}
		if !known {
			return refreshPlan{full: true}
		}
	}
	// A package to reload that is no longer a folder: discovery decides whether it is
	// still listed (a dangling link in local/ is not; a skillPluginPaths entry is).
	for i := range pl.reload {
		if !pl.rediscover && !isDir(pluginPath(s.locs[i].dir)) {
			pl.rediscover = true
		}
	}
	return pl
}

// reloaded copies plugins, loading again those whose index is in reload.
func reloaded(prev []Plugin, locs []location, reload map[int]bool, o Options) []Plugin {
	out := append([]Plugin(nil), prev...)
	var idx []int
	var todo []location
	for i := range reload {
		idx = append(idx, i)
		todo = append(todo, locs[i])
	}
	for k, p := range loadAll(todo, o) {
		out[idx[k]] = p
	}
	return out
}

// rediscovered lines plugins up with freshly discovered locations: a package at the same
// location that was not changed is reused; every other one is loaded.
func rediscovered(prev []Plugin, old *scan, locs []location, reload map[int]bool, o Options) []Plugin {
	out := make([]Plugin, len(locs))
	var idx []int
	var todo []location
	for i, l := range locs {
		if j, ok := old.index[pluginPath(l.dir)]; ok && !reload[j] && reflect.DeepEqual(old.locs[j], l) {
			out[i] = prev[j]
			continue
		}
		idx = append(idx, i)
		todo = append(todo, l)
	}
	for k, p := range loadAll(todo, o) {
		out[idx[k]] = p
	}
	return out
}

func rootScans(roots []skillRoot) []rootScan {
	out := make([]rootScan, len(roots))
	for i, r := range roots {
		out[i] = rootScan{root: r}
	}
	return out
}

// rereadRoots returns want's roots, each taken from old when it is there, unchanged and
// not named in touched, and read again otherwise.
func rereadRoots(want, old []rootScan, touched map[string]bool, home string) []rootScan {
	byDir := make(map[string]int, len(old))
	for i, r := range old {
		byDir[r.root.dir] = i
	}
	out := make([]rootScan, len(want))
	for i, w := range want {
		if j, ok := byDir[w.root.dir]; ok && !touched[w.root.dir] && old[j].root == w.root {
			out[i] = old[j]
			continue
		}
		out[i] = loadRootScan(w.root, home)
	}
	return out
}

// within reports whether p is strictly inside dir.
func within(p, dir string) bool {
	if dir == string(filepath.Separator) {
		return p != dir && strings.HasPrefix(p, dir)
	}
	return strings.HasPrefix(p, dir+string(filepath.Separator))
}

func absClean(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

// mayMoveWorkspaceRoots reports whether a change at p, inside the workspace ws or a
// parent of it, can add or remove a skill root that workspaceRoots finds: p is on a path
// the walk takes (no hidden or skipped folder on the way), or it is such a folder's skill
// container or a part of one.
func mayMoveWorkspaceRoots(ws, p string) bool {
	if p == ws || within(ws, p) {
		return true
	}
	rel, err := filepath.Rel(ws, p)
	if err != nil || !within(p, ws) {
		return false
	}
	comps := strings.Split(filepath.ToSlash(rel), "/")
	for k, c := range comps {
		if c[0] != '.' && !skipDirs[c] {
			continue
		}
		for _, sc := range skillContainers {
			// .claude, .claude/skills, …: the rest of comps must start the container.
			rest := strings.Join(comps[k:], "/")
			if sc == rest || strings.HasPrefix(sc, rest+"/") || strings.HasPrefix(rest, sc+"/") {
				return true
			}
		}
		return false
	}
	return true
}
