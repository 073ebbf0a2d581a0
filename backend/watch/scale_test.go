package watch

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// plugins lays out n plugin folders under root, each with three subfolders.
func plugins(t testing.TB, root string, n int) {
	t.Helper()
	for i := range n {
		plugin(t, filepath.Join(root, fmt.Sprintf("p%04d", i)))
	}
}

func TestThousandPluginsOneEdit(t *testing.T) {
	root := t.TempDir()
	plugins(t, root, 1000)
	began := time.Now()
	w := start(t, []string{root}, Options{})
	t.Logf("armed %d watches in %s", len(w.fs.WatchList()), time.Since(began))

	skill := filepath.Join(root, "p0500", "skills", "b", "SKILL.md")
	began = time.Now()
	write(t, skill, "edited")
	b := <-w.Batches()
	latency := time.Since(began)
	if want := []string{skill}; !slices.Equal(b.Paths, want) || b.Rescan {
		t.Errorf("batch = %+v, want Paths %q and no Rescan", b, want)
	}
	t.Logf("edit → batch latency with 1,000 plugins: %s (goal 1s)", latency)
}

// BenchmarkWatchStartup measures arming every watch for 1,000 plugins (5,001 folders).
func BenchmarkWatchStartup(b *testing.B) {
	root := b.TempDir()
	plugins(b, root, 1000)
	var watches int
	for b.Loop() {
		w, err := New([]string{root}, Options{})
		if err != nil {
			b.Fatal(err)
		}
		watches = len(w.fs.WatchList())
		w.Close()
	}
	b.ReportMetric(float64(watches), "watches")
}
