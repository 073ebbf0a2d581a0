// Package diskwait gives a phase of work that reads from the disk more Go processors
// (GOMAXPROCS) than the machine has CPUs, for as long as it reads from the disk.
//
// A goroutine blocked in a read that goes to the disk keeps its processor until the
// runtime's monitor takes it back, and when the read returns it waits for a free
// processor behind the goroutines doing CPU work. With as many processors as CPUs, a
// scan that both reads and parses (the catalog: 8 package loads on 2 CPUs) therefore
// keeps fewer reads in flight than it has goroutines, and the CPUs sit idle a third of
// the time. Measured on the catalog benchmark home (1,000 plugins × 10 skills, page
// cache dropped, 2 CPUs): 2.3–2.9 s with 2 processors, 1.8–1.9 s with 8. With the page
// cache warm the same scan is CPU-bound, and 8 processors on 2 CPUs cost it 12% more
// wall time (more threads, more collector workers). So the processors are raised only
// while the process is reading from the disk: while the bytes the kernel fetched from
// storage for it (read_bytes of /proc/self/io) grew over the last tick, and lowered
// after three ticks with none. CPU use was tried first and is a worse signal: a cold
// scan uses 60–70% of the CPUs, but a warm one on a shared machine dips as low.
package diskwait

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The controller's settings (see the package doc for the figures behind them).
const (
	tick       = 10 * time.Millisecond
	minRead    = 64 << 10 // bytes from storage in a tick that say the process waits on the disk
	quietTicks = 3        // ticks with less before the processors go back
)

var (
	mu     sync.Mutex
	active bool // one phase adjusts GOMAXPROCS at a time; a second runs as it is
	base   int  // GOMAXPROCS before the active phase raised it
)

// Procs is GOMAXPROCS as the runtime set it, not counting what an active phase added:
// what a caller sizes its own goroutines by.
func Procs() int {
	mu.Lock()
	defer mu.Unlock()
	if active && base > 0 {
		return base
	}
	return runtime.GOMAXPROCS(0)
}

// Phase is one watched phase of work; Stop ends it.
type Phase struct {
	stop, done chan struct{}
	once       sync.Once
	ticks      atomic.Int64 // samples taken, for tests
}

// Start watches the process's reads from storage from now until Stop, and while there
// are any, runs it with procs processors. It does nothing when procs
// is not above the CPUs' count, when the user set GOMAXPROCS, or when another phase is
// being watched.
func Start(procs int) *Phase {
	p := &Phase{stop: make(chan struct{}), done: make(chan struct{})}
	mu.Lock()
	cpus := runtime.GOMAXPROCS(0)
	skip := active || procs <= cpus || os.Getenv("GOMAXPROCS") != ""
	if !skip {
		active, base = true, cpus
	}
	mu.Unlock()
	if skip {
		close(p.done)
		return p
	}
	go p.watch(procs, cpus)
	return p
}

// Stop ends the phase and gives GOMAXPROCS back the value it had at Start.
func (p *Phase) Stop() {
	p.once.Do(func() { close(p.stop) })
	<-p.done
}

func (p *Phase) watch(procs, cpus int) {
	defer close(p.done)
	raised := false
	defer func() {
		if raised {
			runtime.GOMAXPROCS(cpus)
		}
		mu.Lock()
		active, base = false, 0
		mu.Unlock()
	}()
	last, ok := readBytes()
	if !ok {
		return // no I/O accounting here (not Linux, or a kernel without it)
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	var c control
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.ticks.Add(1)
			now, _ := readBytes()
			if want := c.next(now-last, raised); want != raised {
				raised = want
				if raised {
					runtime.GOMAXPROCS(procs)
				} else {
					runtime.GOMAXPROCS(cpus)
				}
			}
			last = now
		}
	}
}

// control decides from each tick's bytes read from storage whether the processors are
// raised.
type control struct {
	quiet int // ticks in a row with nothing read from storage
}

func (c *control) next(read int64, raised bool) bool {
	if read >= minRead {
		c.quiet = 0
		return true
	}
	c.quiet++
	return raised && c.quiet < quietTicks
}

// readBytes is what the kernel has fetched from storage for this process so far.
func readBytes() (int64, bool) {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "read_bytes: "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}
