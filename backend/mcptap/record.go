package mcptap

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plugboard/plugboard/backend/store"
)

// Info is the "activity" member of a server's private config file: what the launch
// knows of the server, which every record of its calls carries. It holds no target (one
// projection serves every target with the same set): that comes from the environment.
type Info struct {
	Home        string `json:"home"` // $PLUGBOARD_HOME of the launch: where the store is
	Backend     string `json:"backend"`
	Fingerprint string `json:"fingerprint"`
	Plugin      string `json:"plugin"` // the id of the plugin that declares the server
	Server      string `json:"server"` // the server's name, as the launch configured it
}

// AnswerWait is the Wait the relays give their recorders: far more than a write takes
// (the store waits 20 ms at most for a busy database before it spools), so that only a
// store that is somehow stuck lets an answer through before its row.
const AnswerWait = 250 * time.Millisecond

// queueSize bounds the calls waiting to be written: a recorder that cannot keep up
// drops calls rather than hold a relay back or grow without end.
const queueSize = 256

// Recorder writes each call it is handed as one store.Activity row of kind
// store.KindTool, from a goroutine of its own.
type Recorder struct {
	// Wait, when set, makes Record wait (at most this long) until the call's row is
	// written or spooled. The relays set it and hand a call over before they pass its
	// answer on, so that the row is in the store before the agent has the answer (plugboard
	// try reads a turn's rows as soon as the turn ends); a write takes a millisecond or
	// two, and the store spools rather than wait long on a busy database.
	Wait time.Duration

	info        Info
	target, run string
	who         string // the command, as its stderr lines start
	log         io.Writer

	store *store.Writer // keeps its database connection between rows
	nonce [16]byte      // makes keys unique across processes
	n     atomic.Uint64 // and across the calls of this one (ids repeat)

	mu     sync.RWMutex
	closed bool
	queue  chan queued
	done   chan struct{}

	dropped, failed atomic.Int64
}

// NewRecorder starts a recorder for the calls of the server info names, made by the
// agent of target (and of the try run, or ""). who is the command whose stderr log
// gets a line for the first call dropped and the first that could not be written.
func NewRecorder(info Info, target, run, who string, log io.Writer) *Recorder {
	if log == nil {
		log = io.Discard
	}
	r := &Recorder{info: info, target: target, run: run, who: who, log: log, store: store.NewWriter(info.Home),
		queue: make(chan queued, queueSize), done: make(chan struct{})}
	_, _ = rand.Read(r.nonce[:])
	go r.write()
	return r
}

// queued is one row waiting to be written; written is closed once it is (or could not
// be), when someone waits for it.
type queued struct {
	a       store.Activity
	written chan struct{}
}

// Record queues c, and with Wait set waits for it to be written, at most Wait; when the
// queue is full (or the recorder closed) c is dropped at once.
func (r *Recorder) Record(c Call) {
	q := queued{a: r.activity(c)}
	if r.Wait > 0 {
		q.written = make(chan struct{})
	}
	if !r.enqueue(q) || q.written == nil {
		return
	}
	t := time.NewTimer(r.Wait)
	defer t.Stop()
	select {
	case <-q.written:
	case <-t.C:
	}
}

func (r *Recorder) enqueue(q queued) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.closed {
		return false
	}
	select {
	case r.queue <- q:
		return true
	default:
		if r.dropped.Add(1) == 1 {
			r.logf("MCP tool calls come faster than they can be recorded; some are not counted")
		}
		return false
	}
}

// activity is the record of c: names, ids and the time only.
func (r *Recorder) activity(c Call) store.Activity {
	h := sha256.New()
	h.Write(r.nonce[:])
	h.Write([]byte{0})
	h.Write([]byte(c.ID))
	h.Write([]byte{0})
	h.Write([]byte(strconv.FormatUint(r.n.Add(1), 10)))
	return store.Activity{
		Key:         "mcp:" + hex.EncodeToString(h.Sum(nil)[:16]),
		Time:        c.At,
		Target:      r.target,
		Backend:     r.info.Backend,
		Fingerprint: r.info.Fingerprint,
		Plugin:      r.info.Plugin,
		Kind:        store.KindTool,
		Server:      r.info.Server,
		Tool:        c.Tool,
		MS:          c.MS,
		Failed:      c.Failed,
		How:         store.HowModel,
		Run:         r.run,
	}
}

func (r *Recorder) write() {
	defer close(r.done)
	defer r.store.Close()
	for q := range r.queue {
		if _, err := r.store.Record(context.Background(), q.a); err != nil && r.failed.Add(1) == 1 {
			r.logf("an MCP tool call could not be recorded: %v", err)
		}
		if q.written != nil {
			close(q.written)
		}
	}
}

// Close stops taking calls and waits at most wait for the queued ones to be written. It
// says on the log how many calls were dropped or could not be written.
func (r *Recorder) Close(wait time.Duration) {
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		close(r.queue)
	}
	r.mu.Unlock()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-r.done:
	case <-t.C:
		r.logf("stopped before every MCP tool call was recorded")
	}
	if n := r.dropped.Load(); n > 0 {
		r.logf("%d MCP tool calls were not counted: they came faster than they could be recorded", n)
	}
	if n := r.failed.Load(); n > 0 {
		r.logf("%d MCP tool calls could not be recorded", n)
	}
}

func (r *Recorder) logf(format string, a ...any) {
	fmt.Fprintf(r.log, r.who+": "+format+"\n", a...)
}
