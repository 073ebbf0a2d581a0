package mcpproxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/plugboard/plugboard/backend/mcptap"
)

const (
	tenantHeader = "X-Tenant"
	// tenantValue stands for a secret: it must reach the server and nothing else.
	tenantValue = "tenant-s3cret-7f3a"
	// clientVersion is the protocol version the test client asks for.
	clientVersion = "2025-06-18"
	// timeout bounds every wait, so that a broken bridge fails a test instead of hanging it.
	timeout = 10 * time.Second
)

var (
	initializeLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + clientVersion +
		`","capabilities":{},"clientInfo":{"name":"test-client","version":"0.0.1"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	toolsListLine   = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	toolsCallLine   = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","arguments":{"name":"ada"}}}`
)

// TestBridge runs a whole session through the proxy against a real SDK server over each
// transport: the tool list and the call result come back, every request carries the
// configured header, and a configured protocol header (Mcp-Session-Id) is never sent.
func TestBridge(t *testing.T) {
	tests := []struct {
		typ     string
		handler func(*mcp.Server) http.Handler
		// versionHeader: requests after initialize carry Mcp-Protocol-Version (Streamable HTTP).
		versionHeader bool
	}{
		{TypeStreamableHTTP, func(s *mcp.Server) http.Handler {
			return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
		}, true},
		{TypeSSE, func(s *mcp.Server) http.Handler {
			return mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil)
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			rec := &recorder{}
			srv := startServer(t, rec.wrap(tt.handler(greetServer())))
			p := startProxy(t, Config{Type: tt.typ, URL: srv.URL, Headers: map[string]string{
				tenantHeader:     tenantValue,
				"Mcp-Session-Id": "forged-session", // the SDK server answers 404 if this is sent
			}})

			p.send(initializeLine)
			var init mcp.InitializeResult
			p.result(1, &init)
			if init.ProtocolVersion != clientVersion || init.ServerInfo == nil || init.ServerInfo.Name != "remote" {
				t.Fatalf("initialize = version %q, server %+v; want %q from %q", init.ProtocolVersion, init.ServerInfo, clientVersion, "remote")
			}
			p.send(initializedLine)

			p.send(toolsListLine)
			var list mcp.ListToolsResult
			p.result(2, &list)
			if len(list.Tools) != 1 || list.Tools[0].Name != "greet" {
				t.Errorf("tools/list = %s, want the one tool greet", toJSON(list.Tools))
			}

			p.send(toolsCallLine)
			var call struct {
				Content []struct{ Type, Text string }
				IsError bool
			}
			p.result(3, &call)
			if call.IsError || len(call.Content) != 1 || call.Content[0].Text != "hello ada" {
				t.Errorf("tools/call greet = %s, want one text \"hello ada\"", toJSON(call))
			}

			reqs := rec.all()
			if len(reqs) < 4 {
				t.Fatalf("server saw %d requests, want at least 4", len(reqs))
			}
			for _, r := range reqs {
				if got := r.header.Get(tenantHeader); got != tenantValue {
					t.Errorf("%s %s: %s = %q, want the configured value", r.method, r.rpc, tenantHeader, got)
				}
				if got := r.header.Get("Mcp-Session-Id"); got == "forged-session" {
					t.Errorf("%s %s: the configured Mcp-Session-Id was sent; protocol headers belong to the transport", r.method, r.rpc)
				}
				if tt.versionHeader && (r.rpc == "tools/list" || r.rpc == "tools/call") {
					if got := r.header.Get("Mcp-Protocol-Version"); got != clientVersion {
						t.Errorf("%s: Mcp-Protocol-Version = %q, want %q", r.rpc, got, clientVersion)
					}
				}
			}
			p.stop()
			if log := p.log.String(); !strings.Contains(log, "Mcp-Session-Id") || strings.Contains(log, tenantValue) {
				t.Errorf("log = %q, want the ignored Mcp-Session-Id named and no header value", log)
			}
		})
	}
}

