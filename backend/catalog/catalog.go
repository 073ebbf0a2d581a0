package catalog

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"

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
}

// Catalog is one scan's result. It is never modified after Load returns.
type Catalog struct {
	Home             string         `json:"home"`
	PlugboardHome    string         `json:"plugboardHome"`
	Workspace        string         `json:"workspace,omitempty"`
	WorkspaceTrusted bool           `json:"workspaceTrusted"`
	Settings         Settings       `json:"settings"`
	Plugins          []Plugin       `json:"plugins"`
	Skills           []SkillEntry   `json:"skills"`
	MCP              []MergedServer `json:"mcp"`
	Issues           issue.List     `json:"issues"` // catalog-level: settings, roots, duplicates
	Summary          Summary        `json:"summary"`
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

// Load scans everything Options names.
func Load(o Options) *Catalog {
	c := &Catalog{Home: o.Home, PlugboardHome: o.PlugboardHome, Workspace: o.Workspace}
	c.Settings, _, c.Issues = settings.Read(o.PlugboardHome)
	if o.Workspace != "" {
		c.WorkspaceTrusted = c.Settings.Trusts(o.Workspace, o.Home)
	}

	locs := discoverPlugins(o, c.Settings, &c.Issues)
	c.Plugins = loadAll(locs, o)
	c.checkDuplicates()

	var entries []SkillEntry
	add := func(ss []skill.Skill, layer int, src skill.Source, trusted bool, p *Plugin) {
		for _, s := range ss {
			entries = append(entries, entryOf(s, layer, src, trusted, p, c.Settings))
		}
	}
	for _, r := range userRoots(o) {
		add(loadRoot(r, o.Home, &c.Issues), LayerUser, r.source, true, nil)
	}
	c.eachPlugin(func(p *Plugin) bool { return p.Source == SourceManaged }, func(p *Plugin) {
		add(p.Skills, LayerManaged, skill.SourcePlugin, false, p)
	})
	for _, r := range workspaceRoots(o.Workspace) {
		add(loadRoot(r, o.Home, &c.Issues), LayerProject, r.source, false, nil)
	}
	c.eachPlugin(func(p *Plugin) bool { return p.Source != SourceManaged }, func(p *Plugin) {
		src := skill.SourceCursorPlugin
		if p.Source == SourcePluginPath {
			src = skill.SourcePluginPath
		}
		add(p.Skills, LayerCursor, src, false, p)
	})
	add(builtinSkills(o.Home), LayerBuiltin, skill.SourceBuiltin, true, nil)
	resolvePrecedence(entries)
	c.Skills = entries

	c.MCP = mergeMCP(c.mcpSources(o))
	c.summarise()
	return c
}

// loadAll loads the packages concurrently and returns them in discovery order.
func loadAll(locs []location, o Options) []Plugin {
	n := o.Workers
	if n <= 0 {
		n = 4 * runtime.GOMAXPROCS(0)
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
				l := locs[i]
				p := loadPlugin(l, o.Home)
				p.Marketplace, p.Revision = l.marketplace, l.revision
				if l.source == SourceCursorCache {
					p.ID = filepath.Base(filepath.Dir(l.dir))
				}
				p.Unsupported = appendNew(p.Unsupported, l.unsupported...)
				p.Issues = append(p.Issues, l.notes...)
				p.finish()
				out[i] = p
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

func (c *Catalog) eachPlugin(keep func(*Plugin) bool, fn func(*Plugin)) {
	for i := range c.Plugins {
		if p := &c.Plugins[i]; p.Valid && keep(p) {
			fn(p)
		}
	}
}

// checkDuplicates reports two managed packages that declare the same manifest name: they
// would collide as runtime namespaces (R6).
func (c *Catalog) checkDuplicates() {
	seen := map[string]string{}
	for _, p := range c.Plugins {
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
	userFile := filepath.Join(o.Home, ".cursor", "mcp.json")
	srcs := []mcpSource{{source: "user", config: mcpconfig.LoadClaude(userFile, userFile)}}
	for i := range c.Plugins {
		p := &c.Plugins[i]
		if p.Valid && p.MCP != nil {
			cfg := *p.MCP
			cfg.Path = filepath.Join(p.Path, cfg.Path)
			srcs = append(srcs, mcpSource{source: "plugin", plugin: p.ID, config: &cfg})
		}
	}
	if o.Workspace == "" {
		return srcs
	}
	for _, rel := range []string{".cursor/mcp.json", ".mcp.json"} {
		f := filepath.Join(o.Workspace, filepath.FromSlash(rel))
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
		c.Skills = []SkillEntry{}
	}
}
