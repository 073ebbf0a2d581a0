package mcpconfig

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/jsondoc"
)

// report adds issues about one file: every issue gets the shown path and the line of its
// pointer.
type report struct {
	data  []byte
	path  string
	name  string    // base name of path, to start whole-file messages
	index *docIndex // set by topObject once the document decodes; shared by copies
}

func newReport(data []byte, shown string) report {
	return report{data: data, path: shown, name: filepath.Base(shown)}
}

func (r report) add(l *issue.List, sev issue.Severity, code, ptr, format string, args ...any) {
	*l = append(*l, issue.Issue{
		Severity: sev, Code: code, Path: r.path, Pointer: ptr,
		Line: r.index.lineOf(ptr), Message: fmt.Sprintf(format, args...),
	})
}

func (r report) errorf(l *issue.List, code, ptr, format string, args ...any) {
	r.add(l, issue.Error, code, ptr, format, args...)
}

func (r report) warnf(l *issue.List, code, ptr, format string, args ...any) {
	r.add(l, issue.Warning, code, ptr, format, args...)
}

// topObject checks size, encoding, syntax and that the document is an object, and
// indexes the document's lines and repeated members.
func (r *report) topObject(l *issue.List) (map[string]any, bool) {
	if len(r.data) > capread.MCPMax {
		r.errorf(l, CodeTooLarge, "", "%s is larger than the %d-byte limit; shrink it", r.name, capread.MCPMax)
		return nil, false
	}
	v, err := jsondoc.Decode(r.data)
	if err != nil {
		*l = append(*l, issue.Issue{Severity: issue.Error, Code: CodeInvalidJSON, Path: r.path, Line: max(jsondoc.ErrorLine(err), 1),
			Message: r.name + " " + err.Error()})
		return nil, false
	}
	r.index = scanDoc(r.data)
	obj, ok := v.(map[string]any)
	if !ok {
		r.errorf(l, CodeNotObject, "", "%s holds %s at the top level; it must be a JSON object", r.name, jsondoc.Kind(v))
		return nil, false
	}
	return obj, true
}

// readProblem turns a failed read of the file into one whole-file issue.
func readProblem(shown string, err error) Config {
	code := CodeUnreadable
	switch {
	case errors.Is(err, capread.ErrTooLarge):
		code = CodeTooLarge
	case errors.Is(err, capread.ErrNotRegular), errors.Is(err, fs.ErrNotExist):
		code = CodeNotRegular
	}
	return invalidFile(shown, code, filepath.Base(shown)+" "+capread.Describe(err))
}

func invalidFile(shown, code, msg string) Config {
	c := Config{Path: shown}
	c.Issues = issue.List{{Severity: issue.Error, Code: code, Path: shown, Line: 1, Message: msg}}
	return finishConfig(c)
}

// finishConfig sets Valid and replaces nil lists so that JSON shows [] rather than null.
func finishConfig(c Config) Config {
	c.Valid = !c.Issues.HasErrors()
	c.Issues = c.Issues.NonNil()
	c.Issues.Sort()
	if c.Servers == nil {
		c.Servers = []Server{}
	}
	sort.Slice(c.Servers, func(a, b int) bool { return c.Servers[a].Name < c.Servers[b].Name })
	return c
}

// finishServer sets Valid from the issues and orders them by line.
func finishServer(s Server) Server {
	s.Valid = !s.Issues.HasErrors()
	s.Issues = s.Issues.NonNil()
	s.Issues.Sort()
	return s
}

// q quotes a non-secret string for a message, shortened so that a hostile value cannot
// flood the output.
func q(s string) string {
	const limit = 80
	if len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strconv.Quote(s)
}

// sortedKeys returns the member names of m in byte order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// addAt adds an issue at a known line (a repeated member: the pointer's line would be the
// first occurrence).
func (r report) addAt(l *issue.List, sev issue.Severity, code, ptr string, line int, msg string) {
	*l = append(*l, issue.Issue{Severity: sev, Code: code, Path: r.path, Pointer: ptr, Line: max(line, 1), Message: msg})
}

// splitDups sorts repeated members into those inside one server entry (by server name)
// and the rest.
func splitDups(dups []dupKey) (file []dupKey, perServer map[string][]dupKey) {
	for _, d := range dups {
		if len(d.tokens) >= 3 && d.tokens[0] == "mcpServers" {
			if perServer == nil {
				perServer = map[string][]dupKey{}
			}
			perServer[d.tokens[1]] = append(perServer[d.tokens[1]], d)
			continue
		}
		file = append(file, d)
	}
	return file, perServer
}

// fileDups reports repeated members outside server entries (including a repeated server
// name) as warnings.
func (r report) fileDups(l *issue.List, dups []dupKey) {
	for _, d := range dups {
		r.addAt(l, issue.Warning, CodeDuplicateKey, jsondoc.Pointer(d.tokens...), d.line,
			fmt.Sprintf("%s repeats the member %s in one object; only the last one is read, remove the other",
				r.name, q(d.tokens[len(d.tokens)-1])))
	}
}

// serverDups reports repeated members inside server name's entry. A repeated header name
// is an error (spec §7.2.1 forbids the same header twice); anything else is a warning.
func (r report) serverDups(s *Server, dups []dupKey) {
	for _, d := range dups {
		ptr := jsondoc.Pointer(d.tokens...)
		last := d.tokens[len(d.tokens)-1]
		if len(d.tokens) == 4 && d.tokens[2] == "headers" {
			r.addAt(&s.Issues, issue.Error, CodeHeaderDuplicate, headerPointer(jsondoc.Pointer(d.tokens[:2]...), last), d.line,
				fmt.Sprintf("server %s: %s appears twice; keep one", q(s.Name), headerLabel(last)))
			continue
		}
		r.addAt(&s.Issues, issue.Warning, CodeDuplicateKey, ptr, d.line,
			fmt.Sprintf("server %s: %s appears twice in one object; only the last one is read, remove the other",
				q(s.Name), q(last)))
	}
}
