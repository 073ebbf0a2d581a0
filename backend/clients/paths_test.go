package clients

import (
	"path/filepath"
	"testing"
)

// dirOf is filepath.Dir on every path of up to eight characters over "a", "/" and ".":
// clean or not, absolute or relative.
func TestDirOfIsFilepathDir(t *testing.T) {
	n := 0
	var walk func(p string)
	walk = func(p string) {
		if got, want := dirOf(p), filepath.Dir(p); got != want {
			t.Errorf("dirOf(%q) = %q, filepath.Dir %q", p, got, want)
		}
		n++
		if len(p) == 8 {
			return
		}
		for _, c := range []string{"a", "/", "."} {
			walk(p + c)
		}
	}
	walk("")
	if n != 9841 {
		t.Fatalf("checked %d paths", n)
	}
}

// skillPaths are child(dir, name) and child(that, "SKILL.md"), also at the root.
func TestSkillPaths(t *testing.T) {
	for _, dir := range []string{"/", "/home/u/p/skills", "rel"} {
		folder, file := skillPaths(dir, "s")
		if folder != filepath.Join(dir, "s") || file != filepath.Join(dir, "s", "SKILL.md") {
			t.Errorf("skillPaths(%q, s) = %q, %q", dir, folder, file)
		}
	}
}
