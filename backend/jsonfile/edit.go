package jsonfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// SetMember returns data with the member key of the object at ptr set to value (nil:
// the member is removed), every other byte as it was: the file's indentation and line
// endings, the order of the members, the formatting of the other members and of
// everything around the object. ptr is a JSON pointer: "" is the top-level object,
// "/agents/2" the third element of its "agents". Where a key appears more than once the
// first is meant (the one Members' readers take); later duplicates of key in the object
// are removed.
//
// The value is written in the style of the file:
//   - over several lines, indented one level deeper than its key by the file's unit (two
//     or four spaces, a tab: what the top-level object's first member is indented by),
//     each line ending as the file's first line does (CRLF stays CRLF), when its object
//     spans several lines and the file is indented;
//   - on one line otherwise, and when the member's old value was a non-empty array or
//     object written on one line; spaced ("a", "b") or not ("a","b") as that old value,
//     or else the member's "key": separator, was.
//
// A new member goes after the object's last member, separated from it as the object's
// members are. Removing a member removes its comma and the whitespace up to the next
// member (or, for the last member, from the end of the one before it). Strings are
// written without escaping <, > and &.
func SetMember(data []byte, ptr, key string, value any) ([]byte, error) {
	if !json.Valid(data) {
		return nil, errors.New("not valid JSON")
	}
	var raw []byte
	if value != nil {
		var err error
		if raw, err = compactJSON(value); err != nil {
			return nil, err
		}
	}
	st := detectStyle(data)
	out := data
	// Remove every occurrence of key but the first (all of them when deleting); then set
	// the first or append the member. Each step re-reads the object, so offsets stay
	// true.
	keep := 1
	if raw == nil {
		keep = 0
	}
	for {
		o, err := locate(out, ptr)
		if err != nil {
			return nil, err
		}
		at := o.occurrences(key)
		if len(at) > keep {
			if out = o.remove(out, at[keep]); !json.Valid(out) {
				return nil, fmt.Errorf("removing %q would break the file", key)
			}
			continue
		}
		switch {
		case raw == nil:
		case len(at) == 1:
			out = o.replace(out, at[0], st, raw)
		default:
			out = o.insert(out, key, st, raw)
		}
		break
	}
	if !json.Valid(out) {
		return nil, fmt.Errorf("setting %q would break the file", key)
	}
	return out, nil
}

// compactJSON encodes v on one line without escaping <, > and &.
func compactJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(b.Bytes()), nil
}

// style is how a file is laid out.
type style struct {
	nl   string // line ending: "\n" or "\r\n"
	unit string // one level of indentation; "" when the file is not indented
}

func detectStyle(d []byte) style {
	s := style{nl: "\n"}
	if i := bytes.IndexByte(d, '\n'); i > 0 && d[i-1] == '\r' {
		s.nl = "\r\n"
	}
	top, err := parseObject(d, skipWS(d, 0))
	if err != nil || len(top.members) == 0 {
		return s
	}
	key, ok := indentAt(d, top.members[0].keyStart)
	brace, braceOK := indentAt(d, top.open)
	if ok && braceOK && len(key) > len(brace) && strings.HasPrefix(key, brace) {
		s.unit = key[len(brace):]
	}
	return s
}

// indentAt returns the blanks between the start of pos's line and pos, and whether only
// blanks precede pos on its line.
func indentAt(d []byte, pos int) (string, bool) {
	start := bytes.LastIndexByte(d[:pos], '\n') + 1
	for _, c := range d[start:pos] {
		if c != ' ' && c != '\t' {
			return "", false
		}
	}
	return string(d[start:pos]), true
}

