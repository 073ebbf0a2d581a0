package mcptap

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// calls is a Sink that keeps what it is handed.
type calls struct {
	mu   sync.Mutex
	list []Call
}

func (c *calls) Record(call Call) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.list = append(c.list, call)
}

// got lists the calls as "tool failed", in the order they were answered.
func (c *calls) got() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, call := range c.list {
		out = append(out, fmt.Sprintf("%s %v", call.Tool, call.Failed))
	}
	return out
}

func line(s string, at time.Time) Line { return Line{Bytes: []byte(s + "\n"), At: at} }

// TestTapPairsCallsWithAnswers: each tools/call is handed on once its answer comes, with
// the time between them and whether the answer failed (a JSON-RPC error, or a result with
// isError true); other methods, notifications, the server's own requests and answers to
// ids nobody waits on count nothing; a string id and a number id are different calls.
func TestTapPairsCallsWithAnswers(t *testing.T) {
	sink := &calls{}
	tap := New(sink)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

	tap.ClientLine(line(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, at(0)))
	tap.ClientLine(line(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, at(0)))
	tap.ClientLine(line(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"as-notification"}}`, at(0)))
	tap.ClientLine(line(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, at(0)))
	tap.ClientLine(line(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ok","arguments":{"q":"SECRET"}}}`, at(10)))
	tap.ClientLine(line(`{"jsonrpc":"2.0","id":"3","method":"tools/call","params":{"name":"str-id"}}`, at(10)))
	tap.ClientLine(line(`  {"id":4,"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{},"name":"rpc-error"}}`, at(10)))
	tap.ClientLine(line(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"is-error"}}`, at(10)))
	tap.ClientLine(line(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"not-error"}}`, at(10)))
	tap.ClientLine(line(`not json at all`, at(10)))
	if n := tap.Waiting(); n != 5 {
		t.Fatalf("waiting on %d calls, want the 5 tools/call requests with ids", n)
	}

	tap.ServerLine(line(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}`, at(1)))
	tap.ServerLine(line(`{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{}}`, at(20))) // the server's own request
	tap.ServerLine(line(`{"jsonrpc":"2.0","id":99,"result":{}}`, at(20)))                                  // nobody waits on 99
	tap.ServerLine(line(`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"hi"}]}}`, at(35)))
	tap.ServerLine(line(`{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"unknown tool"}}`, at(40)))
	tap.ServerLine(line(`{"jsonrpc":"2.0","id":5,"result":{"content":[],"isError":true}}`, at(50)))
	tap.ServerLine(line(`{"jsonrpc":"2.0","id":6,"result":{"content":[],"isError":false},"error":null}`, at(60)))
	tap.ServerLine(line(`{"jsonrpc":"2.0","id":"3","result":{}}`, at(70)))
	tap.ServerLine(line(`{"jsonrpc":"2.0","id":3,"result":{}}`, at(80))) // answered already

	want := []string{"ok false", "rpc-error true", "is-error true", "not-error false", "str-id false"}
	if got := sink.got(); !slices.Equal(got, want) {
		t.Fatalf("calls %v, want %v", got, want)
	}
	first := sink.list[0]
	if first.MS != 25 || !first.At.Equal(at(10)) || first.ID != "n:3" {
		t.Errorf("first call %+v, want 25 ms from %v with id n:3", first, at(10))
	}
	if sink.list[4].ID != "s:3" {
		t.Errorf("the string id 3 is keyed %q, want s:3 (not the number 3)", sink.list[4].ID)
	}
	if tap.Waiting() != 0 {
		t.Errorf("still waiting on %d calls", tap.Waiting())
	}
}

// TestTapBatches: a batch of calls and a batch of answers, in another order, pair by id;
// the notifications and other calls in them count nothing. An id written 7.0 is the
// number 7.
func TestTapBatches(t *testing.T) {
	sink := &calls{}
	tap := New(sink)
	now := time.Now()
	tap.ClientLine(line(`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}},`+
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{}},`+
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b"}},`+
		`{"jsonrpc":"2.0","id":3,"method":"ping"}]`, now))
	tap.ServerLine(line(`[{"jsonrpc":"2.0","id":3,"result":{}},{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"no"}},`+
		`{"jsonrpc":"2.0","id":1,"result":{"isError":false}}]`, now))
	tap.ClientLine(line(`{"jsonrpc":"2.0","id":7.0,"method":"tools/call","params":{"name":"float-id"}}`, now))
	tap.ServerLine(line(`{"jsonrpc":"2.0","id":7,"result":{}}`, now)) // a server that decoded 7.0 as the number 7
	if got, want := sink.got(), []string{"b true", "a false", "float-id false"}; !slices.Equal(got, want) {
		t.Errorf("calls %v, want %v", got, want)
	}
}