// TestRedirectRefused: a server that redirects gets no second chance. The redirect target
// (another origin on the same machine) receives nothing, and the refusal names it.
func TestRedirectRefused(t *testing.T) {
	for _, typ := range []string{TypeStreamableHTTP, TypeSSE} {
		for _, code := range []int{http.StatusTemporaryRedirect, http.StatusFound} {
			t.Run(fmt.Sprintf("%s/%d", typ, code), func(t *testing.T) {
				target := &recorder{}
				targetSrv := startServer(t, target.wrap(greetHandler()))
				source := &recorder{}
				sourceSrv := startServer(t, source.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, targetSrv.URL+"/mcp?k=v", code)
				})))
				cfg := Config{Type: typ, URL: sourceSrv.URL + "/mcp", Headers: map[string]string{tenantHeader: tenantValue}}
				want := origin(t, targetSrv.URL)

				var shown string
				if typ == TypeSSE {
					// The event stream is opened before any message: Run itself fails.
					ctx, cancel := context.WithTimeout(context.Background(), timeout)
					defer cancel()
					var out, log bytes.Buffer
					err := Run(ctx, cfg, strings.NewReader(initializeLine+"\n"), &out, &log, nil)
					if !errors.Is(err, ErrRefused) {
						t.Fatalf("Run = %v, want an error wrapping ErrRefused", err)
					}
					if out.Len() != 0 {
						t.Errorf("stdout = %q, want nothing", out.String())
					}
					shown = err.Error()
				} else {
					p := startProxy(t, cfg)
					p.send(initializeLine)
					shown = p.errorMessage(1)
					p.stop()
					if !strings.Contains(p.log.String(), want) {
						t.Errorf("log = %q, want the redirect target %s named", p.log.String(), want)
					}
				}
				if !strings.Contains(shown, "redirect") || !strings.Contains(shown, want) {
					t.Errorf("error = %q, want a refused redirect naming %s", shown, want)
				}
				if strings.Contains(shown, tenantValue) || strings.Contains(shown, "k=v") {
					t.Errorf("error = %q shows a header value or a query", shown)
				}
				if n := len(source.all()); n == 0 {
					t.Errorf("the configured server saw no request; the test proves nothing")
				}
				if n := len(target.all()); n != 0 {
					t.Errorf("the redirect target received %d requests, want 0", n)
				}
			})
		}
	}
}

// TestRelativeRedirectNamesItsOrigin: a refused redirect whose Location is relative
// ("/elsewhere") names the origin it resolves to, the configured server's, and never a
// broken one ("://:") or the Location's path and query.
func TestRelativeRedirectNamesItsOrigin(t *testing.T) {
	for _, typ := range []string{TypeStreamableHTTP, TypeSSE} {
		for _, loc := range []string{"/elsewhere", "/elsewhere?k=v", "/", "elsewhere"} {
			t.Run(typ+"/"+loc, func(t *testing.T) {
				source := &recorder{}
				srv := startServer(t, source.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Location", loc)
					w.WriteHeader(http.StatusFound)
				})))
				cfg := Config{Type: typ, URL: srv.URL + "/mcp"}
				want := origin(t, srv.URL)
				var shown string
				if typ == TypeSSE {
					ctx, cancel := context.WithTimeout(context.Background(), timeout)
					defer cancel()
					err := Run(ctx, cfg, strings.NewReader(initializeLine+"\n"), io.Discard, io.Discard, nil)
					if !errors.Is(err, ErrRefused) {
						t.Fatalf("Run = %v, want an error wrapping ErrRefused", err)
					}
					shown = err.Error()
				} else {
					p := startProxy(t, cfg)
					p.send(initializeLine)
					shown = p.errorMessage(1)
					p.stop()
					shown += "\n" + p.log.String()
				}
				if !strings.Contains(shown, "redirected to "+want) {
					t.Errorf("error = %q, want the redirect named as going to %s", shown, want)
				}
				rest := strings.ReplaceAll(shown, want, "")
				if strings.Contains(rest, "://") || strings.Contains(rest, "k=v") || strings.Contains(rest, "elsewhere") {
					t.Errorf("error = %q names an origin other than %s, or the Location's path or query", shown, want)
				}
				if n := len(source.all()); n != 1 {
					t.Errorf("the server saw %d requests, want the one it redirected", n)
				}
			})
		}
	}
}

