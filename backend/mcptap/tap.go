package mcptap

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// Call is one answered tools/call.
type Call struct {
	// ID is the call's JSON-RPC id as Key spells it: ids are the client's, and may
	// repeat over a session.
	ID     string
	Tool   string
	At     time.Time // when the call was relayed
	MS     int64     // milliseconds from the call to its answer
	Failed bool      // answered with a JSON-RPC error, or a result with "isError": true
}

// Sink takes the answered calls of a tap.
type Sink interface{ Record(Call) }

// SinkFunc is a function as a Sink.
type SinkFunc func(Call)

// Record calls f.
func (f SinkFunc) Record(c Call) { f(c) }

const (
	// maxPending bounds the calls a tap waits on: a client does not have this many tool
	// calls in flight, and one that never answers must not grow the map without end.
	maxPending = 1024
	// maxTool bounds a tool's name as recorded; MCP names tools in at most 128 characters.
	maxTool = 128
)

// Tap pairs the tools/call requests of a client with the server's answers.
type Tap struct {
	sink Sink

	mu        sync.Mutex
	pending   map[string]started
	untracked int
}

type started struct {
	tool string
	at   time.Time
}

// New returns a tap that hands each answered call to sink.
func New(sink Sink) *Tap {
	return &Tap{sink: sink, pending: map[string]started{}}
}

// Call notes that the client called tool with the id key (Key) at at. It returns false
// when the call is not tracked: a tool name that is no name, an id already waiting, or
// maxPending calls waiting already.
func (t *Tap) Call(key, tool string, at time.Time) bool {
	tool = toolName(tool)
	if tool == "" {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, dup := t.pending[key]; dup || len(t.pending) >= maxPending {
		t.untracked++
		return false
	}
	t.pending[key] = started{tool, at}
	return true
}

// Answer notes the server's answer to the call with the id key at at, and hands the
// call to the sink; an answer to no call the tap waits on is ignored.
func (t *Tap) Answer(key string, failed bool, at time.Time) {
	t.mu.Lock()
	s, ok := t.pending[key]
	delete(t.pending, key)
	t.mu.Unlock()
	if !ok {
		return
	}
	ms := at.Sub(s.at).Milliseconds()
	if ms < 0 {
		ms = 0
	}
	t.sink.Record(Call{ID: key, Tool: s.tool, At: s.at, MS: ms, Failed: failed})
}

// Forget drops the call with the id key: the client cancelled it.
func (t *Tap) Forget(key string) {
	t.mu.Lock()
	delete(t.pending, key)
	t.mu.Unlock()
}

// Waiting is how many calls wait for their answers.
func (t *Tap) Waiting() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.pending)
}

// Untracked is how many calls were not tracked because maxPending calls were waiting
// or their id was waiting already.
func (t *Tap) Untracked() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.untracked
}

// message is what a tap reads of a JSON-RPC message.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// ClientLine reads one line the client sent (a message, or a batch of them) and notes
// its tools/call requests and cancellations. A line that is not JSON-RPC is ignored; of
// a cut line (longer than Copy's cap) only the ends are read (cutMessage).
func (t *Tap) ClientLine(l Line) {
	see := func(m *message) {
		switch m.Method {
		case "tools/call":
			if key, ok := lineKey(m.ID); ok {
				t.Call(key, ToolOf(m.Params), l.At)
			}
		case "notifications/cancelled":
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			if json.Unmarshal(m.Params, &p) == nil {
				if key, ok := lineKey(p.RequestID); ok {
					t.Forget(key)
				}
			}
		}
	}
	if l.Cut {
		if m, ok := cutMessage(l); ok {
			see(m)
		}
		return
	}
	eachMessage(l.Bytes, see)
}

// ServerLine reads one line the server sent and notes its answers to the calls the tap
// waits on. With none waiting it parses nothing.
func (t *Tap) ServerLine(l Line) {
	if t.Waiting() == 0 {
		return
	}
	see := func(m *message) {
		if m.Method != "" {
			return // a request or notification of the server's own
		}
		if key, ok := lineKey(m.ID); ok {
			t.Answer(key, hasValue(m.Error) || IsError(m.Result), l.At)
		}
	}
	if l.Cut {
		if m, ok := cutMessage(l); ok {
			see(m)
		}
		return
	}
	eachMessage(l.Bytes, see)
}

