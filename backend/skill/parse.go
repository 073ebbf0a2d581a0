package skill

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/jsondoc"
	"go.yaml.in/yaml/v3"
)

// MaxFrontmatter caps the bytes between the opening and closing "---" lines. Real
// frontmatter is a few hundred bytes; 64 KiB leaves room for long hand-written metadata
// while keeping the YAML parser's work (and any hostile nesting) small.
const MaxFrontmatter = 64 << 10

// maxTreeIssues bounds how many repeated-key issues one frontmatter can produce; a
// hostile file of 64 KiB could otherwise yield thousands.
const maxTreeIssues = 10

var bom = []byte("\xef\xbb\xbf")

// checker collects the issues of one SKILL.md. Frontmatter line L is file line L+1: the
// opening "---" is line 1.
type checker struct {
	s      Skill // held here, not pointed to: a pointer escaped with the issues' paths, one allocation a skill
	folder string
	dir    string
	opts   Options
	nodes  *slab // where the frontmatter's tree is built
}

// Parse validates SKILL.md content already read; folder is the folder name the name must
// equal. dir is used only for the `paths` checks (it may be "" to skip the filesystem
// checks of paths, which then judge only how each entry is written) and is stored in
// Skill.Dir as given.
func Parse(data []byte, folder, dir string, opts Options) Skill {
	if opts.Path == "" {
		opts.Path = path.Join(folder, "SKILL.md")
	}
	c := &checker{s: Skill{Name: folder, Folder: folder, Dir: dir, Path: opts.Path, Sum: ContentSum(data)},
		folder: folder, dir: dir, opts: opts, nodes: slabs.Get().(*slab)}
	if root := c.frontmatter(data); root != nil {
		c.fields(root)
	}
	slabs.Put(c.nodes) // the checks copy what they keep out of the tree
	c.s.finish()
	return c.s
}

// crc32c is the Castagnoli table (computed in hardware where the CPU has it), made on
// first use: making it costs a command that reads no skill about a millisecond at start.
var crc32c = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// ContentSum is Skill.Sum of the bytes data.
func ContentSum(data []byte) string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], crc32.Checksum(data, crc32c()))
	return "crc32c:" + hex.EncodeToString(b[:]) // as %08x, without fmt's cost on every skill
}

func (c *checker) add(sev issue.Severity, code string, line int, pointer, format string, args ...any) {
	c.s.Issues.Add(sev, code, c.opts.Path, pointer, format, args...)
	c.s.Issues[len(c.s.Issues)-1].Line = line
}

func (c *checker) errorf(code string, line int, pointer, format string, args ...any) {
	c.add(issue.Error, code, line, pointer, format, args...)
}

func (c *checker) warnf(code string, line int, pointer, format string, args ...any) {
	c.add(issue.Warning, code, line, pointer, format, args...)
}

// frontmatter returns the root mapping of the frontmatter, or nil after reporting why
// there is none to check.
func (c *checker) frontmatter(data []byte) *yaml.Node {
	if !utf8.Valid(data) {
		off := jsondoc.FirstInvalidUTF8(data)
		c.errorf(CodeInvalidUTF8, lineAt(data, off), "",
			"SKILL.md is not valid UTF-8 (byte 0x%02x at offset %d); re-save it as UTF-8", data[off], off)
		return nil
	}
	if bytes.HasPrefix(data, bom) {
		c.warnf(CodeByteOrderMark, 1, "", "SKILL.md starts with a UTF-8 byte-order mark (BOM); the Agent Skills rules read past it, but Claude Code and PI then find no frontmatter, so the skill gets no description and they do not list it; save the file as UTF-8 without BOM")
	}
	data = bytes.TrimPrefix(data, bom)
	fm, ok := c.split(data)
	if !ok {
		return nil
	}
	// The tree's values and Block are slices of text. With Keep the bytes are the Skill's
	// (Data) and nothing changes them, so text is a view of them; otherwise the one copy
	// (10,000 skills' copies were 2.4 MB and 10,000 allocations of a scan).
	var text string
	if c.opts.Keep && len(fm) > 0 {
		text = unsafe.String(&fm[0], len(fm))
	} else {
		text = string(fm)
	}
	doc, err := parseYAML(text, c.nodes)
	if err != nil {
		line, msg := yamlError(err)
		c.errorf(CodeInvalidYAML, line, "", "frontmatter is not valid YAML: %s", msg)
		return nil
	}
	if !c.checkTree(doc) {
		return nil
	}
	root := c.rootMapping(doc)
	if root != nil && c.opts.Keep {
		// The text as the clients cut it: up to, not including, the newline before "---".
		c.s.Block, c.s.Front = strings.TrimSuffix(text, "\n"), scalars(root)
	}
	return root
}