// TestSSEEndpointOtherOrigin: a legacy SSE server whose endpoint event points at another
// origin gets a refusal for every message, and that origin receives nothing.
func TestSSEEndpointOtherOrigin(t *testing.T) {
	other := &recorder{}
	otherSrv := startServer(t, other.wrap(greetHandler()))
	evil := &recorder{}
	evilSrv := startServer(t, evil.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: endpoint\ndata: %s/message?sessionid=1\n\n", otherSrv.URL)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})))
	p := startProxy(t, Config{Type: TypeSSE, URL: evilSrv.URL + "/sse", Headers: map[string]string{tenantHeader: tenantValue}})

	p.send(initializeLine)
	msg := p.errorMessage(1)
	p.send(initializedLine) // a notification: refused too, only logged
	p.stop()

	want := origin(t, otherSrv.URL)
	if !strings.Contains(msg, want) || !strings.Contains(msg, "only "+origin(t, evilSrv.URL)) {
		t.Errorf("error = %q, want a refusal naming %s and the configured origin", msg, want)
	}
	if log := p.log.String(); !strings.Contains(log, "notifications/initialized") || strings.Contains(log, tenantValue) {
		t.Errorf("log = %q, want the refused notification named and no header value", log)
	}
	if n := len(evil.all()); n != 1 {
		t.Errorf("the configured server saw %d requests, want the one event-stream GET", n)
	}
	if n := len(other.all()); n != 0 {
		t.Errorf("the endpoint's origin received %d requests, want 0", n)
	}
}

// TestSlowCallDoesNotBlock: a call whose answer is pending does not hold back the next
// call. The server answers in plain JSON, so each POST lasts as long as its tool; "wait"
// returns only once "release" has run.
func TestSlowCallDoesNotBlock(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "1.0.0"}, nil)
	released := make(chan struct{})
	tool := func(name string, run func(context.Context)) {
		mcp.AddTool(s, &mcp.Tool{Name: name}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			run(ctx)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil, nil
		})
	}
	tool("wait", func(ctx context.Context) {
		select {
		case <-released:
		case <-ctx.Done():
		}
	})
	tool("release", func(context.Context) { close(released) })
	srv := startServer(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{JSONResponse: true}))
	p := startProxy(t, Config{Type: TypeStreamableHTTP, URL: srv.URL})

	p.send(initializeLine)
	p.response(1)
	p.send(initializedLine)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{}}}`)
	p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"release","arguments":{}}}`)
	var res mcp.CallToolResult
	p.result(3, &res)
	p.result(2, &res)
}

// TestGuardClientHeadersWin: a configured header fills only a gap; a header already on the
// request (set by the SDK or net/http) is sent as it was, and the caller's request is left
// unchanged.
func TestGuardClientHeadersWin(t *testing.T) {
	got := make(chan http.Header, 1)
	srv := startServer(t, http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got <- r.Header.Clone() }))
	g := newGuard(origin(t, srv.URL), map[string]string{"Authorization": "Bearer from-config", tenantHeader: tenantValue},
		func(string, ...any) {})
	defer g.base.CloseIdleConnections()
	req := httptest.NewRequest(http.MethodGet, srv.URL, nil)
	req.RequestURI = ""
	req.Header.Set("Authorization", "Bearer from-client")
	resp, err := g.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	h := <-got
	if a, x := h.Get("Authorization"), h.Get(tenantHeader); a != "Bearer from-client" || x != tenantValue {
		t.Errorf("server saw Authorization %q, %s %q; want the client's Authorization and the configured %s", a, tenantHeader, x, tenantHeader)
	}
	if _, set := req.Header[tenantHeader]; set {
		t.Errorf("RoundTrip added %s to the caller's request", tenantHeader)
	}
}

// TestRunEndsWithContext: cancelling ctx ends Run even while stdin stays open.
func TestRunEndsWithContext(t *testing.T) {
	srv := startServer(t, greetHandler())
	inR, inW := io.Pipe()
	defer inW.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, Config{Type: TypeStreamableHTTP, URL: srv.URL}, inR, io.Discard, nil, nil) }()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v, want context.Canceled", err)
		}
	case <-time.After(timeout):
		t.Fatal("Run did not return after ctx was cancelled")
	}
}

func TestOriginOf(t *testing.T) {
	tests := []struct{ a, b string }{
		{"https://Example.com/mcp", "https://example.com:443/other"},
		{"http://127.0.0.1/x", "http://127.0.0.1:80"},
		{"http://[::1]:8080/a?b", "http://[::1]:8080"},
	}
	for _, tt := range tests {
		if a, b := origin(t, tt.a), origin(t, tt.b); a != b {
			t.Errorf("originOf(%s) = %s, originOf(%s) = %s; want equal", tt.a, a, tt.b, b)
		}
	}
	if a, b := origin(t, "http://127.0.0.1:1"), origin(t, "https://127.0.0.1:1"); a == b {
		t.Errorf("originOf ignores the scheme: %s", a)
	}
}

