package catalog

import (
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/plugboard/plugboard/backend/diskwait"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/mcpconfig"
	"github.com/plugboard/plugboard/backend/settings"
	"github.com/plugboard/plugboard/backend/skill"
)

// Options says where to look.
type Options struct {
	Home          string // the user's home folder (from $HOME)
	PlugboardHome string // $PLUGBOARD_HOME, default ~/.plugboard
	Workspace     string // the open workspace; "" for none
	// Workers bounds concurrent plugin loads; 0 means 4 per CPU (the work is mostly
	// waiting on the filesystem).
	Workers int
	// Progress, when set, is called after each plugin is loaded with the number loaded
	// so far and the number found. It is called from the loading goroutines, one call at
	// a time, and must return quickly.
	Progress func(done, total int)
	// Installed holds the version of each agent client installed here, by client name
	// (backend/installed finds them): it picks the rules of each client model, and each
	// verdict says what it was judged against. nil: none is installed.
	Installed map[string]string
}

// Catalog is one scan's result. It is never modified after Load returns.
type Catalog struct {
	Home             string         `json:"home"`
	PlugboardHome    string         `json:"plugboardHome"`
	Workspace        string         `json:"workspace,omitempty"`
	WorkspaceTrusted bool           `json:"workspaceTrusted"`
	Settings         Settings       `json:"settings"`
	Plugins          []Plugin       `json:"plugins"`
	Skills           []*SkillEntry  `json:"skills"`
	MCP              []MergedServer `json:"mcp"`
	Issues           issue.List     `json:"issues"` // catalog-level: settings, roots, duplicates
	Summary          Summary        `json:"summary"`
	// Seq numbers the scans of one long-lived holder (the app's Service), so that a page
	// can tell the scan a catalog:updated event announces from one it already shows; 0
	// (and left out of the JSON) for a catalog nobody numbered.
	Seq int64 `json:"seq,omitempty"`

	scan *scan // what Refresh reuses; nil on a Catalog not made by Load or Refresh
	// standalone are the Skills not of a plugin (user, project and built-in), in order:
	// what precedence and Diff read, without a walk of every plugin skill.
	standalone []*SkillEntry
}

// Summary totals the catalog.
type Summary struct {
	Plugins        int    `json:"plugins"`
	ValidPlugins   int    `json:"validPlugins"`
	Skills         int    `json:"skills"`
	ActiveSkills   int    `json:"activeSkills"`
	ShadowedSkills int    `json:"shadowedSkills"`
	MCPServers     int    `json:"mcpServers"`
	Issues         Counts `json:"issues"`
}

// scan is what Load read from disk, kept on the Catalog so that Refresh can reuse what a
// change did not touch. Every field is read-only once the Catalog is returned: a refreshed
// catalog shares slices and maps with its predecessor.
type scan struct {
	settingsIssues issue.List
	locs           []location     // package folders, in discovery order; Plugins[i] is locs[i]
	discoverIssues issue.List     // issues of the discovery itself
	index          map[string]int // Plugin.Path → index in locs
	user, project  []rootScan     // standalone skill roots, in precedence order
	builtin        []skill.Skill
	// entries caches each plugin's skill entries as entryOf makes them, by position in
	// Plugins (nil for a plugin that has none), so that a Refresh that reuses a plugin
	// does not build its entries again. Each assemble makes a new list of pointers to
	// them, which are never written once made.
	entries []*pluginEntries
	// plugins are the catalog's plugins, and identIssues what checkDuplicates and checkIDs
	// said of them, which a Refresh that changes no plugin's id, name, folder, source or
	// validity reuses rather than indexing every plugin again.
	plugins     []Plugin
	identIssues issue.List
	// mcpFrom and mcp are the last MCP merge and what it was made from, for the same
	// reason: a Refresh whose sources are the same reuses the merge.
	mcpFrom []mcpSource
	mcp     []MergedServer
}

// pluginEntries is one plugin's cached skill entries and what they were made from.
type pluginEntries struct {
	path    string       // the plugin's folder
	skills  *skill.Skill // the plugin's first skill: the same backing array means the same skills
	n       int
	name    string // the plugin's name, id and source, which the entries carry
	id      string
	source  string
	layer   int
	src     skill.Source
	entries []SkillEntry
	// allEnabled: every entry is enabled, as settings that disable no skill make them;
	// entries made under other settings are checked one by one (enabledUnder).
	allEnabled bool
}

// enabledUnder reports whether the entries' Enabled agrees with st.
func (pe *pluginEntries) enabledUnder(st Settings) bool {
	if pe.allEnabled && len(st.SkillsEnabled) == 0 {
		return true
	}
	for i := range pe.entries {
		if e := &pe.entries[i]; e.Enabled != st.Enabled(e.Name, e.ID) {
			return false
		}
	}
	return true
}

