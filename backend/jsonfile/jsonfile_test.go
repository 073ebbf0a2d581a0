package jsonfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMembersSetEncode(t *testing.T) {
	in := []byte(`{"name": "researcher", "pluginDirs": ["plugins/a"], "profile": {"model": "x"}}`)
	m, err := Members(in)
	if err != nil {
		t.Fatal(err)
	}
	m, _ = Set(m, "pluginDirs", []string{"plugins/b"})
	m, _ = Set(m, "extra", 1)
	out, _ := Encode(m)
	want := "{\n  \"name\": \"researcher\",\n  \"pluginDirs\": [\n    \"plugins/b\"\n  ],\n  \"profile\": {\n    \"model\": \"x\"\n  },\n  \"extra\": 1\n}\n"
	if string(out) != want {
		t.Errorf("Encode =\n%s\nwant\n%s", out, want)
	}
	m, _ = Set(m, "pluginDirs", nil)
	if len(m) != 3 || m[1].Key != "profile" {
		t.Errorf("removing a member: %+v", m)
	}
	if _, err := Members([]byte(`[1]`)); err == nil {
		t.Errorf("Members of an array succeeded")
	}
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	os.WriteFile(p, []byte("old"), 0o600)
	if err := WriteAtomic(p, []byte("new"), 0o640); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	st, _ := os.Stat(p)
	if string(b) != "new" || st.Mode().Perm() != 0o640 {
		t.Errorf("file %q mode %v", b, st.Mode().Perm())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".f.json.tmp-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
