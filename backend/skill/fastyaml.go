package skill

import (
	"strings"
	"sync"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// fastYAML builds the yaml.v3 node tree for the plain frontmatter nearly every SKILL.md
// has — "key: text" lines, one level of "  key: text" under a key (metadata) or "  - text"
// items (paths) — without running the general parser, which costs several times more
// than reading the file. It answers ok=false for anything else (comments, numbers,
// booleans, block scalars, flow collections, escapes, tabs, CR), and the caller falls
// back to yaml.v3. FuzzFastYAML checks that whatever it accepts, yaml.v3 parses to the
// same tree.
// Hand-written for speed: 2.1 µs and 3 allocations a typical block, with a new slab;
// yaml.v3 17 µs and 91 (BenchmarkFrontmatter, 2026-12-07).
// The nodes come from a (nil: a new one), which the caller may reuse once it is done
// with the tree.
func fastYAML(fm string, a *slab) (*yaml.Node, bool) {
	if len(fm) == 0 || !utf8.ValidString(fm) || strings.IndexByte(fm, '\t') >= 0 || strings.IndexByte(fm, '\r') >= 0 || strings.IndexByte(fm, '#') >= 0 {
		return nil, false
	}
	// Every value is a slice of the frontmatter's one string.
	text := strings.TrimSuffix(fm, "\n")
	lines := strings.Count(text, "\n") + 1
	if a == nil {
		a = new(slab)
	}
	// At most two nodes per line, plus the document and root.
	a.reset(2*lines + 2)
	root := a.node(yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: 1, Column: 1, Content: a.list(2 * lines)})
	var parent *yaml.Node // the open nested collection, if any
	for i, more := 0, true; more; i++ {
		var line string
		line, text, more = strings.Cut(text, "\n")
		n := i + 1
		switch {
		case strings.HasPrefix(line, "  - "):
			if parent == nil || parent.Kind == yaml.MappingNode && len(parent.Content) > 0 {
				return nil, false
			}
			v, ok := a.scalar(line[4:], n, 5)
			if !ok {
				return nil, false
			}
			parent.Kind, parent.Tag = yaml.SequenceNode, "!!seq"
			parent.Content = append(parent.Content, v)
		case strings.HasPrefix(line, "  "):
			if parent == nil || parent.Kind == yaml.SequenceNode && len(parent.Content) > 0 {
				return nil, false
			}
			k, v, ok := a.pair(line[2:], n, 3)
			if !ok || v == nil {
				return nil, false
			}
			parent.Kind, parent.Tag = yaml.MappingNode, "!!map"
			parent.Content = append(parent.Content, k, v)
		default:
			if parent != nil && len(parent.Content) == 0 {
				return nil, false // "key:" with nothing under it is null: leave it to yaml.v3
			}
			parent = nil
			k, v, ok := a.pair(line, n, 1)
			if !ok {
				return nil, false
			}
			if v == nil {
				// The value is the nested block on the following lines; its position is
				// where that block starts.
				v = a.node(yaml.Node{Line: n + 1, Column: 3, Content: a.list(2 * indented(text))})
				parent = v
			}
			root.Content = append(root.Content, k, v)
		}
	}
	if parent != nil && len(parent.Content) == 0 {
		return nil, false
	}
	return a.node(yaml.Node{Kind: yaml.DocumentNode, Line: 1, Column: 1, Content: append(a.list(1), root)}), true
}

// indented counts the lines at the start of text that begin with two spaces: the lines
// of a nested block.
func indented(text string) int {
	n := 0
	for strings.HasPrefix(text, "  ") {
		n++
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			break
		}
		text = text[i+1:]
	}
	return n
}

// slab hands out nodes, and their Content lists, from one allocation each (a SKILL.md
// has a dozen nodes). Parse takes one from slabs and puts it back when it is done with
// the tree: 10,000 skills' nodes are 20 MB otherwise, and their lists, grown by append,
// 60,000 allocations, made and collected on every scan.
type slab struct {
	nodes []yaml.Node
	ptrs  []*yaml.Node
}

var slabs = sync.Pool{New: func() any { return new(slab) }}

// reset empties a for at least n nodes; the nodes it held must no longer be in use.
// A tree of n nodes has lists of at most 2n of them: the document's one, the root's, and
// the nested blocks' (each of those lines is in one list).
func (a *slab) reset(n int) {
	clear(a.nodes) // no tree of an earlier file is kept alive through its strings
	clear(a.ptrs)
	if cap(a.nodes) < n {
		a.nodes = make([]yaml.Node, 0, n)
		a.ptrs = make([]*yaml.Node, 0, 2*n)
		return
	}
	a.nodes, a.ptrs = a.nodes[:0], a.ptrs[:0]
}

// list is an empty Content list with room for n nodes.
func (a *slab) list(n int) []*yaml.Node {
	at := len(a.ptrs)
	if at+n > cap(a.ptrs) {
		return make([]*yaml.Node, 0, n)
	}
	a.ptrs = a.ptrs[:at+n]
	return a.ptrs[at : at : at+n]
}

