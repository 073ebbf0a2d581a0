// Package jsondoc decodes JSON documents defensively and maps JSON pointers back to line
// numbers, so that every issue in a JSON file can say where it is. It holds no state and
// is safe for concurrent use.
package jsondoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	segjson "github.com/segmentio/encoding/json"
)

// MaxDepth bounds nesting. Real manifests nest three or four levels; encoding/json stops
// at 10,000, and walking that deep costs stack for nothing.
const MaxDepth = 64

// SyntaxError is a document that is not JSON, with the 1-based line where it broke.
type SyntaxError struct {
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string { return e.Msg }

// ErrorLine is the 1-based line a Decode error points at, or 0 for an error that is not
// one of Decode's.
func ErrorLine(err error) int {
	var se *SyntaxError
	if errors.As(err, &se) {
		return se.Line
	}
	return 0
}

// Decode parses data into generic values (objects as map[string]any, numbers as
// json.Number). It refuses invalid UTF-8, nesting deeper than MaxDepth, and trailing data.
func Decode(data []byte) (any, error) {
	if !utf8.Valid(data) {
		off := FirstInvalidUTF8(data)
		return nil, &SyntaxError{Line: LineAt(data, off), Msg: "is not valid UTF-8 (JSON must be UTF-8); re-save the file as UTF-8"}
	}
	if d, off := depth(data); d > MaxDepth {
		return nil, &SyntaxError{Line: LineAt(data, off), Msg: fmt.Sprintf("nests deeper than %d levels; flatten it", MaxDepth)}
	}
	// segmentio/encoding decodes a valid document into the same values as encoding/json
	// (FuzzDecodeMatchesEncodingJSON), with fewer allocations (BenchmarkDecode, a typical
	// mcp.json: 6.6 µs and 47 allocations for all of Decode, against 8.4 µs and 58 for
	// encoding/json's decoding alone); anything it refuses is decoded again by
	// encoding/json, whose errors the messages below are made from.
	var v any
	if rest, err := segjson.Parse(data, &v, segjson.UseNumber); err == nil && len(bytes.TrimLeft(rest, " \t\r\n")) == 0 {
		return v, nil
	}
	v = nil
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, syntaxError(data, dec, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &SyntaxError{Line: LineAt(data, int(dec.InputOffset())), Msg: "has data after the top-level value; remove it"}
	}
	return v, nil
}

func syntaxError(data []byte, dec *json.Decoder, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return &SyntaxError{Line: LineAt(data, int(se.Offset)), Msg: "is not valid JSON: " + se.Error()}
	case errors.As(err, &te):
		return &SyntaxError{Line: LineAt(data, int(te.Offset)), Msg: "is not valid JSON: " + te.Error()}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &SyntaxError{Line: LineAt(data, len(data)), Msg: "is not valid JSON: it ends early (empty or cut off)"}
	}
	return &SyntaxError{Line: LineAt(data, int(dec.InputOffset())), Msg: "is not valid JSON: " + err.Error()}
}

// FirstInvalidUTF8 returns the offset of the first byte that is not valid UTF-8, or
// len(data) when all of it is.
func FirstInvalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(data)
}

// depth returns the deepest nesting of brackets outside strings, and where it was reached.
func depth(data []byte) (max, at int) {
	d := 0
	inStr, esc := false, false
	for i, b := range data {
		if inStr {
			switch {
			case esc:
				esc = false
			case b == '\\':
				esc = true
			case b == '"':
				inStr = false
			}
			continue
		}
		switch b {
		case '"':
			inStr = true
		case '{', '[':
			d++
			if d > max {
				max, at = d, i
				if max > MaxDepth {
					return max, at
				}
			}
		case '}', ']':
			d--
		}
	}
	return max, at
}

// LineAt returns the 1-based line of byte offset off.
func LineAt(data []byte, off int) int {
	if off > len(data) {
		off = len(data)
	}
	if off < 0 {
		off = 0
	}
	return bytes.Count(data[:off], []byte{'\n'}) + 1
}

// Pointer builds an RFC 6901 pointer from tokens.
func Pointer(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		b.WriteString(strings.ReplaceAll(t, "/", "~1"))
	}
	return b.String()
}

// Child is the member or item of v that one decoded JSON-pointer token names (an array
// index in decimal), or nil when v has none.
func Child(v any, token string) any {
	switch x := v.(type) {
	case map[string]any:
		return x[token]
	case []any:
		if i, err := strconv.Atoi(token); err == nil && i >= 0 && i < len(x) {
			return x[i]
		}
	}
	return nil
}

// Line returns the 1-based line where the value (or, for a member, its key) at pointer
// starts in data, the nearest existing ancestor when pointer does not exist, and 1 for
// the empty pointer or a document that is not JSON.
func Line(data []byte, pointer string) int {
	if pointer == "" {
		return 1
	}
	w := &walker{data: data, dec: json.NewDecoder(bytes.NewReader(data)), want: splitPointer(pointer), best: 1}
	w.value(0)
	return w.best
}

type walker struct {
	data []byte
	dec  *json.Decoder
	want []string
	best int
	done bool
}

// value consumes one value whose path matches want[:depth] and records the line of the
// deepest matching member or element.
func (w *walker) value(depth int) bool {
	tok, err := w.dec.Token()
	if err != nil || depth > MaxDepth {
		return false
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return true
	}
	for i := 0; w.dec.More(); i++ {
		off := keyStart(w.data, int(w.dec.InputOffset()))
		name := strconv.Itoa(i)
		if d == '{' {
			k, err := w.dec.Token()
			if err != nil {
				return false
			}
			name, _ = k.(string)
		}
		onPath := !w.done && depth < len(w.want) && w.want[depth] == name
		if onPath {
			w.best = LineAt(w.data, off)
			if depth+1 == len(w.want) {
				w.done = true
			}
		}
		if onPath && !w.done {
			if !w.value(depth + 1) {
				return false
			}
		} else if !w.skip() {
			return false
		}
	}
	_, err = w.dec.Token() // closing delimiter
	return err == nil
}

// skip consumes one value without looking at it.
func (w *walker) skip() bool {
	var raw json.RawMessage
	return w.dec.Decode(&raw) == nil
}

// keyStart skips separators and white space from off to the first byte of the token.
func keyStart(data []byte, off int) int {
	for off < len(data) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
		default:
			return off
		}
	}
	return off
}

func splitPointer(p string) []string {
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, s := range parts {
		s = strings.ReplaceAll(s, "~1", "/")
		parts[i] = strings.ReplaceAll(s, "~0", "~")
	}
	return parts
}

// Kind names the JSON type of a value Decode returned, with its article, for messages:
// "null", "a boolean", "a number", "a string", "an array" or "an object".
func Kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "an unknown value"
}
