package catalog

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/plugboard/plugboard/backend/benchhome"
)

// TestListJSON: the list part is the document with each plugin cut to what a row shows
// and searches, taken from the same catalog: every value it keeps equals the whole
// document's, and what it leaves out is empty.
func TestListJSON(t *testing.T) {
	o, _ := fullHome(t)
	c := Load(o)
	c.Seq = 3
	var full, list map[string]any
	var fb, lb bytes.Buffer
	if err := c.WriteJSON(&fb); err != nil {
		t.Fatal(err)
	}
	if err := c.List().writePart(&lb); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(fb.Bytes(), &full); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(lb.Bytes(), &list); err != nil {
		t.Fatalf("the list is not JSON: %v\n%s", err, lb.Bytes())
	}
	if n := bytes.Count(lb.Bytes(), []byte("\n")); n != 1 {
		t.Errorf("the list is %d lines, want one", n)
	}
	if list["part"] != "list" {
		t.Errorf(`part = %v, want "list"`, list["part"])
	}
	for _, k := range []string{"home", "plugboardHome", "workspaceTrusted", "settings", "issues", "summary", "seq"} {
		if !reflect.DeepEqual(list[k], full[k]) {
			t.Errorf("%s: list %v, document %v", k, list[k], full[k])
		}
	}
	for _, k := range []string{"skills", "mcp"} {
		if v, ok := list[k].([]any); !ok || len(v) != 0 {
			t.Errorf("%s = %v, want []", k, list[k])
		}
	}
	lps, fps := list["plugins"].([]any), full["plugins"].([]any)
	if len(lps) != len(fps) || len(lps) < 5 {
		t.Fatalf("%d plugins in the list, %d in the document", len(lps), len(fps))
	}
	scalars := []string{"id", "path", "entry", "source", "format", "valid", "name", "version", "description", "manifest", "issueCounts", "marketplace", "revision"}
	for i := range lps {
		lp, fp := lps[i].(map[string]any), fps[i].(map[string]any)
		for _, k := range scalars {
			if !reflect.DeepEqual(lp[k], fp[k]) {
				t.Errorf("plugin %v %s: list %v, document %v", fp["id"], k, lp[k], fp[k])
			}
		}
		var names []any
		for _, s := range fp["skills"].([]any) {
			names = append(names, map[string]any{"name": s.(map[string]any)["name"]})
		}
		if got, _ := lp["skills"].([]any); !reflect.DeepEqual(got, names) && len(names)+len(got) > 0 {
			t.Errorf("plugin %v skills: list %v, want the names %v", fp["id"], got, names)
		}
		if fm, ok := fp["mcp"].(map[string]any); ok {
			lm := lp["mcp"].(map[string]any)
			if lm["valid"] != fm["valid"] || len(lm["servers"].([]any)) != len(fm["servers"].([]any)) {
				t.Errorf("plugin %v mcp: list %v, document %v", fp["id"], lm, fm)
			}
			for j, s := range fm["servers"].([]any) {
				if lm["servers"].([]any)[j].(map[string]any)["valid"] != s.(map[string]any)["valid"] {
					t.Errorf("plugin %v server %d validity differs", fp["id"], j)
				}
			}
		} else if lp["mcp"] != nil {
			t.Errorf("plugin %v mcp: list %v, document none", fp["id"], lp["mcp"])
		}
		if fc, ok := fp["clients"].(map[string]any); ok {
			lc := lp["clients"].(map[string]any)
			for _, name := range []string{"claude", "cursor", "codex", "pi"} {
				f, l := fc[name].(map[string]any), lc[name].(map[string]any)
				for _, k := range []string{"package", "loads"} {
					if l[k] != f[k] {
						t.Errorf("plugin %v %s %s: list %v, document %v", fp["id"], name, k, l[k], f[k])
					}
				}
				if _, ok := l["why"]; ok {
					t.Errorf("plugin %v %s: the list carries the reason, which waits for the document", fp["id"], name)
				}
			}
		} else if lp["clients"] != nil {
			t.Errorf("plugin %v clients: list %v, document none", fp["id"], lp["clients"])
		}
		if v, ok := lp["issues"].([]any); !ok || len(v) != 0 {
			t.Errorf("plugin %v issues = %v, want []", fp["id"], lp["issues"])
		}
	}
}

// A small catalog's List is the whole document, one request for the page; from
// ListMinSkills skills on it is the part.
func TestListWhole(t *testing.T) {
	o, _ := fullHome(t)
	small := Load(o)
	var doc, list bytes.Buffer
	small.WriteJSON(&doc)
	if err := small.List().WriteJSON(&list); err != nil {
		t.Fatal(err)
	}
	if !small.List().Whole() || !bytes.Equal(doc.Bytes(), list.Bytes()) {
		t.Errorf("a catalog of %d skills: its List is not the document", len(small.Skills))
	}
	home := t.TempDir()
	big := Options{Home: home, PlugboardHome: home + "/.plugboard"}
	if err := benchhome.Generate(big.PlugboardHome, ListMinSkills/10, 10); err != nil {
		t.Fatal(err)
	}
	c := Load(big)
	list.Reset()
	if err := c.List().WriteJSON(&list); err != nil {
		t.Fatal(err)
	}
	if c.List().Whole() || !bytes.HasPrefix(list.Bytes(), []byte(`{"part":"list"`)) {
		t.Errorf("a catalog of %d skills: its List is not the part: %.40s", len(c.Skills), list.Bytes())
	}
	if m, _ := c.List().MarshalJSON(); !bytes.Equal(m, list.Bytes()) {
		t.Error("MarshalJSON and WriteJSON differ")
	}
}

// BenchmarkListJSON: the list part of 1,000 plugins × 10 skills against the whole
// document, encoded (bytes per document reported as list-bytes and doc-bytes).
func BenchmarkListJSON(b *testing.B) {
	home := b.TempDir()
	o := Options{Home: home, PlugboardHome: home + "/.plugboard"}
	if err := benchhome.Generate(o.PlugboardHome, 1000, 10); err != nil {
		b.Fatal(err)
	}
	c := Load(o)
	var full bytes.Buffer
	if err := c.WriteJSON(&full); err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := c.List().WriteJSON(&buf); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "list-bytes")
	b.ReportMetric(float64(full.Len()), "doc-bytes")
}
