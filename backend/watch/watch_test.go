package watch

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// eventually polls cond until it holds or the test times out.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(timeout); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not true within %s", what, timeout)
		}
	}
}

func TestSkillEditIsOneBatchNamingIt(t *testing.T) {
	root := t.TempDir()
	plugin(t, filepath.Join(root, "greeter"))
	w := start(t, []string{root}, Options{}) // the real DebounceDelay
	skill := filepath.Join(root, "greeter", "skills", "a", "SKILL.md")

	began := time.Now()
	write(t, skill, "---\nname: a\ndescription: edited\n---\n")
	b := <-w.Batches()
	latency := time.Since(began)

	if want := []string{skill}; !slices.Equal(b.Paths, want) || b.Rescan {
		t.Errorf("batch = %+v, want Paths %q and no Rescan", b, want)
	}
	expectQuiet(t, w, 2*DebounceDelay)
	t.Logf("edit → batch latency %s (debounce %s, goal 1s)", latency, DebounceDelay)
}

func TestFolderTreeCreatedLaterIsWatched(t *testing.T) {
	root := t.TempDir()
	w := start(t, []string{root}, fast)
	deep := filepath.Join(root, "a", "b", "c")

	mkdir(t, deep) // mkdir -p: b and c exist before a's Create event is read
	early := filepath.Join(deep, "early.md")
	write(t, early, "written before c's watch was armed")
	awaitPaths(t, w, filepath.Join(root, "a"), deep, early)

	eventually(t, "watch on "+deep, func() bool { return watched(w, deep) })
	late := filepath.Join(deep, "late.md")
	write(t, late, "x")
	awaitPaths(t, w, late)
}

func TestSymlinkedPluginIsReportedUnderTheLink(t *testing.T) {
	tmp := t.TempDir()
	root, repo := filepath.Join(tmp, "plugins"), filepath.Join(tmp, "repo", "foo")
	plugin(t, repo)
	link := linkInto(t, root, repo)
	w := start(t, []string{root}, fast)

	write(t, filepath.Join(repo, "skills", "a", "SKILL.md"), "edited")
	got := awaitPaths(t, w, filepath.Join(link, "skills", "a", "SKILL.md"))

	write(t, filepath.Join(repo, "skills", "c", "SKILL.md"), "new skill in the target")
	got = append(got, awaitPaths(t, w, filepath.Join(link, "skills", "c", "SKILL.md"))...)
	notReported(t, got, filepath.Join(tmp, "repo"))
}

func TestRepointedLinkIsRearmed(t *testing.T) {
	tmp := t.TempDir()
	root := filepath.Join(tmp, "plugins")
	old, next := filepath.Join(tmp, "old"), filepath.Join(tmp, "next")
	plugin(t, old)
	plugin(t, next)
	mkdir(t, root)
	link := filepath.Join(root, "foo")
	symlink(t, old, link)
	w := start(t, []string{root}, fast)
	if !watched(w, filepath.Join(old, "skills", "a")) {
		t.Fatal("old target not watched at start")
	}

	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	symlink(t, next, link)
	awaitPaths(t, w, link, filepath.Join(link, "skills", "a", "SKILL.md"))
	eventually(t, "old target unwatched, new one watched", func() bool {
		return !watched(w, filepath.Join(old, "skills", "a")) && watched(w, filepath.Join(next, "skills", "a"))
	})

	write(t, filepath.Join(old, "skills", "a", "SKILL.md"), "no longer linked")
	expectQuiet(t, w, 200*time.Millisecond)
	write(t, filepath.Join(next, "skills", "a", "SKILL.md"), "linked now")
	got := awaitPaths(t, w, filepath.Join(link, "skills", "a", "SKILL.md"))
	notReported(t, got, next)

	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	awaitPaths(t, w, link)
	eventually(t, "unlinked target unwatched", func() bool { return !watched(w, next) })
}

func TestSymlinkCycleAndSharedTargetAreWatchedOnce(t *testing.T) {
	tmp := t.TempDir()
	root, shared := filepath.Join(tmp, "root"), filepath.Join(tmp, "shared")
	mkdir(t, filepath.Join(root, "a"))
	mkdir(t, shared)
	symlink(t, root, filepath.Join(root, "a", "up"))      // leads back to the root: a cycle
	symlink(t, "self", filepath.Join(root, "self"))       // a link to itself: unresolvable
	symlink(t, shared, filepath.Join(root, "p1"))         // the same target, linked twice
	symlink(t, shared, filepath.Join(root, "a", "p2"))    //
	symlink(t, filepath.Join(tmp, "gone"), root+"/stale") // dangling
	w := start(t, []string{root}, fast)

	want := []string{tmp, root, filepath.Join(root, "a"), shared} // tmp: the root's own parent
	if got := w.fs.WatchList(); !sameSet(got, want) {
		t.Errorf("watches = %q, want %q", got, want)
	}
	write(t, filepath.Join(shared, "SKILL.md"), "x")
	awaitPaths(t, w, filepath.Join(root, "p1", "SKILL.md"), filepath.Join(root, "a", "p2", "SKILL.md"))
}