var (
	// tailID is an id written last ({..., "id": 5}), as the TypeScript SDK writes it.
	tailID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")\s*\}\s*$`) })
	// tailIsError is a result's isError written after its content, as the SDKs write it.
	tailIsError = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"isError"\s*:\s*true\s*[,}]`) })
)

// cutMessage reads what it can of a message too long to hold: from its first bytes the
// top-level members before the first long value (id, method, params.name, error), and
// from its last bytes an id written last and a result's isError. A batch is not read.
func cutMessage(l Line) (*message, bool) {
	m := &message{}
	dec := json.NewDecoder(bytes.NewReader(l.Bytes))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	readHead(dec, m)
	if !hasValue(m.ID) {
		if sub := tailID().FindSubmatch(l.Tail); sub != nil {
			m.ID = sub[1]
		}
	}
	if !hasValue(m.Error) && tailIsError().Match(l.Tail) {
		m.Result = json.RawMessage(`{"isError":true}`)
	}
	return m, true
}

// readHead reads the members of an object whose "{" dec has read, until the input
// (the first bytes of a long line) ends.
func readHead(dec *json.Decoder, m *message) {
	for {
		tok, err := dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			return
		}
		switch key {
		case "id", "method":
			var v json.RawMessage
			if dec.Decode(&v) != nil {
				return
			}
			if key == "id" {
				m.ID = v
			} else {
				_ = json.Unmarshal(v, &m.Method)
			}
		case "error":
			m.Error = json.RawMessage(`{}`)
			if skipValue(dec) != nil {
				return
			}
		case "params":
			if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
				return
			}
			for {
				tok, err := dec.Token()
				name, ok := tok.(string)
				if err != nil || !ok {
					return
				}
				if name == "name" {
					var v json.RawMessage
					if dec.Decode(&v) != nil {
						return
					}
					m.Params, _ = json.Marshal(map[string]json.RawMessage{"name": v})
					break
				}
				if skipValue(dec) != nil {
					return
				}
			}
			if skipObject(dec) != nil {
				return
			}
		default:
			if skipValue(dec) != nil {
				return
			}
		}
	}
}

// skipValue reads one value, nested ones whole.
func skipValue(dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); ok && (d == '{' || d == '[') {
		return skipObject(dec)
	}
	return nil
}

// skipObject reads the rest of an object or array whose opening dec has read.
func skipObject(dec *json.Decoder) error {
	for depth := 1; depth > 0; {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}

// eachMessage calls f with each message of a line: one JSON object, or a batch (an
// array of them).
func eachMessage(line []byte, f func(*message)) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if line[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(line, &batch) != nil {
			return
		}
		for _, raw := range batch {
			var m message
			if json.Unmarshal(raw, &m) == nil {
				f(&m)
			}
		}
		return
	}
	var m message
	if json.Unmarshal(line, &m) == nil {
		f(&m)
	}
}

// hasValue reports whether a member was there and not null.
func hasValue(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}

// lineKey spells a JSON id as Key does: a string id and a number id never meet.
func lineKey(raw json.RawMessage) (string, bool) {
	if !hasValue(raw) {
		return "", false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return "", false
	}
	switch v := v.(type) {
	case string:
		return Key(v), true
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return Key(n), true
		}
		if f, err := v.Float64(); err == nil {
			return Key(f), true // 1.0 is 1, as a server that decodes it answers
		}
		return "n:" + v.String(), true
	}
	return "", false
}

// Key spells a JSON-RPC id (the go-sdk's jsonrpc.ID.Raw(): an int64 or a string; a
// float64 as JSON decodes a number) as the tap keys it.
func Key(id any) string {
	switch v := id.(type) {
	case string:
		return "s:" + v
	case int64:
		return "n:" + strconv.FormatInt(v, 10)
	case int:
		return "n:" + strconv.Itoa(v)
	case float64:
		if v == float64(int64(v)) {
			return "n:" + strconv.FormatInt(int64(v), 10)
		}
		return "n:" + strconv.FormatFloat(v, 'g', -1, 64)
	}
	return ""
}

// ToolOf is the tool a tools/call's params name, or "".
func ToolOf(params json.RawMessage) string {
	var p struct {
		Name json.RawMessage `json:"name"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	var name string
	if json.Unmarshal(p.Name, &name) != nil {
		return ""
	}
	return name
}

// IsError reports whether a tools/call result says "isError": true.
func IsError(result json.RawMessage) bool {
	if !hasValue(result) {
		return false
	}
	var r struct {
		IsError bool `json:"isError"`
	}
	return json.Unmarshal(result, &r) == nil && r.IsError
}

// toolName is name as a record may hold it: valid UTF-8 without control characters,
// at most maxTool bytes (cut at a character). "" for a name with nothing left.
func toolName(name string) string {
	name = strings.ToValidUTF8(name, "\uFFFD")
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, name)
	if len(name) > maxTool {
		cut := maxTool
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = name[:cut]
	}
	return strings.TrimSpace(name)
}
