package catalog

import (
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/plugboard/plugboard/backend/clients"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/mcpconfig"
	"github.com/plugboard/plugboard/backend/skill"
)

// Skill precedence layers (F7), lowest number wins.
const (
	LayerUser    = 1
	LayerManaged = 2
	LayerProject = 3
	LayerCursor  = 4
	LayerBuiltin = 5
)

// SkillEntry is one skill in the precedence view: standalone or from a plugin.
type SkillEntry struct {
	// ID is "plugin:skill" for a plugin skill and the bare name for a standalone one.
	ID     string       `json:"id"`
	Name   string       `json:"name"`
	Source skill.Source `json:"source"`
	Layer  int          `json:"layer"`
	// Trusted skills' text is instructions; untrusted skills' text is data (F9).
	Trusted        bool   `json:"trusted"`
	Plugin         string `json:"plugin,omitempty"` // plugin id, for plugin skills
	PluginSource   string `json:"pluginSource,omitempty"`
	Path           string `json:"path"` // SKILL.md
	Description    string `json:"description,omitempty"`
	Sum            string `json:"sum,omitempty"` // of SKILL.md (skill.Skill.Sum)
	Valid          bool   `json:"valid"`
	ModelInvocable bool   `json:"modelInvocable"`
	Enabled        bool   `json:"enabled"`
	// Active is true for a valid skill that no client hides behind another.
	Active     bool     `json:"active"`
	ShadowedBy string   `json:"shadowedBy,omitempty"` // the winner's path
	ShadowedIn []string `json:"shadowedIn,omitempty"` // the clients that hide it ("plugboard": Plugboard's own order)
	Shadows    []string `json:"shadows,omitempty"`    // paths this skill hides
	// Paths and Issues are given for standalone skills; a plugin skill's are in its
	// plugin's skills list, and are not repeated here (the catalog of a large home would
	// otherwise carry every skill twice).
	Paths  []skill.PathEntry `json:"paths,omitempty"`
	Issues issue.List        `json:"issues,omitempty"`
}

func entryOf(s *skill.Skill, layer int, src skill.Source, trusted bool, p *Plugin, settings Settings) SkillEntry {
	e := SkillEntry{ID: s.Name, Name: s.Name, Source: src, Layer: layer, Trusted: trusted, Path: s.Path,
		Description: s.Description, Sum: s.Sum, Valid: s.Valid, ModelInvocable: s.ModelInvocable, Paths: s.Paths, Issues: s.Issues.NonNil()}
	if p != nil {
		e.Paths, e.Issues = nil, nil
		ns := p.Name
		if ns == "" {
			ns = p.ID
		}
		e.ID, e.Plugin, e.PluginSource = ns+":"+s.Name, p.ID, p.Source
		e.Active = e.Valid // no skill hides a plugin's (see resolvePrecedence)
		if e.Path != "" && e.Path[0] != '/' {
			e.Path = p.Path + "/" + e.Path
		}
	}
	e.Enabled = settings.Enabled(e.Name, e.ID)
	return e
}

// containerClients says which clients read a standalone skill container (a folder of
// skill folders under the home folder or a workspace); see clients.Containers.
// Skills in $PLUGBOARD_HOME/.claude/skills and the built-in ones are Plugboard's own.
const plugboardClient = "plugboard"

// readersOf returns the clients that read a standalone skill entry.
func readersOf(e *SkillEntry, pbSkills string) []string {
	p := e.Path
	if strings.HasPrefix(p, "builtin:") || (pbSkills != "" && strings.HasPrefix(p, pbSkills+"/")) {
		return []string{plugboardClient}
	}
	for _, c := range clients.Containers {
		if strings.Contains(p, "/"+c.Dir+"/") {
			if e.Source == skill.SourceProject {
				return c.Project
			}
			return c.User
		}
	}
	return []string{plugboardClient}
}

