package assign

import (
	"path"
	"path/filepath"
	"strings"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/manifest"
)

// managedPrefix is where managed packages live, relative to $PLUGBOARD_HOME.
const managedPrefix = "plugins/"

// managedID returns the plugin id of a managed entry: a relative entry that cleans to
// plugins/<id> ("./plugins/x", "plugins/x/" and "plugins//x" all do). Absolute entries
// and relative entries anywhere else are not managed.
func managedID(dir string) (string, bool) {
	if dir == "" || filepath.IsAbs(dir) {
		return "", false
	}
	rest, ok := strings.CutPrefix(path.Clean(filepath.ToSlash(dir)), managedPrefix)
	if !ok || rest == "" || strings.Contains(rest, "/") {
		return "", false
	}
	return rest, true
}

// validID reports whether id is a plain folder name, so that plugins/<id> is managed.
func validID(id string) bool {
	got, ok := managedID(managedPrefix + id)
	return ok && got == id && !strings.ContainsAny(id, `\`)
}

// plugins indexes a catalog's packages by id, and the ones outside
// $PLUGBOARD_HOME/plugins also by the folder their entry names, so that an entry written
// for a Cursor or skillPluginPaths package reads back as its id.
type plugins struct {
	byID   map[string]*catalog.Plugin
	byPath map[string]string // catalog.EntryPath of an entry or a folder -> id
	home   string
	pbHome string
}

func indexPlugins(cat *catalog.Catalog) plugins {
	ps := plugins{byID: map[string]*catalog.Plugin{}, byPath: map[string]string{}}
	if cat == nil {
		return ps
	}
	ps.home, ps.pbHome = cat.Home, cat.PlugboardHome
	for i := range cat.Plugins {
		p := &cat.Plugins[i]
		if p.Source != catalog.SourceManaged && p.Entry == "" || ps.byID[p.ID] != nil {
			continue // no entry assigns it, or its id is taken by a package before it (catalog.CodeDuplicateID)
		}
		ps.byID[p.ID] = asLaunched(p, cat.Settings)
		if p.Source != catalog.SourceManaged {
			ps.byPath[catalog.EntryPath(p.Entry, ps.home, ps.pbHome)] = p.ID
			ps.byPath[p.Path] = p.ID // a cached revision written out
		}
	}
	return ps
}

// asLaunched is the plugin as a launch will take it. A package the specification rejects
// but Claude loads, which the user chose to launch as Claude loads it (settings
// launchAs), is assignable: it counts as a valid Claude-format package named as Claude
// names it (its namespace still takes part in the collision rule). The catalog's value
// is not changed.
func asLaunched(p *catalog.Plugin, st catalog.Settings) *catalog.Plugin {
	if p.Valid || st.LaunchAsClient(p.ID) != "claude" || p.Clients == nil || !p.Clients.Claude.Loads {
		return p
	}
	q := *p
	q.Valid, q.Format, q.Name = true, manifest.FormatLegacy, p.Clients.Claude.Plugin
	return &q
}

// idOf returns the plugin id an entry assigns: a managed entry's, or the id of the
// catalogued package whose folder the entry names.
func (ps plugins) idOf(dir string) (string, bool) {
	if id, ok := managedID(dir); ok {
		return id, true
	}
	if dir == "" || len(ps.byPath) == 0 {
		return "", false
	}
	id, ok := ps.byPath[catalog.EntryPath(dir, ps.home, ps.pbHome)]
	return id, ok
}

// entryOf is the entry an assignment of id writes: the catalog's, else plugins/<id>
// (which the rules then refuse as unknown).
func (ps plugins) entryOf(id string) string {
	if p := ps.byID[id]; p != nil && p.Entry != "" {
		return p.Entry
	}
	return managedPrefix + id
}

// entries describes the written dirs against the catalog.
func (ps plugins) entries(dirs []string) []Entry {
	out := make([]Entry, 0, len(dirs))
	for _, d := range dirs {
		e := Entry{Dir: d}
		_, e.Managed = managedID(d)
		if id, ok := ps.idOf(d); ok {
			e.ID = id
			if p := ps.byID[id]; p != nil {
				e.Known, e.Valid = true, p.Valid
			}
		}
		out = append(out, e)
	}
	return out
}

// ids returns the plugin ids dirs assign, in order, each once.
func (ps plugins) ids(dirs []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, d := range dirs {
		if id, ok := ps.idOf(d); ok && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// unassigned returns the entries that assign no plugin id, as written.
func (ps plugins) unassigned(dirs []string) []string {
	out := []string{}
	for _, d := range dirs {
		if _, ok := ps.idOf(d); !ok {
			out = append(out, d)
		}
	}
	return out
}

// normalise writes each managed entry as plugins/<id>, and keeps the first entry of every
// other id as written (A1: entries outside $PLUGBOARD_HOME are never rewritten); entries
// that assign no id stay, in place. A nil list stays nil (no member).
func (ps plugins) normalise(dirs []string) []string {
	if dirs == nil {
		return nil
	}
	out := []string{}
	seen := map[string]bool{}
	for _, d := range dirs {
		id, ok := ps.idOf(d)
		switch {
		case !ok:
			out = append(out, d)
		case seen[id]:
		case isManaged(d):
			out = append(out, managedPrefix+id)
		default:
			out = append(out, d)
		}
		seen[id] = seen[id] || ok
	}
	return out
}

func isManaged(dir string) bool { _, ok := managedID(dir); return ok }

// dedupe returns ids in order, each once.
func dedupe(ids []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// setIDs makes ids the assigned set of base. The ids take the places of base's entries
// that assign one, in the order given, extra ids go at the end, and other entries keep
// their places: so a Set of an earlier list restores it exactly.
func (ps plugins) setIDs(base, ids []string) []string {
	out := []string{}
	i := 0
	for _, d := range base {
		if _, ok := ps.idOf(d); !ok {
			out = append(out, d)
			continue
		}
		if i < len(ids) {
			out = append(out, ps.keep(base, ids[i]))
			i++
		}
	}
	for ; i < len(ids); i++ {
		out = append(out, ps.keep(base, ids[i]))
	}
	return out
}

// keep is the entry for id: the one base already writes for it, else entryOf.
func (ps plugins) keep(base []string, id string) string {
	for _, d := range base {
		if got, ok := ps.idOf(d); ok && got == id {
			return d
		}
	}
	return ps.entryOf(id)
}

// addIDs appends the ids base does not hold yet.
func (ps plugins) addIDs(base, ids []string) []string {
	out := append([]string{}, base...)
	have := map[string]bool{}
	for _, id := range ps.ids(base) {
		have[id] = true
	}
	for _, id := range ids {
		if !have[id] {
			have[id] = true
			out = append(out, ps.entryOf(id))
		}
	}
	return out
}

// removeIDs drops every entry of ids; every id must be held.
func (ps plugins) removeIDs(base, ids []string) ([]string, error) {
	have := map[string]bool{}
	for _, id := range ps.ids(base) {
		have[id] = true
	}
	var missing []string
	drop := map[string]bool{}
	for _, id := range ids {
		if !have[id] {
			missing = append(missing, id)
		}
		drop[id] = true
	}
	if len(missing) > 0 {
		return nil, &RuleError{Code: RuleNotPresent, Reason: "not assigned to this target, so not removed", Names: missing}
	}
	out := []string{}
	for _, d := range base {
		if id, ok := ps.idOf(d); !ok || !drop[id] {
			out = append(out, d)
		}
	}
	return out, nil
}
