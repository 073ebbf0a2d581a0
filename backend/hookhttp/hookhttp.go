// Package hookhttp is the HTTP/1.1 server of a launch's activity recorder: it takes the
// POSTs of an agent's hooks (Claude Code's HTTP hooks, PI's extension) on a loopback
// socket, one request per connection, and answers each with a status and no body.
//
// It is not net/http because linking net/http costs every command of the lean build
// about 2 ms at start (its packages' initialisation and the pages they touch; README,
// Performance), and a recorder needs a small part of it: a request line, headers, a body
// of known length or in chunks, "Expect: 100-continue", deadlines, and a shutdown that
// lets the requests in flight finish. What it does not take it refuses with the status
// RFC 9112 gives (400, 413-like truncation is the handler's to judge, 431, 501, 505),
// and it closes every connection after its answer ("Connection: close"), so a client
// never reuses one. FuzzReadRequest compares its reading with net/http's.
package hookhttp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Request is one request as the handler sees it.
type Request struct {
	Method string
	Path   string // the request target's path (no query), e.g. "/claude"
	// Header holds each header by its lower-case name; a header given more than once
	// keeps its values joined by ", " (RFC 9110 §5.3).
	Header map[string]string
	// Body is the body, at most Limits.Body bytes; TooLarge says there was more, and
	// then Body is empty (the rest is not read).
	Body     []byte
	TooLarge bool
}

// Handler answers a request with a status code (the answer has no body; a 405 says
// "Allow: POST").
type Handler func(ctx context.Context, r *Request) int

// Limits bound what a connection may cost.
type Limits struct {
	Header        int           // bytes of request line and headers together
	Body          int           // bytes of body handed to the handler
	HeaderTimeout time.Duration // from accept to the end of the headers
	Timeout       time.Duration // from accept to the end of the body
}

// silentGrace is how long Shutdown waits for the first byte of a connection that has
// sent none: one whose request is already on its way is still answered.
const silentGrace = 50 * time.Millisecond

// DefaultLimits are a recorder's: a hook's input is under a kilobyte, and its client
// is on the same machine.
var DefaultLimits = Limits{Header: 64 << 10, Body: 1 << 20, HeaderTimeout: 5 * time.Second, Timeout: 10 * time.Second}

// Server serves one listener until Shutdown.
type Server struct {
	l    net.Listener
	h    Handler
	lim  Limits
	ctx  context.Context
	stop context.CancelFunc

	mu    sync.Mutex
	conns map[net.Conn]bool // open connections: whether a request has begun on it
	wg    sync.WaitGroup    // the accept loop and every connection
	down  bool
}

// Serve starts serving l with h on other goroutines.
func Serve(l net.Listener, h Handler, lim Limits) *Server {
	ctx, stop := context.WithCancel(context.Background())
	s := &Server{l: l, h: h, lim: lim, ctx: ctx, stop: stop, conns: map[net.Conn]bool{}}
	s.wg.Add(1)
	go s.accept()
	return s
}

func (s *Server) accept() {
	defer s.wg.Done()
	pause := 5 * time.Millisecond
	for {
		c, err := s.l.Accept()
		if err != nil {
			s.mu.Lock()
			down := s.down
			s.mu.Unlock()
			if down || errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of descriptors, say: wait a little and take the next one.
			time.Sleep(pause)
			pause = min(2*pause, time.Second)
			continue
		}
		pause = 5 * time.Millisecond
		s.mu.Lock()
		if s.down {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = false
		_ = c.SetReadDeadline(time.Now().Add(s.lim.HeaderTimeout))
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serve(c)
	}
}

// Shutdown stops taking connections, gives those on which no request has begun a moment
// for its first byte, and waits for the others to be answered; after wait it closes them
// and cancels their handlers' context, and returns context.DeadlineExceeded.
func (s *Server) Shutdown(wait time.Duration) error {
	s.mu.Lock()
	s.down = true
	for c, begun := range s.conns {
		if !begun {
			_ = c.SetReadDeadline(time.Now().Add(silentGrace))
		}
	}
	s.mu.Unlock()
	err := s.l.Close()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-done:
		s.stop()
		if errors.Is(err, net.ErrClosed) {
			err = nil
		}
		return err
	case <-t.C:
	}
	s.mu.Lock()
	for c := range s.conns {
		c.Close() // first: an answer the handler gives now is not written
	}
	s.mu.Unlock()
	s.stop()
	<-done
	return context.DeadlineExceeded
}

