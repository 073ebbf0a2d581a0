package catalog

import (
	"github.com/plugboard/plugboard/backend/clients"

	"bytes"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"unsafe"

	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/mcpconfig"
	"github.com/plugboard/plugboard/backend/skill"
)

// Change kinds and subjects.
const (
	Added   = "added"
	Removed = "removed"
	Changed = "changed"

	WhatPlugin = "plugin"
	WhatSkill  = "skill"
	WhatServer = "server"
)

// Change is one difference between two catalogs (Diff) or two snapshots (DiffSnapshots).
//
// ID names the subject for a person:
//   - plugin: the plugin id (its folder name), e.g. "alpha";
//   - plugin skill: "<plugin id>:<skill name>", e.g. "alpha:greet"; standalone skill: its
//     bare name, e.g. "greet";
//   - MCP server: "<plugin id>/<server name>" for a plugin's server, "user/<name>" or
//     "project/<name>" for a server of ~/.cursor/mcp.json or the workspace.
//
// IDs are not unique (two sources may hold plugins with one folder name); Path is: the
// plugin folder, the SKILL.md file, or the MCP file.
type Change struct {
	Kind   string `json:"kind"` // Added | Removed | Changed
	What   string `json:"what"` // WhatPlugin | WhatSkill | WhatServer
	ID     string `json:"id"`
	Path   string `json:"path"`
	Detail string `json:"detail,omitempty"` // e.g. "valid → invalid, 2 new errors"
}

// String renders the change as one line: "changed skill alpha:greet: valid → invalid (path)".
func (c Change) String() string {
	s := c.Kind + " " + c.What + " " + c.ID
	if c.Detail != "" {
		s += ": " + c.Detail
	}
	if c.Path != "" {
		s += " (" + c.Path + ")"
	}
	return s
}

// String renders counts as "2 errors, 1 warning".
func (c Counts) String() string {
	return plural(c.Errors, "error") + ", " + plural(c.Warnings, "warning")
}

// Diff lists what changed from a to b: plugins, skills (plugin and standalone) and MCP
// servers added, removed or changed, sorted by ID, then subject, path, kind and detail. Built-in
// skills and the catalog-level issues are not listed; b.Summary.Issues has the new totals.
// A nil catalog is empty. Diff only reads its arguments; unchanged plugins that a
// Refresh shared between a and b are recognised without walking their skills.
func Diff(a, b *Catalog) []Change {
	var out []Change
	pa, pb := unshared(a, b)
	for path, p := range pb {
		if q, ok := pa[path]; ok {
			out = append(out, diffPlugin(q, p)...)
			continue
		}
		out = append(out, Change{Kind: Added, What: WhatPlugin, ID: p.ID, Path: p.Path, Detail: pluginState(p)})
		for i := range p.Skills {
			out = append(out, Change{Kind: Added, What: WhatSkill, ID: p.ID + ":" + p.Skills[i].Name, Path: skillPath(p, &p.Skills[i]), Detail: skillState(p.Skills[i].Valid, p.Skills[i].Issues)})
		}
		for _, s := range servers(p) {
			out = append(out, Change{Kind: Added, What: WhatServer, ID: p.ID + "/" + s.Name, Path: mcpPath(p), Detail: skillState(s.Valid, s.Issues)})
		}
	}
	for path, q := range pa {
		if _, ok := pb[path]; !ok {
			out = append(out, Change{Kind: Removed, What: WhatPlugin, ID: q.ID, Path: q.Path})
		}
	}
	out = append(out, diffStandalone(a, b)...)
	out = append(out, diffOtherServers(a, b)...)
	sortChanges(out)
	return out
}

func sortChanges(out []Change) {
	sort.Slice(out, func(i, j int) bool {
		x, y := out[i], out[j]
		if x.ID != y.ID {
			return x.ID < y.ID
		}
		if x.What != y.What {
			return x.What < y.What
		}
		if x.Path != y.Path {
			return x.Path < y.Path
		}
		if x.Kind != y.Kind {
			return x.Kind < y.Kind
		}
		return x.Detail < y.Detail
	})
}

// unshared indexes by path the plugins of a and b, leaving out each plugin a Refresh
// shared between them: the same value at the same position in both. Shared values are
// recognised by their memory (identical pointers and lengths mean identical content, as
// a catalog is never modified), so one change in a thousand plugins costs no walk of
// the other 999. Everything else is compared by path, as before.
func unshared(a, b *Catalog) (pa, pb map[string]*Plugin) {
	var la, lb []Plugin
	if a != nil {
		la = a.Plugins
	}
	if b != nil {
		lb = b.Plugins
	}
	pa, pb = map[string]*Plugin{}, map[string]*Plugin{}
	for i := range lb {
		if i < len(la) && sameMemory(&la[i], &lb[i]) {
			continue
		}
		pb[lb[i].Path] = &lb[i]
		if i < len(la) {
			pa[la[i].Path] = &la[i]
		}
	}
	for i := len(lb); i < len(la); i++ {
		pa[la[i].Path] = &la[i]
	}
	return pa, pb
}

