package jsondoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

const doc = `{
  "name": "x",
  "mcpServers": {
    "a/b": {
      "args": [
        "one",
        "two"
      ]
    },
    "c": 1
  }
}`

func TestLine(t *testing.T) {
	tests := []struct {
		pointer string
		want    int
	}{
		{"", 1},
		{"/name", 2},
		{"/mcpServers", 3},
		{"/mcpServers/a~1b", 4},
		{"/mcpServers/a~1b/args", 5},
		{"/mcpServers/a~1b/args/1", 7},
		{"/mcpServers/c", 10},
		{"/mcpServers/missing", 3},
		{"/nope", 1},
	}
	for _, tc := range tests {
		if got := Line([]byte(doc), tc.pointer); got != tc.want {
			t.Errorf("Line(doc, %q) = %d, want %d", tc.pointer, got, tc.want)
		}
	}
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		wantErr string
		line    int
	}{
		{"ok", `{"a": [1, 2]}`, "", 0},
		{"syntax", "{\n\"a\": ,\n}", "not valid JSON", 2},
		{"empty", "", "ends early", 1},
		{"trailing", `{} {}`, "after the top-level", 1},
		{"utf8", "{\"a\": \"\xff\"}", "UTF-8", 1},
		{"deep", strings.Repeat("[", 100000) + strings.Repeat("]", 100000), "deeper", 1},
	}
	for _, tc := range tests {
		_, err := Decode([]byte(tc.in))
		if tc.wantErr == "" {
			if err != nil {
				t.Errorf("%s: Decode error %v", tc.name, err)
			}
			continue
		}
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.Contains(se.Msg, tc.wantErr) || se.Line != tc.line {
			t.Errorf("%s: Decode error = %v (line %v), want %q at line %d", tc.name, err, se, tc.wantErr, tc.line)
		}
	}
}

func FuzzDecodeLine(f *testing.F) {
	f.Add([]byte(doc), "/mcpServers/a~1b/args/1")
	f.Add([]byte(`[[[[`), "/0/0")
	f.Add([]byte(`{"a":"\u00e9"}`), "/a")
	f.Fuzz(func(t *testing.T, data []byte, ptr string) {
		_, _ = Decode(data)
		if l := Line(data, ptr); l < 1 {
			t.Fatalf("Line = %d", l)
		}
	})
}

func TestErrorLine(t *testing.T) {
	_, err := Decode([]byte("{\n  \"a\": 1,\n  \"b\": ]\n}"))
	if got := ErrorLine(err); got != 3 {
		t.Errorf("ErrorLine(syntax error on line 3) = %d (%v)", got, err)
	}
	_, err = Decode([]byte("{}\n\xff"))
	if got := ErrorLine(err); got != 2 {
		t.Errorf("ErrorLine(invalid UTF-8 on line 2) = %d (%v)", got, err)
	}
	if got := ErrorLine(io.EOF); got != 0 {
		t.Errorf("ErrorLine(not a Decode error) = %d, want 0", got)
	}
}

func TestKind(t *testing.T) {
	v, _ := Decode([]byte(`[null, true, 1.5, "s", [], {}]`))
	want := []string{"null", "a boolean", "a number", "a string", "an array", "an object"}
	for i, x := range v.([]any) {
		if got := Kind(x); got != want[i] {
			t.Errorf("Kind(%v) = %q, want %q", x, got, want[i])
		}
	}
}

// Child steps one decoded token into a member or an item, and gives nil where there is none.
func TestChild(t *testing.T) {
	doc := map[string]any{"a": []any{"x", map[string]any{"": 1.0}}, "n": nil}
	for _, c := range []struct {
		v     any
		token string
		want  any
	}{
		{doc, "n", nil}, {doc, "missing", nil}, {doc["a"], "0", "x"}, {doc["a"], "2", nil}, {doc["a"], "-1", nil},
		{doc["a"], "x", nil}, {doc["a"].([]any)[1], "", 1.0}, {"text", "0", nil},
	} {
		if got := Child(c.v, c.token); got != c.want {
			t.Errorf("Child(%v, %q) = %v, want %v", c.v, c.token, got, c.want)
		}
	}
	if got, _ := Child(doc, "a").([]any); len(got) != 2 {
		t.Errorf("Child(doc, \"a\") = %v", got)
	}
}

// FuzzDecodeMatchesEncodingJSON: Decode gives what encoding/json gives (with UseNumber),
// or an error where it refuses the document.
func FuzzDecodeMatchesEncodingJSON(f *testing.F) {
	for _, s := range []string{doc, `{"a":1,"a":2}`, `{"a":"\ud800"}`, `{"a":"\u00e9\n\"x\""}`, `[1e400, -0.0, 12345678901234567890]`,
		`{"a":{"b":[true,false,null,{}]}}`, `"\u2028"`, ` {} `, `{}x`, `{"a":[1,]}`, `{"a" 1}`, `01`, `{"a":"` + "\x7f" + `"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Decode(data)
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var want any
		stdErr := dec.Decode(&want)
		if stdErr == nil {
			if _, e := dec.Token(); e != io.EOF {
				stdErr = errors.New("trailing data")
			}
		}
		if stdErr != nil || !utf8.Valid(data) {
			if err == nil {
				t.Fatalf("Decode(%q) = %#v, encoding/json refuses it (%v)", data, got, stdErr)
			}
			return
		}
		if err != nil {
			if d, _ := depth(data); d > MaxDepth {
				return
			}
			t.Fatalf("Decode(%q): %v, encoding/json decodes %#v", data, err, want)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Decode(%q) = %#v, encoding/json %#v", data, got, want)
		}
	})
}

// BenchmarkDecode: a typical mcp.json, by Decode and by encoding/json alone (Decode's
// path for a document segmentio/encoding refuses).
func BenchmarkDecode(b *testing.B) {
	data := []byte(`{"$schema":"https://agent-plugins.org/schemas/1.0.0/mcp.schema.json","mcpServers":{` +
		`"local":{"type":"stdio","command":"${PLUGIN_ROOT}/bin/server","args":["--port","0","--verbose"],"env":{"CONFIG":"${PLUGIN_DATA}/config.json"}},` +
		`"remote":{"type":"streamable-http","url":"http://127.0.0.1:9/mcp","headers":{"X-Tenant":"bench"}}}}`)
	b.Run("Decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Decode(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.UseNumber()
			var v any
			if err := dec.Decode(&v); err != nil {
				b.Fatal(err)
			}
		}
	})
}