// scalars are the scalar members of a frontmatter mapping (strings, booleans, numbers,
// nulls), as yaml.v3 decodes them into a map: the clients' models read only these (a
// number description counts for Claude, an empty user-invocable hides a skill).
func scalars(m *yaml.Node) map[string]any {
	out := make(map[string]any, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			continue
		}
		switch v.Tag {
		case "!!str":
			out[k.Value] = v.Value
		case "!!bool":
			var b bool
			if v.Decode(&b) == nil {
				out[k.Value] = b
			}
		case "!!timestamp":
			// As the client models read it (clients.decodeJS): a date written plainly is
			// text to JavaScript's YAML 1.2 readers; one tagged !!timestamp is a time.
			if v.Style&yaml.TaggedStyle == 0 {
				out[k.Value] = v.Value
				continue
			}
			fallthrough
		case "!!int", "!!float", "!!null", "!!binary": // as yaml.v3 decodes them into any
			var x any
			if v.Decode(&x) == nil {
				out[k.Value] = x
			}
		}
	}
	return out
}

// split returns the text between the opening and the closing "---" line.
func (c *checker) split(data []byte) ([]byte, bool) {
	first, _, found := bytes.Cut(data, []byte("\n"))
	if !isFence(first) {
		what := "SKILL.md does not begin with"
		if len(bytes.TrimSpace(data)) == 0 {
			what = "SKILL.md is empty; it needs"
		}
		c.errorf(CodeNoFrontmatter, 1, "",
			"%s a \"---\" line opening the YAML frontmatter; start the file with ---, name: and description: lines, then ---", what)
		return nil, false
	}
	start := len(first) + 1
	for off := start; found; {
		if off-start > MaxFrontmatter {
			c.errorf(CodeFrontmatterTooLarge, 1, "",
				"frontmatter runs past %d bytes without a closing \"---\" line; close it with --- and keep it under %d bytes", MaxFrontmatter, MaxFrontmatter)
			return nil, false
		}
		if off >= len(data) {
			break
		}
		line, _, _ := bytes.Cut(data[off:], []byte("\n"))
		if isFence(line) {
			return data[start:off], true
		}
		off += len(line) + 1
	}
	c.errorf(CodeUnclosedFrontmatter, 1, "",
		"frontmatter opened on line 1 is never closed; add a \"---\" line after the last field")
	return nil, false
}

func isFence(line []byte) bool {
	return string(bytes.TrimRight(line, " \t\r")) == "---"
}

// parseYAML parses fm into a node tree. yaml.v3 bounds nesting at 10,000 levels itself;
// the recover turns any parser panic into an issue, as Parse must never panic.
func parseYAML(fm string, a *slab) (doc *yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: the parser failed (%v)", r)
		}
	}()
	if doc, ok := fastYAML(fm, a); ok {
		return doc, nil
	}
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(fm), &n); err != nil {
		return nil, err
	}
	return &n, nil
}