// sameMemory reports whether two plugin values are bit for bit the same.
func sameMemory(x, y *Plugin) bool {
	n := unsafe.Sizeof(*x)
	return bytes.Equal(unsafe.Slice((*byte)(unsafe.Pointer(x)), n), unsafe.Slice((*byte)(unsafe.Pointer(y)), n))
}

// diffPlugin compares one plugin found at the same folder in both catalogs.
func diffPlugin(a, b *Plugin) []Change {
	if reflect.DeepEqual(a, b) { // fast for a plugin a Refresh reused: same slices, same pointers
		return nil
	}
	var out []Change
	if d := pluginDetail(a, b); d != "" {
		out = append(out, Change{Kind: Changed, What: WhatPlugin, ID: b.ID, Path: b.Path, Detail: d})
	}
	// Skills by SKILL.md path: unique in a plugin, even with several skills folders.
	sa := map[string]*skill.Skill{}
	for i := range a.Skills {
		sa[a.Skills[i].Path] = &a.Skills[i]
	}
	seen := map[string]bool{}
	for i := range b.Skills {
		s := &b.Skills[i]
		seen[s.Path] = true
		id := b.ID + ":" + s.Name
		old, ok := sa[s.Path]
		switch {
		case !ok:
			out = append(out, Change{Kind: Added, What: WhatSkill, ID: id, Path: skillPath(b, s), Detail: skillState(s.Valid, s.Issues)})
		case !reflect.DeepEqual(old, s):
			out = append(out, Change{Kind: Changed, What: WhatSkill, ID: id, Path: skillPath(b, s), Detail: skillDetail(old, s)})
		}
	}
	for i := range a.Skills {
		if s := &a.Skills[i]; !seen[s.Path] {
			out = append(out, Change{Kind: Removed, What: WhatSkill, ID: a.ID + ":" + s.Name, Path: skillPath(a, s)})
		}
	}
	va := map[string]*mcpconfig.Server{}
	for _, s := range servers(a) {
		va[s.Name] = s
	}
	for _, s := range servers(b) {
		id := b.ID + "/" + s.Name
		old, ok := va[s.Name]
		delete(va, s.Name)
		switch {
		case !ok:
			out = append(out, Change{Kind: Added, What: WhatServer, ID: id, Path: mcpPath(b), Detail: skillState(s.Valid, s.Issues)})
		case !reflect.DeepEqual(old, s):
			out = append(out, Change{Kind: Changed, What: WhatServer, ID: id, Path: mcpPath(b), Detail: serverDetail(old, s)})
		}
	}
	for name := range va {
		out = append(out, Change{Kind: Removed, What: WhatServer, ID: a.ID + "/" + name, Path: mcpPath(a)})
	}
	return out
}

// pluginDetail describes what changed in the plugin itself (not its skills or servers);
// "" when nothing did.
func pluginDetail(a, b *Plugin) string {
	strip := func(p *Plugin) Plugin {
		q := *p
		q.Skills, q.IssueCounts, q.Clients = nil, Counts{}, nil
		if q.MCP != nil {
			m := *q.MCP
			m.Servers = nil
			q.MCP = &m
		}
		return q
	}
	clientFlips := clientDelta(a.Clients, b.Clients)
	if x, y := strip(a), strip(b); reflect.DeepEqual(x, y) && len(clientFlips) == 0 {
		return ""
	}
	var d []string
	d = appendFlip(d, "", a.Valid, b.Valid)
	d = append(d, clientFlips...)
	for _, f := range [][3]string{{"format", string(a.Format), string(b.Format)}, {"name", a.Name, b.Name}, {"version", a.Version, b.Version}, {"revision", a.Revision, b.Revision}} {
		if f[1] != f[2] {
			d = append(d, f[0]+" "+orNone(f[1])+" → "+orNone(f[2]))
		}
	}
	switch {
	case a.MCP == nil && b.MCP != nil:
		d = append(d, "MCP file added")
	case a.MCP != nil && b.MCP == nil:
		d = append(d, "MCP file removed")
	case a.MCP != nil:
		d = appendFlip(d, "MCP ", a.MCP.Valid, b.MCP.Valid)
	}
	d = append(d, issueDelta(ownCounts(a), ownCounts(b))...)
	if len(d) == 0 {
		d = append(d, "metadata changed")
	}
	return strings.Join(d, ", ")
}

