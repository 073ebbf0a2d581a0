package activity

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/store"
)

// Server is the recorder of one launch that its launcher hosts: plugboard launch waits
// for the agent it starts, so it serves the agent's hooks (Claude's HTTP hooks, PI's
// extension) on loopback and writes each invocation through one store.Writer whose
// connection stays open. A record then costs an HTTP round trip and an insert instead of
// a plugboard process (most of whose time is start-up). The agent finds it through the
// plan (runtime.Plan.UseActivityServer): the URL in its arguments or environment, the
// token in its environment only (runtime.ActivityTokenEnv), which other users cannot read.
//
// It serves POST /claude (a Claude Code hook input, FromClaudeHook) and POST /pi (an event
// of PI's extension, FromPIEvent), each with the token in the X-Plugboard-Token header,
// and answers 204 with no body whatever it does with the input (a hook's answer can reach
// the model), 403 for a wrong token. Like activity record it never stores a value and
// never holds the agent up for long: the store waits 20 ms at most before it spools.
// It is net/http's server, bounded for a client on the same machine whose input is under
// a kilobyte: headers within 64 KiB and 5 s, the whole request within 10 s, a body of at
// most maxHookInput (more is answered and not recorded).
type Server struct {
	URL   string // http://127.0.0.1:PORT
	Token string

	srv    *http.Server
	ix     *runtime.ActivityIndex // nil: the projection has none
	target string
	run    string
	home   string // the user's home, where standalone skills live
	w      *store.Writer
}

// ServeActivity starts the recorder of a launch whose plan is p (its projection's
// activity index gives the plugins' ids, versions and hashes), for the user home home.
// run is the try run of the launch, if any.
func ServeActivity(p *runtime.Plan, pbHome, home, run string) (*Server, error) {
	return Listen().Serve(p, pbHome, home, run)
}

// Listener is a recorder's loopback socket being opened. A launch opens it while its
// plan is built: the first listen of a process also probes which IP stacks the machine
// has, a few sockets of its own (together 0.3–0.5 ms on this project's machine).
type Listener struct {
	done chan struct{}
	l    net.Listener
	err  error
}

// Listen starts opening the socket on another goroutine.
func Listen() *Listener {
	x := &Listener{done: make(chan struct{})}
	go func() {
		defer close(x.done)
		x.l, x.err = net.Listen("tcp", "127.0.0.1:0")
	}()
	return x
}

// Close closes the socket unless Serve took it: for a launch that ends before its agent.
func (x *Listener) Close() {
	<-x.done
	if x.l != nil {
		x.l.Close()
		x.l = nil
	}
}

// Serve starts the recorder of a launch whose plan is p on the socket (see ServeActivity).
func (x *Listener) Serve(p *runtime.Plan, pbHome, home, run string) (*Server, error) {
	<-x.done
	if x.err != nil {
		return nil, fmt.Errorf("the activity recorder cannot listen on loopback: %w", x.err)
	}
	l := x.l
	x.l = nil // the server closes it
	tok := make([]byte, 24)
	if _, err := rand.Read(tok); err != nil {
		l.Close()
		return nil, err
	}
	s := &Server{URL: "http://" + l.Addr().String(), Token: hex.EncodeToString(tok), target: p.Target, run: run, home: home}
	if ix, err := runtime.ReadActivityIndex(filepath.Join(p.Projection, runtime.ActivityIndexFile)); err == nil {
		s.ix = ix
		if ix.Home != "" {
			pbHome = ix.Home
		}
	}
	s.w = store.NewWriter(pbHome)
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		MaxHeaderBytes: 64 << 10, ErrorLog: log.New(io.Discard, "", 0)} // the agent's terminal is not ours to write on
	go s.srv.Serve(l) // returns http.ErrServerClosed at Close
	return s, nil
}

// ServeHTTP answers POST /claude (a Claude Code hook input) and POST /pi (an event of
// PI's extension): 204 with no body whatever it does with the input, 403 without the
// token.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(s.handle(w, r))
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) int {
	backend, from := runtime.Claude, FromClaudeHook
	switch r.URL.Path {
	case "/claude":
	case "/pi":
		backend, from = runtime.PI, FromPIEvent
	default:
		return http.StatusNotFound
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		return http.StatusMethodNotAllowed
	}
	if subtle.ConstantTimeCompare([]byte(r.Header.Get(runtime.ActivityTokenHeader)), []byte(s.Token)) != 1 {
		return http.StatusForbidden
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxHookInput))
	if err != nil {
		return http.StatusNoContent // too large or cut off: answered, not recorded
	}
	a, ok := from(body, s.ix, Where{Target: s.target, Home: s.home, Now: time.Now()})
	if !ok {
		return http.StatusNoContent
	}
	if s.ix == nil {
		a.Backend = backend
	}
	a.Run = s.run
	if _, err := s.w.Record(r.Context(), a); err != nil {
		fmt.Fprintf(os.Stderr, "plugboard: a skill invocation could not be recorded: %v\n", err)
	}
	return http.StatusNoContent
}

// Close stops taking hooks, waits (at most a few seconds) for those in flight, and
// closes the database connection.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); errors.Is(err, context.DeadlineExceeded) {
		s.srv.Close()
	}
	return s.w.Close()
}
