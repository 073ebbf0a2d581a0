package mcpconfig

import (
	"reflect"
	"strings"
	"testing"
)

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