// ownCounts totals the plugin's own issues: its list and its MCP file's, not its
// skills' or servers'.
func ownCounts(p *Plugin) Counts {
	l := p.Issues
	if p.MCP != nil {
		l = append(append(issue.List(nil), l...), p.MCP.Issues...)
	}
	e, w := l.Count()
	return Counts{Errors: e, Warnings: w}
}

func skillDetail(a, b *skill.Skill) string {
	d := appendFlip(nil, "", a.Valid, b.Valid)
	if a.Description != b.Description {
		d = append(d, "description changed")
	}
	d = append(d, issueDelta(countsOf(a.Issues), countsOf(b.Issues))...)
	if len(d) == 0 {
		d = append(d, bodyOrFrontmatter(a.Sum, b.Sum, func() bool {
			x, y := *a, *b
			x.Sum, y.Sum = "", ""
			return reflect.DeepEqual(&x, &y)
		}))
	}
	return strings.Join(d, ", ")
}

// bodyOrFrontmatter names a skill change that moved no shown field: "content changed"
// when only SKILL.md's bytes did (an edit of the body), else "frontmatter changed".
func bodyOrFrontmatter(sumA, sumB string, restEqual func() bool) string {
	if sumA != sumB && restEqual() {
		return "content changed"
	}
	return "frontmatter changed"
}

func serverDetail(a, b *mcpconfig.Server) string {
	d := appendFlip(nil, "", a.Valid, b.Valid)
	if a.Type != b.Type {
		d = append(d, "type "+orNone(a.Type)+" → "+orNone(b.Type))
	}
	if !reflect.DeepEqual(a.Summary, b.Summary) {
		d = append(d, "summary changed")
	}
	d = append(d, issueDelta(countsOf(a.Issues), countsOf(b.Issues))...)
	if len(d) == 0 {
		d = append(d, "declaration changed") // a value never shown (env, header, url path)
	}
	return strings.Join(d, ", ")
}

// diffStandalone compares the standalone skills (user and project), by SKILL.md path.
func diffStandalone(a, b *Catalog) []Change {
	index := func(c *Catalog) map[string]*SkillEntry {
		m := map[string]*SkillEntry{}
		if c != nil {
			for _, e := range c.standalone {
				if e.Source != skill.SourceBuiltin {
					m[e.Path] = e
				}
			}
		}
		return m
	}
	ea, eb := index(a), index(b)
	var out []Change
	for path, e := range eb {
		old, ok := ea[path]
		switch {
		case !ok:
			out = append(out, Change{Kind: Added, What: WhatSkill, ID: e.ID, Path: path, Detail: skillState(e.Valid, e.Issues)})
		case !reflect.DeepEqual(old, e):
			if d := entryDetail(old, e); d != "" {
				out = append(out, Change{Kind: Changed, What: WhatSkill, ID: e.ID, Path: path, Detail: d})
			}
		}
	}
	for path, e := range ea {
		if _, ok := eb[path]; !ok {
			out = append(out, Change{Kind: Removed, What: WhatSkill, ID: e.ID, Path: path})
		}
	}
	return out
}

// entryDetail describes a standalone skill's change; shadowing it does to others is
// reported on them, so a change only in Shadows is none.
func entryDetail(a, b *SkillEntry) string {
	d := appendFlip(nil, "", a.Valid, b.Valid)
	if a.Description != b.Description {
		d = append(d, "description changed")
	}
	switch {
	case a.ShadowedBy != b.ShadowedBy && b.ShadowedBy != "":
		d = append(d, "now shadowed by "+b.ShadowedBy)
	case a.ShadowedBy != b.ShadowedBy:
		d = append(d, "no longer shadowed")
	}
	if a.Enabled != b.Enabled {
		d = append(d, map[bool]string{true: "enabled", false: "disabled"}[b.Enabled])
	}
	d = append(d, issueDelta(countsOf(a.Issues), countsOf(b.Issues))...)
	x, y := *a, *b
	x.Shadows, y.Shadows = nil, nil
	if len(d) == 0 && !reflect.DeepEqual(x, y) {
		d = append(d, bodyOrFrontmatter(x.Sum, y.Sum, func() bool {
			x.Sum, y.Sum = "", ""
			return reflect.DeepEqual(x, y)
		}))
	}
	return strings.Join(d, ", ")
}