// rootScan is one standalone skill root as read.
type rootScan struct {
	root   skillRoot
	skills []skill.Skill
	issues issue.List
}

// Load scans everything Options names.
func Load(o Options) *Catalog {
	s := &scan{}
	var st Settings
	st, _, s.settingsIssues = settings.Read(o.PlugboardHome)
	s.locs = discoverPlugins(o, st, &s.discoverIssues)
	s.index = indexLocations(s.locs)
	plugins := loadAll(s.locs, o)
	s.user = loadRoots(userRoots(o), o.Home)
	s.project = loadRoots(workspaceRoots(o.Workspace), o.Home)
	s.builtin = builtinSkills(o.Home)
	return assemble(o, st, s, plugins)
}

// indexLocations maps each package folder, as Plugin.Path spells it, to its position.
func indexLocations(locs []location) map[string]int {
	index := make(map[string]int, len(locs))
	for i, l := range locs {
		index[pluginPath(l.dir)] = i
	}
	return index
}

// pluginPath is the Path a package found at dir gets.
func pluginPath(dir string) string {
	abs, _ := filepath.Abs(dir)
	return abs
}

func loadRoots(roots []skillRoot, home string) []rootScan {
	out := make([]rootScan, len(roots))
	for i, r := range roots {
		out[i] = loadRootScan(r, home)
	}
	return out
}

func loadRootScan(r skillRoot, home string) rootScan {
	rs := rootScan{root: r}
	rs.skills = loadRoot(r, home, &rs.issues)
	return rs
}

// assemble builds the Catalog from what was read: duplicates, skill precedence, the MCP
// merge and the summary are computed here, from scratch, on every Load and Refresh. It
// reads only the few user and project MCP files and never changes s or plugins' contents.
func assemble(o Options, st Settings, s *scan, plugins []Plugin) *Catalog {
	c := &Catalog{Home: o.Home, PlugboardHome: o.PlugboardHome, Workspace: o.Workspace, Settings: st, Plugins: plugins, scan: s}
	// Fresh lists: the scan's are shared with other catalogs and must not be appended to.
	c.Issues = append(append(issue.List(nil), s.settingsIssues...), s.discoverIssues...)
	if o.Workspace != "" {
		c.WorkspaceTrusted = c.Settings.Trusts(o.Workspace, o.Home)
	}
	if !sameIdentities(s.plugins, plugins) {
		n := len(c.Issues)
		c.checkDuplicates()
		c.checkIDs()
		s.identIssues = slices.Clone(c.Issues[n:])
	} else {
		c.Issues = append(c.Issues, s.identIssues...)
	}
	s.plugins = plugins

	n := len(s.builtin)
	for _, rs := range [][]rootScan{s.user, s.project} {
		for _, r := range rs {
			n += len(r.skills)
		}
	}
	for i := range plugins {
		n += len(plugins[i].Skills)
	}
	// Entries are pointers: a plugin's entries are made once and shared by the catalogs
	// of every Refresh that keeps the plugin (they are never modified once made), so a
	// reload after one edit copies 10,000 pointers, not 10,000 entries. Standalone and
	// built-in entries are made afresh, since precedence marks them.
	entries := make([]*SkillEntry, 0, n)
	add := func(ss []skill.Skill, layer int, src skill.Source, trusted bool) {
		made := make([]SkillEntry, len(ss))
		for i := range ss {
			made[i] = entryOf(&ss[i], layer, src, trusted, nil, c.Settings)
			entries = append(entries, &made[i])
			c.standalone = append(c.standalone, &made[i])
		}
	}
	// A plugin's entries are looked for at its position in the previous list, then, when
	// plugins were added or removed, by its folder.
	prev, cache := s.entries, make([]*pluginEntries, len(plugins))
	var prevAt map[string]*pluginEntries
	cached := func(i int, path string) *pluginEntries {
		if i < len(prev) && prev[i] != nil && prev[i].path == path {
			return prev[i]
		}
		if prevAt == nil {
			prevAt = make(map[string]*pluginEntries, len(prev))
			for _, pe := range prev {
				if pe != nil {
					prevAt[pe.path] = pe
				}
			}
		}
		return prevAt[path]
	}
	// The entries a Refresh keeps are found here; the valid plugins' new entries are made
	// on every CPU, then all are listed in F7 order: making 10,000 skills' entries took
	// 10-19 ms on one CPU after the load.
	var todo []int
	for i := range plugins {
		if p := &plugins[i]; p.Valid {
			if pe := cached(i, p.Path); pe.holds(p, c.Settings) {
				cache[i] = pe
			} else {
				todo = append(todo, i)
			}
		}
	}
	forEachParallel(len(todo), func(k int) {
		cache[todo[k]] = newPluginEntries(&plugins[todo[k]], c.Settings)
	})
	addPlugin := func(i int, _ *Plugin) {
		for j := range cache[i].entries {
			entries = append(entries, &cache[i].entries[j])
		}
	}
	for _, r := range s.user {
		add(r.skills, LayerUser, r.root.source, true)
		c.Issues = append(c.Issues, r.issues...)
	}
	c.eachPlugin(func(p *Plugin) bool { return p.Source == SourceManaged }, addPlugin)
	for _, r := range s.project {
		add(r.skills, LayerProject, r.root.source, false)
		c.Issues = append(c.Issues, r.issues...)
	}
	c.eachPlugin(func(p *Plugin) bool { return p.Source != SourceManaged }, addPlugin)
	s.entries = cache
	add(s.builtin, LayerBuiltin, skill.SourceBuiltin, true)
	resolvePrecedence(c.standalone, filepath.Join(o.PlugboardHome, ".claude", "skills"))
	c.Skills = entries

	srcs := c.mcpSources(o)
	for _, src := range srcs {
		if src.source == "plugin" || src.config == nil {
			continue // a plugin's MCP issues are on the plugin
		}
		c.Issues = append(c.Issues, src.config.Issues...)
		for _, s := range src.config.Servers {
			c.Issues = append(c.Issues, s.Issues...)
		}
	}
	if sameSources(s.mcpFrom, srcs) {
		c.MCP = s.mcp // nothing the merge reads has changed: a Refresh of a skill edit
	} else {
		c.MCP = mergeMCP(srcs)
	}
	s.mcpFrom, s.mcp = srcs, c.MCP
	c.summarise()
	return c
}