func (s *Server) serve(c net.Conn) {
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.Close()
		s.wg.Done()
	}()
	start := time.Now() // the header timeout runs from the accept (its deadline is set)
	br := bufio.NewReaderSize(c, 4096)
	if _, err := br.Peek(1); err != nil {
		return // closed, or silent until the header timeout or a shutdown: nothing to answer
	}
	s.mu.Lock()
	s.conns[c] = true
	s.mu.Unlock()
	req, status := readHead(br, s.lim.Header)
	if status == 0 && req.Header["expect"] != "" {
		if strings.EqualFold(req.Header["expect"], "100-continue") {
			_, _ = io.WriteString(c, "HTTP/1.1 100 Continue\r\n\r\n")
		} else {
			status = 417
		}
	}
	clean := status == 0 // the whole request is read: nothing is left unread
	if status == 0 {
		_ = c.SetReadDeadline(start.Add(s.lim.Timeout))
		status = readBody(br, req, s.lim.Body)
		clean = status == 0 && !req.TooLarge
	}
	if status == 0 {
		status = s.handle(req)
	}
	_ = c.SetWriteDeadline(time.Now().Add(s.lim.Timeout))
	_, _ = c.Write(answer(status, time.Now()))
	if !clean {
		// The client may still be sending: closing with unread bytes would reset the
		// connection and could lose the answer. Stop writing, then read until the client
		// closes, 256 KiB at most (as net/http does) and a second at most.
		if cw, ok := c.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
		_ = c.SetReadDeadline(time.Now().Add(time.Second))
		_, _ = io.CopyN(io.Discard, br, 256<<10)
	}
}

// handle runs the handler; a panic in it is a 500 for this request, not the end of the
// process that hosts the server (the launcher of an agent that is running).
func (s *Server) handle(req *Request) (status int) {
	defer func() {
		if recover() != nil {
			status = 500
		}
	}()
	return s.h(s.ctx, req)
}

// answer is the response of status: no body, and the connection closes after it.
func answer(status int, now time.Time) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %03d %s\r\nDate: %s\r\nConnection: close\r\n", status, reason(status), now.UTC().Format("Mon, 02 Jan 2006 15:04:05 GMT"))
	if status != 204 && status >= 200 { // a 204 has no Content-Length (RFC 9110 §8.6)
		b.WriteString("Content-Length: 0\r\n")
	}
	if status == 405 {
		b.WriteString("Allow: POST\r\n") // RFC 9110 §15.5.6; this server takes POSTs
	}
	b.WriteString("\r\n")
	return b.Bytes()
}

func reason(status int) string {
	switch status {
	case 200:
		return "OK"
	case 204:
		return "No Content"
	case 400:
		return "Bad Request"
	case 403:
		return "Forbidden"
	case 404:
		return "Not Found"
	case 405:
		return "Method Not Allowed"
	case 408:
		return "Request Timeout"
	case 413:
		return "Content Too Large"
	case 417:
		return "Expectation Failed"
	case 431:
		return "Request Header Fields Too Large"
	case 500:
		return "Internal Server Error"
	case 501:
		return "Not Implemented"
	case 505:
		return "HTTP Version Not Supported"
	}
	return "Status"
}

