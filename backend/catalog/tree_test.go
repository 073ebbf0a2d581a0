package catalog

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/testhome"
)

// What a launch leaves out of a skill folder is a warning on the skill in inspect and the
// catalog first, with the code the launch plan's drop carries (runtime's
// TestOutsideLinkIsLeftOutOfItsSkill); a folder too large to project makes the skill
// invalid.
func TestSkillTreeIssues(t *testing.T) {
	pb := testhome.CopyTestdata(t, filepath.Join("runtime", "home"))
	plugin := filepath.Join(pb, "plugins", "review")
	refs := filepath.Join(plugin, "skills", "explain", "references")
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "id_ed25519"), []byte("key"), 0o600)
	os.Symlink(filepath.Join(outside, "id_ed25519"), filepath.Join(refs, "key"))
	os.Symlink("nowhere", filepath.Join(refs, "gone"))
	if err := syscall.Mkfifo(filepath.Join(refs, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := Inspect(plugin, filepath.Dir(pb))
	var explain, check *struct{ codes []string }
	for _, s := range p.Skills {
		var codes []string
		for _, i := range s.Issues {
			codes = append(codes, i.Code+"@"+i.Path+":"+string(i.Severity))
		}
		slices.Sort(codes)
		switch s.Name {
		case "explain":
			explain = &struct{ codes []string }{codes}
			if !s.Valid {
				t.Errorf("explain is invalid: %v", s.Issues)
			}
		case "check":
			check = &struct{ codes []string }{codes}
		}
	}
	want := []string{
		"skill.tree-dangling@skills/explain/references/gone:warning",
		"skill.tree-outside@skills/explain/references/key:warning",
		"skill.tree-special@skills/explain/references/pipe:warning",
	}
	if explain == nil || !slices.Equal(explain.codes, want) {
		t.Errorf("explain's issues = %v, want %v", explain, want)
	}
	if check == nil || len(check.codes) != 0 {
		t.Errorf("check's issues = %v, want none", check)
	}

	for i := 0; i <= 2000; i++ {
		os.WriteFile(filepath.Join(refs, "n"+strconv.Itoa(i)+".md"), nil, 0o644)
	}
	p = Inspect(plugin, filepath.Dir(pb))
	for _, s := range p.Skills {
		if s.Name == "explain" && (s.Valid || !slices.ContainsFunc(s.Issues, func(i issue.Issue) bool { return i.Code == "skill.tree-too-large" })) {
			t.Errorf("an oversized explain: valid=%v %v", s.Valid, s.Issues)
		}
	}
}

// A skill folder whose folders link to one another (no link leaves it, none is a loop)
// holds exponentially many paths: the folder check stops at its entry bound and makes
// the skill invalid with a message naming the links, so inspect and the catalog finish
// (they walked for minutes before).
func TestSkillTreeOfLinkedFolders(t *testing.T) {
	pb := testhome.CopyTestdata(t, filepath.Join("runtime", "home"))
	plugin := filepath.Join(pb, "plugins", "review")
	refs := filepath.Join(plugin, "skills", "explain", "references")
	const n = 20
	for i := 1; i <= n; i++ {
		if err := os.Mkdir(filepath.Join(refs, "d"+strconv.Itoa(i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= n; i++ {
		for j := i + 1; j <= n; j++ {
			if err := os.Symlink("../d"+strconv.Itoa(j), filepath.Join(refs, "d"+strconv.Itoa(i), "l"+strconv.Itoa(j))); err != nil {
				t.Fatal(err)
			}
		}
	}
	p := Inspect(plugin, filepath.Dir(pb))
	found := false
	for _, s := range p.Skills {
		if s.Name != "explain" {
			continue
		}
		found = true
		i := slices.IndexFunc(s.Issues, func(i issue.Issue) bool { return i.Code == "skill.tree-too-large" })
		if s.Valid || i < 0 || !strings.Contains(s.Issues[i].Message, "symbolic links") {
			t.Errorf("explain with linked folders: valid=%v %v", s.Valid, s.Issues)
		}
	}
	if !found {
		t.Fatal("no explain skill")
	}
}