// layerOf is the F7 layer and the skill source of a plugin's skills: managed packages
// come before the user's Cursor plugins and plugin paths.
func layerOf(p *Plugin) (int, skill.Source) {
	switch p.Source {
	case SourceManaged:
		return LayerManaged, skill.SourcePlugin
	case SourcePluginPath:
		return LayerCursor, skill.SourcePluginPath
	}
	return LayerCursor, skill.SourceCursorPlugin
}

// holds reports whether pe (made by an earlier catalog; nil: none) still holds the
// entries of plugin p's skills under st.
func (pe *pluginEntries) holds(p *Plugin, st Settings) bool {
	layer, src := layerOf(p)
	return pe != nil && pe.skills == firstSkill(p) && pe.n == len(p.Skills) && pe.name == p.Name && pe.id == p.ID && pe.source == p.Source &&
		pe.layer == layer && pe.src == src && pe.enabledUnder(st)
}

// newPluginEntries makes the entries of plugin p's skills under st.
func newPluginEntries(p *Plugin, st Settings) *pluginEntries {
	layer, src := layerOf(p)
	pe := &pluginEntries{path: p.Path, skills: firstSkill(p), n: len(p.Skills), name: p.Name, id: p.ID, source: p.Source, layer: layer, src: src,
		entries: make([]SkillEntry, len(p.Skills)), allEnabled: true}
	for i := range p.Skills {
		pe.entries[i] = entryOf(&p.Skills[i], layer, src, false, p, st)
		pe.allEnabled = pe.allEnabled && pe.entries[i].Enabled
	}
	return pe
}

// firstSkill is p's first skill, by which pluginEntries knows the same skills (nil: none).
func firstSkill(p *Plugin) *skill.Skill {
	if len(p.Skills) == 0 {
		return nil
	}
	return &p.Skills[0]
}

// forEachParallel calls fn(0) .. fn(n-1) on as many goroutines as there are processors
// (diskwait.Procs: not what a load's disk wait adds), in ranges of consecutive indexes,
// and returns when every call has.
func forEachParallel(n int, fn func(int)) {
	procs := min(diskwait.Procs(), n)
	if procs <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var wg sync.WaitGroup
	for w := range procs {
		wg.Go(func() {
			for i := w * n / procs; i < (w+1)*n/procs; i++ {
				fn(i)
			}
		})
	}
	wg.Wait()
}

