package watch

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// enospcStandIn replaces addWatch with a stand-in for a kernel whose inotify watch limit is
// reached after allowed watches, until the returned switch is turned off.
func enospcStandIn(t *testing.T, allowed int32) (full *atomic.Bool) {
	realAdd := addWatch
	var added atomic.Int32
	full = new(atomic.Bool)
	full.Store(true)
	addWatch = func(fw *fsnotify.Watcher, path string) error {
		if full.Load() && added.Load() >= allowed {
			return fmt.Errorf("inotify_add_watch %s: %w", path, syscall.ENOSPC)
		}
		added.Add(1)
		return realAdd(fw, path)
	}
	t.Cleanup(func() { addWatch = realAdd })
	return full
}

func TestWatchLimitFallsBackToPolling(t *testing.T) {
	full := enospcStandIn(t, 2)
	root := t.TempDir()
	plugin(t, filepath.Join(root, "p"))
	var log logBuffer
	w := start(t, []string{root}, Options{Debounce: 20 * time.Millisecond, PollInterval: 50 * time.Millisecond, Log: &log})

	if !w.Limited() {
		t.Fatal("Limited() = false after ENOSPC, want true")
	}
	for _, want := range []string{"fs.inotify.max_user_watches", "sysctl"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log = %q, want it to mention %q", log.String(), want)
		}
	}
	if n := strings.Count(log.String(), "limit reached"); n != 1 {
		t.Errorf("limit logged %d times, want once: %q", n, log.String())
	}
	awaitRescan(t, w, "watch limit")
	awaitRescan(t, w, "watch limit") // and again: it is periodic
	if n := strings.Count(log.String(), "limit reached"); n != 1 {
		t.Errorf("limit logged %d times after several ticks, want once: %q", n, log.String())
	}

	full.Store(false) // the user raised the limit
	eventually(t, "Limited() back to false", func() bool { return !w.Limited() })
	if !strings.Contains(log.String(), "watched again") {
		t.Errorf("log = %q, want a line saying the folders are watched again", log.String())
	}
	skill := filepath.Join(root, "p", "skills", "b", "SKILL.md")
	eventually(t, "deep folder watched", func() bool { return watched(w, filepath.Dir(skill)) })
	write(t, skill, "edited")
	awaitPaths(t, w, skill)
}