// TestTapCancelledAndBounded: a cancelled call is forgotten; an id already waiting and
// calls beyond maxPending are not tracked (and said so by Untracked); a name that is no
// name is not tracked, and control characters and excess length are taken off a name.
func TestTapCancelledAndBounded(t *testing.T) {
	sink := &calls{}
	tap := New(sink)
	now := time.Now()
	tap.ClientLine(line(`{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"slow"}}`, now))
	tap.ClientLine(line(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c","reason":"user"}}`, now))
	tap.ServerLine(line(`{"jsonrpc":"2.0","id":"c","result":{}}`, now))
	if got := sink.got(); len(got) != 0 || tap.Waiting() != 0 {
		t.Errorf("a cancelled call counted: %v (waiting %d)", got, tap.Waiting())
	}

	for _, bad := range []string{`{"name":""}`, `{"name":7}`, `{}`, `"x"`, `{"name":"\u0000\u0007"}`} {
		tap.ClientLine(line(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`+bad+`}`, now))
	}
	if tap.Waiting() != 0 {
		t.Errorf("calls without a tool name are tracked: %d", tap.Waiting())
	}

	long := strings.Repeat("é", 100) // 200 bytes
	tap.ClientLine(line(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a\tb\u001bc`+long+`"}}`, now))
	tap.ServerLine(line(`{"jsonrpc":"2.0","id":1,"result":{}}`, now))
	if len(sink.list) != 1 {
		t.Fatalf("calls %v, want the one with a long name", sink.got())
	}
	if name := sink.list[0].Tool; !strings.HasPrefix(name, "abc") || len(name) > maxTool || strings.ContainsAny(name, "\t\x1b") ||
		!strings.HasSuffix(name, "é") {
		t.Errorf("tool name %q: want abc and whole characters, at most %d bytes, no control characters", name, maxTool)
	}

	for i := range maxPending + 2 {
		tap.Call(Key(int64(i)), "t", now)
	}
	if tap.Call(Key("x"), "t", now) {
		t.Errorf("a call beyond maxPending was tracked")
	}
	if tap.Call(Key(int64(0)), "t", now) {
		t.Errorf("an id already waiting was tracked twice")
	}
	if tap.Waiting() != maxPending || tap.Untracked() != 4 {
		t.Errorf("waiting %d, untracked %d; want %d and 4", tap.Waiting(), tap.Untracked(), maxPending)
	}
}

// TestTapCutLines: of a line too long to hold, the tap reads the ends: an id written
// first (the Go and Python SDKs) or last (the TypeScript SDK), an error, and an isError
// written after a long content.
func TestTapCutLines(t *testing.T) {
	big := strings.Repeat("A", 2*MaxLine)
	cut := func(s string) Line {
		b := []byte(s + "\n")
		return Line{Bytes: b[:cutKeep], Tail: b[len(b)-cutKeep:], Cut: true, At: time.Now()}
	}
	sink := &calls{}
	tap := New(sink)
	// A long call from a TypeScript client: method and params first, id last.
	tap.ClientLine(cut(`{"method":"tools/call","params":{"name":"write","arguments":{"text":"` + big + `"}},"jsonrpc":"2.0","id":7}`))
	tap.ClientLine(line(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"shot"}}`, time.Now()))
	tap.ClientLine(line(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"shot-fails"}}`, time.Now()))
	tap.ClientLine(line(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"big-error"}}`, time.Now()))
	if tap.Waiting() != 4 {
		t.Fatalf("waiting on %d calls, want 4 (the long one included)", tap.Waiting())
	}
	tap.ServerLine(cut(`{"result":{"content":[{"type":"text","text":"` + big + `"}]},"jsonrpc":"2.0","id":7}`))
	tap.ServerLine(cut(`{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"image","data":"` + big + `"}]}}`))
	tap.ServerLine(cut(`{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"` + big + `"}],"isError":true}}`))
	tap.ServerLine(cut(`{"jsonrpc":"2.0","id":10,"error":{"code":-1,"message":"` + big + `"}}`))
	want := []string{"write false", "shot false", "shot-fails true", "big-error true"}
	if got := sink.got(); !slices.Equal(got, want) {
		t.Errorf("calls %v, want %v", got, want)
	}
}
