package ctree

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/plugboard/plugboard/backend/pathsafe"
	"github.com/plugboard/plugboard/backend/testhome"
)

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, text := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func symlink(t *testing.T, target, at string) {
	t.Helper()
	if err := os.Symlink(target, at); err != nil {
		t.Fatal(err)
	}
}

func resolvedRoot(t *testing.T, dir string) string {
	t.Helper()
	r, err := pathsafe.Root(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func rels(tr *Tree) []string {
	var out []string
	for _, f := range tr.Files {
		out = append(out, f.Rel)
	}
	return out
}

// A tree with links inside the root: each is followed and its file recorded by the path
// in the walked folder, and a copy holds the linked content.
func TestWalkFollowsLinksInsideTheRoot(t *testing.T) {
	root := resolvedRoot(t, t.TempDir())
	write(t, root, map[string]string{
		"skills/a/SKILL.md":      "a",
		"skills/a/ref/notes.md":  "notes",
		"shared/LICENSE":         "license",
		"shared/lib/helper.sh":   "echo hi",
		"skills/a/.hidden":       "h",
		"skills/other/SKILL.md":  "other",
		"outside-skill/extra.md": "extra",
	})
	symlink(t, "../../shared/LICENSE", filepath.Join(root, "skills/a/LICENSE"))
	symlink(t, "../../shared/lib", filepath.Join(root, "skills/a/lib"))
	os.Chmod(filepath.Join(root, "shared/lib/helper.sh"), 0o755)

	tr, err := Walk(root, filepath.Join(root, "skills/a"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".hidden", "LICENSE", "SKILL.md", "lib/helper.sh", "ref/notes.md"}
	if got := rels(tr); !slices.Equal(got, want) {
		t.Fatalf("files %v, want %v", got, want)
	}
	if !slices.Equal(tr.Dirs, []string{"lib", "ref"}) {
		t.Errorf("dirs %v", tr.Dirs)
	}
	dest := filepath.Join(t.TempDir(), "copy")
	if err := tr.CopyTo(dest, 0o700, func(f File) fs.FileMode { return f.Mode }); err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]string{"LICENSE": "license", "lib/helper.sh": "echo hi", "SKILL.md": "a"} {
		b, err := os.ReadFile(filepath.Join(dest, rel))
		if err != nil || string(b) != want {
			t.Errorf("copy of %s = %q, %v; want %q", rel, b, err, want)
		}
	}
	if st, _ := os.Stat(filepath.Join(dest, "lib/helper.sh")); st.Mode().Perm()&0o100 == 0 {
		t.Errorf("helper.sh lost its execute bit: %v", st.Mode())
	}
	// The same content gives the same sum; a change of content or execute bit another.
	again, _ := Walk(root, filepath.Join(root, "skills/a"), Options{})
	if again.Sum != tr.Sum {
		t.Error("the same tree hashed twice differs")
	}
	os.Chmod(filepath.Join(root, "shared/lib/helper.sh"), 0o644)
	if changed, _ := Walk(root, filepath.Join(root, "skills/a"), Options{}); changed.Sum == tr.Sum {
		t.Error("dropping the execute bit kept the sum")
	}
}

func TestWalkRefusals(t *testing.T) {
	outside := t.TempDir()
	write(t, outside, map[string]string{"secret": "SECRET"})
	cases := []struct {
		name string
		make func(t *testing.T, root string)
		kind string
		text string
	}{
		{"link to a file outside", func(t *testing.T, root string) {
			symlink(t, filepath.Join(outside, "secret"), filepath.Join(root, "s/key"))
		}, KindOutside, "key is a symbolic link that leaves the plugin folder"},
		{"relative link climbing out", func(t *testing.T, root string) {
			symlink(t, "../../../../../../../../"+outside+"/secret", filepath.Join(root, "s/key"))
		}, KindOutside, "leaves the plugin folder"},
		{"absolute link back inside", func(t *testing.T, root string) {
			symlink(t, filepath.Join(root, "s/SKILL.md"), filepath.Join(root, "s/again"))
		}, KindOutside, "or is absolute"},
		{"folder link outside", func(t *testing.T, root string) {
			symlink(t, outside, filepath.Join(root, "s/dir"))
		}, KindOutside, "dir is a symbolic link"},
		{"loop", func(t *testing.T, root string) {
			symlink(t, "..", filepath.Join(root, "s/sub/up"))
		}, KindLoop, "sub/up is a symbolic link to a folder it is inside"},
		{"dangling", func(t *testing.T, root string) {
			symlink(t, "nothing-here", filepath.Join(root, "s/gone"))
		}, KindDangling, "gone is a symbolic link to nothing"},
		{"fifo", func(t *testing.T, root string) {
			if err := syscall.Mkfifo(filepath.Join(root, "s/pipe"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, KindSpecial, "pipe is not a regular file or folder (a named pipe)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := resolvedRoot(t, t.TempDir())
			write(t, root, map[string]string{"s/SKILL.md": "x", "s/sub/f": "f"})
			c.make(t, root)
			_, err := Walk(root, filepath.Join(root, "s"), Options{})
			var e *Error
			if !errors.As(err, &e) || e.Kind != c.kind || !strings.Contains(e.Error(), c.text) {
				t.Fatalf("Walk = %v, want a %s error saying %q", err, c.kind, c.text)
			}
			// Left out instead, with the same reason; the rest of the folder is walked.
			tr, err := Walk(root, filepath.Join(root, "s"), Options{Leave: []string{c.kind}})
			if err != nil || len(tr.Skipped) != 1 || tr.Skipped[0].Error() != e.Error() || !slices.Contains(rels(tr), "SKILL.md") {
				t.Errorf("Walk leaving %s out = %+v, %v", c.kind, tr, err)
			}
			for _, f := range tr.Files {
				if strings.Contains(f.Rel, "key") || strings.Contains(f.Rel, "up/") {
					t.Errorf("%s was left in the tree", f.Rel)
				}
			}
		})
	}
}

func TestWalkLimitsAndSkip(t *testing.T) {
	root := resolvedRoot(t, t.TempDir())
	write(t, root, map[string]string{"a": "1", "b": "22", "c/d": "333", ".git/HEAD": "ref"})
	if _, err := Walk(root, root, Options{MaxFiles: 3}); err == nil || !strings.Contains(err.Error(), "more than 3 files") {
		t.Errorf("MaxFiles 3 over 4 files: %v", err)
	}
	if _, err := Walk(root, root, Options{MaxBytes: 5}); err == nil {
		t.Error("MaxBytes 5 over 9 bytes passed")
	}
	tr, err := Walk(root, root, Options{MaxFiles: 3, Skip: func(rel string) bool { return rel == ".git" }})
	if err != nil || !slices.Equal(rels(tr), []string{"a", "b", "c/d"}) {
		t.Errorf("Skip .git: %v %v", rels(tr), err)
	}
	nh, err := Walk(root, root, Options{NoHash: true})
	if err != nil || nh.Sum != "" || nh.Files[0].Sum != "" || len(nh.Files) != 4 {
		t.Errorf("NoHash: %+v %v", nh, err)
	}
}

// linkedFolders makes folders d1..dn under root (and a file beside them), where di links
// to dj (l<j> -> ../d<j>) for every j != i (all, with loops) or only j > i (forward: no
// loop).
func linkedFolders(t *testing.T, root string, n int, all bool) {
	t.Helper()
	write(t, root, map[string]string{"SKILL.md": "x"})
	for i := 1; i <= n; i++ {
		if err := os.Mkdir(filepath.Join(root, fmt.Sprintf("d%d", i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= n; i++ {
		for j := 1; j <= n; j++ {
			if j != i && (all || j > i) {
				symlink(t, fmt.Sprintf("../d%d", j), filepath.Join(root, fmt.Sprintf("d%d", i), fmt.Sprintf("l%d", j)))
			}
		}
	}
}

// A few folders linked to one another hold exponentially many paths (8 folders with
// links among them all: 8! of them; 20 with forward links only, no loop: 2^19): the walk
// stops at MaxEntries, by default four per file allowed, with a too-large error that
// names the links, instead of walking for minutes. Links that reach one folder twice
// stay fine.
func TestWalkBoundsPathsThroughLinks(t *testing.T) {
	for _, c := range []struct {
		name string
		n    int
		all  bool
	}{{"links among all", 8, true}, {"forward links", 20, false}} {
		root := resolvedRoot(t, t.TempDir())
		linkedFolders(t, root, c.n, c.all)
		_, err := Walk(root, root, Options{MaxFiles: 2000, NoHash: true, Leave: []string{KindLoop}})
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindTooLarge || !strings.Contains(e.Error(), "more than 8000 entries counted through its symbolic links") {
			t.Errorf("%s: %v, want a too-large error at 8,000 entries", c.name, err)
		}
		if _, err := Walk(root, root, Options{MaxEntries: 50, NoHash: true, Leave: []string{KindLoop}}); !errors.As(err, &e) || e.Kind != KindTooLarge || !strings.Contains(e.Error(), "more than 50 entries") {
			t.Errorf("%s, MaxEntries 50: %v", c.name, err)
		}
	}
	root := resolvedRoot(t, t.TempDir())
	write(t, root, map[string]string{"shared/a": "1", "shared/b": "2"})
	symlink(t, "shared", filepath.Join(root, "one"))
	symlink(t, "shared", filepath.Join(root, "two"))
	tr, err := Walk(root, root, Options{MaxFiles: 6})
	if err != nil || !slices.Equal(rels(tr), []string{"one/a", "one/b", "shared/a", "shared/b", "two/a", "two/b"}) {
		t.Errorf("one folder linked twice: %v %v", rels(tr), err)
	}
}

// A file edited between the walk and the copy fails the copy with ErrChanged.
func TestCopyRefusesChangedContent(t *testing.T) {
	root := resolvedRoot(t, t.TempDir())
	write(t, root, map[string]string{"s/SKILL.md": "first"})
	tr, err := Walk(root, filepath.Join(root, "s"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	write(t, root, map[string]string{"s/SKILL.md": "fi rs"}) // same size
	err = tr.CopyTo(filepath.Join(t.TempDir(), "c"), 0o700, func(File) fs.FileMode { return 0o600 })
	if !errors.Is(err, ErrChanged) {
		t.Fatalf("CopyTo after an edit = %v, want ErrChanged", err)
	}
	if _, err := tr.Read(tr.Files[0]); !errors.Is(err, ErrChanged) {
		t.Fatalf("Read after an edit = %v, want ErrChanged", err)
	}
}

// The attack: a folder inside a skill is swapped, again and again, with a symbolic link to
// a folder outside (renameat2 RENAME_EXCHANGE, atomic) while the tree is walked and
// copied. No walk and no copy may ever hold a byte from outside: each either sees the
// real folder, or fails.
func TestSwappedFolderNeverLeaksOutsideBytes(t *testing.T) {
	outside := t.TempDir()
	secret := "-----BEGIN OPENSSH PRIVATE KEY----- not for the agent"
	write(t, outside, map[string]string{"id_ed25519": secret})
	root := resolvedRoot(t, t.TempDir())
	write(t, root, map[string]string{"s/SKILL.md": "skill", "s/ref/id_ed25519": "harmless notes"})
	real := filepath.Join(root, "s/ref")
	link := filepath.Join(root, "swap") // in the plugin, outside the skill folder walked
	symlink(t, outside, link)

	halt := testhome.Swap(t, real, link)
	const tries = 2000
	var walked, copied, refused int
	for i := 0; i < tries; i++ {
		tr, err := Walk(root, filepath.Join(root, "s"), Options{})
		if err != nil {
			refused++
			continue
		}
		walked++
		for _, f := range tr.Files {
			if b, err := tr.Read(f); err == nil && bytes.Contains(b, []byte("PRIVATE KEY")) {
				t.Fatalf("try %d: Read of %s returned the outside key", i, f.Rel)
			}
		}
		dest := filepath.Join(t.TempDir(), "c")
		if err := tr.CopyTo(dest, 0o700, func(File) fs.FileMode { return 0o600 }); err != nil {
			if !errors.Is(err, ErrChanged) {
				t.Fatalf("try %d: CopyTo = %v, want ErrChanged or success", i, err)
			}
			refused++
		} else {
			copied++
		}
		filepath.Walk(dest, func(p string, info os.FileInfo, err error) error {
			if err == nil && info.Mode().IsRegular() {
				if b, _ := os.ReadFile(p); bytes.Contains(b, []byte("PRIVATE KEY")) {
					t.Fatalf("try %d: the copy holds the outside key at %s", i, p)
				}
			}
			return nil
		})
		os.RemoveAll(dest)
	}
	halt()
	t.Logf("%d tries: %d walked, %d copied whole, %d refused; 0 outside bytes", tries, walked, copied, refused)
	if copied == 0 || refused == 0 {
		t.Errorf("the swapper did not race the walk both ways (copied %d, refused %d): the test proves nothing", copied, refused)
	}
}

// Keep reads one top-level file during the walk, and only a regular file reached without
// a link, within KeepMax; anything else is walked as before and Kept stays nil. The tree
// is the same with and without Keep (hashed or not).
func TestWalkKeep(t *testing.T) {
	root := resolvedRoot(t, t.TempDir())
	write(t, root, map[string]string{
		"plain/SKILL.md":     "---\nname: plain\n---\n",
		"plain/ref/SKILL.md": "nested: not kept",
		"big/SKILL.md":       strings.Repeat("x", 100),
		"linked/real.md":     "through a link",
		"dir/SKILL.md/x":     "a folder named SKILL.md",
	})
	symlink(t, "real.md", filepath.Join(root, "linked/SKILL.md"))
	cases := []struct {
		dir, want string
		kept      bool
	}{
		{"plain", "---\nname: plain\n---\n", true},
		{"big", "", false},    // over KeepMax
		{"linked", "", false}, // a link: walked as one
		{"dir", "", false},    // a folder
	}
	for _, tc := range cases {
		for _, noHash := range []bool{true, false} {
			dir := filepath.Join(root, tc.dir)
			plain, err := Walk(root, dir, Options{NoHash: noHash})
			if err != nil {
				t.Fatal(err)
			}
			kept, err := Walk(root, dir, Options{NoHash: noHash, Keep: "SKILL.md", KeepMax: 64})
			if err != nil {
				t.Fatal(err)
			}
			if (kept.Kept != nil) != tc.kept || string(kept.Kept) != tc.want {
				t.Errorf("%s (noHash %v): Kept = %q, want %q", tc.dir, noHash, kept.Kept, tc.want)
			}
			kept.Kept = nil
			if !slices.EqualFunc(plain.Files, kept.Files, func(a, b File) bool { return a == b }) || plain.Sum != kept.Sum {
				t.Errorf("%s (noHash %v): the walk with Keep differs:\n%+v\n%+v", tc.dir, noHash, plain.Files, kept.Files)
			}
		}
	}
}

// With List, each folder's listing is what os.ReadDir of its path gives: every name,
// sorted, each with its own type (a link to a file or a folder is a link, a FIFO a FIFO),
// whether or not the walk keeps the entry; the kept file (Keep) is listed as a file.
// listingOf is the entries of the walked folder rel in tr, if it was listed.
func listingOf(tr *Tree, rel string) ([]fs.DirEntry, bool) {
	for _, l := range tr.Listings {
		if l.Rel == rel {
			return l.Entries, true
		}
	}
	return nil, false
}

func TestWalkListings(t *testing.T) {
	root := resolvedRoot(t, t.TempDir())
	write(t, root, map[string]string{"s/SKILL.md": "x", "s/scripts/run.sh": "y", "s/.hidden": "z", "other/doc.md": "d"})
	symlink(t, "scripts/run.sh", filepath.Join(root, "s", "link-file"))
	symlink(t, "../other", filepath.Join(root, "s", "link-dir"))
	symlink(t, "/etc", filepath.Join(root, "s", "outside"))
	if err := syscall.Mkfifo(filepath.Join(root, "s", "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := Options{NoHash: true, List: true, Keep: "SKILL.md", KeepMax: 1 << 20, Leave: []string{KindOutside, KindSpecial}}
	tr, err := Walk(root, filepath.Join(root, "s"), o)
	if err != nil {
		t.Fatal(err)
	}
	show := func(entries []fs.DirEntry) string {
		var b strings.Builder
		for _, e := range entries {
			fmt.Fprintf(&b, "%s:%v ", e.Name(), e.Type())
		}
		return b.String()
	}
	for _, rel := range []string{"", "scripts", "link-dir"} {
		want, err := os.ReadDir(filepath.Join(root, "s", rel))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := listingOf(tr, rel)
		if !ok || show(got) != show(want) {
			t.Errorf("listing of %q = %s, os.ReadDir %s", rel, show(got), show(want))
		}
	}
	if len(tr.Listings) != 3 {
		t.Errorf("%d listings, want 3 (the folder, scripts, link-dir)", len(tr.Listings))
	}
	top, _ := listingOf(tr, "")
	if info, err := top[0].Info(); err != nil || info.Name() != ".hidden" {
		t.Errorf("Info of the first entry: %v, %v", info, err)
	}
	if tr, err := Walk(root, filepath.Join(root, "s"), Options{NoHash: true, Leave: o.Leave}); err != nil || tr.Listings != nil {
		t.Errorf("without List: %v, %v", tr.Listings, err)
	}
}

// TestClean checks clean against its definition (a relative path whose components are
// none of "", "." and "..", or "." itself; such a path is what path.Clean makes of it)
// on every path of up to eight characters from "a", "." and "/".
func TestClean(t *testing.T) {
	want := func(from string) bool {
		if from == "." {
			return true
		}
		if from == "" || path.IsAbs(from) || path.Clean(from) != from {
			return false
		}
		return !slices.ContainsFunc(strings.Split(from, "/"), func(c string) bool { return c == "" || c == "." || c == ".." })
	}
	paths := []string{""}
	for n := 0; n < 8; n++ {
		for _, p := range paths[len(paths)-pow3(n):] {
			for _, c := range []string{"a", ".", "/"} {
				paths = append(paths, p+c)
			}
		}
	}
	for _, p := range paths {
		if got := clean(p); got != want(p) {
			t.Errorf("clean(%q) = %v, want %v", p, got, want(p))
		}
	}
}

func pow3(n int) int {
	x := 1
	for range n {
		x *= 3
	}
	return x
}