// resolvePrecedence marks which skills are hidden behind another, and in which client.
// Plugin skills are namespaced (plugin:skill) in every client that loads plugins, so
// none hides another; a standalone skill is hidden in a client that also reads an
// earlier container with a valid skill of the same name (entries are in F7 order).
// Plugboard's own skills (built-in, $PLUGBOARD_HOME/.claude/skills) give way to any
// earlier skill of the same name, as F7 orders them. Active is true for a valid skill
// no client hides.
//
// entries are the standalone and built-in skills in F7 order: a plugin's entries, which
// catalogs share, are active when valid from the start (entryOf) and never written here.
func resolvePrecedence(entries []*SkillEntry, pbSkills string) {
	type key struct{ client, name string }
	winner := make(map[key]int)
	for i, e := range entries {
		if !e.Valid {
			continue
		}
		e.Active = true
		readers := readersOf(e, pbSkills)
		if len(readers) == 1 && readers[0] == plugboardClient {
			// Plugboard's own: any earlier standalone skill of the name wins.
			if w, ok := winner[key{"", e.Name}]; ok {
				shadow(entries, w, i, plugboardClient)
			}
			continue
		}
		for _, c := range readers {
			if w, ok := winner[key{c, e.Name}]; ok {
				shadow(entries, w, i, c)
				continue
			}
			winner[key{c, e.Name}] = i
		}
		if _, ok := winner[key{"", e.Name}]; !ok {
			winner[key{"", e.Name}] = i
		}
	}
}

// shadow records that entries[w] hides entries[i] in client c.
func shadow(entries []*SkillEntry, w, i int, c string) {
	e := entries[i]
	if e.ShadowedBy == "" {
		e.ShadowedBy = entries[w].Path
		entries[w].Shadows = append(entries[w].Shadows, e.Path)
	}
	e.ShadowedIn = append(e.ShadowedIn, c)
	e.Active = false
}

// ServerRef is one declaration of an MCP server, sanitised.
type ServerRef struct {
	Source  string            `json:"source"` // "user" | "plugin" | "project"
	Plugin  string            `json:"plugin,omitempty"`
	File    string            `json:"file"`
	Type    string            `json:"type"`
	Summary mcpconfig.Summary `json:"summary"`
}

// MergedServer is one MCP server name with the declaration that wins and those it hides.
type MergedServer struct {
	Name     string      `json:"name"`
	Winner   ServerRef   `json:"winner"`
	Shadowed []ServerRef `json:"shadowed,omitempty"`
}

// mcpSource is one MCP file in merge order.
type mcpSource struct {
	source, plugin string
	dir            string // a plugin's folder, which config.Path is relative to
	config         *mcpconfig.Config
}

// sameSources reports whether two merges would read the same. A plugin a Refresh kept
// shares its config by pointer; a plugin it read again, and the user and project files
// (read every time), are compared by value.
func sameSources(a, b []mcpSource) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.source != y.source || x.plugin != y.plugin || x.dir != y.dir {
			return false
		}
		if x.config != y.config && !reflect.DeepEqual(x.config, y.config) {
			return false
		}
	}
	return true
}

// mergeMCP merges valid servers by name: the first source wins (F9 order: user, plugins,
// trusted project).
func mergeMCP(sources []mcpSource) []MergedServer {
	byName := map[string]*MergedServer{}
	var order []string
	for _, src := range sources {
		if src.config == nil || !src.config.Valid {
			continue
		}
		file := src.config.Path
		if src.dir != "" {
			file = filepath.Join(src.dir, file)
		}
		for _, s := range src.config.Servers {
			if !s.Valid {
				continue
			}
			ref := ServerRef{Source: src.source, Plugin: src.plugin, File: file, Type: s.Type, Summary: s.Summary}
			if m, ok := byName[s.Name]; ok {
				m.Shadowed = append(m.Shadowed, ref)
				continue
			}
			byName[s.Name] = &MergedServer{Name: s.Name, Winner: ref}
			order = append(order, s.Name)
		}
	}
	sort.Strings(order)
	out := make([]MergedServer, 0, len(order))
	for _, n := range order {
		out = append(out, *byName[n])
	}
	return out
}
