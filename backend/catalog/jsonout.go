package catalog

import (
	"bufio"
	"encoding/json"
	"io"
)

// WriteJSON writes the catalog as one compact JSON object, the same document
// json.Marshal would produce, but streamed element by element: the catalog of a large
// home is megabytes, and building it in one buffer costs memory the scan does not need
// (and, on a cold machine, the page faults to get it).
func (c *Catalog) WriteJSON(w io.Writer) error {
	s := newStream(w)
	s.raw("{")
	s.head(c, true)
	s.raw(`,"plugins":[`)
	for i := range c.Plugins {
		s.elem(&c.Plugins[i], i == 0)
	}
	s.raw(`],"skills":[`)
	for i := range c.Skills {
		s.elem(c.Skills[i], i == 0)
	}
	s.raw("]")
	s.field("mcp", c.MCP, false)
	s.tail(c)
	return s.flush()
}

// head writes the members before the plugins: where the catalog is and its settings.
func (s *stream) head(c *Catalog, first bool) {
	s.field("home", c.Home, first)
	s.field("plugboardHome", c.PlugboardHome, false)
	if c.Workspace != "" {
		s.field("workspace", c.Workspace, false)
	}
	s.field("workspaceTrusted", c.WorkspaceTrusted, false)
	s.field("settings", c.Settings, false)
}

// tail writes the members after the MCP merge, and the end of the object.
func (s *stream) tail(c *Catalog) {
	s.field("issues", c.Issues, false)
	s.field("summary", c.Summary, false)
	if c.Seq != 0 {
		s.field("seq", c.Seq, false)
	}
	s.raw("}\n")
}

type stream struct {
	w   *bufio.Writer
	enc *json.Encoder
	err error
}

func newStream(w io.Writer) *stream {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(oneLine{bw})
	enc.SetEscapeHTML(false)
	return &stream{w: bw, enc: enc}
}

// oneLine drops the newline the Encoder writes after each value, so the document is one
// line (a reader of lines, or `head -1`, gets all of it). Compact JSON has no other raw
// newline: one inside a string is escaped.
type oneLine struct{ w *bufio.Writer }

func (o oneLine) Write(p []byte) (int, error) {
	if n := len(p); n > 0 && p[n-1] == '\n' {
		_, err := o.w.Write(p[:n-1])
		return n, err
	}
	return o.w.Write(p)
}

func (s *stream) flush() error {
	if s.err != nil {
		return s.err
	}
	return s.w.Flush()
}

func (s *stream) raw(t string) {
	if s.err == nil {
		_, s.err = s.w.WriteString(t)
	}
}

// value encodes v (without the Encoder's trailing newline: oneLine).
func (s *stream) value(v any) {
	if s.err == nil {
		s.err = s.enc.Encode(v)
	}
}

func (s *stream) field(name string, v any, first bool) {
	if !first {
		s.raw(",")
	}
	s.raw(`"` + name + `":`)
	s.value(v)
}

func (s *stream) elem(v any, first bool) {
	if !first {
		s.raw(",")
	}
	s.value(v)
}
