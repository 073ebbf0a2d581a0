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

// plugins indexes the managed packages of a catalog by id.
type plugins map[string]*catalog.Plugin

func indexPlugins(cat *catalog.Catalog) plugins {
	out := plugins{}
	if cat == nil {
		return out
	}
	for i := range cat.Plugins {
		if p := &cat.Plugins[i]; p.Source == catalog.SourceManaged {
			out[p.ID] = asLaunched(p, cat.Settings)
		}
	}
	return out
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

// entries describes the written dirs against the catalog.
func (ps plugins) entries(dirs []string) []Entry {
	out := make([]Entry, 0, len(dirs))
	for _, d := range dirs {
		e := Entry{Dir: d}
		if id, ok := managedID(d); ok {
			e.ID, e.Managed = id, true
			if p := ps[id]; p != nil {
				e.Known, e.Valid = true, p.Valid
			}
		}
		out = append(out, e)
	}
	return out
}

// managedIDs returns the managed ids of dirs, in order, each once.
func managedIDs(dirs []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, d := range dirs {
		if id, ok := managedID(d); ok && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// unmanaged returns the entries that are not managed, as written.
func unmanaged(dirs []string) []string {
	out := []string{}
	for _, d := range dirs {
		if _, ok := managedID(d); !ok {
			out = append(out, d)
		}
	}
	return out
}

// normalise writes each managed entry as plugins/<id>, once (first place wins), and
// keeps every other entry as written, in place. A nil list stays nil (no member).
func normalise(dirs []string) []string {
	if dirs == nil {
		return nil
	}
	out := []string{}
	seen := map[string]bool{}
	for _, d := range dirs {
		id, ok := managedID(d)
		switch {
		case !ok:
			out = append(out, d)
		case !seen[id]:
			seen[id] = true
			out = append(out, managedPrefix+id)
		}
	}
	return out
}

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

// setIDs makes ids the managed set of base. Managed ids take the places of base's
// managed entries in the order given, extra ids go at the end, and unmanaged entries
// keep their places: so a Set of an earlier managed list restores it exactly.
func setIDs(base, ids []string) []string {
	out := []string{}
	i := 0
	for _, d := range base {
		if _, ok := managedID(d); !ok {
			out = append(out, d)
			continue
		}
		if i < len(ids) {
			out = append(out, managedPrefix+ids[i])
			i++
		}
	}
	for ; i < len(ids); i++ {
		out = append(out, managedPrefix+ids[i])
	}
	return out
}

// addIDs appends the ids base does not hold yet.
func addIDs(base, ids []string) []string {
	out := append([]string{}, base...)
	have := map[string]bool{}
	for _, id := range managedIDs(base) {
		have[id] = true
	}
	for _, id := range ids {
		if !have[id] {
			have[id] = true
			out = append(out, managedPrefix+id)
		}
	}
	return out
}

// removeIDs drops the managed entries of ids; every id must be held.
func removeIDs(base, ids []string) ([]string, error) {
	have := map[string]bool{}
	for _, id := range managedIDs(base) {
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
		if id, ok := managedID(d); !ok || !drop[id] {
			out = append(out, d)
		}
	}
	return out, nil
}
