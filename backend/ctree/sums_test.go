package ctree

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// trusting is a Sums that remembers files changed up to an hour from now: the files of a
// test are seconds old, which a real Sums would not remember yet.
func trusting() *Sums {
	s := NewSums()
	s.since = time.Now().Add(time.Hour).UnixNano()
	return s
}

func sumsOf(tr *Tree) []string {
	var out []string
	for _, f := range tr.Files {
		out = append(out, f.Rel+"="+f.Sum)
	}
	return out
}

// A walk with Sums takes the hash of an unchanged file from them, and reads a file whose
// content (and so its times) changed, even at the same size; the result is the plain
// walk's every time.
func TestSumsGiveTheHashesOfUnchangedFiles(t *testing.T) {
	root := resolvedRoot(t, t.TempDir())
	write(t, root, map[string]string{"SKILL.md": "---\nname: a\n---\n", "references/r.md": "reference", "scripts/run.sh": "echo"})
	symlink(t, "references/r.md", filepath.Join(root, "linked.md"))
	sums := trusting()
	walk := func(wantHits int) {
		t.Helper()
		plain, err := Walk(root, root, Options{})
		if err != nil {
			t.Fatal(err)
		}
		before := sums.Hits()
		got, err := Walk(root, root, Options{Sums: sums})
		if err != nil {
			t.Fatal(err)
		}
		if got.Sum != plain.Sum || !slices.Equal(sumsOf(got), sumsOf(plain)) {
			t.Errorf("walk with Sums = %v, want the plain walk's %v", sumsOf(got), sumsOf(plain))
		}
		if hits := sums.Hits() - before; hits != wantHits {
			t.Errorf("hits = %d, want %d", hits, wantHits)
		}
	}
	walk(1) // learns the three files; the second way to r.md (the link) is a hit already
	walk(4)
	rewrite(t, filepath.Join(root, "references/r.md"), "REFERENCE")
	walk(3) // r.md is read again, once
	walk(4)
	if err := os.Chmod(filepath.Join(root, "scripts/run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	walk(3)
}

// rewrite writes text (of the same size) over the file at p until its status-change
// time moved: a write within the kernel's timestamp tick leaves it as it was, which is
// the racy case a real Sums leaves alone and trusting() does not.
func rewrite(t *testing.T, p, text string) {
	t.Helper()
	var before unix.Stat_t
	if err := unix.Stat(p, &before); err != nil {
		t.Fatal(err)
	}
	for {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		var after unix.Stat_t
		if err := unix.Stat(p, &after); err != nil {
			t.Fatal(err)
		}
		if after.Ctim != before.Ctim {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// Files changed in the last seconds are hashed but not remembered, and a Sums that
// learned nothing writes nothing.
func TestSumsDoNotRememberRecentFiles(t *testing.T) {
	sums := NewSums() // first: the files are then newer than it, however slow the machine
	root := resolvedRoot(t, t.TempDir())
	write(t, root, map[string]string{"SKILL.md": "x", "a.md": "y"})
	for range 2 {
		if _, err := Walk(root, root, Options{Sums: sums}); err != nil {
			t.Fatal(err)
		}
	}
	if sums.Hits() != 0 {
		t.Errorf("hits = %d for files changed just now, want 0", sums.Hits())
	}
	path := filepath.Join(t.TempDir(), "sums")
	if err := sums.Save(path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("Save of a Sums that learned nothing wrote %s (%v)", path, err)
	}
}

// Sums saved and loaded again give the same hashes; a damaged file is an empty Sums.
func TestSumsSaveAndLoad(t *testing.T) {
	root := resolvedRoot(t, t.TempDir())
	write(t, root, map[string]string{"SKILL.md": "x", "a/b.md": "y"})
	sums := trusting()
	if _, err := Walk(root, root, Options{Sums: sums}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sums")
	if err := sums.Save(path); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("saved sums: %v, %v; want a private file", st, err)
	}
	loaded := LoadSums(path)
	if _, err := Walk(root, root, Options{Sums: loaded}); err != nil {
		t.Fatal(err)
	}
	if loaded.Hits() != 2 {
		t.Errorf("hits from the loaded Sums = %d, want 2", loaded.Hits())
	}
	data, _ := os.ReadFile(path)
	for name, bad := range map[string][]byte{
		"no header":  data[len(sumsHeader)+1:],
		"short line": append(append([]byte{}, data...), "1 2 3\n"...),
		"bad number": append(append([]byte{}, data...), "1 x 3 4 5 6 "+string(make([]byte, 64))+"\n"...),
	} {
		if err := os.WriteFile(path, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		s := LoadSums(path)
		if _, err := Walk(root, root, Options{Sums: s}); err != nil || s.Hits() != 0 {
			t.Errorf("%s: hits %d, %v; want an empty Sums", name, s.Hits(), err)
		}
	}
}

// Save keeps the files the Sums was asked about: those of a folder no longer walked go,
// and a Sums whose every file was asked about and that learned nothing writes nothing.
func TestSumsKeepOnlyTheFilesAskedAbout(t *testing.T) {
	root := resolvedRoot(t, t.TempDir())
	write(t, root, map[string]string{"a/SKILL.md": "a", "a/x.md": "x", "b/SKILL.md": "b"})
	path := filepath.Join(t.TempDir(), "sums")
	walk := func(s *Sums, dirs ...string) {
		t.Helper()
		for _, d := range dirs {
			if _, err := Walk(root, filepath.Join(root, d), Options{Sums: s}); err != nil {
				t.Fatal(err)
			}
		}
	}
	load := func() *Sums { s := LoadSums(path); s.since = trusting().since; return s }
	s := trusting()
	walk(s, "a", "b")
	if err := s.Save(path); err != nil {
		t.Fatal(err)
	}
	s = load()
	walk(s, "a", "b")
	if s.Hits() != 3 {
		t.Fatalf("hits = %d, want 3", s.Hits())
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Fatalf("a Sums that learned nothing and was asked about every file wrote %s (%v)", path, err)
	}
	s.learned = true // as if it had learned something: written again, whole
	if err := s.Save(path); err != nil {
		t.Fatal(err)
	}
	s = load()
	walk(s, "a") // b is no longer walked
	if err := s.Save(path); err != nil {
		t.Fatal(err)
	}
	s = load()
	walk(s, "b")
	if s.Hits() != 0 {
		t.Errorf("hits in b = %d after a save that walked only a, want 0", s.Hits())
	}
	s = load()
	walk(s, "a")
	if s.Hits() != 2 {
		t.Errorf("hits in a = %d, want 2", s.Hits())
	}
}
