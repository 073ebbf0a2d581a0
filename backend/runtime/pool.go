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
	"syscall"
	"time"
)

// SessionArgs turn a Claude launch into a non-interactive session that takes one JSON
// message per line on stdin and answers in JSON lines on stdout.
var SessionArgs = []string{"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"}

// Pool keeps live non-interactive agent sessions keyed by fingerprint (R6): a plan with
// the fingerprint of a live session gets that session; any other fingerprint starts a
// new one. The key also holds the argv and the environment Plugboard adds (the agent
// executable and its arguments are not capabilities, but a session started with others
// is not the same session). At most Max sessions stay alive; the least recently used
// goes first.
type Pool struct {
	Max int // 0: DefaultPoolSize

	mu       sync.Mutex
	sessions map[string]*Session
	closed   bool
}

// DefaultPoolSize bounds the live sessions: each is a Node process of 100–300 MB.
const DefaultPoolSize = 4

// Session is one pooled agent process.
type Session struct {
	Fingerprint string
	PID         int
	key         string

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	mu     sync.Mutex // one conversation turn at a time
	used   time.Time
	exited chan struct{}
}

// Get returns the live session for the plan's fingerprint, or starts one with the plan's
// argv followed by SessionArgs.
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
		s.used = time.Now()
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
	return s, nil
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
			if oldest == nil || s.used.Before(oldest.used) {
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
	argv := append(append([]string{}, plan.Argv...), SessionArgs...)
	bin, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, argv[1:]...)
	cmd.Env = plan.Env(os.Environ())
	cmd.Stderr = io.Discard
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // Close stops its children too
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
	s := &Session{Fingerprint: plan.Fingerprint, PID: cmd.Process.Pid, cmd: cmd, stdin: in,
		out: bufio.NewReader(out), used: time.Now(), exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(s.exited) }()
	return s, nil
}

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

// Close stops the session's process group and waits for it briefly. A process already
// reaped is not signalled: its group id may belong to another process by now.
func (s *Session) Close() {
	_ = s.stdin.Close()
	if !s.alive() {
		return
	}
	_ = syscall.Kill(-s.PID, syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(2 * time.Second):
		_ = syscall.Kill(-s.PID, syscall.SIGKILL)
		<-s.exited
	}
}