func sameSet(a, b []string) bool {
	a, b = slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	return slices.Equal(a, b)
}

func TestMissingRootIsPickedUpWhenItAppears(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	root := filepath.Join(home, ".cursor", "skills")
	w := start(t, []string{root}, fast)
	if !watched(w, home) {
		t.Fatalf("watches = %q, want the nearest existing folder %s", w.fs.WatchList(), home)
	}

	skill := filepath.Join(root, "greet", "SKILL.md")
	write(t, skill, "x") // mkdir -p .cursor/skills/greet, then the file
	awaitRescan(t, w, "root "+root+" appeared")

	eventually(t, "root armed", func() bool { return watched(w, filepath.Join(root, "greet")) })
	write(t, skill, "edited")
	awaitPaths(t, w, skill)
}

func TestDeletedRootIsRearmedWhenItComesBack(t *testing.T) {
	root := filepath.Join(t.TempDir(), "skills")
	write(t, filepath.Join(root, "greet", "SKILL.md"), "x")
	w := start(t, []string{root}, fast)

	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	awaitRescan(t, w, "vanished")

	skill := filepath.Join(root, "again", "SKILL.md")
	write(t, skill, "x")
	awaitRescan(t, w, "appeared")
	eventually(t, "root armed", func() bool { return watched(w, filepath.Join(root, "again")) })
	write(t, skill, "edited")
	awaitPaths(t, w, skill)
}

func TestAtomicSaveReportsTheTarget(t *testing.T) {
	root := t.TempDir()
	plugin(t, filepath.Join(root, "p"))
	w := start(t, []string{root}, fast)
	target := filepath.Join(root, "p", "skills", "a", "SKILL.md")

	temp := filepath.Join(root, "p", "skills", "a", ".SKILL.md.tmp-123")
	write(t, temp, "saved by an editor")
	if err := os.Rename(temp, target); err != nil {
		t.Fatal(err)
	}
	got := awaitPaths(t, w, target)
	t.Logf("atomic save reported as %q", slices.Sorted(maps.Keys(reported(got))))
}

func TestSingleFileRoot(t *testing.T) {
	tmp := t.TempDir()
	settings, mcp := filepath.Join(tmp, "settings.json"), filepath.Join(tmp, "mcp.json")
	write(t, settings, "{}")
	w := start(t, []string{settings, mcp}, fast)

	write(t, filepath.Join(tmp, "unrelated.json"), "{}")
	expectQuiet(t, w, 200*time.Millisecond)

	write(t, settings, `{"skillsEnabled":true}`)
	awaitPaths(t, w, settings)

	temp := filepath.Join(tmp, ".settings.json.tmp")
	write(t, temp, `{"skillsEnabled":false}`)
	if err := os.Rename(temp, settings); err != nil {
		t.Fatal(err)
	}
	awaitPaths(t, w, settings)

	write(t, mcp, `{"mcpServers":{}}`) // a file root that did not exist at start
	awaitPaths(t, w, mcp)
}

func TestBurstIsOneBatch(t *testing.T) {
	root := t.TempDir()
	w := start(t, []string{root}, Options{Debounce: 300 * time.Millisecond})
	var want []string
	for i := range 20 {
		p := filepath.Join(root, "f"+string(rune('a'+i)))
		want = append(want, p)
		write(t, p, "x")
	}
	got := awaitPaths(t, w, want...)
	if len(got) != 1 {
		t.Errorf("burst of 20 writes gave %d batches, want 1: %+v", len(got), got)
	}
	if !slices.Equal(got[0].Paths, want) {
		t.Errorf("Paths = %q, want %q (sorted, deduplicated)", got[0].Paths, want)
	}
}

