package catalog

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/plugboard/plugboard/backend/benchhome"
)

// TestWriteJSON: the streamed document is, byte for byte, what encoding/json's Encoder
// writes (HTML not escaped), on one line.
func TestWriteJSON(t *testing.T) {
	o, dir := fullHome(t)
	o.Workspace = filepath.Join(dir, "ws")
	numbered := Load(o)
	numbered.Seq = 7
	// Arrays longer than a chunk of elems: encoded on every CPU, written in order.
	big := filepath.Join(t.TempDir(), ".plugboard")
	if err := benchhome.Generate(big, 600, 2); err != nil {
		t.Fatal(err)
	}
	large := Load(Options{Home: filepath.Dir(big), PlugboardHome: big})
	if len(large.Plugins) != 600 || len(large.Skills) < 1200 {
		t.Fatalf("the large home has %d plugins and %d skills", len(large.Plugins), len(large.Skills))
	}
	// Text encoders differ on: invalid UTF-8, U+2028 and U+2029, HTML's <>&, control
	// characters, a NUL.
	hostile := &Catalog{Skills: []*SkillEntry{}, Plugins: []Plugin{{ID: "x", Name: "a\xffb\xc3", Description: "line\u2028sep\u2029 <b>&amp;</b> \x1b[31m\x00 \u00e9 \u0085 \"q\" \\"}}}
	for _, c := range []*Catalog{Load(o), Load(Options{Home: t.TempDir(), PlugboardHome: t.TempDir()}), numbered, large, hostile} {
		var buf bytes.Buffer
		if err := c.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(buf.Bytes(), []byte("\n")); n != 1 || !bytes.HasSuffix(buf.Bytes(), []byte("}\n")) {
			t.Errorf("WriteJSON wrote %d lines, want one ending the document", n)
		}
		// Byte for byte what encoding/json writes (the stream encodes with a faster
		// library of the same output).
		var std bytes.Buffer
		enc := json.NewEncoder(&std)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(c); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), std.Bytes()) {
			i := 0
			for i < min(buf.Len(), std.Len()) && buf.Bytes()[i] == std.Bytes()[i] {
				i++
			}
			t.Errorf("WriteJSON differs from encoding/json at byte %d:\n%.200s\n%.200s", i, buf.Bytes()[i:], std.Bytes()[i:])
		}
	}
}
