package clients

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"go.yaml.in/yaml/v3"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/backend/manifest"
	"github.com/plugboard/plugboard/backend/skill"
)

var sprintf = fmt.Sprintf

// front is a markdown file's frontmatter as a client reads it.
type front struct {
	found  bool           // a frontmatter block was there
	fields map[string]any // nil when absent or when it did not parse
	err    error          // the YAML error, when it did not parse
}

// str returns a string field, and whether it is a string at all.
func (f front) str(key string) (string, bool) {
	s, ok := f.fields[key].(string)
	return s, ok
}

// boolean returns a field that is exactly the YAML boolean true or false.
func (f front) boolean(key string) (bool, bool) {
	b, ok := f.fields[key].(bool)
	return b, ok
}

// files is what one Judge has read: markdown files (SKILL.md, commands, agents) with the
// size cap every reader here keeps, following links as the clients do; folder listings;
// file kinds; resolved paths; and parsed frontmatter blocks. The four models of one Judge
// look at the same files, so each is read, listed, resolved and parsed once; the catalog
// also hands over the SKILL.md contents it has just read (Prefill). Not safe for
// concurrent use; one per Judge.
type files struct {
	m     map[string]fileRead
	dirs  map[string]dirRead
	kinds map[string]os.FileMode // Stat's mode (links followed); fs.ModeIrregular: none
	real  map[string]realRead
	yaml  map[string]yamlRead
	text  map[*byte]string // a file's text with CRLF as LF, by its first byte
	pi    map[*byte]front  // a file's frontmatter as PI (and Cursor) read it, by its first byte
	// refused is yaml12Refuses of a block, by where the block's text is: Claude's and
	// PI's models cut the same block out of the same text (lf).
	refused map[textAt]error
	// paths are skillPaths of a listing's entries, by the listing (its first entry):
	// Claude's, PI's (and Cursor's) and Codex's models each walk a package's skills/.
	paths map[*os.DirEntry]entryPaths
	// skillDirs are the skill folders of a package by the skills folders asked for.
	skillDirs map[string][]skillDir
	// portable is the caller's reading of a root plugin.json, or nil.
	portable *manifest.Manifest
	// What the caller has read already (Options.Prefill, Dirs, Parsed), looked up before
	// m, dirs and yaml: the catalog hands over ten SKILL.md files, their folders'
	// listings and parsed frontmatter a package, and copying them cost 2.7 MB a scan
	// of 10,000 skills.
	given       Prefill
	givenDirs   map[string][]os.DirEntry
	givenParsed map[string]map[string]any
}

// file is what read found at path, if it was read or handed over.
func (r *files) file(path string) (fileRead, bool) {
	if dir, ok := strings.CutSuffix(path, string(filepath.Separator)+skill.FileName); ok {
		if data, ok := r.given[dir]; ok {
			return fileRead{data: data}, true
		}
	}
	f, ok := r.m[path]
	return f, ok
}

// dir is the listing of path, if it was listed or handed over.
func (r *files) dir(path string) (dirRead, bool) {
	if entries, ok := r.givenDirs[path]; ok {
		return dirRead{entries: entries}, true
	}
	d, ok := r.dirs[path]
	return d, ok
}

type fileRead struct {
	data []byte
	err  error
}

type dirRead struct {
	entries []os.DirEntry
	err     error
}

type realRead struct {
	path string
	err  error
}

type yamlRead struct {
	m   map[string]any
	err error
}

// child is filepath.Join(dir, name) for a clean dir (as filepath.Join, Clean and
// EvalSymlinks return it) and a name from its listing or a plain file name: such a join
// is clean as written, so it is made without Join's clean-up, which was a tenth of the
// client models' time on 10,000 skills.
func child(dir, name string) string {
	if dir == "" || dir == string(filepath.Separator) {
		return filepath.Join(dir, name)
	}
	return dir + string(filepath.Separator) + name
}