func TestContinuousStreamIsNotStarved(t *testing.T) {
	root := t.TempDir()
	const debounce = 50 * time.Millisecond
	w := start(t, []string{root}, Options{Debounce: debounce})
	stop := make(chan struct{})
	go func() { // writes every 10 ms, faster than the debounce, for 1.5 s
		defer close(stop)
		p := filepath.Join(root, "build.log")
		for end := time.Now().Add(1500 * time.Millisecond); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			if f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
				f.WriteString("line\n")
				f.Close()
			}
		}
	}()
	began, batches := time.Now(), 0
	var first time.Duration
	for streaming := true; streaming; {
		select {
		case <-w.Batches():
			if batches == 0 {
				first = time.Since(began)
			}
			batches++
		case <-stop:
			streaming = false
		}
	}
	if batches < 2 {
		t.Errorf("%d batches during a 1.5 s stream, want at least 2 (max wait %s)", batches, MaxWaitFactor*debounce)
	}
	t.Logf("%d batches during the stream, first after %s", batches, first)
}

func TestPauseDeliversOneBatchOnResume(t *testing.T) {
	root := t.TempDir()
	w := start(t, []string{root}, fast)
	w.Pause(true)
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	write(t, a, "x")
	time.Sleep(50 * time.Millisecond) // past the debounce: a and b are flushed separately
	write(t, b, "x")
	expectQuiet(t, w, 200*time.Millisecond)

	w.Pause(false)
	got := awaitPaths(t, w, a, b)
	if len(got) != 1 {
		t.Errorf("resume gave %d batches, want 1: %+v", len(got), got)
	}
}

func TestSetRootsAddsAndDropsRoots(t *testing.T) {
	tmp := t.TempDir()
	oldRoot, newRoot := filepath.Join(tmp, "old"), filepath.Join(tmp, "new")
	plugin(t, filepath.Join(oldRoot, "p"))
	plugin(t, filepath.Join(newRoot, "p"))
	w := start(t, []string{oldRoot}, fast)

	if err := w.SetRoots([]string{newRoot}); err != nil {
		t.Fatalf("SetRoots = %v", err)
	}
	if watched(w, filepath.Join(oldRoot, "p", "skills")) || !watched(w, filepath.Join(newRoot, "p", "skills")) {
		t.Errorf("watches = %q, want only %s", w.fs.WatchList(), newRoot)
	}
	write(t, filepath.Join(oldRoot, "p", "skills", "a", "SKILL.md"), "x")
	expectQuiet(t, w, 200*time.Millisecond)
	skill := filepath.Join(newRoot, "p", "skills", "a", "SKILL.md")
	write(t, skill, "x")
	awaitPaths(t, w, skill)
}

func TestQueueOverflowAsksForRescan(t *testing.T) {
	w := start(t, []string{t.TempDir()}, fast)
	w.fs.Errors <- fsnotify.ErrEventOverflow // what fsnotify sends on IN_Q_OVERFLOW
	awaitRescan(t, w, "overflow")
}

func TestCloseEndsEverything(t *testing.T) {
	before := runtime.NumGoroutine()
	root := t.TempDir()
	plugin(t, filepath.Join(root, "p"))
	w, err := New([]string{root}, fast)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "p", "x"), "an undelivered change")
	time.Sleep(50 * time.Millisecond)
	if err := w.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	if _, ok := <-w.Batches(); ok {
		t.Error("Batches still open after Close")
	}
	if err := w.SetRoots([]string{root}); !errors.Is(err, ErrClosed) {
		t.Errorf("SetRoots after Close = %v, want ErrClosed", err)
	}
	w.Pause(true) // must not block
	eventually(t, "goroutines back to the count before New", func() bool { return runtime.NumGoroutine() <= before })
}

func TestNewRejectsEmptyRoot(t *testing.T) {
	if _, err := New([]string{""}, Options{}); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf(`New([""]) = %v, want an error about the empty path`, err)
	}
}

// Cursor's plugins folder holds local/, itself a root: both report, and dropping the inner
// root keeps the outer one's watches.
func TestNestedRoots(t *testing.T) {
	outer := t.TempDir()
	inner := filepath.Join(outer, "local")
	w := start(t, []string{outer, inner}, fast)

	skill := filepath.Join(inner, "dev", "skills", "a", "SKILL.md")
	write(t, skill, "x")
	awaitRescan(t, w, "root "+inner+" appeared")

	if err := w.SetRoots([]string{outer}); err != nil {
		t.Fatalf("SetRoots = %v", err)
	}
	if !watched(w, filepath.Dir(skill)) {
		t.Fatalf("watches = %q, want %s still watched by the outer root", w.fs.WatchList(), filepath.Dir(skill))
	}
	write(t, skill, "edited")
	awaitPaths(t, w, skill)
}

