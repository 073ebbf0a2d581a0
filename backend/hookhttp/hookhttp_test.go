package hookhttp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// seen is what a test's handler was given.
type seen struct {
	mu   sync.Mutex
	reqs []*Request
}

func (s *seen) handler(status int) Handler {
	return func(_ context.Context, r *Request) int {
		s.mu.Lock()
		s.reqs = append(s.reqs, r)
		s.mu.Unlock()
		return status
	}
}

func (s *seen) last(t *testing.T) *Request {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reqs) == 0 {
		t.Fatal("the handler saw no request")
	}
	return s.reqs[len(s.reqs)-1]
}

func serve(t *testing.T, h Handler, lim Limits) (*Server, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := Serve(l, h, lim)
	t.Cleanup(func() { s.Shutdown(time.Second) })
	return s, "http://" + l.Addr().String()
}

// net/http's client, as a Go hook or test would post: a body of known length, a body in
// chunks (unknown length), and one that waits for "100 Continue".
func TestServesWhatAnHTTPClientSends(t *testing.T) {
	var got seen
	_, url := serve(t, got.handler(204), DefaultLimits)
	body := `{"hook_event_name":"PreToolUse"}`
	for _, c := range []struct {
		name string
		req  func() *http.Request
	}{
		{"content-length", func() *http.Request {
			r, _ := http.NewRequest("POST", url+"/claude?x=1", strings.NewReader(body))
			return r
		}},
		{"chunked", func() *http.Request {
			r, _ := http.NewRequest("POST", url+"/claude", io.MultiReader(strings.NewReader(body[:5]), strings.NewReader(body[5:])))
			return r
		}},
		{"expect 100-continue", func() *http.Request {
			r, _ := http.NewRequest("POST", url+"/claude", strings.NewReader(body))
			r.Header.Set("Expect", "100-continue")
			return r
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := c.req()
			req.Header.Set("X-Plugboard-Token", "abc")
			req.Header.Add("X-Twice", "one")
			req.Header.Add("X-Twice", "two")
			client := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: time.Minute}}
			res, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != 204 || !res.Close || res.Header.Get("Date") == "" {
				t.Errorf("answer %d %v", res.StatusCode, res.Header)
			}
			r := got.last(t)
			if r.Method != "POST" || r.Path != "/claude" || string(r.Body) != body || r.TooLarge ||
				r.Header["x-plugboard-token"] != "abc" || r.Header["x-twice"] != "one, two" {
				t.Errorf("the handler got %+v (body %q)", r, r.Body)
			}
			if c.name == "chunked" && r.Header["transfer-encoding"] != "chunked" {
				t.Errorf("the client did not send chunks: %v", r.Header)
			}
		})
	}
}

// exchange writes raw to a new connection and returns the status line of the answer.
func exchange(t *testing.T, url, raw string) string {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatalf("%q: no answer: %v", raw, err)
	}
	return strings.TrimSpace(line)
}