// skillPaths are child(dir, name) and the SKILL.md in it, made as one string (the folder's
// path is the file's less its last element): the four models look at every skill folder.
func skillPaths(dir, name string) (folder, file string) {
	if dir == "" || dir == string(filepath.Separator) {
		folder = filepath.Join(dir, name)
		return folder, child(folder, skill.FileName)
	}
	file = dir + string(filepath.Separator) + name + string(filepath.Separator) + skill.FileName
	return file[:len(dir)+1+len(name)], file
}

// entryPaths are skillPaths(at, name) of each entry of at's listing, in its order.
type entryPaths struct {
	at    string
	pairs [][2]string // folder, SKILL.md
}

// pathsOf returns skillPaths(at, e.Name()) of every entry e of the listing entries of
// at, made once per listing.
func (r *files) pathsOf(at string, entries []os.DirEntry) [][2]string {
	if len(entries) == 0 {
		return nil
	}
	if p, ok := r.paths[&entries[0]]; ok && p.at == at {
		return p.pairs
	}
	pairs := make([][2]string, len(entries))
	for i, e := range entries {
		pairs[i][0], pairs[i][1] = skillPaths(at, e.Name())
	}
	r.paths[&entries[0]] = entryPaths{at, pairs}
	return pairs
}

// dirOf is filepath.Dir(p). The paths the models look up are clean (child, skillPaths,
// filepath.Join), and the parent of a clean path is the path up to its last separator:
// Dir's clean-up of it was a twentieth of the models' time on 10,000 skills.
func dirOf(p string) string {
	const sep = string(filepath.Separator) // a constant: the checks below are then of constant strings, not new ones each call
	i := strings.LastIndex(p, sep)
	if i <= 0 || strings.HasPrefix(p, "."+sep) || strings.HasSuffix(p, sep) || strings.Contains(p, sep+sep) || strings.Contains(p, sep+"."+sep) ||
		strings.Contains(p, sep+".."+sep) || strings.HasSuffix(p, sep+".") || strings.HasSuffix(p, sep+"..") {
		return filepath.Dir(p) // the root's child, or a path that is not clean
	}
	return p[:i]
}

func newFiles() *files {
	return &files{m: map[string]fileRead{}, dirs: map[string]dirRead{}, kinds: map[string]os.FileMode{},
		real: map[string]realRead{}, yaml: map[string]yamlRead{}, text: map[*byte]string{}, pi: map[*byte]front{},
		refused: map[textAt]error{}, paths: map[*os.DirEntry]entryPaths{}, skillDirs: map[string][]skillDir{}}
}

func (r *files) read(path string) ([]byte, error) {
	if f, ok := r.file(path); ok {
		return f.data, f.err
	}
	var data []byte
	var err error
	if r.missing(path) {
		err = &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
	} else {
		data, err = capread.ReadFile(path, capread.SkillMax)
	}
	r.m[path] = fileRead{data, err}
	return data, err
}

// lf is data as text with CRLF line endings as LF, made once per file. Text without CRLF
// is data itself, not a copy: what a files holds was read for it or handed over by the
// catalog, and nothing writes to it afterwards (a copy of every SKILL.md was 4.1 MB of
// a warm scan's 98 MB of allocation at 10,000 skills).
func (r *files) lf(data []byte) string {
	if len(data) == 0 {
		return ""
	}
	if t, ok := r.text[&data[0]]; ok && len(t) <= len(data) {
		return t
	}
	var t string
	if bytes.Contains(data, []byte("\r\n")) {
		t = strings.ReplaceAll(string(data), "\r\n", "\n")
	} else {
		t = unsafe.String(&data[0], len(data))
	}
	r.text[&data[0]] = t
	return t
}

// readDir lists a folder, sorted by name, following a link.
func (r *files) readDir(path string) ([]os.DirEntry, error) {
	if d, ok := r.dir(path); ok {
		return d.entries, d.err
	}
	var entries []os.DirEntry
	var err error
	if r.missing(path) {
		err = &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
	} else {
		entries, err = os.ReadDir(path)
	}
	r.dirs[path] = dirRead{entries, err}
	return entries, err
}