func (a *slab) node(n yaml.Node) *yaml.Node {
	if len(a.nodes) == cap(a.nodes) {
		p := new(yaml.Node) // not &n: n would then be moved to the heap on every call
		*p = n
		return p
	}
	a.nodes = append(a.nodes, n)
	return &a.nodes[len(a.nodes)-1]
}

// pair splits "key: value" (value nil for a bare "key:").
func (a *slab) pair(s string, line, col int) (k, v *yaml.Node, ok bool) {
	key, rest, found := strings.Cut(s, ":")
	if !found {
		return nil, nil, false
	}
	if !plainKey(key) {
		return nil, nil, false
	}
	if k, ok = a.scalar(key, line, col); !ok {
		return nil, nil, false
	}
	if rest == "" {
		return k, nil, true
	}
	if rest[0] != ' ' {
		return nil, nil, false
	}
	v, ok = a.scalar(rest[1:], line, col+len(key)+2)
	return k, v, ok
}

// plainKey accepts ASCII keys such as name, allowed-tools, disable_model (YAML caps an
// implicit key at 1,024 characters; real keys are short).
func plainKey(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// scalar accepts text that yaml.v3 reads as a string for certain: plain text that starts
// with a letter and is no YAML keyword, or a quoted string without escapes.
func (a *slab) scalar(s string, line, col int) (*yaml.Node, bool) {
	if s == "" || s != strings.TrimSpace(s) {
		return nil, false
	}
	if !plainText(s) {
		return nil, false // YAML refuses or folds these; leave them to yaml.v3
	}
	if q := s[0]; q == '"' || q == '\'' {
		if len(s) < 2 || s[len(s)-1] != q {
			return nil, false
		}
		body := s[1 : len(s)-1]
		if strings.ContainsAny(body, `"'\`) {
			return nil, false
		}
		style := yaml.DoubleQuotedStyle
		if q == '\'' {
			style = yaml.SingleQuotedStyle
		}
		return a.node(yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: body, Style: style, Line: line, Column: col}), true
	}
	if c := s[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') || isKeyword(s) {
		return nil, false
	}
	if strings.Contains(s, ": ") || strings.HasSuffix(s, ":") {
		return nil, false
	}
	return a.node(yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Line: line, Column: col}), true
}

// plainText reports whether s has none of the characters YAML refuses or folds:
// controls, C1 controls, the byte-order mark, line and paragraph separators,
// noncharacters. ASCII text, nearly all of it, is judged a byte at a time.
func plainText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf {
			return plainRunes(s[i:])
		} else if c < ' ' || c == 0x7f {
			return false
		}
	}
	return true
}

func plainRunes(s string) bool {
	for _, r := range s {
		if r < ' ' || r >= 0x7f && r <= 0x9f || r == 0xfeff || r >= 0x2028 && r <= 0x2029 || r >= 0xfffe {
			return false
		}
	}
	return true
}

// keywords are plain words YAML 1.1 or 1.2 resolvers read as something other than text.
var keywords = []string{"true", "false", "yes", "no", "on", "off", "y", "n", "null", "nan", "inf"}

func isKeyword(s string) bool {
	if len(s) > 5 {
		return false
	}
	for _, k := range keywords {
		if strings.EqualFold(s, k) {
			return true
		}
	}
	return false
}

// FastMap returns a plain frontmatter block (what fastYAML accepts: string values, one
// level of nested strings or string lists) as the map yaml.v3 would decode it into, far
// cheaper; ok is false for anything else, and the caller falls back to yaml.v3.
// TestFastMapMatchesYAML checks it against yaml.Unmarshal.
// Hand-written for speed: 1.8 µs and 10 allocations a typical block; yaml.Unmarshal 19 µs
// and 118 (BenchmarkFastMap, 2026-12-07).
func FastMap(fm []byte) (map[string]any, bool) {
	a := slabs.Get().(*slab)
	defer slabs.Put(a) // conv copies every value out of the tree
	doc, ok := fastYAML(string(fm), a)
	if !ok {
		return nil, false
	}
	var conv func(n *yaml.Node) (any, bool)
	conv = func(n *yaml.Node) (any, bool) {
		switch n.Kind {
		case yaml.ScalarNode:
			return n.Value, true
		case yaml.SequenceNode:
			l := make([]any, len(n.Content))
			for i, c := range n.Content {
				l[i] = c.Value
			}
			return l, true
		case yaml.MappingNode:
			m := make(map[string]any, len(n.Content)/2)
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i].Value
				if _, dup := m[k]; dup {
					return nil, false // yaml.v3 refuses a repeated key
				}
				v, ok := conv(n.Content[i+1])
				if !ok {
					return nil, false
				}
				m[k] = v
			}
			return m, true
		}
		return nil, false
	}
	v, ok := conv(doc.Content[0])
	if !ok {
		return nil, false
	}
	return v.(map[string]any), true
}