// What the server does not take is answered with the status RFC 9112 gives, and the
// handler never sees it.
func TestRefusesWhatItDoesNotTake(t *testing.T) {
	var got seen
	lim := DefaultLimits
	lim.Header = 200
	_, url := serve(t, got.handler(204), lim)
	for _, c := range []struct{ raw, want string }{
		{"POST /claude HTTP/2.0\r\n\r\n", "HTTP/1.1 505 HTTP Version Not Supported"},
		{"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "HTTP/1.1 505 HTTP Version Not Supported"},
		{"POST /claude\r\n\r\n", "HTTP/1.1 400 Bad Request"},
		{"POST  /claude HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request"},
		{"PO(ST /claude HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request"},
		{"POST claude HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request"},
		{"POST /claude HTTP/1.1\r\nX-A: 1\r\n folded\r\n\r\n", "HTTP/1.1 400 Bad Request"},
		{"POST /claude HTTP/1.1\r\nX A: 1\r\n\r\n", "HTTP/1.1 400 Bad Request"},
		{"POST /claude HTTP/1.1\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", "HTTP/1.1 400 Bad Request"},
		{"POST /claude HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", "HTTP/1.1 501 Not Implemented"},
		{"POST /claude HTTP/1.1\r\nContent-Length: -1\r\n\r\n", "HTTP/1.1 400 Bad Request"},
		{"POST /claude HTTP/1.1\r\nContent-Length: +1\r\n\r\nx", "HTTP/1.1 400 Bad Request"},
		{"POST /claude HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx", "HTTP/1.1 400 Bad Request"},
		{"POST /claude HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "HTTP/1.1 400 Bad Request"},
		{"POST /claude HTTP/1.1\r\nExpect: something\r\n\r\n", "HTTP/1.1 417 Expectation Failed"},
		{"POST /claude HTTP/1.1\r\nX-Long: " + strings.Repeat("a", 300) + "\r\n\r\n", "HTTP/1.1 431 Request Header Fields Too Large"},
	} {
		if line := exchange(t, url, c.raw); line != c.want {
			t.Errorf("%q: answered %q, want %q", c.raw, line, c.want)
		}
	}
	got.mu.Lock()
	defer got.mu.Unlock()
	if len(got.reqs) != 0 {
		t.Errorf("the handler saw %d refused requests: %+v", len(got.reqs), got.reqs[0])
	}
}

// A request the server takes from a raw connection: HTTP/1.0, bare LF line ends, a chunk
// extension and a trailer, an absolute-form target.
func TestTakesPlainHTTP(t *testing.T) {
	var got seen
	_, url := serve(t, got.handler(403), DefaultLimits)
	for _, c := range []struct{ raw, path, body string }{
		{"POST /pi HTTP/1.0\r\nContent-Length: 2\r\n\r\nhi", "/pi", "hi"},
		{"POST /pi HTTP/1.1\nContent-Length: 2\n\nhi", "/pi", "hi"},
		{"POST /pi HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n2;x=y\r\nhi\r\n1\r\n!\r\n0\r\nX-Trailer: 1\r\n\r\n", "/pi", "hi!"},
		{"GET http://127.0.0.1/claude?q HTTP/1.1\r\n\r\n", "/claude", ""},
	} {
		if line := exchange(t, url, c.raw); line != "HTTP/1.1 403 Forbidden" {
			t.Errorf("%q: answered %q", c.raw, line)
			continue
		}
		if r := got.last(t); r.Path != c.path || string(r.Body) != c.body {
			t.Errorf("%q: the handler got path %q body %q", c.raw, r.Path, r.Body)
		}
	}
}

// A body over the limit is not read: the handler is told, and the client, still sending
// (up to 256 KiB more), gets the answer rather than a reset connection.
func TestTooLargeBodyIsAnswered(t *testing.T) {
	var got seen
	lim := DefaultLimits
	lim.Body = 1024
	_, url := serve(t, got.handler(204), lim)
	for _, chunked := range []bool{false, true} {
		var body io.Reader = bytes.NewReader(make([]byte, 64<<10))
		if chunked {
			body = io.MultiReader(body) // no length: sent in chunks
		}
		res, err := http.Post(url+"/claude", "application/json", body)
		if err != nil {
			t.Fatalf("chunked %v: %v", chunked, err)
		}
		res.Body.Close()
		if r := got.last(t); res.StatusCode != 204 || !r.TooLarge || len(r.Body) != 0 {
			t.Errorf("chunked %v: answer %d, the handler got TooLarge %v and %d bytes", chunked, res.StatusCode, r.TooLarge, len(r.Body))
		}
	}
}

// A client that does not finish its headers in time is answered 408 and closed.
func TestHeaderTimeout(t *testing.T) {
	var got seen
	lim := DefaultLimits
	lim.HeaderTimeout = 50 * time.Millisecond
	_, url := serve(t, got.handler(204), lim)
	if line := exchange(t, url, "POST /claude HTTP/1.1\r\nX-A: 1\r\n"); line != "HTTP/1.1 408 Request Timeout" {
		t.Errorf("answered %q", line)
	}
}

// A connection that says nothing is closed without an answer when it closes or when the
// header timeout passes.
func TestSilentConnectionIsClosed(t *testing.T) {
	var got seen
	lim := DefaultLimits
	lim.HeaderTimeout = 50 * time.Millisecond
	_, url := serve(t, got.handler(204), lim)
	c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if b, err := io.ReadAll(c); err != nil || len(b) != 0 {
		t.Errorf("a silent connection got %q, %v; want it closed without an answer", b, err)
	}
}

// Shutdown does not wait for a connection that has sent nothing (a client's spare one):
// with a header timeout of an hour it still returns at once.
func TestShutdownClosesSilentConnections(t *testing.T) {
	lim := DefaultLimits
	lim.HeaderTimeout = time.Hour
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := Serve(l, func(context.Context, *Request) int { return 204 }, lim)
	silent, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	// Connections are accepted in order: once a later one is answered, the silent one is open.
	res, err := http.Post("http://"+l.Addr().String()+"/claude", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if err := s.Shutdown(10 * time.Second); err != nil {
		t.Errorf("Shutdown = %v, want it not to wait for the silent connection", err)
	}
	if b, err := io.ReadAll(silent); err != nil || len(b) != 0 {
		t.Errorf("the silent connection got %q, %v; want it closed", b, err)
	}
}

// Shutdown lets a request in flight finish; past its wait it closes the connection and
// cancels the handler's context.
func TestShutdown(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := Serve(l, func(ctx context.Context, r *Request) int {
		entered <- struct{}{}
		if r.Path == "/wait-for-release" {
			<-release
			return 204
		}
		<-ctx.Done()
		return 500
	}, DefaultLimits)
	url := "http://" + l.Addr().String()
	answered := make(chan string, 1)
	go func() {
		res, err := http.Post(url+"/wait-for-release", "", nil)
		if err != nil {
			answered <- err.Error()
			return
		}
		res.Body.Close()
		answered <- res.Status
	}()
	<-entered
	shut := make(chan error, 1)
	go func() { shut <- s.Shutdown(time.Minute) }()
	close(release)
	if err := <-shut; err != nil {
		t.Errorf("Shutdown = %v", err)
	}
	if a := <-answered; a != "204 No Content" {
		t.Errorf("the request in flight got %q", a)
	}
	if _, err := http.Post(url+"/claude", "", nil); err == nil {
		t.Error("a request after Shutdown was taken")
	}

	l, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s = Serve(l, func(ctx context.Context, r *Request) int { entered <- struct{}{}; <-ctx.Done(); return 500 }, DefaultLimits)
	go func() {
		_, err := http.Post("http://"+l.Addr().String()+"/stuck", "", nil)
		answered <- errString(err)
	}()
	<-entered
	if err := s.Shutdown(10 * time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown of a stuck request = %v, want the deadline", err)
	}
	if a := <-answered; a == "" {
		t.Error("the stuck request's client got an answer, want a closed connection")
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// A 405 names the method the server takes.
func TestMethodNotAllowedSaysAllow(t *testing.T) {
	_, url := serve(t, func(context.Context, *Request) int { return 405 }, DefaultLimits)
	res, err := http.Get(url + "/claude")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 405 || res.Header.Get("Allow") != "POST" {
		t.Errorf("answer %d, Allow %q", res.StatusCode, res.Header.Get("Allow"))
	}
}

// A panic in the handler is that request's 500, and the server goes on.
func TestHandlerPanic(t *testing.T) {
	_, url := serve(t, func(_ context.Context, r *Request) int {
		if r.Path == "/boom" {
			panic("boom")
		}
		return 204
	}, DefaultLimits)
	for path, want := range map[string]int{"/boom": 500, "/fine": 204} {
		res, err := http.Post(url+path, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("%s: %d, want %d", path, res.StatusCode, want)
		}
	}
}

// FuzzReadRequest reads arbitrary bytes as a request, within limits and without a panic;
// where net/http's reader takes the same bytes too, both read the same method, path and
// body.
func FuzzReadRequest(f *testing.F) {
	for _, s := range []string{
		"POST /claude HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi",
		"POST /pi HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n",
		"GET http://h/claude?q=1 HTTP/1.0\r\n\r\n",
		"POST /claude HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
		"POST /claude HTTP/1.1\r\nX: a\r\n b\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		br := bufio.NewReader(bytes.NewReader(data))
		r, status := readHead(br, 4096)
		if status == 0 {
			status = readBody(br, r, 1024)
		}
		if status != 0 {
			return
		}
		if len(r.Body) > 1024 {
			t.Fatalf("read %d bytes of body past the limit", len(r.Body))
		}
		theirs, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(data)))
		if err != nil || r.TooLarge {
			return
		}
		body, err := io.ReadAll(theirs.Body)
		if err != nil {
			return
		}
		path := theirs.URL.Path
		if path == "" {
			path = "/"
		}
		ours, err := url.PathUnescape(r.Path)
		if theirs.Method != r.Method || err == nil && theirs.URL.Opaque == "" && path != ours {
			t.Errorf("read %s %s, net/http %s %s (%q)", r.Method, r.Path, theirs.Method, path, data)
		}
		if !bytes.Equal(body, r.Body) {
			t.Errorf("read body %q, net/http %q (%q)", r.Body, body, data)
		}
	})
}