// kind is the mode of what p names, links followed; fs.ModeIrregular when nothing
// (or a dangling link) is there. When p's folder has been listed, the listing answers
// for a missing name and for a plain file or folder, with no look-up.
func (r *files) kind(p string) os.FileMode {
	if k, ok := r.kinds[p]; ok {
		return k
	}
	k, known := os.FileMode(0), false
	if parent := dirOf(p); parent != p && r.missing(parent) {
		k, known = fs.ModeIrregular, true
	} else if d, ok := r.dir(parent); ok && d.err == nil {
		name := filepath.Base(p)
		i, found := slices.BinarySearchFunc(d.entries, name, func(e os.DirEntry, n string) int { return strings.Compare(e.Name(), n) })
		switch {
		case !found:
			k, known = fs.ModeIrregular, true
		case d.entries[i].Type()&fs.ModeSymlink == 0:
			k, known = d.entries[i].Type(), true
		}
	}
	if !known {
		k = fs.ModeIrregular
		if st, err := os.Stat(p); err == nil {
			k = st.Mode()
		}
	}
	r.kinds[p] = k
	return k
}

// missing reports whether p is known, from listings already made, not to exist (no
// look-up is made for it).
func (r *files) missing(p string) bool {
	parent := dirOf(p)
	if parent == p {
		return false
	}
	if d, ok := r.dir(parent); ok {
		if d.err != nil {
			return errors.Is(d.err, fs.ErrNotExist)
		}
		_, found := slices.BinarySearchFunc(d.entries, filepath.Base(p), func(e os.DirEntry, n string) int { return strings.Compare(e.Name(), n) })
		return !found
	}
	return r.missing(parent)
}

func (r *files) isDir(p string) bool { return r.kind(p).IsDir() }
func (r *files) isFile(p string) bool {
	if f, ok := r.file(p); ok && f.err == nil {
		return true // read (or handed over) as a file already
	}
	return r.kind(p).IsRegular()
}

// exists reports whether a directory entry is there at all (a dangling link counts).
func (r *files) exists(p string) bool {
	if r.kind(p) != fs.ModeIrregular {
		return true
	}
	if r.missing(p) {
		return false // a folder on the way is listed without it
	}
	if d, ok := r.dir(dirOf(p)); ok && d.err == nil {
		_, found := slices.BinarySearchFunc(d.entries, filepath.Base(p), func(e os.DirEntry, n string) int { return strings.Compare(e.Name(), n) })
		return found // a dangling link is listed too
	}
	_, err := os.Lstat(p)
	return err == nil
}

func (r *files) realpath(p string) (string, error) {
	if x, ok := r.real[p]; ok {
		return x.path, x.err
	}
	got, err := filepath.EvalSymlinks(p)
	r.real[p] = realRead{got, err}
	return got, err
}

// parseYAML parses a frontmatter block once per Judge.
func (r *files) parseYAML(block string) (map[string]any, error) {
	if m, ok := r.givenParsed[block]; ok {
		return m, nil
	}
	if y, ok := r.yaml[block]; ok {
		return y.m, y.err
	}
	m, err := parseYAMLMap([]byte(block))
	r.yaml[block] = yamlRead{m, err}
	return m, err
}

// Prefill gives the contents of SKILL.md files already read (the catalog's skills), keyed
// by the absolute path of the folder each is in, so that Judge does not read them again.
// (By folder: the catalog has that path, and a SKILL.md path for each was 1 MB of a scan
// of 10,000 skills.)
type Prefill map[string][]byte

