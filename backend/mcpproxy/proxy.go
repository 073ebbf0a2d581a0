package mcpproxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/plugboard/plugboard/backend/mcptap"
)

// Run bridges newline-delimited JSON-RPC on in and out to the remote server of cfg. It
// returns nil when in ends (the client hung up: calls still in flight are abandoned), an
// error when the remote connection cannot be made or ends, and ctx.Err() when ctx is
// done. On return it closes in if in is an io.Closer, so that a pending read ends; it
// never closes out. Problems that do not end the bridge, such as a refused redirect, go
// to log (nil: nowhere), one line each.
//
// Every tools/call the client sends is counted when calls is not nil: calls gets it once
// answered, with the time to the answer, failed when the answer is a JSON-RPC error (the
// remote's, or the bridge's own when the remote did not take the call) or a result with
// "isError": true. Record must not wait: the bridge calls it on its way to the client.
func Run(ctx context.Context, cfg Config, in io.Reader, out io.Writer, log io.Writer, calls mcptap.Sink) error {
	if err := cfg.check(); err != nil {
		return fmt.Errorf("config: %w: %v", ErrBadConfig, err)
	}
	u, _ := parseURL(cfg.URL) // checked above
	b := &bridge{origin: originOf(u), base: u, urls: []string{cfg.URL, u.String()}, log: log}
	if b.log == nil {
		b.log = io.Discard
	}
	if calls != nil {
		b.tap = mcptap.New(calls)
	}
	b.guard = newGuard(b.origin, cfg.Headers, b.logf)
	defer b.guard.base.CloseIdleConnections()
	client := &http.Client{Transport: b.guard, CheckRedirect: refuseRedirect}

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	remote, err := remoteTransport(cfg, client).Connect(runCtx)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", b.origin, b.redact(err))
	}
	local, err := (&mcp.IOTransport{Reader: readCloser(in), Writer: nopCloser{out}}).Connect(runCtx)
	if err != nil {
		remote.Close()
		return err
	}

	errc := make(chan error, 2)
	go func() { errc <- b.toRemote(runCtx, local, remote) }()
	go func() { errc <- b.toLocal(runCtx, remote, local) }()
	err = <-errc
	cancel()
	remote.Close() // ends the session (Streamable HTTP sends DELETE) and any event stream
	local.Close()
	<-errc
	b.calls.Wait()
	if b.tap != nil && b.tap.Untracked() > 0 {
		b.logf("%d MCP tool calls were not counted: too many were in flight", b.tap.Untracked())
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// remoteTransport is the SDK's client transport for cfg.Type, on the guarded client.
func remoteTransport(cfg Config, client *http.Client) mcp.Transport {
	if cfg.Type == TypeSSE {
		return &mcp.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: client}
	}
	return &mcp.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client}
}

// bridge is the state of one Run.
type bridge struct {
	origin string   // the configured origin, the only one requests may go to
	base   *url.URL // the configured URL, which a relative URL in an error is relative to
	urls   []string // spellings of the configured URL, shown as origin in messages
	guard  *guard
	calls  sync.WaitGroup // calls in flight to the remote
	tap    *mcptap.Tap    // counts the tool calls; nil: none are counted

	logMu sync.Mutex
	log   io.Writer

	initMu  sync.Mutex
	initID  jsonrpc.ID // the client's initialize call, whose answer names the protocol version
	initSet bool
}

// toRemote relays the client's messages. Calls are sent concurrently, so that a slow one
// holds back neither a cancellation nor another call; notifications and responses are
// sent in order, which keeps notifications/initialized ahead of the calls that follow it.
func (b *bridge) toRemote(ctx context.Context, local, remote mcp.Connection) error {
	for {
		msg, err := local.Read(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
		b.noteCall(msg)
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			if req.Method == "initialize" {
				b.setInitID(req.ID)
			}
			b.calls.Go(func() { b.call(ctx, local, remote, req) })
			continue
		}
		if err := remote.Write(ctx, msg); err != nil && ctx.Err() == nil {
			b.logf("%s: %v", summary(msg), b.redact(err))
		}
	}
}

// call sends one call. When the remote does not take it (a refused redirect, another
// origin, a network error), the client gets a JSON-RPC error instead of waiting forever.
func (b *bridge) call(ctx context.Context, local, remote mcp.Connection, req *jsonrpc.Request) {
	err := remote.Write(ctx, req)
	if err == nil || ctx.Err() != nil {
		return
	}
	err = b.redact(err)
	b.logf("%s: %v", req.Method, err)
	resp := &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{
		Code:    jsonrpc.CodeInternalError,
		Message: "plugboard mcp-proxy: " + err.Error(),
	}}
	b.noteAnswer(resp, time.Now())
	if err := local.Write(ctx, resp); err != nil && ctx.Err() == nil {
		b.logf("write stdout: %v", err)
	}
}