// render writes raw (compact JSON) for a member whose key is indented by prefix.
func (s style) render(raw []byte, prefix string, multi, spaced bool) []byte {
	if multi {
		var b bytes.Buffer
		if json.Indent(&b, raw, prefix, s.unit) != nil {
			return raw
		}
		if s.nl == "\n" {
			return b.Bytes()
		}
		// Compact JSON has no raw line break inside a string: every '\n' is json.Indent's.
		return bytes.ReplaceAll(b.Bytes(), []byte("\n"), []byte(s.nl))
	}
	if !spaced {
		return raw
	}
	var b bytes.Buffer
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; c {
		case '"':
			j := skipString(raw, i)
			b.Write(raw[i:j])
			i = j - 1
		case ',', ':':
			b.WriteByte(c)
			b.WriteByte(' ')
		default:
			b.WriteByte(c)
		}
	}
	return b.Bytes()
}

// spacedAfter reports whether the first comma or colon of v (outside strings) is followed
// by a blank, and whether v has one at all.
func spacedAfter(v []byte) (spaced, found bool) {
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '"':
			i = skipString(v, i) - 1
		case ',', ':':
			return i+1 < len(v) && (v[i+1] == ' ' || v[i+1] == '\t'), true
		}
	}
	return false, false
}

// span is one member of an object: where its key and value are in the data.
type span struct {
	key                                string
	keyStart, keyEnd, valStart, valEnd int
}

// object is an object in the data: its braces and members.
type object struct {
	open, close int
	members     []span
}

func (o object) occurrences(key string) []int {
	var at []int
	for i, m := range o.members {
		if m.key == key {
			at = append(at, i)
		}
	}
	return at
}

func (o object) multiLine(d []byte) bool {
	return bytes.IndexByte(d[o.open:o.close], '\n') >= 0
}

func splice(d []byte, from, to int, with []byte) []byte {
	out := make([]byte, 0, len(d)-(to-from)+len(with))
	out = append(out, d[:from]...)
	out = append(out, with...)
	return append(out, d[to:]...)
}

func (o object) remove(d []byte, k int) []byte {
	m := o.members
	switch {
	case len(m) == 1:
		return splice(d, o.open+1, o.close, nil)
	case k < len(m)-1:
		return splice(d, m[k].keyStart, m[k+1].keyStart, nil)
	}
	return splice(d, m[k-1].valEnd, m[k].valEnd, nil)
}

func (o object) replace(d []byte, k int, s style, raw []byte) []byte {
	m := o.members[k]
	old := d[m.valStart:m.valEnd]
	indent, atLine := indentAt(d, m.keyStart)
	multi := s.unit != "" && atLine && o.multiLine(d)
	oneLineBefore := (old[0] == '[' || old[0] == '{') && bytes.IndexByte(old, '\n') < 0 && len(bytes.TrimSpace(old[1:len(old)-1])) > 0
	if oneLineBefore {
		multi = false
	}
	spaced, found := spacedAfter(old)
	if !found {
		spaced = bytes.ContainsAny(d[m.keyEnd:m.valStart], " \t")
	}
	return splice(d, m.valStart, m.valEnd, s.render(raw, indent, multi, spaced))
}

func (o object) insert(d []byte, key string, s style, raw []byte) []byte {
	k, _ := compactJSON(key)
	if len(o.members) == 0 {
		brace, atLine := indentAt(d, o.open)
		var b bytes.Buffer
		b.WriteByte('{')
		if s.unit != "" && atLine {
			in := brace + s.unit
			b.WriteString(s.nl + in)
			b.Write(k)
			b.WriteString(": ")
			b.Write(s.render(raw, in, true, true))
			b.WriteString(s.nl + brace)
		} else {
			b.Write(k)
			b.WriteString(": ")
			b.Write(s.render(raw, "", false, true))
		}
		b.WriteByte('}')
		return splice(d, o.open, o.close+1, b.Bytes())
	}
	n := len(o.members)
	last := o.members[n-1]
	kv := d[last.keyEnd:last.valStart]
	indent, atLine := indentAt(d, last.keyStart)
	multi := s.unit != "" && atLine && o.multiLine(d)
	spaced := bytes.ContainsAny(kv, " \t")
	var b bytes.Buffer
	switch {
	case n >= 2:
		b.Write(d[o.members[n-2].valEnd:o.members[n-1].keyStart])
	case multi:
		b.WriteString("," + s.nl + indent)
	case spaced:
		b.WriteString(", ")
	default:
		b.WriteByte(',')
	}
	b.Write(k)
	b.Write(kv)
	b.Write(s.render(raw, indent, multi, spaced))
	return splice(d, last.valEnd, last.valEnd, b.Bytes())
}

