package watch

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
)

// DebounceDelay is how long the Watcher waits after the last event before it delivers a
// Batch. An editor's atomic save (temp file, write, rename) takes a few milliseconds and a
// git checkout or a plugin install writes its files in bursts with gaps well under 100 ms,
// so 150 ms folds each of them into one Batch; it also leaves most of the 1 s budget from
// an edit to an updated page for the incremental rescan and the UI.
const DebounceDelay = 150 * time.Millisecond

// MaxWaitFactor bounds how long a continuous stream of events can hold a Batch back: it is
// delivered at the latest MaxWaitFactor × the debounce delay after its first event (600 ms
// with DebounceDelay), which still meets the 1 s goal while a build keeps writing.
const MaxWaitFactor = 4

// DefaultPollInterval is how often a Rescan batch is delivered once the watch limit has
// been reached. Rescanning a large catalog costs a second or so of disk reads; every 5 s
// keeps the page fresh without keeping a core busy.
const DefaultPollInterval = 5 * time.Second

// maxBatchPaths caps the paths one Batch can carry; past it the Batch asks for a Rescan
// instead, which is cheaper for the caller than looking at each path (a large checkout).
const maxBatchPaths = 10000

// ErrClosed is returned by SetRoots after Close.
var ErrClosed = errors.New("watch: watcher closed")

// Options tunes a Watcher; the zero value is ready to use.
type Options struct {
	Debounce     time.Duration // quiet time before a Batch is delivered; 0 means DebounceDelay
	PollInterval time.Duration // Rescan period once the watch limit is hit; 0 means DefaultPollInterval
	Log          io.Writer     // one line per notable condition; nil discards
}

// Batch is one delivery of changes.
type Batch struct {
	// Paths are the changed files and folders, deduplicated and sorted, each under the
	// root it was found in, spelled as the caller spelled the root. A change inside a
	// symlinked folder's target is reported under the link's path.
	Paths []string
	// Rescan asks the caller to rescan every root: events were lost (queue overflow, watch
	// limit) or a root appeared, vanished or was re-pointed.
	Rescan bool
	// Reason says why Rescan is set, for logs.
	Reason string
}

// Watcher delivers Batches of changes under a set of roots. See the package comment.
type Watcher struct {
	fs       *fsnotify.Watcher
	debounce time.Duration
	poll     time.Duration
	log      io.Writer

	out      chan Batch
	pauseC   chan bool
	rootsC   chan rootsRequest
	done     chan struct{}
	exited   chan struct{}
	closing  sync.Once
	closeErr error
	limited  atomic.Bool

	// Owned by the run goroutine (by New before it starts).
	roots   []*root
	dirs    map[string]*dir      // real (symlink-free) folder path → its watch
	logical map[string]string    // watched folder as reported (under a root) → real path
	waiting map[string]*waitLink // symlinked folder under a root whose target is missing, by logical path
	pending changes
	ready   *Batch // flushed, not yet taken by the reader
	paused  bool
	// hitLimit records a watch refused for lack of kernel resources since the last rearm;
	// limited (readable from any goroutine) says the same to Limited.
	hitLimit bool
}

type rootsRequest struct {
	roots []string
	reply chan error
}