// diffOtherServers compares the servers of the user and project MCP files, as merged
// (only valid servers are merged: an invalid one shows as removed, with its issue in the
// file).
func diffOtherServers(a, b *Catalog) []Change {
	if a != nil && b != nil && len(a.MCP) > 0 && len(a.MCP) == len(b.MCP) && &a.MCP[0] == &b.MCP[0] {
		return nil // the same merge, which a Refresh reused
	}
	type key struct{ file, name string }
	index := func(c *Catalog) map[key]ServerRef {
		m := map[key]ServerRef{}
		if c == nil {
			return m
		}
		for _, s := range c.MCP {
			if s.Winner.Source != "plugin" {
				m[key{s.Winner.File, s.Name}] = s.Winner
			}
			for _, r := range s.Shadowed {
				if r.Source != "plugin" {
					m[key{r.File, s.Name}] = r
				}
			}
		}
		return m
	}
	ra, rb := index(a), index(b)
	var out []Change
	for k, r := range rb {
		id := r.Source + "/" + k.name
		old, ok := ra[k]
		switch {
		case !ok:
			out = append(out, Change{Kind: Added, What: WhatServer, ID: id, Path: k.file, Detail: r.Type})
		case !reflect.DeepEqual(old, r):
			out = append(out, Change{Kind: Changed, What: WhatServer, ID: id, Path: k.file, Detail: "summary changed"})
		}
	}
	for k, r := range ra {
		if _, ok := rb[k]; !ok {
			out = append(out, Change{Kind: Removed, What: WhatServer, ID: r.Source + "/" + k.name, Path: k.file})
		}
	}
	return out
}

func servers(p *Plugin) []*mcpconfig.Server {
	if p.MCP == nil {
		return nil
	}
	out := make([]*mcpconfig.Server, len(p.MCP.Servers))
	for i := range p.MCP.Servers {
		out[i] = &p.MCP.Servers[i]
	}
	return out
}

func skillPath(p *Plugin, s *skill.Skill) string {
	if filepath.IsAbs(s.Path) {
		return s.Path
	}
	return p.Path + "/" + s.Path
}

func mcpPath(p *Plugin) string {
	if p.MCP == nil {
		return p.Path
	}
	return p.Path + "/" + p.MCP.Path
}

func pluginState(p *Plugin) string {
	if !p.Valid {
		return "invalid, " + p.IssueCounts.String()
	}
	s := "valid, " + plural(len(p.Skills), "skill")
	if n := len(servers(p)); n > 0 {
		s += ", " + plural(n, "server")
	}
	if p.IssueCounts != (Counts{}) {
		s += ", " + p.IssueCounts.String()
	}
	return s
}

func skillState(valid bool, issues issue.List) string {
	c := countsOf(issues)
	switch {
	case !valid:
		return "invalid, " + c.String()
	case c != Counts{}:
		return "valid, " + c.String()
	}
	return "valid"
}

func countsOf(l issue.List) Counts {
	e, w := l.Count()
	return Counts{Errors: e, Warnings: w}
}

// issueDelta says how the counts moved: "2 new errors", "1 warning fixed".
func issueDelta(a, b Counts) []string {
	var d []string
	for _, f := range []struct {
		before, after int
		noun          string
	}{{a.Errors, b.Errors, "error"}, {a.Warnings, b.Warnings, "warning"}} {
		switch {
		case f.after > f.before:
			d = append(d, fmt.Sprintf("%d new %s", f.after-f.before, noun(f.after-f.before, f.noun)))
		case f.after < f.before:
			d = append(d, fmt.Sprintf("%d %s fixed", f.before-f.after, noun(f.before-f.after, f.noun)))
		}
	}
	return d
}

func appendFlip(d []string, prefix string, a, b bool) []string {
	if a == b {
		return d
	}
	state := map[bool]string{true: "valid", false: "invalid"}
	return append(d, prefix+state[a]+" → "+state[b])
}

func plural(n int, word string) string { return fmt.Sprintf("%d %s", n, noun(n, word)) }

func noun(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// clientDelta says which clients started or stopped loading the package.
func clientDelta(a, b *clients.Set) []string {
	if a == nil || b == nil {
		return nil
	}
	var d []string
	for _, c := range []struct {
		name string
		x, y *clients.Verdict
	}{{clients.Claude, &a.Claude, &b.Claude}, {clients.Cursor, &a.Cursor, &b.Cursor}, {clients.Codex, &a.Codex, &b.Codex}, {clients.PI, &a.PI, &b.PI}} {
		if c.x.Loads != c.y.Loads {
			d = append(d, c.name+": "+loadWord(c.x.Loads)+" → "+loadWord(c.y.Loads))
		}
	}
	return d
}

func loadWord(b bool) string {
	if b {
		return "loads"
	}
	return "does not load"
}