// The scanner below walks data already known to be valid JSON (SetMember checks), so it
// only finds where things are.

func skipWS(d []byte, i int) int {
	for i < len(d) && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the offset after the string that starts at d[i] ('"').
func skipString(d []byte, i int) int {
	for i++; i < len(d); i++ {
		switch d[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(d)
}

// skipValue returns the offset after the value that starts at d[i].
func skipValue(d []byte, i int) int {
	switch d[i] {
	case '"':
		return skipString(d, i)
	case '{', '[':
		depth := 0
		for i < len(d) {
			switch d[i] {
			case '"':
				i = skipString(d, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(d)
	}
	for i < len(d) && !strings.ContainsRune(",]} \t\r\n", rune(d[i])) {
		i++
	}
	return i
}

func parseObject(d []byte, open int) (object, error) {
	if open >= len(d) || d[open] != '{' {
		return object{}, errors.New("not an object")
	}
	o := object{open: open}
	i := skipWS(d, open+1)
	if d[i] == '}' {
		o.close = i
		return o, nil
	}
	for {
		m := span{keyStart: i, keyEnd: skipString(d, i)}
		if err := json.Unmarshal(d[m.keyStart:m.keyEnd], &m.key); err != nil {
			return object{}, err
		}
		m.valStart = skipWS(d, skipWS(d, m.keyEnd)+1) // past the ':'
		m.valEnd = skipValue(d, m.valStart)
		o.members = append(o.members, m)
		if i = skipWS(d, m.valEnd); d[i] == ',' {
			i = skipWS(d, i+1)
			continue
		}
		o.close = i
		return o, nil
	}
}

// locate finds the object at JSON pointer ptr.
func locate(d []byte, ptr string) (object, error) {
	i := skipWS(d, 0)
	if ptr != "" && ptr[0] != '/' {
		return object{}, fmt.Errorf("%q is not a JSON pointer", ptr)
	}
	var tokens []string
	if ptr != "" {
		tokens = strings.Split(ptr[1:], "/")
	}
	for n, tok := range tokens {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		at := "/" + strings.Join(tokens[:n+1], "/")
		switch d[i] {
		case '{':
			o, err := parseObject(d, i)
			if err != nil {
				return object{}, err
			}
			found := o.occurrences(tok)
			if len(found) == 0 {
				return object{}, fmt.Errorf("%s does not exist", at)
			}
			i = o.members[found[0]].valStart
		case '[':
			idx, err := strconv.Atoi(tok)
			if err != nil || idx < 0 {
				return object{}, fmt.Errorf("%s: %q is not an index", at, tok)
			}
			j := skipWS(d, i+1)
			for e := 0; ; e++ {
				if d[j] == ']' {
					return object{}, fmt.Errorf("%s does not exist", at)
				}
				if e == idx {
					break
				}
				if j = skipWS(d, skipValue(d, j)); d[j] == ',' {
					j = skipWS(d, j+1)
				}
			}
			i = j
		default:
			return object{}, fmt.Errorf("%s does not exist", at)
		}
	}
	o, err := parseObject(d, i)
	if err != nil {
		return object{}, fmt.Errorf("%s: %w", orTop(ptr), err)
	}
	return o, nil
}

func orTop(ptr string) string {
	if ptr == "" {
		return "the top level"
	}
	return ptr
}