// loadAll loads the packages concurrently and returns them in discovery order.
func loadAll(locs []location, o Options) []Plugin {
	n := o.Workers
	if n <= 0 {
		n = 4 * diskwait.Procs()
		if len(locs) > n {
			// While the loads wait on the disk (a cold cache), each gets a processor of
			// its own, so that as many reads are in flight as there are loads. (A refresh
			// of a few packages is over before the first sample.)
			defer diskwait.Start(n).Stop()
		}
	}
	out := make([]Plugin, len(locs))
	next := make(chan int)
	var wg sync.WaitGroup
	var progressMu sync.Mutex
	done := 0
	report := func() {
		if o.Progress == nil {
			return
		}
		progressMu.Lock()
		done++
		o.Progress(done, len(locs))
		progressMu.Unlock()
	}
	for w := 0; w < n && w < len(locs); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				locs[i].installed = o.Installed
				out[i] = loadLocation(locs[i], o.Home)
				report()
			}
		}()
	}
	for i := range locs {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// loadLocation loads one discovered package with what discovery knows of it.
func loadLocation(l location, home string) Plugin {
	p := loadPlugin(l, home)
	p.Marketplace, p.Revision = l.marketplace, l.revision
	if l.id != "" {
		p.ID = l.id
	}
	p.Entry = l.entry
	p.Unsupported = appendNew(p.Unsupported, l.unsupported...)
	p.Issues = append(p.Issues, l.notes...)
	p.finish()
	return p
}

func appendNew(list []string, more ...string) []string {
	for _, m := range more {
		found := false
		for _, x := range list {
			found = found || x == m
		}
		if !found {
			list = append(list, m)
		}
	}
	return list
}

func (c *Catalog) eachPlugin(keep func(*Plugin) bool, fn func(int, *Plugin)) {
	for i := range c.Plugins {
		if p := &c.Plugins[i]; p.Valid && keep(p) {
			fn(i, p)
		}
	}
}

// sameIdentities reports whether a and b hold, position by position, plugins of the same
// id, name, folder, source and validity: what checkDuplicates and checkIDs read.
func sameIdentities(a, b []Plugin) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.ID != y.ID || x.Name != y.Name || x.Path != y.Path || x.Source != y.Source || x.Valid != y.Valid {
			return false
		}
	}
	return true
}

// checkDuplicates reports two managed packages that declare the same manifest name: they
// would collide as runtime namespaces (R6).
func (c *Catalog) checkDuplicates() {
	seen := make(map[string]string, len(c.Plugins))
	for i := range c.Plugins {
		p := &c.Plugins[i] // a Plugin is large: no copy per plugin
		if p.Source != SourceManaged || !p.Valid || p.Name == "" {
			continue
		}
		if other, ok := seen[p.Name]; ok {
			c.Issues.Warnf(CodeDuplicateName, p.Path, "", "plugins %s and %s both declare the name %q; assigning both to one agent will be refused — rename one", other, p.Path, p.Name)
			continue
		}
		seen[p.Name] = p.Path
	}
}

// mcpSources lists MCP files in merge order (F9).
func (c *Catalog) mcpSources(o Options) []mcpSource {
	userFile := userMCPFile(o)
	srcs := make([]mcpSource, 1, 1+len(c.Plugins))
	srcs[0] = mcpSource{source: "user", config: mcpconfig.LoadClaude(userFile, userFile)}
	for i := range c.Plugins {
		p := &c.Plugins[i]
		if p.Valid && p.MCP != nil {
			srcs = append(srcs, mcpSource{source: "plugin", plugin: p.ID, dir: p.Path, config: p.MCP})
		}
	}
	for _, f := range workspaceMCPFiles(o.Workspace) {
		rel, _ := filepath.Rel(o.Workspace, f)
		rel = filepath.ToSlash(rel)
		if _, err := os.Stat(f); err != nil {
			continue
		}
		if !c.WorkspaceTrusted {
			c.Issues.Add(issue.Info, CodeWorkspaceMCP, f, "", "%s is not loaded because the workspace is not trusted; trust the workspace to use its MCP servers", rel)
			continue
		}
		srcs = append(srcs, mcpSource{source: "project", config: mcpconfig.LoadClaude(f, f)})
	}
	return srcs
}

func (c *Catalog) summarise() {
	s := Summary{Plugins: len(c.Plugins), Skills: len(c.Skills), MCPServers: len(c.MCP)}
	all := append(issue.List{}, c.Issues...)
	for i := range c.Plugins {
		p := &c.Plugins[i]
		if p.Valid {
			s.ValidPlugins++
		}
		s.Issues.Errors += p.IssueCounts.Errors
		s.Issues.Warnings += p.IssueCounts.Warnings
	}
	for _, e := range c.Skills {
		if e.Active {
			s.ActiveSkills++
		}
		if e.ShadowedBy != "" {
			s.ShadowedSkills++
		}
		if e.Plugin == "" {
			all = append(all, e.Issues...)
		}
	}
	errs, warns := all.Count()
	s.Issues.Errors += errs
	s.Issues.Warnings += warns
	c.Summary = s
	c.Issues = c.Issues.NonNil()
	if c.Plugins == nil {
		c.Plugins = []Plugin{}
	}
	if c.Skills == nil {
		c.Skills = []*SkillEntry{}
	}
}
