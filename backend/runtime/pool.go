package runtime

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// SessionArgs turn a Claude launch into a non-interactive session that takes one JSON
// message per line on stdin and answers in JSON lines on stdout.
var SessionArgs = []string{"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"}

// PISessionArgs do the same for PI: its RPC mode takes one JSON command per line on
// stdin and answers with JSON responses and events; no session file is written.
var PISessionArgs = []string{"--mode", "rpc", "--no-session"}

// sessionArgs are the session arguments of a backend.
func sessionArgs(backend string) []string {
	if backend == PI {
		return PISessionArgs
	}
	return SessionArgs
}

// Pool keeps live non-interactive agent sessions keyed by fingerprint (R6): a plan with
// the fingerprint of a live session gets that session; any other fingerprint starts a
// new one. The key also holds the argv and the environment Plugboard adds (the agent
// executable and its arguments are not capabilities, but a session started with others
// is not the same session). At most Max sessions stay alive; the least recently used
// goes first.
type Pool struct {
	Max int // 0: DefaultPoolSize
	// Idle stops a session nobody has used for this long (0: never), so that a pool in a
	// long-running process (the desktop app, left in the tray) does not keep agents alive
	// for a try made hours ago.
	Idle time.Duration

	mu       sync.Mutex
	sessions map[string]*Session
	closed   bool
	reaper   *time.Timer
}

// DefaultPoolSize bounds the live sessions: each is a Node process of 100–300 MB.
const DefaultPoolSize = 4

// Session is one pooled agent process.
type Session struct {
	Fingerprint string
	Backend     string
	PID         int
	key         string

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	stderr *tail
	mu     sync.Mutex   // one conversation turn at a time
	turns  int          // turns taken, under mu
	used   atomic.Int64 // when it was last handed out or ended a turn, in Unix nanoseconds
	exited chan struct{}

	closing sync.Once
}

// Get returns the live session for the plan's fingerprint, or starts one with the plan's
// argv followed by the backend's session arguments (SessionArgs, PISessionArgs).
func (p *Pool) Get(ctx context.Context, plan *Plan) (*Session, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("the pool is closed")
	}
	if p.sessions == nil {
		p.sessions = map[string]*Session{}
	}
	key := sessionKey(plan)
	if s := p.sessions[key]; s != nil && s.alive() {
		s.touch()
		return s, nil
	}
	delete(p.sessions, key)
	p.evict()
	s, err := start(plan)
	if err != nil {
		return nil, err
	}
	s.key = key
	p.sessions[key] = s
	p.armReaper()
	return s, nil
}

// armReaper schedules the next check for idle sessions, when Idle is set and none is
// scheduled. Called with p.mu held.
func (p *Pool) armReaper() {
	if p.Idle <= 0 || p.reaper != nil || len(p.sessions) == 0 {
		return
	}
	p.reaper = time.AfterFunc(p.Idle/2, func() { p.reap(time.Now()) })
}

// reap stops the sessions idle for Idle or longer (one in a conversation is busy, not
// idle: its turn holds its lock) and schedules the next check while any is left.
func (p *Pool) reap(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reaper = nil
	if p.closed {
		return
	}
	for key, s := range p.sessions {
		if now.Sub(time.Unix(0, s.used.Load())) >= p.Idle && s.mu.TryLock() {
			s.mu.Unlock()
			delete(p.sessions, key)
			go s.Close()
		}
	}
	p.armReaper()
}

// evict stops the least recently used sessions until one more fits.
func (p *Pool) evict() {
	max := p.Max
	if max <= 0 {
		max = DefaultPoolSize
	}
	for len(p.sessions) >= max {
		var oldest *Session
		for _, s := range p.sessions {
			if oldest == nil || s.used.Load() < oldest.used.Load() {
				oldest = s
			}
		}
		delete(p.sessions, oldest.key)
		oldest.Close()
	}
}

// Len is the number of sessions held.
func (p *Pool) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.sessions)
}