var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): `) })

// yamlError returns the SKILL.md line of a yaml.v3 error and its message with a fix.
func yamlError(err error) (int, string) {
	msg := err.Error()
	line := 1
	if m := yamlLine().FindStringSubmatch(msg); m != nil {
		if n, convErr := strconv.Atoi(m[1]); convErr == nil {
			line = n + 1
		}
		msg = msg[len(m[0]):]
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	switch {
	case strings.Contains(msg, "mapping values are not allowed"):
		msg += `; a value containing ": " must be quoted, e.g. description: "Use when: …"`
	case strings.Contains(msg, "cannot start any token"), strings.Contains(msg, "tab character"):
		msg += "; YAML indents with spaces, so replace tabs (and other control characters) with spaces"
	case strings.Contains(msg, "exceeded max depth"):
		msg += "; flatten the nesting"
	default:
		msg += "; fix the syntax (quote values that contain special characters)"
	}
	return line, msg
}

// checkTree refuses aliases (so nothing can expand, whatever the alias ratio) and repeated
// keys anywhere in the frontmatter. It walks with an explicit stack: no recursion.
func (c *checker) checkTree(doc *yaml.Node) bool {
	aliases, reported := 0, 0
	var firstAlias *yaml.Node
	var room [32]*yaml.Node // a typical frontmatter's nodes all fit: no allocation
	stack := append(room[:0], doc)
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Kind == yaml.AliasNode {
			if aliases++; firstAlias == nil {
				firstAlias = n
			}
			continue
		}
		if n.Kind == yaml.MappingNode {
			reported = c.repeatedKeys(n, reported)
		}
		stack = append(stack, n.Content...)
	}
	if firstAlias != nil {
		c.errorf(CodeYAMLAlias, firstAlias.Line+1, "",
			"frontmatter uses the YAML alias *%s (%d aliases in all); aliases are not allowed in SKILL.md, write the values out in full", firstAlias.Value, aliases)
	}
	return firstAlias == nil && reported == 0
}

// repeatedKeys reports keys that appear twice in one mapping; reported counts issues so far.
func (c *checker) repeatedKeys(m *yaml.Node, reported int) int {
	if len(m.Content) < 4 {
		return reported
	}
	// A frontmatter mapping has a handful of keys: each is compared with the ones before
	// it, without a map (a map and a key string a SKILL.md showed in the catalog's profile).
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		first, dup := 0, false
		for j := 0; j < i; j += 2 {
			if p := m.Content[j]; p.Kind == yaml.ScalarNode && p.Value == k.Value && p.Tag == k.Tag {
				first, dup = p.Line, true
				break
			}
		}
		if !dup {
			continue
		}
		if reported++; reported <= maxTreeIssues {
			c.errorf(CodeInvalidYAML, k.Line+1, "",
				"frontmatter repeats the key %q (first on line %d); keep one of them", k.Value, first+1)
		} else if reported == maxTreeIssues+1 {
			c.errorf(CodeInvalidYAML, k.Line+1, "", "frontmatter repeats more keys from here on; keep one of each")
		}
	}
	return reported
}

// rootMapping returns the frontmatter mapping; an empty frontmatter counts as an empty
// mapping, so that the missing fields are reported.
func (c *checker) rootMapping(doc *yaml.Node) *yaml.Node {
	root := doc
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		root = doc.Content[0]
	}
	switch {
	case root.Kind == 0, root.Kind == yaml.DocumentNode, isNull(root):
		return &yaml.Node{Kind: yaml.MappingNode}
	case root.Kind == yaml.MappingNode:
		return root
	}
	c.errorf(CodeFrontmatterNotMapping, root.Line+1, "",
		"frontmatter is a YAML %s, not a mapping; write it as key: value lines (name: …, description: …)", kindName(root))
	return nil
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "list"
	case yaml.MappingNode:
		return "mapping"
	case yaml.AliasNode:
		return "alias"
	}
	return "single value"
}

// lineAt returns the 1-based line of byte offset off.
func lineAt(data []byte, off int) int {
	return bytes.Count(data[:min(off, len(data))], []byte{'\n'}) + 1
}
