package scancache

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/plugboard/plugboard/backend/testhome"
)

// tree lays out a small plugin tree, a folder outside it that links in it lead to
// (directly and through a link there, to a file that does not exist), a home folder
// that is a link, and returns the tree's root and the outside folder.
func tree(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root, outside = filepath.Join(base, "plugins"), filepath.Join(base, "outside")
	for p, body := range map[string]string{
		"plugins/p/plugin.json":          `{"name":"p"}`,
		"plugins/p/skills/a/SKILL.md":    "---\nname: a\n---\nbody a\n",
		"plugins/p/skills/b/SKILL.md":    "---\nname: b\n---\nbody b\n",
		"plugins/p/skills/b/refs/one.md": "one",
		"outside/linked/SKILL.md":        "---\nname: linked\n---\n",
		"outside/linked/deep/two.md":     "two",
	} {
		testhome.WriteFile(t, filepath.Join(base, p), body)
	}
	testhome.Symlink(t, filepath.Join(outside, "linked"), filepath.Join(root, "p", "skills", "linked"))
	for _, d := range []string{"v1", "v2", "h1", "h2"} {
		os.MkdirAll(filepath.Join(base, "outside", d), 0o755)
	}
	testhome.Symlink(t, "v1", filepath.Join(outside, "cur"))
	os.MkdirAll(filepath.Join(root, "p", "skills", "c"), 0o755)
	testhome.Symlink(t, filepath.Join(outside, "cur", "SKILL.md"), filepath.Join(root, "p", "skills", "c", "SKILL.md"))
	testhome.Symlink(t, filepath.Join(outside, "h1"), filepath.Join(base, "home"))
	return root, outside
}

// afterTick returns once a change made now in dir is one s can see (testhome.AfterCtime).
func afterTick(t *testing.T, s *Snapshot, dir string) {
	t.Helper()
	var newest int64
	for _, e := range s.entries {
		newest = max(newest, e.ctime, e.mtime)
	}
	testhome.AfterCtime(t, dir, newest)
}

