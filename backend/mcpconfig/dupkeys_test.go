package mcpconfig

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// bigObject is the members n0..n19 of an object: more than a small object holds.
var bigObject = func() string {
	var b strings.Builder
	for i := range 20 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"n` + strconv.Itoa(i) + `":{"n0":1}`)
	}
	return b.String()
}()

func TestScanDuplicates(t *testing.T) {
	many := `{` + strings.Repeat(`"k":1,`, 40) + `"k":2}`
	tests := []struct {
		doc  string
		want []dupKey
	}{
		{`{"a":1,"b":2}`, nil},
		{`{"a":1,"a":2}`, []dupKey{{tokens: []string{"a"}, line: 1}}},
		{"{\"x\":[{\"a\":1},{\"b\":{\"c\":1,\n\"c\":2}}]}", []dupKey{{tokens: []string{"x", "1", "b", "c"}, line: 2}}},
		{`{"a\"b":1,"a\u0022b":2,"s":"{\"a\":1,\"a\":1}"}`, []dupKey{{tokens: []string{`a"b`}, line: 1}}},
		{`[{"a":1},{"a":1}]`, nil},
		{`{"a":{"a":1}}`, nil},
		// The names of an object that closed are not its parent's or its sibling's.
		{`{"a":{"b":1,"c":2},"b":{"c":3,"b":4},"c":5}`, nil},
		{`{"a":{"b":1},"d":{"b":2,"b":3},"a":4}`, []dupKey{{tokens: []string{"d", "b"}, line: 1}, {tokens: []string{"a"}, line: 1}}},
		// A large object (a map of its names) around a small one, and after it.
		{`{` + bigObject + `,"in":{"x":1,"x":2},"n0":3}`,
			[]dupKey{{tokens: []string{"in", "x"}, line: 1}, {tokens: []string{"n0"}, line: 1}}},
	}
	for _, tc := range tests {
		if got := scanDoc([]byte(tc.doc)).dups; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("duplicateKeys(%s) = %+v, want %+v", tc.doc, got, tc.want)
		}
	}
	if got := scanDoc([]byte(many)).dups; len(got) != 40 {
		t.Errorf("40 repeats of one name in a large object: got %d", len(got))
	}
}

func TestScanLines(t *testing.T) {
	doc := "{\n\"a\": [1,\n  {\"b\": true},\n  \"x\"],\n\"c/d\": {\"e~f\":\nnull}, \"g\": {\"h\": {\"i\": {\"j\": {\"k\": 1}}}}\n}"
	x := scanDoc([]byte(doc))
	for ptr, want := range map[string]int{
		"": 1, "/a": 2, "/a/0": 2, "/a/1": 3, "/a/1/b": 3, "/a/2": 4, "/c~1d": 5, "/c~1d/e~0f": 5,
		"/g": 6, "/g/h/i/j": 6, "/g/h/i/j/k": 6, "/missing": 1, "/a/9": 2,
	} {
		if got := x.lineOf(ptr); got != want {
			t.Errorf("lineOf(%q) = %d, want %d", ptr, got, want)
		}
	}
	if x.lineOf(""); len(x.lines) > 13 {
		t.Errorf("index holds %d pointers; deeper than %d levels should not be recorded: %v", len(x.lines), lineDepth, x.lines)
	}
}
