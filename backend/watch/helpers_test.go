package watch

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// timeout is how long a test waits for a Batch; generous because the machine is shared.
// Latency goals are measured by logging and by benchmarks, not by this.
const timeout = 5 * time.Second

// fast debounces briefly so that tests do not wait for DebounceDelay.
var fast = Options{Debounce: 20 * time.Millisecond}

// start watches roots and closes the Watcher when the test ends.
func start(t testing.TB, roots []string, o Options) *Watcher {
	t.Helper()
	w, err := New(roots, o)
	if err != nil {
		t.Fatalf("New(%q) = %v", roots, err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// await reads Batches until done says the batches read so far are enough.
func await(t *testing.T, w *Watcher, what string, done func([]Batch) bool) []Batch {
	t.Helper()
	var got []Batch
	deadline := time.After(timeout)
	for {
		select {
		case b, ok := <-w.Batches():
			if !ok {
				t.Fatalf("Batches closed while waiting for %s; got %+v", what, got)
			}
			got = append(got, b)
			if done(got) {
				return got
			}
		case <-deadline:
			t.Fatalf("no %s within %s; got %+v", what, timeout, got)
		}
	}
}

// awaitPaths waits until every path in want has been reported.
func awaitPaths(t *testing.T, w *Watcher, want ...string) []Batch {
	t.Helper()
	return await(t, w, "batch naming "+strings.Join(want, ", "), func(got []Batch) bool {
		seen := reported(got)
		for _, p := range want {
			if !seen[p] {
				return false
			}
		}
		return true
	})
}

// awaitRescan waits for a Batch with Rescan set whose Reason contains reason.
func awaitRescan(t *testing.T, w *Watcher, reason string) Batch {
	t.Helper()
	got := await(t, w, "Rescan batch ("+reason+")", func(got []Batch) bool {
		b := got[len(got)-1]
		return b.Rescan && strings.Contains(b.Reason, reason)
	})
	return got[len(got)-1]
}

// expectQuiet fails if a Batch arrives within d.
func expectQuiet(t *testing.T, w *Watcher, d time.Duration) {
	t.Helper()
	select {
	case b := <-w.Batches():
		t.Fatalf("unexpected batch %+v", b)
	case <-time.After(d):
	}
}

func reported(bs []Batch) map[string]bool {
	seen := map[string]bool{}
	for _, b := range bs {
		for _, p := range b.Paths {
			seen[p] = true
		}
	}
	return seen
}

// notReported fails if any batch names a path under prefix.
func notReported(t *testing.T, bs []Batch, prefix string) {
	t.Helper()
	for p := range reported(bs) {
		if p == prefix || strings.HasPrefix(p, prefix+string(filepath.Separator)) {
			t.Errorf("reported %s, under %s; want it reported under the link", p, prefix)
		}
	}
}

// watched reports whether fsnotify holds a watch on the folder p.
func watched(w *Watcher, p string) bool {
	resolved, err := filepath.EvalSymlinks(p)
	if err != nil {
		resolved = p
	}
	return slices.Contains(w.fs.WatchList(), resolved)
}

func write(t testing.TB, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t testing.TB, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func symlink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// plugin lays out a small plugin folder with one skill.
func plugin(t testing.TB, dir string) {
	t.Helper()
	write(t, filepath.Join(dir, ".cursor-plugin", "plugin.json"), `{"name":"p"}`)
	write(t, filepath.Join(dir, "skills", "a", "SKILL.md"), "---\nname: a\n---\n")
	write(t, filepath.Join(dir, "skills", "b", "SKILL.md"), "---\nname: b\n---\n")
}

// logBuffer is an io.Writer safe to read while the Watcher writes to it.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// linkInto makes the folder root and in it a symlink to target named as target's
// folder, as a linked working copy is; it returns the link.
func linkInto(t testing.TB, root, target string) string {
	t.Helper()
	mkdir(t, root)
	link := filepath.Join(root, filepath.Base(target))
	symlink(t, target, link)
	return link
}
