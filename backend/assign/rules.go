package assign

import (
	"sort"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/manifest"
)

// Collision kinds (R6).
const (
	CollisionSkill     = "skill"      // a portable skill name in two portable plugins
	CollisionNamespace = "namespace"  // a manifest name (the runtime namespace) in two plugins
	CollisionMCP       = "mcp-server" // an MCP runtime server name in two plugins whose servers launch
)

// check applies the rules of A4 and R6 to a change whose effective set goes from before
// to after and whose target then holds the managed ids written. It returns the MCP
// servers that need (or, with ack, received) an acknowledgment.
//
//   - An id newly written must be in the catalog and valid; ids the target already had
//     in effect stay and may be removed whatever their state.
//   - A name collision among the valid plugins of after that involves a plugin newly in
//     effect is refused; collisions that were there already do not block other edits.
//   - A portable plugin newly in effect with at least one valid MCP server needs ack,
//     unless each of its servers, as it runs now, was acknowledged for this target
//     before (known): a revert that brings a server back does not ask again.
func (ps plugins) check(before, written, after []string, ack bool, known func(Ack) bool) ([]Ack, error) {
	had := set(before)
	var unknown, invalid []string
	for _, id := range written {
		if had[id] {
			continue
		}
		switch p := ps.byID[id]; {
		case p == nil:
			unknown = append(unknown, id)
		case !p.Valid:
			invalid = append(invalid, id)
		}
	}
	if len(unknown) > 0 {
		return nil, &RuleError{Code: RuleUnknown, Reason: "no such plugin in the catalog, so it cannot be assigned", Names: unknown}
	}
	if len(invalid) > 0 {
		return nil, &RuleError{Code: RuleInvalid, Reason: "the plugin is invalid, so it cannot be newly assigned (fix its issues first; an invalid plugin already assigned can only be removed)", Names: invalid}
	}
	added := map[string]bool{}
	for _, id := range after {
		if !had[id] {
			added[id] = true
		}
	}
	if cs := ps.collisions(after, added); len(cs) > 0 {
		names := make([]string, len(cs))
		for i, c := range cs {
			names[i] = c.Name
		}
		return nil, &RuleError{Code: RuleCollision, Reason: "names collide among the selected plugins, so the set would fail closed at launch", Names: names, Collisions: cs}
	}
	acks := []Ack{}
	for _, id := range after {
		if added[id] {
			acks = append(acks, PluginAcks(ps.byID[id])...)
		}
	}
	if len(acks) > 0 && !ack {
		var ask []Ack
		for _, a := range acks {
			if known == nil || !known(a) {
				ask = append(ask, a)
			}
		}
		if len(ask) > 0 {
			return nil, &AckError{Servers: ask}
		}
		return []Ack{}, nil // acknowledged before, and recorded then
	}
	return acks, nil
}

func set(ids []string) map[string]bool {
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

// PluginAcks lists the servers of p that need an acknowledgment, sanitised: the valid
// servers of a valid portable plugin's valid mcp.json, and of a Cursor plugin's MCP file
// (a launch starts both). Legacy .mcp.json files are not catalogued and need none (F5).
// The assignment rule and the launch check both use it.
func PluginAcks(p *catalog.Plugin) []Ack {
	if p == nil || !p.Valid || !LaunchesMCP(p.Format) || p.MCP == nil || !p.MCP.Valid {
		return nil
	}
	var out []Ack
	for _, s := range p.MCP.Servers {
		if s.Valid {
			out = append(out, NewAck(p.ID, s))
		}
	}
	return out
}

// LaunchesMCP reports whether a launch starts the catalogued MCP servers of a package of
// format f: portable mcp.json and a Cursor plugin's MCP file.
func LaunchesMCP(f manifest.Format) bool {
	return f == manifest.FormatPortable || f == manifest.FormatCursor
}

// collisions finds the names provided by more than one of the valid plugins ids, keeping
// those that involve a plugin in added. Sorted by kind, then name.
func (ps plugins) collisions(ids []string, added map[string]bool) []Collision {
	type key struct{ kind, name string }
	by := map[key][]string{}
	note := func(kind, name, id string) {
		k := key{kind, name}
		if l := by[k]; len(l) == 0 || l[len(l)-1] != id {
			by[k] = append(l, id)
		}
	}
	for _, id := range ids {
		p := ps.byID[id]
		if p == nil || !p.Valid {
			continue
		}
		if p.Name != "" {
			note(CollisionNamespace, p.Name, id)
		}
		if p.Format == manifest.FormatPortable {
			for _, s := range p.Skills {
				if s.Valid {
					note(CollisionSkill, s.Name, id)
				}
			}
		}
		if LaunchesMCP(p.Format) && p.MCP != nil && p.MCP.Valid {
			for _, s := range p.MCP.Servers {
				if s.Valid {
					note(CollisionMCP, s.Name, id)
				}
			}
		}
	}
	var out []Collision
	for k, l := range by {
		if len(l) < 2 || !anyIn(l, added) {
			continue
		}
		l = append([]string{}, l...)
		sort.Strings(l)
		out = append(out, Collision{Kind: k.kind, Name: k.name, Plugins: l})
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].Kind != out[b].Kind {
			return out[a].Kind < out[b].Kind
		}
		return out[a].Name < out[b].Name
	})
	return out
}

// Collisions reports every name provided by more than one of the given plugins (R6):
// portable skill names, manifest names (runtime namespaces) and portable MCP server
// names, among the valid ones. The launcher runs it over the set it is about to start
// and fails closed on any result.
func Collisions(list []*catalog.Plugin) []Collision {
	ps := plugins{byID: map[string]*catalog.Plugin{}}
	ids := make([]string, 0, len(list))
	for _, p := range list {
		ps.byID[p.ID] = p
		ids = append(ids, p.ID)
	}
	return ps.collisions(ids, set(ids))
}

func anyIn(ids []string, m map[string]bool) bool {
	for _, id := range ids {
		if m[id] {
			return true
		}
	}
	return false
}