// parseYAMLMap parses a frontmatter block into a map; a document that is not a mapping
// (empty, a scalar) is an empty map, as JavaScript's YAML libraries give an object-less
// value the clients then read fields from.
func parseYAMLMap(b []byte) (map[string]any, error) {
	if m, ok := skill.FastMap(b); ok {
		return m, nil // the plain frontmatter nearly every file has
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	var v any
	if err := decodeJS(&doc, &v); err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case map[string]any:
		return x, nil
	case map[any]any: // a key that is not text (1:, true:): JavaScript makes every key text
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[jsKey(k)] = e
		}
		return m, nil
	}
	return map[string]any{}, nil
}

// jsKey is a YAML key as a JavaScript object's key: its text.
func jsKey(k any) string {
	switch x := k.(type) {
	case nil:
		return "null"
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(k)
}

// decodeJS decodes n into v as the clients' JavaScript YAML readers (YAML 1.2's core
// schema: Bun's, the yaml package) read it: a date such as 2024-01-01 is text, where
// yaml.v3 makes it a time.
func decodeJS(n *yaml.Node, v any) error {
	var retag func(*yaml.Node)
	retag = func(n *yaml.Node) {
		if n.Kind == yaml.ScalarNode && n.Tag == "!!timestamp" && n.Style&yaml.TaggedStyle == 0 {
			n.Tag = "!!str"
		}
		for _, c := range n.Content {
			retag(c)
		}
	}
	retag(n)
	return n.Decode(v)
}

// piFrontmatter splits and parses frontmatter as PI does (utils/frontmatter.js of
// pi-coding-agent 0.73.1): line endings normalised to \n, the file must start with
// "---" (a byte-order mark in front means no frontmatter), the block ends at the first
// "\n---" after it, and the block is YAML; a YAML error is an error of the whole file.
func piFrontmatter(data []byte, r *files) front {
	if len(data) > 0 {
		if f, ok := r.pi[&data[0]]; ok {
			return f // PI's and Cursor's models read each file the same way
		}
	}
	f := piRead(data, r)
	if len(data) > 0 {
		r.pi[&data[0]] = f
	}
	return f
}

func piRead(data []byte, r *files) front {
	text := r.lf(data)
	if !utf8.ValidString(text) { // node reads the file as UTF-8, each bad byte a U+FFFD
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	s := strings.ReplaceAll(text, "\r", "\n")
	if !strings.HasPrefix(s, "---") {
		return front{}
	}
	block, ok := fenced(s)
	if !ok {
		return front{}
	}
	m, err := r.parseYAML(block)
	if err == nil {
		// The yaml package (YAML 1.2, as strict as Bun's) refuses what yaml.v3 lets
		// pass: a quoted value run onto an unindented line, a second document.
		if err = r.yaml12Refuses(block); err == nil && multiDocument(block) {
			err = errors.New("the block holds more than one YAML document")
		}
	}
	if err != nil {
		m = nil
	}
	return front{found: true, fields: m, err: err}
}

// rel returns p relative to root in slash form ("" for root itself).
func rel(root, p string) string {
	r, err := filepath.Rel(root, p)
	if err != nil || r == "." {
		return ""
	}
	return filepath.ToSlash(r)
}

// hasBOM reports whether data starts with a UTF-8 byte-order mark.
func hasBOM(data []byte) bool { return bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) }

// fenced returns the frontmatter block of s, which starts with "---": the text after the
// opening line up to the first line that starts with "---".
func fenced(s string) (string, bool) {
	end := strings.Index(s[3:], "\n---")
	if end < 0 {
		return "", false
	}
	if end == 0 {
		return "", true // "---\n---": an empty block
	}
	start := strings.IndexByte(s, '\n') + 1
	if start <= 0 || start > 3+end {
		return "", true
	}
	return s[start : 3+end], true
}

// textAt is where a string's bytes are: its first byte and its length.
type textAt struct {
	p *byte
	n int
}

// yaml12Refuses is the package's yaml12Refuses of block, found once per block text.
func (r *files) yaml12Refuses(block string) error {
	at := textAt{unsafe.StringData(block), len(block)}
	if err, ok := r.refused[at]; ok {
		return err
	}
	err := yaml12Refuses(block)
	r.refused[at] = err
	return err
}

// yaml12Refuses finds what the JavaScript YAML 1.2 readers (Bun's, the yaml package)
// refuse in a block yaml.v3 reads: a quoted value that runs onto a line indented no
// deeper than its key.
func yaml12Refuses(block string) error {
	if !unmatchedQuote(block) {
		return nil // no quoted value can run on: spare parsing the block again
	}
	var doc yaml.Node
	if yaml.Unmarshal([]byte(block), &doc) != nil {
		return nil
	}
	lines := strings.Split(block, "\n")
	var walk func(n *yaml.Node, indent int) error
	walk = func(n *yaml.Node, indent int) error {
		if n.Kind == yaml.MappingNode && n.Style&yaml.FlowStyle == 0 {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if err := walk(n.Content[i+1], n.Content[i].Column); err != nil {
					return err
				}
			}
			return nil
		}
		if n.Kind == yaml.ScalarNode && (n.Style&yaml.DoubleQuotedStyle != 0 || n.Style&yaml.SingleQuotedStyle != 0) {
			if l := quotedRunsOut(lines, n, indent); l > 0 {
				return fmt.Errorf("line %d: a quoted value continues on a line indented no deeper than its key", l)
			}
		}
		for _, c := range n.Content {
			if err := walk(c, indent); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(&doc, 0)
}

// quotedRunsOut returns the line (1-based) on which the quoted scalar n, the value of a
// key at column keyColumn, continues without being indented past the key's column; 0
// when it ends on its line or every continuation is indented.
func quotedRunsOut(lines []string, n *yaml.Node, keyColumn int) int {
	if n.Line < 1 || n.Line > len(lines) {
		return 0
	}
	q := byte('"')
	if n.Style&yaml.SingleQuotedStyle != 0 {
		q = '\''
	}
	line, col := n.Line-1, n.Column // col: just after the opening quote (Column is 1-based)
	for line < len(lines) {
		text := lines[line]
		for i := col; i < len(text); i++ {
			switch {
			case q == '"' && text[i] == '\\':
				i++
			case text[i] == q && q == '\'' && i+1 < len(text) && text[i+1] == '\'':
				i++
			case text[i] == q:
				return 0
			}
		}
		line, col = line+1, 0
		if line < len(lines) {
			next := lines[line]
			if strings.TrimLeft(next, " \t") != "" && len(next)-len(strings.TrimLeft(next, " ")) < keyColumn {
				return line + 1
			}
		}
	}
	return 0
}

// multiDocument reports whether the block holds a second YAML document: content after
// a line that ends the first ("...").
func multiDocument(block string) bool {
	if !strings.Contains(block, "...") {
		return false
	}
	ended := false
	for _, line := range strings.Split(block, "\n") {
		trimmed := strings.TrimRight(line, " \t\r")
		switch {
		case trimmed == "..." || strings.HasPrefix(trimmed, "... ") || strings.HasPrefix(trimmed, "...\t"):
			ended = true
		case ended && trimmed != "" && !strings.HasPrefix(strings.TrimLeft(trimmed, " \t"), "#"):
			return true
		}
	}
	return false
}

// unmatchedQuote reports whether a line of block holds an odd number of " or ': the
// first line of a quoted value that runs onto the next one does.
// Hand-written for speed: 0.12 µs, no alloc a block; the yaml.v3 parse it spares 8.9 µs, 88 (BenchmarkUnmatchedQuote).
func unmatchedQuote(block string) bool {
	if !strings.ContainsAny(block, `"'`) {
		return false
	}
	for rest := block; rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		// Count " (less \") and ' in one pass over the line.
		double, single := 0, 0
		for i := 0; i < len(line); i++ {
			switch line[i] {
			case '"':
				if i == 0 || line[i-1] != '\\' {
					double++
				}
			case '\'':
				single++
			}
		}
		if double%2 == 1 || single%2 == 1 {
			return true
		}
	}
	return false
}