// New watches roots (folders or single files, which need not exist yet) and returns once
// every watch is armed. It fails only when the notification facility cannot be opened.
func New(roots []string, o Options) (*Watcher, error) {
	rs, err := newRoots(roots)
	if err != nil {
		return nil, err
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	w := &Watcher{
		fs:       fw,
		debounce: o.Debounce,
		poll:     o.PollInterval,
		log:      o.Log,
		out:      make(chan Batch),
		pauseC:   make(chan bool),
		rootsC:   make(chan rootsRequest),
		done:     make(chan struct{}),
		exited:   make(chan struct{}),
		roots:    rs,
		dirs:     map[string]*dir{},
		logical:  map[string]string{},
		waiting:  map[string]*waitLink{},
	}
	if w.debounce <= 0 {
		w.debounce = DebounceDelay
	}
	if w.poll <= 0 {
		w.poll = DefaultPollInterval
	}
	if w.log == nil {
		w.log = io.Discard
	}
	w.rearm()
	go w.run()
	return w, nil
}

// Batches delivers the changes; it is closed by Close. A reader that falls behind does not
// lose changes: they are merged into the Batch it has not taken yet.
func (w *Watcher) Batches() <-chan Batch { return w.out }

// SetRoots replaces the watched roots (the settings changed). It delivers no Batch: the
// caller that changed the roots rescans on its own.
func (w *Watcher) SetRoots(roots []string) error {
	req := rootsRequest{roots: roots, reply: make(chan error, 1)}
	select {
	case w.rootsC <- req:
		return <-req.reply
	case <-w.exited:
		return ErrClosed
	}
}

// Pause holds Batches back while paused is true (during a save the app makes itself, or a
// bulk operation). Changes keep accumulating and are delivered as one Batch on resume.
func (w *Watcher) Pause(paused bool) {
	select {
	case w.pauseC <- paused:
	case <-w.exited:
	}
}

// Limited reports whether the watch limit was hit and periodic Rescan batches stand in
// for the missing watches.
func (w *Watcher) Limited() bool { return w.limited.Load() }

// Close stops watching, waits for the goroutine to end and closes Batches. It is safe to
// call more than once.
func (w *Watcher) Close() error {
	w.closing.Do(func() {
		close(w.done)
		<-w.exited
		w.closeErr = w.fs.Close()
	})
	return w.closeErr
}

// run is the goroutine that owns the Watcher's state.
func (w *Watcher) run() {
	defer close(w.exited)
	defer close(w.out)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	var ticker *time.Ticker
	var tick <-chan time.Time
	defer func() {
		if ticker != nil {
			ticker.Stop()
		}
	}()
	for {
		if w.limited.Load() && ticker == nil {
			ticker = time.NewTicker(w.poll)
			tick = ticker.C
		}
		var out chan<- Batch
		var next Batch
		if w.ready != nil && !w.paused {
			out, next = w.out, *w.ready
		}
		select {
		case ev, ok := <-w.fs.Events:
			if !ok {
				return
			}
			w.handle(ev)
		case err, ok := <-w.fs.Errors:
			if !ok {
				return
			}
			w.handleError(err)
		case <-timer.C:
			w.flush()
		case out <- next:
			w.ready = nil
		case p := <-w.pauseC:
			w.paused = p
			if !p {
				w.flush()
			}
		case req := <-w.rootsC:
			req.reply <- w.setRoots(req.roots)
		case <-tick:
			if w.pollTick() {
				ticker.Stop()
				ticker, tick = nil, nil
			}
		case <-w.done:
			return
		}
		w.schedule(timer)
	}
}

// pollTick asks for the periodic Rescan that stands in for missing watches, and tries
// them again in case the limit was raised. It reports whether every watch is armed now.
func (w *Watcher) pollTick() (recovered bool) {
	w.pending.rescan("watch limit reached: periodic rescan")
	w.hitLimit = false
	w.rearm()
	if w.hitLimit {
		return false
	}
	w.limited.Store(false)
	w.logf("all folders are watched again; periodic rescans stop")
	return true
}

// schedule arms the debounce timer for the pending changes: DebounceDelay after the latest
// event, but no later than MaxWaitFactor × DebounceDelay after the first.
func (w *Watcher) schedule(timer *time.Timer) {
	if w.pending.empty() || w.pending.last.IsZero() {
		return
	}
	deadline := w.pending.last.Add(w.debounce)
	if limit := w.pending.first.Add(MaxWaitFactor * w.debounce); deadline.After(limit) {
		deadline = limit
	}
	w.pending.last = time.Time{} // scheduled; the next event schedules again
	timer.Reset(time.Until(deadline))
}

// flush moves the pending changes into the Batch waiting for the reader.
func (w *Watcher) flush() {
	if w.pending.empty() {
		return
	}
	b := w.pending.take()
	if w.ready != nil {
		b = merge(*w.ready, b)
	}
	w.ready = &b
}

func (w *Watcher) handleError(err error) {
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		w.logf("event queue overflowed; rescanning everything")
		w.pending.rescan("event queue overflow")
		w.rearm() // folders created meanwhile have no watch yet
		return
	}
	w.logf("%v", err)
}

func (w *Watcher) setRoots(roots []string) error {
	rs, err := newRoots(roots)
	if err != nil {
		return err
	}
	w.roots = rs
	w.rearm()
	return nil
}

func (w *Watcher) logf(format string, args ...any) {
	fmt.Fprintf(w.log, "watch: "+format+"\n", args...)
}
