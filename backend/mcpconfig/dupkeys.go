package mcpconfig

import (
	"encoding/json"
	"strconv"
	"strings"
	"unsafe"
)

// The document scan: one pass over bytes that already passed jsondoc.Decode (valid JSON,
// nested at most jsondoc.MaxDepth deep, so the scan can trust the syntax). It finds
// repeated member names, which encoding/json would drop without a word, and records the
// line of every member and element down to lineDepth, so that each issue gets its line in
// constant time. (jsondoc.Line walks the whole document per call: a file with a hundred
// thousand bad entries would take minutes.)

// lineDepth is the deepest pointer the index records: /mcpServers/<name>/<field>/<member>.
const lineDepth = 4

// dupKey is a member name that repeats inside one object; the last one is what is read.
type dupKey struct {
	tokens []string // pointer tokens of the repeated member
	line   int
}

// docIndex is what the scan finds.
type docIndex struct {
	data  []byte
	dups  []dupKey
	lines map[string]int // JSON pointer → line where the member's key or the element starts
}

// frame is one open object or array during the scan.
type frame struct {
	obj       bool
	expectKey bool                // object: the next string is a member name
	started   bool                // array: the current element's first byte was seen
	index     int                 // array: current element
	key       string              // object: current member
	first     int                 // object: where its names start in the scan's names, while few
	set       map[string]struct{} // object: names seen, once many
	ptr       string              // pointer of this object or array
}

// seen records name as a member of f, the innermost open object, and reports whether it
// was already there. The names of small objects are on names, a stack the open objects
// share (an object's names are above its parent's, and go when it closes): no slice of
// their own, which was a quarter of a manifest scan's allocations. A large object
// switches to a map so that a hostile file cannot make the scan quadratic.
func (f *frame) seen(names *[]string, name string) bool {
	if f.set != nil {
		_, dup := f.set[name]
		f.set[name] = struct{}{}
		return dup
	}
	for _, k := range (*names)[f.first:] {
		if k == name {
			return true
		}
	}
	*names = append(*names, name)
	if len(*names)-f.first > 16 {
		f.set = make(map[string]struct{}, 2*(len(*names)-f.first))
		for _, k := range (*names)[f.first:] {
			f.set[k] = struct{}{}
		}
		*names = (*names)[:f.first]
	}
	return false
}

// scanDoc finds the repeated members of data; see the comment at the top of this file.
// Lines are indexed on the first call to lineOf, as most files have no issue at all.
func scanDoc(data []byte) *docIndex {
	idx := &docIndex{data: data}
	idx.scan(false)
	return idx
}

// scan walks the document once, recording repeated members, or only lines when lines is
// set.
func (idx *docIndex) scan(lines bool) {
	data := idx.data
	stack := make([]frame, 0, 8)
	var names []string // the names of the open small objects (frame.seen)
	line := 1
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch c {
		case ' ', '\t', '\r', ':':
			continue
		case '\n':
			line++
			continue
		case ',':
			if n := len(stack); n > 0 {
				stack[n-1].expectKey = stack[n-1].obj
				stack[n-1].started = false
				if !stack[n-1].obj {
					stack[n-1].index++
				}
			}
			continue
		case '}', ']':
			if n := len(stack); n > 0 {
				if f := &stack[n-1]; f.obj && f.set == nil {
					names = names[:f.first]
				}
				stack = stack[:n-1]
			}
			continue
		}
		// The first byte of a member name or of a value.
		n := len(stack)
		if n > 0 && stack[n-1].obj && stack[n-1].expectKey {
			top := &stack[n-1]
			end := stringEnd(data, i)
			top.key, top.expectKey = unquote(data[i:end]), false
			if lines && n <= lineDepth {
				idx.lines[top.ptr+"/"+escapeToken(top.key)] = line
			}
			if !lines && top.seen(&names, top.key) {
				idx.dups = append(idx.dups, dupKey{tokens: pathTokens(stack), line: line})
			}
			i = end - 1
			continue
		}
		if n > 0 && !stack[n-1].obj && !stack[n-1].started {
			stack[n-1].started = true
			if lines && n <= lineDepth {
				idx.lines[childPointer(stack)] = line
			}
		}
		switch c {
		case '{', '[':
			ptr := ""
			if lines && n < lineDepth {
				ptr = childPointer(stack)
			}
			stack = append(stack, frame{obj: c == '{', expectKey: c == '{', first: len(names), ptr: ptr})
		case '"':
			i = stringEnd(data, i) - 1
		default: // a number, true, false or null
			for i+1 < len(data) && !strings.ContainsRune(" \t\r\n,]}", rune(data[i+1])) {
				i++
			}
		}
	}
}

// childPointer is the pointer of the value being read in the innermost container.
func childPointer(stack []frame) string {
	if len(stack) == 0 {
		return ""
	}
	top := &stack[len(stack)-1]
	if top.obj {
		return top.ptr + "/" + escapeToken(top.key)
	}
	return top.ptr + "/" + strconv.Itoa(top.index)
}

// lineOf returns the line of ptr, or of its nearest recorded ancestor, or 1 (also for a
// document that did not decode: x is nil).
func (x *docIndex) lineOf(ptr string) int {
	if x == nil {
		return 1
	}
	if x.lines == nil {
		x.lines = make(map[string]int, 32)
		x.scan(true)
	}
	for ptr != "" {
		if l, ok := x.lines[ptr]; ok {
			return l
		}
		ptr = ptr[:strings.LastIndexByte(ptr, '/')]
	}
	return 1
}

// stringEnd returns the offset just past the string literal starting at data[start].
func stringEnd(data []byte, start int) int {
	for i := start + 1; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(data)
}

// unquote decodes a JSON string literal, taking the fast path when it has no escape: then
// the name is a view of the document's bytes, good for the scan (which is over before the
// caller can change them), not a copy (22 allocations an mcp.json); pathTokens copies
// what it keeps.
func unquote(lit []byte) string {
	for _, b := range lit {
		if b == '\\' {
			var s string
			_ = json.Unmarshal(lit, &s)
			return s
		}
	}
	return unsafe.String(&lit[1], len(lit)-2)
}

// escapeToken escapes one RFC 6901 reference token (as jsondoc.Pointer does).
func escapeToken(t string) string {
	if strings.ContainsAny(t, "~/") {
		t = strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
	}
	return t
}

// pathTokens returns the pointer tokens of the current member of the innermost object.
func pathTokens(stack []frame) []string {
	tokens := make([]string, 0, len(stack))
	for _, f := range stack {
		if f.obj {
			tokens = append(tokens, strings.Clone(f.key))
		} else {
			tokens = append(tokens, strconv.Itoa(f.index))
		}
	}
	return tokens
}