// A linked working copy deleted and cloned again, or moved away and back, is watched
// again once it returns: its link waits on the folder above the missing target. Before,
// the link was forgotten with its target and every later edit went unreported.
func TestLinkedTargetThatReturnsIsWatchedAgain(t *testing.T) {
	for _, how := range []string{"deleted and made again", "moved away and back"} {
		t.Run(how, func(t *testing.T) {
			tmp := t.TempDir()
			root, work := filepath.Join(tmp, "plugins"), filepath.Join(tmp, "work", "wc")
			plugin(t, work)
			link := linkInto(t, root, work)
			w := start(t, []string{root}, fast)

			if how == "deleted and made again" {
				if err := os.RemoveAll(work); err != nil {
					t.Fatal(err)
				}
				awaitPaths(t, w, link)
				plugin(t, work)
			} else {
				if err := os.Rename(work, work+".x"); err != nil {
					t.Fatal(err)
				}
				awaitPaths(t, w, link)
				if err := os.Rename(work+".x", work); err != nil {
					t.Fatal(err)
				}
			}
			awaitPaths(t, w, link)
			eventually(t, "the returned target watched", func() bool { return watched(w, filepath.Join(work, "skills", "a")) })
			write(t, filepath.Join(work, "skills", "a", "SKILL.md"), "edited after it came back")
			got := awaitPaths(t, w, filepath.Join(link, "skills", "a", "SKILL.md"))
			notReported(t, got, work)
		})
	}
}

// A link made to a working copy not cloned yet is watched once the clone arrives, level
// by level (mkdir -p, as git does).
func TestLinkToAMissingTargetIsWatchedWhenItArrives(t *testing.T) {
	tmp := t.TempDir()
	root, work := filepath.Join(tmp, "plugins"), filepath.Join(tmp, "src", "deep", "wc")
	link := linkInto(t, root, work)
	w := start(t, []string{root}, fast)

	mkdir(t, filepath.Dir(work))
	plugin(t, work)
	awaitPaths(t, w, link)
	eventually(t, "the new target watched", func() bool { return watched(w, filepath.Join(work, "skills", "a")) })
	write(t, filepath.Join(work, "skills", "b", "SKILL.md"), "edited")
	awaitPaths(t, w, filepath.Join(link, "skills", "b", "SKILL.md"))
}

// A folder whose watch could not be armed (unreadable to this user when it was made) is
// walked again when its mode changes, so chmod u+r brings it back into the watch. The
// kernel's refusal is stood in for (the tests run as root, which it does not refuse); the
// chmod and its event are real.
func TestFolderWatchedAfterItsModeChanges(t *testing.T) {
	root := t.TempDir()
	plugin(t, filepath.Join(root, "p"))
	locked := filepath.Join(root, "p", "skills", "locked")
	realAdd := addWatch // replaced before the watcher starts, restored after it is closed
	var refuse atomic.Bool
	refuse.Store(true)
	addWatch = func(fw *fsnotify.Watcher, path string) error {
		if path == locked && refuse.Load() {
			return os.ErrPermission
		}
		return realAdd(fw, path)
	}
	t.Cleanup(func() { addWatch = realAdd })
	w := start(t, []string{root}, fast)

	write(t, filepath.Join(locked, "SKILL.md"), "---\nname: locked\n---\n")
	awaitPaths(t, w, locked)
	if watched(w, locked) {
		t.Fatal("the refused folder is watched")
	}
	refuse.Store(false)
	if err := os.Chmod(locked, 0o755); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the folder watched after chmod", func() bool { return watched(w, locked) })
	write(t, filepath.Join(locked, "SKILL.md"), "edited")
	awaitPaths(t, w, filepath.Join(locked, "SKILL.md"))
}

// A root that is a link (~/.claude/skills → a dotfiles checkout) whose target is deleted
// and made again is a folder root again: the catalog rescans and later edits are seen.
// The link's own folder sees no event when the target returns, so the root waits on the
// folder above its target too.
func TestLinkedRootWhoseTargetReturns(t *testing.T) {
	tmp := t.TempDir()
	dot := filepath.Join(tmp, "dot", "skills")
	write(t, filepath.Join(dot, "greet", "SKILL.md"), "---\nname: greet\n---\n")
	root := filepath.Join(tmp, "home", ".claude", "skills")
	mkdir(t, filepath.Dir(root))
	symlink(t, dot, root)
	w := start(t, []string{root}, fast)

	if err := os.RemoveAll(dot); err != nil {
		t.Fatal(err)
	}
	awaitRescan(t, w, "vanished")
	write(t, filepath.Join(dot, "greet", "SKILL.md"), "---\nname: greet\n---\nback\n")
	awaitRescan(t, w, "appeared")
	eventually(t, "the returned target watched", func() bool { return watched(w, filepath.Join(dot, "greet")) })
	write(t, filepath.Join(dot, "greet", "SKILL.md"), "edited after it came back")
	awaitPaths(t, w, filepath.Join(root, "greet", "SKILL.md"))
}