// readHead reads the request line and the headers, at most max bytes together. It
// returns the request, or the status of the answer when it cannot be taken.
func readHead(br *bufio.Reader, max int) (*Request, int) {
	left := max
	line := func() ([]byte, int) {
		var buf []byte
		for {
			chunk, err := br.ReadSlice('\n')
			left -= len(chunk)
			if left < 0 {
				return nil, 431
			}
			buf = append(buf, chunk...)
			if err == nil {
				break
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			return nil, readFailed(err)
		}
		buf = buf[:len(buf)-1]
		return bytes.TrimSuffix(buf, []byte("\r")), 0
	}
	first, status := line()
	if status != 0 {
		return nil, status
	}
	method, rest, ok1 := bytes.Cut(first, []byte(" "))
	target, version, ok2 := bytes.Cut(rest, []byte(" "))
	if !ok1 || !ok2 || !isToken(method) || len(target) == 0 || bytes.ContainsAny(target, " \t") {
		return nil, 400
	}
	switch string(version) {
	case "HTTP/1.1", "HTTP/1.0":
	default:
		if bytes.HasPrefix(version, []byte("HTTP/")) {
			return nil, 505
		}
		return nil, 400
	}
	r := &Request{Method: string(method), Header: map[string]string{}}
	p := string(target)
	if i := strings.Index(p, "://"); i > 0 && p[0] != '/' { // absolute form
		p = p[i+3:]
		if j := strings.IndexByte(p, '/'); j >= 0 {
			p = p[j:]
		} else {
			p = "/"
		}
	}
	if p[0] != '/' && p != "*" {
		return nil, 400
	}
	p, _, _ = strings.Cut(p, "?")
	r.Path = p
	for {
		l, status := line()
		if status != 0 {
			return nil, status
		}
		if len(l) == 0 {
			return r, 0
		}
		name, value, ok := bytes.Cut(l, []byte(":"))
		if !ok || !isToken(name) { // also a folded line (RFC 9112 §5.2: rejected)
			return nil, 400
		}
		value = bytes.Trim(value, " \t")
		if bytes.ContainsAny(value, "\x00\r\n") {
			return nil, 400
		}
		k := strings.ToLower(string(name))
		if old, ok := r.Header[k]; ok {
			r.Header[k] = old + ", " + string(value)
		} else {
			r.Header[k] = string(value)
		}
	}
}

// readBody reads the body r's headers announce into r.Body, at most max bytes; more
// sets TooLarge and stops reading. It returns the status of the answer when the body
// cannot be read, else 0.
func readBody(br *bufio.Reader, r *Request, max int) int {
	te, hasTE := r.Header["transfer-encoding"]
	cl, hasCL := r.Header["content-length"]
	switch {
	case hasTE && hasCL:
		return 400 // RFC 9112 §6.3: a request with both is an attack or an error
	case hasTE:
		if !strings.EqualFold(te, "chunked") {
			return 501
		}
		return readChunked(br, r, max)
	case hasCL:
		n, err := strconv.ParseUint(cl, 10, 63)
		if err != nil || cl == "" || cl[0] == '+' {
			return 400
		}
		if n > uint64(max) {
			r.TooLarge = true
			return 0
		}
		r.Body = make([]byte, n)
		if _, err := io.ReadFull(br, r.Body); err != nil {
			r.Body = nil
			return readFailed(err)
		}
	}
	return 0
}

func readChunked(br *bufio.Reader, r *Request, max int) int {
	var body []byte
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return readFailed(err)
		}
		size, _, _ := bytes.Cut(bytes.TrimRight(line, "\r\n"), []byte(";")) // chunk extensions are ignored
		size = bytes.TrimRight(size, " \t")
		n, err := strconv.ParseUint(string(size), 16, 63)
		if err != nil || len(size) == 0 {
			return 400
		}
		if n == 0 {
			break
		}
		if uint64(len(body))+n > uint64(max) {
			r.TooLarge = true
			return 0
		}
		at := len(body)
		body = append(body, make([]byte, n)...)
		if _, err := io.ReadFull(br, body[at:]); err != nil {
			return readFailed(err)
		}
		if crlf, err := br.ReadSlice('\n'); err != nil || string(crlf) != "\r\n" && string(crlf) != "\n" {
			return 400
		}
	}
	for { // trailers, up to the empty line
		line, err := br.ReadSlice('\n')
		if err != nil {
			return 400
		}
		if len(bytes.TrimRight(line, "\r\n")) == 0 {
			break
		}
	}
	r.Body = body
	return 0
}

// isToken: a header name or method (RFC 9110 §5.6.2).
func isToken(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// readFailed is the status of a request whose reading failed with err: 408 when the
// deadline passed, else 400.
func readFailed(err error) int {
	if ne := net.Error(nil); errors.As(err, &ne) && ne.Timeout() {
		return 408
	}
	return 400
}