// greetServer is an SDK server with one tool.
func greetServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "1.0.0"}, nil)
	type args struct {
		Name string `json:"name"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "greet", Description: "say hello"},
		func(_ context.Context, _ *mcp.CallToolRequest, in args) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello " + in.Name}}}, nil, nil
		})
	return s
}

func greetHandler() http.Handler {
	s := greetServer()
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
}

func startServer(t *testing.T, h http.Handler) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// recorder keeps what a server received: HTTP method, JSON-RPC method, headers.
type recorder struct {
	mu   sync.Mutex
	reqs []seen
}

type seen struct {
	method, rpc string
	header      http.Header
}

func (rec *recorder) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg struct{ Method string }
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			json.Unmarshal(body, &msg)
		}
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, seen{r.Method, msg.Method, r.Header.Clone()})
		rec.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (rec *recorder) all() []seen {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]seen(nil), rec.reqs...)
}

// proxy is one Run with pipes for stdin and stdout.
type proxy struct {
	t     *testing.T
	stdin *io.PipeWriter
	lines chan string
	log   *lockedBuffer
	done  chan struct{}
	err   error // Run's result, once done is closed
	once  sync.Once
	early map[string]rpcMessage // responses read while waiting for another
}

// startProxy starts Run; stop (also a cleanup) closes stdin and expects Run to return nil.
func startProxy(t *testing.T, cfg Config) *proxy { return startCounting(t, cfg, nil) }

// startCounting is startProxy with the tool calls counted into calls.
func startCounting(t *testing.T, cfg Config, calls mcptap.Sink) *proxy {
	ctx, cancel := context.WithTimeout(context.Background(), 2*timeout)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &proxy{t: t, stdin: inW, lines: make(chan string, 100), log: &lockedBuffer{}, done: make(chan struct{}),
		early: map[string]rpcMessage{}}
	go func() {
		p.err = Run(ctx, cfg, inR, outW, p.log, calls)
		close(p.done)
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		p.stop()
		cancel()
	})
	return p
}

func (p *proxy) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		p.t.Fatalf("write stdin: %v (Run = %v)", err, p.err)
	}
}

// stop closes stdin and waits for Run, which must return nil.
func (p *proxy) stop() {
	p.once.Do(func() {
		p.stdin.Close()
		select {
		case <-p.done:
			if p.err != nil {
				p.t.Errorf("Run = %v after stdin closed, want nil", p.err)
			}
		case <-time.After(timeout):
			p.t.Errorf("Run did not return after stdin closed")
		}
	})
}

type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// response waits for the response to call id, skipping the server's own messages and
// keeping other responses for later.
func (p *proxy) response(id int) rpcMessage {
	p.t.Helper()
	if m, ok := p.early[strconv.Itoa(id)]; ok {
		return m
	}
	deadline := time.After(timeout)
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("stdout ended before the response to call %d (Run = %v)", id, p.err)
			}
			var m rpcMessage
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				p.t.Fatalf("stdout line %q: %v", line, err)
			}
			if m.Method == "" && string(m.ID) == strconv.Itoa(id) {
				return m
			}
			if m.Method == "" {
				p.early[string(m.ID)] = m
			}
		case <-deadline:
			p.t.Fatalf("no response to call %d within %v; log: %s", id, timeout, p.log.String())
		}
	}
}

// result decodes the successful result of call id into v.
func (p *proxy) result(id int, v any) {
	p.t.Helper()
	m := p.response(id)
	if m.Error != nil {
		p.t.Fatalf("call %d failed: %d %s", id, m.Error.Code, m.Error.Message)
	}
	if err := json.Unmarshal(m.Result, v); err != nil {
		p.t.Fatalf("call %d result %s: %v", id, m.Result, err)
	}
}

// errorMessage returns the error message of call id, which must have failed.
func (p *proxy) errorMessage(id int) string {
	p.t.Helper()
	m := p.response(id)
	if m.Error == nil {
		p.t.Fatalf("call %d succeeded with %s, want an error", id, m.Result)
	}
	return m.Error.Message
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func origin(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return originOf(u)
}

func toJSON(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

// A configured URL's path and query can carry what should not be shown (a token in a
// query string): a server that fails shows up in the error and the log by origin only.
func TestURLPathAndQueryNeverShown(t *testing.T) {
	failing := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	}))
	closed := startServer(t, http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close() // connection refused from now on
	for name, base := range map[string]string{"500": failing.URL, "refused": closedURL} {
		t.Run(name, func(t *testing.T) {
			p := startProxy(t, Config{Type: TypeStreamableHTTP, URL: base + "/secret-path/mcp?token=QUERY-SECRET"})
			p.send(initializeLine)
			shown := p.errorMessage(1)
			p.stop()
			all := shown + p.log.String()
			if shown == "" || name == "refused" && !strings.Contains(all, origin(t, base)) {
				t.Errorf("error %q, log %q: want a failure (naming the origin it could not reach)", shown, p.log.String())
			}
			if strings.Contains(all, "QUERY-SECRET") || strings.Contains(all, "secret-path") {
				t.Errorf("the URL's path or query was shown: %q", all)
			}
		})
	}
}