func TestCacheHoldsUntilAnythingChanges(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, root, outside string)
	}{
		{"a file's content, same size and modification time", func(t *testing.T, root, _ string) {
			p := filepath.Join(root, "p", "skills", "a", "SKILL.md")
			st, _ := os.Stat(p)
			testhome.WriteFile(t, p, "---\nname: a\n---\nbody A\n")
			os.Chtimes(p, st.ModTime(), st.ModTime()) // the status-change time still moves
		}},
		{"a file grows", func(t *testing.T, root, _ string) {
			f, err := os.OpenFile(filepath.Join(root, "p", "plugin.json"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(" ")
			f.Close()
		}},
		{"a new file deep in the tree", func(t *testing.T, root, _ string) {
			testhome.WriteFile(t, filepath.Join(root, "p", "skills", "b", "refs", "new.md"), "")
		}},
		{"a file removed", func(t *testing.T, root, _ string) {
			os.Remove(filepath.Join(root, "p", "skills", "b", "refs", "one.md"))
		}},
		{"a folder renamed", func(t *testing.T, root, _ string) {
			os.Rename(filepath.Join(root, "p", "skills", "b"), filepath.Join(root, "p", "skills", "d"))
		}},
		{"a mode changed", func(t *testing.T, root, _ string) {
			os.Chmod(filepath.Join(root, "p", "skills", "a", "SKILL.md"), 0o600)
		}},
		{"a file replaced by a copy with the same content and times", func(t *testing.T, root, _ string) {
			p := filepath.Join(root, "p", "plugin.json")
			st, _ := os.Stat(p)
			data, _ := os.ReadFile(p)
			testhome.WriteFile(t, p+".new", string(data))
			os.Chtimes(p+".new", st.ModTime(), st.ModTime())
			os.Rename(p+".new", p)
		}},
		{"a link pointed elsewhere", func(t *testing.T, root, outside string) {
			l := filepath.Join(root, "p", "skills", "linked")
			os.Remove(l)
			testhome.WriteFile(t, filepath.Join(outside, "other", "SKILL.md"), "---\nname: linked\n---\n")
			testhome.Symlink(t, filepath.Join(outside, "other"), l)
		}},
		{"a file edited behind a link, outside the tree", func(t *testing.T, _, outside string) {
			testhome.WriteFile(t, filepath.Join(outside, "linked", "deep", "two.md"), "TWO")
		}},
		{"a file added behind a link, outside the tree", func(t *testing.T, _, outside string) {
			testhome.WriteFile(t, filepath.Join(outside, "linked", "three.md"), "")
		}},
		// What the scan resolves, beyond the files themselves (a message names where a
		// link leads; a skill's paths are checked against the home folder's real path).
		{"the middle link of a chain out of the tree is pointed elsewhere", func(t *testing.T, _, outside string) {
			os.Remove(filepath.Join(outside, "cur")) // cur -> v1 becomes cur -> v2: both lack SKILL.md
			testhome.Symlink(t, "v2", filepath.Join(outside, "cur"))
		}},
		{"a folder on the way to a link's target is replaced by a link to it", func(t *testing.T, _, outside string) {
			os.Rename(outside, outside+"-moved")
			testhome.Symlink(t, filepath.Base(outside)+"-moved", outside)
		}},
		{"a home folder that is a link is pointed at a folder like it", func(t *testing.T, root, outside string) {
			home := filepath.Join(filepath.Dir(root), "home")
			os.Remove(home)
			testhome.Symlink(t, filepath.Join(outside, "h2"), home)
		}},
		{"a root that was missing appears", func(t *testing.T, root, _ string) {
			os.MkdirAll(filepath.Join(filepath.Dir(root), "later"), 0o755)
		}},
		{"a root removed", func(t *testing.T, root, _ string) {
			os.RemoveAll(root)
		}},
		{"a file that was missing appears", func(t *testing.T, root, _ string) {
			testhome.WriteFile(t, filepath.Join(filepath.Dir(root), "settings.json"), "{}")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, outside := tree(t)
			base := filepath.Dir(root)
			paths := Paths{Walk: []string{root, filepath.Join(base, "later"), filepath.Join(base, "settings.json")},
				Resolve: []string{filepath.Join(base, "home")}}
			cache := filepath.Join(base, "cache", "c")
			s, err := Take(nil, paths)
			if err != nil {
				t.Fatal(err)
			}
			if err := Save(cache, "k", s, []byte("answer")); err != nil {
				t.Fatal(err)
			}
			if data, _, ok := Load(cache, "k"); !ok || string(data) != "answer" {
				t.Fatalf("before the change: Load = %q, %v; want the answer", data, ok)
			}
			afterTick(t, s, base)
			tc.change(t, root, outside)
			if data, prev, ok := Load(cache, "k"); ok {
				t.Fatalf("after the change: Load = %q, true; want a miss", data)
			} else if prev == nil {
				t.Fatal("after the change: a miss gave no snapshot to take the next one from")
			}
			// A snapshot taken from the last one sees the tree as it now is: it holds,
			// and records what a full walk records.
			_, prev, _ := Load(cache, "k")
			next, err := Take(prev, paths)
			if err != nil {
				t.Fatal(err)
			}
			full, _ := Take(nil, paths)
			if !next.Holds() || !slices.Equal(sortedLooks(next), sortedLooks(full)) {
				t.Errorf("taken from the last snapshot:\n%v\nwalked afresh:\n%v", sortedLooks(next), sortedLooks(full))
			}
		})
	}
}

// sortedLooks lists a snapshot's look-ups, one line each, sorted.
func sortedLooks(s *Snapshot) []string {
	var out []string
	for _, e := range s.entries {
		k := "lstat "
		if e.kind == kindFollow {
			k = "stat "
		}
		out = append(out, k+e.path+" "+errnoOrMode(e.facts))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func errnoOrMode(f facts) string {
	if f.errno != 0 {
		return syscall.Errno(f.errno).Error()
	}
	return os.FileMode(f.mode & 0o170000).String()
}

func TestTakeRecordsEveryEntryOnce(t *testing.T) {
	root, outside := tree(t)
	// A second link to the same folder, and a link back up the tree: each folder is
	// walked once, and the walk ends.
	testhome.Symlink(t, filepath.Join(outside, "linked"), filepath.Join(root, "p", "again"))
	testhome.Symlink(t, root, filepath.Join(root, "p", "skills", "b", "up"))
	s, err := Take(nil, Paths{Walk: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	paths := s.Paths()
	for _, want := range []string{
		filepath.Join(root, "p", "skills", "a", "SKILL.md"),
		filepath.Join(root, "p", "skills", "b", "refs", "one.md"),
		filepath.Join(root, "p", "skills", "b", "up"),
	} {
		if !slices.Contains(paths, want) {
			t.Errorf("%s not recorded; recorded %v", want, paths)
		}
	}
	// The linked folder's files are recorded under one of the two links.
	n := 0
	for _, p := range paths {
		if filepath.Base(p) == "two.md" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("two.md recorded %d times through the two links, want 1: %v", n, paths)
	}
	// Taken again and again from the last snapshot, it stays the same size.
	for range 3 {
		next, err := Take(s, Paths{Walk: []string{root}})
		if err != nil {
			t.Fatal(err)
		}
		if next.Len() != s.Len() {
			t.Fatalf("taken from the last snapshot: %d look-ups, then %d", s.Len(), next.Len())
		}
		s = next
	}
}

// A folder two links lead to is listed under whichever the walk meets first. When that
// link goes, a snapshot taken from the last one lists it under the other: its files are
// still recorded, so a change to one is still seen.
func TestFolderUnderTwoLinksIsStillRecordedWhenOneGoes(t *testing.T) {
	root, outside := tree(t)
	testhome.Symlink(t, filepath.Join(outside, "linked"), filepath.Join(root, "p", "again"))
	s, _ := Take(nil, Paths{Walk: []string{root}})
	os.Remove(filepath.Join(root, "p", "skills", "linked"))
	next, err := Take(s, Paths{Walk: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(root, "p", "again", "deep", "two.md")
	if !slices.Contains(next.Paths(), want) {
		t.Fatalf("%s not recorded once the other link went: %v", want, next.Paths())
	}
	afterTick(t, next, filepath.Dir(root))
	testhome.WriteFile(t, filepath.Join(outside, "linked", "deep", "two.md"), "TWO")
	if next.Holds() {
		t.Error("a change behind the remaining link was not seen")
	}
}

func TestRacy(t *testing.T) {
	root, _ := tree(t)
	s, err := Take(nil, Paths{Walk: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Racy(time.Now()) {
		t.Error("a tree made just now is not racy for a scan that begins now")
	}
	if s.Racy(time.Now().Add(RacyWindow + time.Second)) {
		t.Error("a tree made more than the racy window before a scan began is racy")
	}
	// A modification time set in the future (an archive's, a skewed clock's) is not a
	// recent change: the status-change time says when the file changed.
	future := time.Now().Add(24 * time.Hour)
	os.Chtimes(filepath.Join(root, "p", "plugin.json"), future, future)
	s, _ = Take(nil, Paths{Walk: []string{root}})
	if s.Racy(time.Now().Add(RacyWindow + time.Second)) {
		t.Error("a modification time in the future makes the snapshot racy for good")
	}
}

func TestCacheThatCannotBeUsedIsAMiss(t *testing.T) {
	root, _ := tree(t)
	cache := filepath.Join(t.TempDir(), "c")
	s, _ := Take(nil, Paths{Walk: []string{root}})
	if err := Save(cache, "k", s, []byte("answer")); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(cache)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("cache file: %v, %v; want it readable by its owner alone", st, err)
	}
	good, _ := os.ReadFile(cache)
	if _, prev, ok := Load(cache, "other key"); ok || prev == nil {
		t.Errorf("another key: hit %v, snapshot %v; want a miss with the snapshot", ok, prev != nil)
	}
	for name, data := range map[string][]byte{
		"cut short":      good[:len(good)-10],
		"a byte changed": append(append(append([]byte{}, good[:len(header)+3]...), good[len(header)+3]^1), good[len(header)+4:]...),
		"empty":          {},
		"another format": append([]byte("plugboard-scancache 1\n"), good[len(header):]...),
		// A valid checksum over a count the file cannot hold: refused before anything
		// is made for it.
		"a count past its end": withSum(append(appendBytes([]byte(header), []byte("k")), binary.AppendUvarint(nil, MaxEntries)...)),
	} {
		os.WriteFile(cache, data, 0o600)
		if _, prev, ok := Load(cache, "k"); ok || prev != nil {
			t.Errorf("%s: hit %v, snapshot %v; want a miss and no snapshot", name, ok, prev != nil)
		}
	}
	// A cache someone else could have written: writable by the group or others, in a
	// folder they may write, or another user's.
	os.WriteFile(cache, good, 0o600)
	if _, _, ok := Load(cache, "k"); !ok {
		t.Fatal("the good file written back is a miss")
	}
	for name, undo := range map[string]func() func(){
		"group-writable file": func() func() { os.Chmod(cache, 0o620); return func() { os.Chmod(cache, 0o600) } },
		"world-writable folder": func() func() {
			os.Chmod(filepath.Dir(cache), 0o777)
			return func() { os.Chmod(filepath.Dir(cache), 0o700) }
		},
		"another user's file": func() func() {
			if os.Geteuid() != 0 {
				os.Chmod(cache, 0o000) // not root: cannot give it away; unreadable stands in
				return func() { os.Chmod(cache, 0o600) }
			}
			os.Lchown(cache, 65534, 65534)
			return func() { os.Lchown(cache, 0, 0) }
		},
	} {
		restore := undo()
		if _, _, ok := Load(cache, "k"); ok {
			t.Errorf("%s: a hit", name)
		}
		restore()
	}
	os.Remove(cache)
	if _, prev, ok := Load(cache, "k"); ok || prev != nil {
		t.Errorf("no file: hit %v, snapshot %v", ok, prev != nil)
	}
	// A link where the cache belongs is not followed.
	other := filepath.Join(t.TempDir(), "other")
	os.WriteFile(other, good, 0o600)
	testhome.Symlink(t, other, cache)
	if _, _, ok := Load(cache, "k"); ok {
		t.Error("a cache read through a link")
	}
}

func TestSaveKeepsEverything(t *testing.T) {
	root, _ := tree(t)
	s, _ := Take(nil, Paths{Walk: []string{root, filepath.Join(root, "missing"), filepath.Join(root, "p", "plugin.json")}})
	data := bytes.Repeat([]byte("0123456789"), 100_000)
	cache := filepath.Join(t.TempDir(), "new", "c")
	if err := Save(cache, "k", s, data); err != nil {
		t.Fatal(err)
	}
	key, back, got, ok := read(cache)
	if !ok || key != "k" || !bytes.Equal(got, data) {
		t.Fatalf("read back: %q %v, %d bytes", key, ok, len(got))
	}
	if !slices.Equal(back.entries, s.entries) || !slices.Equal(back.listings, s.listings) {
		t.Error("the snapshot read back differs from the one saved")
	}
}

func TestTooLarge(t *testing.T) {
	root, _ := tree(t)
	defer func(n int) { maxEntries = n }(maxEntries)
	maxEntries = 5
	if _, err := Take(nil, Paths{Walk: []string{root}}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Take of more than maxEntries: %v, want ErrTooLarge", err)
	}
}

// The folders a path is resolved through count for what they are, not for what they
// list: a home folder gets new files all the time.
func TestFoldersOnTheWayMayListOtherFiles(t *testing.T) {
	root, _ := tree(t)
	base := filepath.Dir(root)
	s, err := Take(nil, Paths{Walk: []string{root}, Resolve: []string{filepath.Join(base, "home")}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(s.Paths(), base) {
		t.Fatalf("%s, a folder on the way to the root, is not recorded: %v", base, s.Paths())
	}
	afterTick(t, s, base)
	testhome.WriteFile(t, filepath.Join(base, "unrelated.txt"), "x")
	testhome.WriteFile(t, filepath.Join(base, "outside", "h1", "history"), "x") // in the home folder
	if !s.Holds() {
		t.Error("a new file beside the root, or in the home folder, made the snapshot fail")
	}
	if s.Racy(time.Now().Add(RacyWindow + time.Second)) {
		t.Error("a folder on the way that lists a new file makes the snapshot racy")
	}
}

func TestTakeFailsWhatItCannotRecordWhole(t *testing.T) {
	root, outside := tree(t)
	// A chain of more links than a look-up follows: a scan's own resolution may follow
	// more (filepath.EvalSymlinks follows 255).
	prev := filepath.Join(outside, "linked")
	for i := range maxHops + 5 {
		next := filepath.Join(outside, "hop"+strconv.Itoa(i))
		testhome.Symlink(t, prev, next)
		prev = next
	}
	if _, err := Take(nil, Paths{Walk: []string{prev}}); !errors.Is(err, ErrIncomplete) {
		t.Errorf("a path behind %d links: %v, want ErrIncomplete", maxHops+5, err)
	}
	// A file whose path is longer than the kernel looks up, in a folder whose path is
	// not (it is listed), made folder by folder.
	deep := t.TempDir()
	fd, err := unix.Open(deep, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.Repeat("d", 250)
	for range (unix.PathMax - 8 - len(deep)) / 251 {
		if err := unix.Mkdirat(fd, name, 0o755); err != nil {
			t.Fatal(err)
		}
		next, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		unix.Close(fd)
		if err != nil {
			t.Fatal(err)
		}
		fd = next
	}
	f, err := unix.Openat(fd, strings.Repeat("f", 250), unix.O_CREAT|unix.O_WRONLY, 0o644)
	unix.Close(fd)
	if err != nil {
		t.Fatal(err)
	}
	unix.Close(f)
	if _, err := Take(nil, Paths{Walk: []string{deep}}); !errors.Is(err, ErrIncomplete) {
		t.Errorf("a path longer than %d bytes: %v, want ErrIncomplete", unix.PathMax, err)
	}
	// A loop is not that: each of its links is recorded, and one pointed elsewhere is seen.
	testhome.Symlink(t, "loop-b", filepath.Join(root, "p", "loop-a"))
	testhome.Symlink(t, "loop-a", filepath.Join(root, "p", "loop-b"))
	s, err := Take(nil, Paths{Walk: []string{root}})
	if err != nil {
		t.Fatalf("a tree holding a link loop: %v", err)
	}
	afterTick(t, s, filepath.Dir(root))
	os.Remove(filepath.Join(root, "p", "loop-b"))
	testhome.Symlink(t, "skills", filepath.Join(root, "p", "loop-b"))
	if s.Holds() {
		t.Error("a link of a loop pointed elsewhere was not seen")
	}
	// A folder that cannot be listed, though a scan may open files in it by name (it
	// may be searched): as a user that is not root, since root lists anything.
	locked := filepath.Join(root, "p", "skills", "b")
	os.Chmod(locked, 0o711)
	out := testhome.AsNonRoot(t, "TestUnlistableHelper", root, filepath.Dir(root), root, filepath.Join(root, "p"), filepath.Join(root, "p", "skills"))
	if got, _, _ := strings.Cut(string(out), "\n"); got != ErrIncomplete.Error() {
		t.Errorf("a folder that can be searched but not listed, by its owner alone: Take = %q, want ErrIncomplete", got)
	}
}

// TestUnlistableHelper is TestTakeFailsWhatItCannotRecordWhole's Take as a user that is
// not root.
func TestUnlistableHelper(t *testing.T) {
	root := os.Getenv(testhome.NonRootEnv)
	if root == "" {
		return
	}
	_, err := Take(nil, Paths{Walk: []string{root}})
	os.Stdout.WriteString(fmt.Sprint(err) + "\n")
}

func TestSaveRefusesALinkedFolder(t *testing.T) {
	root, _ := tree(t)
	s, _ := Take(nil, Paths{Walk: []string{root}})
	elsewhere := t.TempDir()
	dir := filepath.Join(t.TempDir(), "cache")
	testhome.Symlink(t, elsewhere, dir)
	if err := Save(filepath.Join(dir, "c"), "k", s, []byte("answer")); err == nil {
		t.Error("Save wrote through a link")
	}
	if names, _ := os.ReadDir(elsewhere); len(names) != 0 {
		t.Errorf("Save wrote where the link leads: %v", names)
	}
}

// A snapshot that no longer holds says whether the change it found is recent: a
// snapshot taken then would be racy, and need not be taken.
func TestAMissSaysWhetherItsChangeIsRecent(t *testing.T) {
	root, _ := tree(t)
	cache := filepath.Join(t.TempDir(), "c")
	s, _ := Take(nil, Paths{Walk: []string{root}})
	Save(cache, "k", s, []byte("answer"))
	afterTick(t, s, filepath.Dir(root))
	changed := filepath.Join(root, "p", "plugin.json")
	testhome.WriteFile(t, changed, `{"name":"q"}`)
	var st syscall.Stat_t
	syscall.Stat(changed, &st)
	// A scan that begins exactly the racy window after the change: the change is
	// within it, and every other entry, older than the change, is not.
	start := time.Unix(0, st.Ctim.Nano()).Add(RacyWindow)
	_, prev, ok := Load(cache, "k")
	if ok || !prev.Racy(start) {
		t.Errorf("a file changed the racy window before the scan: hit %v, racy %v; want a miss whose change is recent", ok, prev.Racy(start))
	}
	if prev.Racy(start.Add(time.Nanosecond)) {
		t.Error("the change found is recent for a scan beginning after the racy window")
	}
}

// withSum appends a cache file's checksum to body.
func withSum(body []byte) []byte {
	return binary.LittleEndian.AppendUint32(body, crc32.Checksum(body, castagnoli))
}

// A file of a few bytes that claims half a million entries makes nothing for them.
func TestReadRefusesACountPastItsEnd(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c")
	os.WriteFile(path, withSum(append(appendBytes([]byte(header), []byte("k")), binary.AppendUvarint(nil, MaxEntries)...)), 0o600)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, _, _, ok := read(path); ok {
		t.Fatal("read a file that claims more entries than it holds")
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("reading a %d-byte file allocated %d bytes", len(header)+10, grew)
	}
}
