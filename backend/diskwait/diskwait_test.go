package diskwait

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

func TestControlRaisesWhileReadingAndLowersAfterQuietTicks(t *testing.T) {
	var c control
	raised := false
	steps := []struct {
		read int64
		want bool
	}{
		{0, false},           // nothing from storage: as it is
		{minRead - 1, false}, // a stray page of the program is not a scan waiting on the disk
		{minRead, true},      // reading from storage: raised
		{0, true},            // one quiet tick
		{0, true},            // two
		{0, false},           // three: back
		{1 << 20, true},      // reading again
		{0, true},
		{5 << 20, true}, // a read in between starts the quiet count again
		{0, true},
		{0, true},
		{0, false},
	}
	for i, s := range steps {
		raised = c.next(s.read, raised)
		if raised != s.want {
			t.Fatalf("step %d (read %d): raised %v, want %v", i, s.read, raised, s.want)
		}
	}
}

// evicted writes a file of size bytes and drops it from the page cache, so that reading
// it goes to storage.
func evicted(t *testing.T, size int) *os.File {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "data"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if _, err := f.Write(make([]byte, size)); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	evict(t, f)
	return f
}

func evict(t *testing.T, f *os.File) {
	t.Helper()
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
}

// readAll reads f from the start with reads of 64 KiB, the page cache bypassed by
// evicting what was read.
func readAll(t *testing.T, f *os.File) {
	t.Helper()
	buf := make([]byte, 64<<10)
	for off := int64(0); ; off += int64(len(buf)) {
		n, err := f.ReadAt(buf, off)
		if n == 0 || err != nil {
			break
		}
	}
	evict(t, f)
}

func TestPhaseRaisesProcessorsWhileReadingFromStorage(t *testing.T) {
	if os.Getenv("GOMAXPROCS") != "" {
		t.Fatal("GOMAXPROCS is set in the environment: the phase leaves it alone, so this test cannot run")
	}
	before := runtime.GOMAXPROCS(0)
	procs := 4 * before
	f := evicted(t, 8<<20)
	start, ok := readBytes()
	if !ok {
		t.Fatal("/proc/self/io has no read_bytes: the kernel keeps no I/O accounting here")
	}
	readAll(t, f)
	if got, _ := readBytes(); got-start < minRead {
		t.Fatalf("reading 8 MiB after evicting it fetched %d bytes from storage: the temporary folder (%s) is not on a disk", got-start, t.TempDir())
	}

	p := Start(procs)
	if Procs() != before {
		t.Errorf("Procs() = %d during the phase, want %d", Procs(), before)
	}
	// The watcher samples every tick: read from storage until it has raised the
	// processors (each pass is 8 MiB from the disk; a tick is 10 ms).
	raised := false
	for pass := 0; pass < 1000 && !raised; pass++ {
		readAll(t, f)
		raised = runtime.GOMAXPROCS(0) == procs
	}
	if !raised {
		t.Fatalf("GOMAXPROCS stayed %d while the phase read 8 GiB from storage, want %d", runtime.GOMAXPROCS(0), procs)
	}
	if Procs() != before {
		t.Errorf("Procs() = %d while raised, want %d (what callers size their goroutines by)", Procs(), before)
	}
	p.Stop()
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("GOMAXPROCS after Stop = %d, want %d", got, before)
	}
	p.Stop() // a second Stop is harmless
}

func TestPhaseLeavesAWarmProcessAlone(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	f := evicted(t, 1<<20)
	buf := make([]byte, 1<<20)
	if _, err := f.ReadAt(buf, 0); err != nil {
		t.Fatal(err) // now in the page cache
	}
	p := Start(4 * before)
	select {
	case <-p.done:
		t.Fatal("no watcher started")
	default:
	}
	// Reads from the page cache only, over more ticks than the watcher needs to act.
	ticks := 0
	for last, _ := readBytes(); ticks < 10; {
		if _, err := f.ReadAt(buf, 0); err != nil {
			t.Fatal(err)
		}
		if got := runtime.GOMAXPROCS(0); got != before {
			now, _ := readBytes()
			t.Fatalf("GOMAXPROCS became %d while every read came from the page cache (%d bytes from storage)", got, now-last)
		}
		runtime.Gosched()
		ticks = int(p.ticks.Load())
	}
	p.Stop()
}

func TestSecondPhaseAndSmallCountsDoNothing(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	p := Start(4 * before)
	q := Start(4 * before) // another phase while one is watched: runs as it is
	select {
	case <-q.done:
	default:
		t.Error("a second phase started a watcher of its own")
	}
	q.Stop()
	p.Stop()
	r := Start(before) // no more processors than there are
	select {
	case <-r.done:
	default:
		t.Error("a phase asking for no more processors than there are started a watcher")
	}
	r.Stop()
}
