package catalog

import (
	"bytes"
	"io"

	"github.com/plugboard/plugboard/backend/clients"
	"github.com/plugboard/plugboard/backend/manifest"
)

// List is the part of a catalog document that the page's Plugins list draws: the
// document's shape with each plugin cut to what a row shows and searches (its scalars,
// skill names, MCP server validity, issue counts, whether each client loads it, without
// the reason, which was two fifths of the part and waits for the document) and no skills,
// MCP merge or plugin issues. For 1,000 plugins of 10 skills it is about a sixteenth of
// the document, so the page paints its first rows while the rest
// travels; "part": "list" marks it. A catalog of fewer than ListMinSkills skills is
// small enough to send whole (about a megabyte at most): its List is the document
// itself, and the page needs no second request.
type List struct{ c *Catalog }

// ListMinSkills is the number of skills from which List is a part, not the document.
const ListMinSkills = 1000

// Whole reports whether l is the whole document (a small catalog).
func (l List) Whole() bool { return len(l.c.Skills) < ListMinSkills }

// List returns the list part of c.
func (c *Catalog) List() List { return List{c} }

// MarshalJSON is WriteJSON into a buffer (the desktop window's bindings marshal results).
func (l List) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	err := l.WriteJSON(&b)
	return b.Bytes(), err
}

// Catalog is the catalog l is a part of.
func (l List) Catalog() *Catalog { return l.c }

type listPlugin struct {
	ID          string          `json:"id"`
	Path        string          `json:"path"`
	Entry       string          `json:"entry,omitempty"`
	Source      string          `json:"source"`
	Format      manifest.Format `json:"format"`
	Valid       bool            `json:"valid"`
	Name        string          `json:"name"`
	Version     string          `json:"version"`
	Description string          `json:"description,omitempty"`
	Manifest    string          `json:"manifest"`
	Skills      []listSkill     `json:"skills"`
	MCP         *listMCP        `json:"mcp"`
	Issues      [0]struct{}     `json:"issues"`
	IssueCounts Counts          `json:"issueCounts"`
	State       string          `json:"state"`
	Clients     *listClients    `json:"clients,omitempty"`
	Marketplace string          `json:"marketplace,omitempty"`
	Revision    string          `json:"revision,omitempty"`
}

type listSkill struct {
	Name string `json:"name"`
}

type listMCP struct {
	Valid   bool         `json:"valid"`
	Servers []listServer `json:"servers"`
}

type listServer struct {
	Valid bool `json:"valid"`
}

type listClients struct {
	Claude listVerdict `json:"claude"`
	Cursor listVerdict `json:"cursor"`
	Codex  listVerdict `json:"codex"`
	PI     listVerdict `json:"pi"`
}

type listVerdict struct {
	Package bool `json:"package"`
	Loads   bool `json:"loads"`
}

func verdictOf(v clients.Verdict) listVerdict {
	return listVerdict{Package: v.Package, Loads: v.Loads}
}

func listPluginOf(p *Plugin) listPlugin {
	lp := listPlugin{ID: p.ID, Path: p.Path, Entry: p.Entry, Source: p.Source, Format: p.Format, Valid: p.Valid,
		Name: p.Name, Version: p.Version, Description: p.Description, Manifest: p.Manifest,
		Skills: make([]listSkill, len(p.Skills)), IssueCounts: p.IssueCounts, State: p.State, Marketplace: p.Marketplace, Revision: p.Revision}
	for i := range p.Skills {
		lp.Skills[i].Name = p.Skills[i].Name
	}
	if p.MCP != nil {
		lp.MCP = &listMCP{Valid: p.MCP.Valid, Servers: make([]listServer, len(p.MCP.Servers))}
		for i := range p.MCP.Servers {
			lp.MCP.Servers[i].Valid = p.MCP.Servers[i].Valid
		}
	}
	if s := p.Clients; s != nil {
		lp.Clients = &listClients{verdictOf(s.Claude), verdictOf(s.Cursor), verdictOf(s.Codex), verdictOf(s.PI)}
	}
	return lp
}

// WriteJSON writes the list part (or, for a small catalog, the whole document) as one
// compact JSON object, streamed like Catalog.WriteJSON.
func (l List) WriteJSON(w io.Writer) error {
	if l.Whole() {
		return l.c.WriteJSON(w)
	}
	return l.writePart(w)
}

func (l List) writePart(w io.Writer) error {
	c := l.c
	s := newStream(w)
	s.raw(`{"part":"list"`)
	s.head(c, false)
	s.raw(`,"plugins":[`)
	for i := range c.Plugins {
		s.elem(listPluginOf(&c.Plugins[i]), i == 0)
	}
	s.raw(`],"skills":[],"mcp":[]`)
	s.tail(c)
	return s.flush()
}
