package catalog

import (
	"bufio"
	"bytes"
	"io"

	json "github.com/segmentio/encoding/json"

	"github.com/plugboard/plugboard/backend/diskwait"
)

// WriteJSON writes the catalog as one compact JSON object, the same document
// json.Marshal would produce (without HTML escaping), but streamed element by element:
// the catalog of a large home is megabytes, and building it in one buffer costs memory
// the scan does not need (and, on a cold machine, the page faults to get it). The
// elements are encoded by segmentio/encoding, which writes encoding/json's bytes
// (TestWriteJSON) in 21 ms instead of 37 ms for the benchmark home's 11.5 MB
// (BenchmarkWriteJSON).
func (c *Catalog) WriteJSON(w io.Writer) error {
	s := newStream(w)
	s.raw("{")
	s.head(c, true)
	s.raw(`,"plugins":[`)
	s.elems(len(c.Plugins), 8, func(i int) any { return &c.Plugins[i] })
	s.raw(`],"skills":[`)
	s.elems(len(c.Skills), 64, func(i int) any { return c.Skills[i] })
	s.raw("]")
	if c.MCP == nil {
		s.field("mcp", c.MCP, false) // null
	} else {
		s.raw(`,"mcp":[`)
		s.elems(len(c.MCP), 128, func(i int) any { return &c.MCP[i] })
		s.raw("]")
	}
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

// elems writes the n elements of an array, each encoded as elem would, comma-separated.
// A long array is encoded in chunks of chunk elements on every CPU and written in order
// as each is done (at most two chunks a CPU are held at once): the encoding of 10,000
// skills is a tenth of a catalog's run, and it comes after the load, when one goroutine
// would leave the other CPUs idle. The callers size chunks to some 30-50 KB of JSON (8
// plugins of 10 skills, 64 skills, 128 MCP servers): each chunk's buffer is new memory
// the first time, and 64 plugins a chunk made the output a sixth of a scan's page faults.
func (s *stream) elems(n, chunk int, at func(int) any) {
	procs := diskwait.Procs() // not what another Load's disk wait adds
	if n <= chunk || procs == 1 {
		for i := range n {
			s.elem(at(i), i == 0)
		}
		return
	}
	type part struct {
		buf  *bytes.Buffer
		err  error
		done chan struct{}
	}
	parts := make([]part, (n+chunk-1)/chunk)
	for k := range parts {
		parts[k].done = make(chan struct{})
	}
	window := make(chan struct{}, 2*procs) // chunks encoded and not yet written
	// The buffers of written chunks are used again: at most 2*procs+procs are ever made,
	// where a new one a chunk would allocate (and fault in) twice the document's size.
	free := make(chan *bytes.Buffer, 3*procs)
	next := make(chan int)
	go func() {
		for k := range parts {
			window <- struct{}{}
			next <- k
		}
		close(next)
	}()
	for range min(procs, len(parts)) {
		go func() {
			for k := range next {
				p := &parts[k]
				select {
				case p.buf = <-free:
				default:
					p.buf = new(bytes.Buffer)
				}
				enc := json.NewEncoder(p.buf)
				enc.SetEscapeHTML(false)
				for i := k * chunk; i < min(n, (k+1)*chunk) && p.err == nil; i++ {
					if i > 0 {
						p.buf.WriteByte(',')
					}
					if p.err = enc.Encode(at(i)); p.err == nil {
						p.buf.Truncate(p.buf.Len() - 1) // the Encoder's newline (see oneLine)
					}
				}
				close(p.done)
			}
		}()
	}
	for k := range parts {
		p := &parts[k]
		<-p.done
		if s.err == nil {
			s.err = p.err
		}
		if s.err == nil {
			_, s.err = s.w.Write(p.buf.Bytes())
		}
		p.buf.Reset()
		select {
		case free <- p.buf:
		default:
		}
		p.buf = nil
		<-window
	}
}