// toLocal relays the remote's messages until the remote connection ends.
func (b *bridge) toLocal(ctx context.Context, remote, local mcp.Connection) error {
	for {
		msg, err := remote.Read(ctx)
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%s closed the connection", b.origin)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", b.origin, b.redact(err))
		}
		b.noteVersion(msg)
		if resp, ok := msg.(*jsonrpc.Response); ok {
			b.noteAnswer(resp, time.Now()) // before it is passed on: its row is written first (Recorder.Wait)
		}
		if err := local.Write(ctx, msg); err != nil {
			return fmt.Errorf("write stdout: %w", err)
		}
	}
}

// noteCall hands the tap a tools/call of the client, before it is sent, and forgets a
// call the client cancels.
func (b *bridge) noteCall(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if b.tap == nil || !ok {
		return
	}
	switch {
	case req.Method == "tools/call" && req.IsCall():
		b.tap.Call(mcptap.Key(req.ID.Raw()), mcptap.ToolOf(req.Params), time.Now())
	case req.Method == "notifications/cancelled":
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			b.tap.Forget(mcptap.Key(p.RequestID))
		}
	}
}

// noteAnswer hands the tap an answer the bridge got (or made) at at.
func (b *bridge) noteAnswer(resp *jsonrpc.Response, at time.Time) {
	if b.tap != nil && resp.ID.IsValid() {
		b.tap.Answer(mcptap.Key(resp.ID.Raw()), resp.Error != nil || mcptap.IsError(resp.Result), at)
	}
}

func (b *bridge) setInitID(id jsonrpc.ID) {
	b.initMu.Lock()
	defer b.initMu.Unlock()
	b.initID, b.initSet = id, true
}

// noteVersion hands the guard the protocol version the server chose in its answer to the
// client's initialize call. The SDK sets Mcp-Protocol-Version from the session state of
// its own Client, which a message-level bridge does not have, and the spec requires the
// header on every request after initialization.
func (b *bridge) noteVersion(msg jsonrpc.Message) {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error != nil {
		return
	}
	b.initMu.Lock()
	isInit := b.initSet && resp.ID == b.initID
	b.initMu.Unlock()
	var res mcp.InitializeResult
	if isInit && json.Unmarshal(resp.Result, &res) == nil {
		b.guard.setVersion(res.ProtocolVersion)
	}
}

// logf writes one line to the log. Callers pass only names, methods, origins and
// redacted errors: never a header value.
func (b *bridge) logf(format string, a ...any) {
	b.logMu.Lock()
	defer b.logMu.Unlock()
	fmt.Fprintf(b.log, "plugboard mcp-proxy: "+format+"\n", a...)
}

// redact rewrites err's text so that URLs show only their origin: net/http quotes the
// whole request URL in its errors, and a URL's path or query may carry a token. The
// configured URL is replaced wherever it appears (the SDK flattens some errors with %v),
// other URLs where a *url.Error carries them. A relative one (net/http puts a redirect's
// Location there as the server wrote it, "/elsewhere") is shown by the origin it resolves
// to from the configured URL: every request that reaches a server went to that origin, so
// that is where the server pointed. errors.Is and errors.As still see err.
func (b *bridge) redact(err error) error {
	msg := err.Error()
	for _, raw := range b.urls {
		msg = strings.ReplaceAll(msg, strconv.Quote(raw), b.origin)
		msg = strings.ReplaceAll(msg, raw, b.origin)
	}
	for e := err; ; {
		var ue *url.Error
		if !errors.As(e, &ue) {
			break
		}
		shown := "(url)"
		if u, perr := url.Parse(ue.URL); perr == nil {
			if b.base != nil {
				u = b.base.ResolveReference(u)
			}
			shown = originOf(u)
		}
		msg = strings.ReplaceAll(msg, strconv.Quote(ue.URL), shown)
		if ue.URL != "" && ue.URL != "/" { // a Location of "/" would replace every slash
			msg = strings.ReplaceAll(msg, ue.URL, shown)
		}
		e = ue.Err
	}
	return &redacted{msg: msg, err: err}
}

type redacted struct {
	msg string
	err error
}

func (e *redacted) Error() string { return e.msg }
func (e *redacted) Unwrap() error { return e.err }

// summary names a message for the log without its content.
func summary(msg jsonrpc.Message) string {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		return m.Method
	case *jsonrpc.Response:
		return fmt.Sprintf("response to %v", m.ID.Raw())
	}
	return "message"
}

func readCloser(r io.Reader) io.ReadCloser {
	if rc, ok := r.(io.ReadCloser); ok {
		return rc
	}
	return io.NopCloser(r)
}

// nopCloser keeps the bridge from closing out, which belongs to the caller.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