// Close stops every session.
func (p *Pool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	if p.reaper != nil {
		p.reaper.Stop()
	}
	for fp, s := range p.sessions {
		s.Close()
		delete(p.sessions, fp)
	}
}

// sessionKey is the fingerprint with the argv and the added environment.
func sessionKey(plan *Plan) string {
	return plan.Fingerprint + "\x00" + strings.Join(plan.Argv, "\x00") + "\x00" + strings.Join(plan.env, "\x00")
}

func start(plan *Plan) (*Session, error) {
	argv := append(append([]string{}, plan.Argv...), sessionArgs(plan.Backend)...)
	bin, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, argv[1:]...)
	cmd.Env = plan.Env(os.Environ())
	errs := &tail{max: stderrTail}
	cmd.Stderr = errs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // Close stops its children too
	cmd.WaitDelay = 2 * time.Second                       // a child holding stderr does not hold Wait
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", argv[0], err)
	}
	s := &Session{Fingerprint: plan.Fingerprint, Backend: plan.Backend, PID: cmd.Process.Pid, cmd: cmd, stdin: in,
		out: bufio.NewReader(out), stderr: errs, exited: make(chan struct{})}
	s.touch()
	go func() { _ = cmd.Wait(); close(s.exited) }()
	return s, nil
}

func (s *Session) touch() { s.used.Store(time.Now().UnixNano()) }

func (s *Session) alive() bool {
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

// Send writes one message line and returns the next line the agent prints.
func (s *Session) Send(line []byte) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.stdin.Write(append(append([]byte{}, line...), '\n')); err != nil {
		return nil, err
	}
	return s.out.ReadBytes('\n')
}

// Conn is a session's streams during one Converse.
type Conn struct {
	s   *Session
	ctx context.Context
}

// Write sends one line (a JSON message or command) to the agent.
func (c *Conn) Write(line []byte) error {
	if _, err := c.s.stdin.Write(append(append([]byte{}, line...), '\n')); err != nil {
		return c.s.failed(c.ctx, err)
	}
	return nil
}

// Read returns the next line the agent prints.
func (c *Conn) Read() ([]byte, error) {
	line, err := c.s.out.ReadBytes('\n')
	if err != nil {
		return nil, c.s.failed(c.ctx, err)
	}
	return line, nil
}

// Converse gives f the session's streams for one conversation turn (no other caller
// writes or reads meanwhile) and how many turns the session had taken before it, so that
// f can tell a warm process (which may need its conversation reset) from a fresh one.
// When ctx ends first the session is closed, which ends a Read in f (the pool replaces a
// closed session).
func (s *Session) Converse(ctx context.Context, f func(c *Conn, turnsBefore int) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	before := s.turns
	s.turns++
	stop := context.AfterFunc(ctx, s.Close)
	defer stop()
	defer s.touch()
	return f(&Conn{s: s, ctx: ctx}, before)
}

// failed words a conversation that broke off: the session is closed, and the error says
// why, with the end of the agent's stderr.
func (s *Session) failed(ctx context.Context, err error) error {
	s.Close()
	if ctx.Err() != nil {
		return fmt.Errorf("the agent did not finish in time: %w", ctx.Err())
	}
	msg := fmt.Sprintf("the agent stopped before the end of its turn (%v)", err)
	if t := strings.TrimSpace(s.stderr.String()); t != "" {
		msg += "; its stderr ends: " + t
	}
	return errors.New(msg)
}

// stderrTail is how much of a session's stderr is kept for its errors.
const stderrTail = 4 << 10

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte{}, t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// Close stops the session's process group and waits for it briefly. A process already
// reaped is not signalled: its group id may belong to another process by now.
//
// Close may be called more than once and from several goroutines (a context ending while
// the conversation fails): the first call stops the process, and every call returns once
// it has exited.
func (s *Session) Close() {
	s.closing.Do(func() {
		_ = s.stdin.Close()
		if !s.alive() {
			return
		}
		_ = syscall.Kill(-s.PID, syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(2 * time.Second):
			_ = syscall.Kill(-s.PID, syscall.SIGKILL)
		}
	})
	<-s.exited
}
