package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/plugboard/plugboard/backend/benchhome"
)

// The floor reads exactly plugin.json, mcp.json and each skills/*/SKILL.md of every
// plugin; -stat looks those up, and the plugin and skill folders, instead.
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
	wantRead, wantStat := 0, 0
	plugins, _ := filepath.Glob(filepath.Join(home, "plugins", "*"))
	skills, _ := filepath.Glob(filepath.Join(home, "plugins", "*", "skills", "*"))
	if len(plugins) != 3 || len(skills) != 12 {
		t.Fatalf("generated %d plugins and %d skills, want 3 and 12", len(plugins), len(skills))
	}
	for _, p := range plugins {
		files := size(filepath.Join(p, "plugin.json")) + size(filepath.Join(p, "mcp.json"))
		wantRead += files
		wantStat += files + size(p)
	}
	for _, s := range skills {
		wantRead += size(filepath.Join(s, "SKILL.md"))
		wantStat += size(filepath.Join(s, "SKILL.md")) + size(s)
	}
	for _, c := range []struct {
		stat bool
		want int
	}{{false, wantRead}, {true, wantStat}} {
		got, err := scan(home, c.stat)
		if err != nil || got != c.want {
			t.Errorf("scan(stat=%v) = %d, %v; want %d", c.stat, got, err, c.want)
		}
	}
	if _, err := scan(filepath.Join(home, "absent"), false); err == nil {
		t.Error("scan of a home without plugins/ did not fail")
	}
}
