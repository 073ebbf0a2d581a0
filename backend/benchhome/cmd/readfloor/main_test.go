package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/plugboard/plugboard/backend/benchhome"
)

// The floor reads exactly plugin.json, mcp.json and each skills/*/SKILL.md of every
// plugin, and lists plugins/, each plugin folder, its skills/ and each skill folder.
func TestScan(t *testing.T) {
	home := filepath.Join(t.TempDir(), ".plugboard")
	if err := benchhome.Generate(home, 3, 4); err != nil {
		t.Fatal(err)
	}
	size := func(p string) int {
		st, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		return int(st.Size())
	}
	count := func(p string) int {
		names, err := os.ReadDir(p)
		if err != nil {
			t.Fatal(err)
		}
		return len(names)
	}
	wantRead, wantListed := 0, count(filepath.Join(home, "plugins"))
	plugins, _ := filepath.Glob(filepath.Join(home, "plugins", "*"))
	skills, _ := filepath.Glob(filepath.Join(home, "plugins", "*", "skills", "*"))
	if len(plugins) != 3 || len(skills) != 12 {
		t.Fatalf("generated %d plugins and %d skills, want 3 and 12", len(plugins), len(skills))
	}
	for _, p := range plugins {
		wantRead += size(filepath.Join(p, "plugin.json")) + size(filepath.Join(p, "mcp.json"))
		wantListed += count(p) + count(filepath.Join(p, "skills"))
	}
	for _, s := range skills {
		wantRead += size(filepath.Join(s, "SKILL.md"))
		wantListed += count(s)
	}
	got, listed, err := scan(home)
	if err != nil || got != wantRead || listed != wantListed {
		t.Errorf("scan = %d bytes, %d names, %v; want %d and %d", got, listed, err, wantRead, wantListed)
	}
	if _, _, err := scan(filepath.Join(home, "absent")); err == nil {
		t.Error("scan of a home without plugins/ did not fail")
	}
}
