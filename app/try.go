package app

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/try"
)

// tryIdle is how long a warm agent of the page's tries lives unused: long enough for a
// plugin author's edit-and-try loop, short enough that an app left in the tray does not
// keep agents (100–300 MB each) for a try made long ago.
const tryIdle = 10 * time.Minute

// tries are the page's tries: one pool of warm agents for the service, one Runner per
// launch (target or folder, and backend), so that repeated tries of an unchanged set
// reuse a live process.
type tries struct {
	mu      sync.Mutex
	pool    *runtime.Pool
	runners map[string]*try.Runner
	closed  bool
}

// Try runs prompt as one turn of the agent on a launch's projection and reports the
// skills and MCP tools the model invoked, and the answer: target is a target id (or an
// agent name), or dir a plugin folder (a working copy in Local development), not both;
// backend "" is the agent's own (Claude for a folder). A warm agent of an earlier try of
// the same set answers when there is one (result.warm). MCP servers not acknowledged for
// the target are left out, as a launch leaves them out (result.dropped).
func (s *Service) Try(target, dir, backend, prompt string) (*try.Result, error) {
	req, err := s.launchRequest(target, dir, backend)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(prompt) == "" {
		return nil, &Error{Code: CodeInvalid, Message: "write the prompt to try"}
	}
	r, err := s.tries.runner(req)
	if err != nil {
		return nil, &Error{Code: CodeIO, Message: err.Error()}
	}
	res, err := r.Try(context.Background(), prompt)
	// A missing client is said before anything starts, as Launch says it.
	var missing *try.MissingClientError
	if errors.As(err, &missing) {
		return res, clientMissing(missing.Backend, missing.Bin)
	}
	if err != nil {
		return res, launchError(err)
	}
	return res, nil
}

// runner returns the Runner of a launch, made on first use.
func (t *tries) runner(req runtime.Request) (*try.Runner, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, errors.New("Plugboard is shutting down")
	}
	if t.pool == nil {
		t.pool = &runtime.Pool{Idle: tryIdle}
		t.runners = map[string]*try.Runner{}
	}
	key := req.Target + "\x00" + strings.Join(req.Dirs, "\x00") + "\x00" + req.Backend
	r := t.runners[key]
	if r == nil {
		r = try.New(try.Options{Request: req, Pool: t.pool})
		t.runners[key] = r
	}
	return r, nil
}

// Close stops the warm agents of the page's tries; the shells call it when they stop.
func (s *Service) Close() {
	s.stopAsking()
	s.tries.mu.Lock()
	defer s.tries.mu.Unlock()
	s.tries.closed = true
	if s.tries.pool != nil {
		s.tries.pool.Close()
	}
}
