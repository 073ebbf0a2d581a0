package scriptmodel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
)

// Block is one content block of a message: text, tool_use, or (sent by the client)
// tool_result, whose Content may be a string or blocks (decoded to blocks either way).
type Block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   Blocks          `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

// Blocks decodes a content member that is either a string (one text block) or an array.
type Blocks []Block

// UnmarshalJSON implements json.Unmarshaler.
func (b *Blocks) UnmarshalJSON(data []byte) error {
	var s string
	if json.Unmarshal(data, &s) == nil {
		*b = Blocks{{Type: "text", Text: s}}
		return nil
	}
	var l []Block
	if err := json.Unmarshal(data, &l); err != nil {
		return err
	}
	*b = l
	return nil
}

// Text joins the text of the blocks and of their nested content.
func (b Blocks) Text() string {
	var sb strings.Builder
	for _, x := range b {
		if x.Text != "" {
			sb.WriteString(x.Text)
			sb.WriteByte('\n')
		}
		if len(x.Content) > 0 {
			sb.WriteString(x.Content.Text())
		}
	}
	return sb.String()
}

// Message is one message of the conversation the client sent.
type Message struct {
	Role    string `json:"role"`
	Content Blocks `json:"content"`
}

// Tool is one tool the client offered.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
	// namespace and bare are a Responses API tool's namespace and its own name in it.
	namespace, bare string
}

// Body is the decoded request body of /v1/messages.
type Body struct {
	Model     string    `json:"model"`
	MaxTokens int       `json:"max_tokens"`
	Stream    bool      `json:"stream"`
	System    Blocks    `json:"system,omitempty"`
	Messages  []Message `json:"messages"`
	Tools     []Tool    `json:"tools,omitempty"`
}

// Request is one request the server received.
type Request struct {
	Method, Path, Query string
	Header              http.Header // secret-bearing headers removed
	Raw                 []byte      // the body as sent
	Body                Body        // decoded, for /v1/messages and count_tokens
	Main                bool        // handed to a step
	Step                int         // the step's index, or -1
}

// SystemText is the system prompt's text.
func (r *Request) SystemText() string { return r.Body.System.Text() }

// ToolNames lists the names of the tools offered, in order.
func (r *Request) ToolNames() []string {
	out := make([]string, len(r.Body.Tools))
	for i, t := range r.Body.Tools {
		out[i] = t.Name
	}
	return out
}

// HasTool reports whether a tool of that name is offered.
func (r *Request) HasTool(name string) bool {
	for _, t := range r.Body.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// ToolResults lists every tool_result block of the conversation, oldest first.
func (r *Request) ToolResults() []Block {
	var out []Block
	for _, m := range r.Body.Messages {
		for _, b := range m.Content {
			if b.Type == "tool_result" {
				out = append(out, b)
			}
		}
	}
	return out
}

// ToolResult is the tool_result for the tool_use id, and whether there is one.
func (r *Request) ToolResult(id string) (Block, bool) {
	for _, b := range r.ToolResults() {
		if b.ToolUseID == id {
			return b, true
		}
	}
	return Block{}, false
}

// Texts joins every text the client side sent in messages: user messages (text blocks
// and tool results) and the "system" role messages Claude puts among them (where its
// skill and agent listings travel).
func (r *Request) Texts() string {
	var sb strings.Builder
	for _, m := range r.Body.Messages {
		if m.Role != "assistant" {
			sb.WriteString(m.Content.Text())
		}
	}
	return sb.String()
}

// Reply is what a step answers: the assistant's blocks, and the stop reason ("" means
// tool_use when a block is a tool_use, else end_turn).
type Reply struct {
	Blocks     []Block
	StopReason string
}

// Step answers one main request.
type Step func(r *Request) (Reply, error)

// Say is a step that answers text and ends the turn.
func Say(text string) Step {
	return func(*Request) (Reply, error) { return Reply{Blocks: []Block{TextBlock(text)}}, nil }
}

// TextBlock is an assistant text block.
func TextBlock(text string) Block { return Block{Type: "text", Text: text} }

// ToolUse is an assistant tool_use block; input is marshalled to JSON.
func ToolUse(id, name string, input any) Block {
	b, err := json.Marshal(input)
	if err != nil {
		panic(err)
	}
	return Block{Type: "tool_use", ID: id, Name: name, Input: b}
}

// Options configure a Server beyond its script.
type Options struct {
	// Main says which /v1/messages requests the script answers; nil means the ones that
	// offer tools.
	Main func(*Request) bool
	// Side answers the others; nil means the text "ok".
	Side Step
	// Listener to serve on; nil means a new one on 127.0.0.1.
	Listener net.Listener
}

// Server is a running scripted model.
type Server struct {
	URL string // http://127.0.0.1:PORT, no trailing slash

	srv  *httptest.Server
	opts Options

	mu       sync.Mutex // guards the fields below
	steps    []Step
	next     int
	reqs     []*Request
	errs     []error
	done     chan struct{}
	stepLock sync.Mutex // steps run one at a time
	ids      int
}

// Start serves steps until Close.
func Start(opts Options, steps ...Step) *Server {
	s := &Server{opts: opts, steps: steps, done: make(chan struct{})}
	if len(steps) == 0 {
		close(s.done)
	}
	if s.opts.Main == nil {
		s.opts.Main = func(r *Request) bool { return len(r.Body.Tools) > 0 }
	}
	if s.opts.Side == nil {
		s.opts.Side = Say("ok")
	}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	if opts.Listener != nil {
		s.srv.Listener.Close()
		s.srv.Listener = opts.Listener
	}
	s.srv.Start()
	s.URL = s.srv.URL
	return s
}

// Close stops the server and waits for its handlers.
func (s *Server) Close() { s.srv.Close() }

// Done is closed once every step has answered.
func (s *Server) Done() <-chan struct{} { return s.done }

// Requests returns every request received so far, in arrival order.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.reqs...)
}

// Main returns the requests the script answered, in order.
func (s *Server) Main() []*Request {
	var out []*Request
	for _, r := range s.Requests() {
		if r.Main {
			out = append(out, r)
		}
	}
	return out
}

// Err joins the errors of the run: a step's error, a main request after the last step,
// a body that did not decode.
func (s *Server) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return errors.Join(s.errs...)
}

// Remaining is the number of steps not yet used.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.steps) - s.next
}

func (s *Server) fail(err error) {
	s.mu.Lock()
	s.errs = append(s.errs, err)
	s.mu.Unlock()
}

var secretHeaders = []string{"X-Api-Key", "Authorization", "Cookie", "Proxy-Authorization"}

func (s *Server) serve(w http.ResponseWriter, hr *http.Request) {
	raw, _ := io.ReadAll(io.LimitReader(hr.Body, 64<<20))
	h := hr.Header.Clone()
	for _, k := range secretHeaders {
		h.Del(k)
	}
	r := &Request{Method: hr.Method, Path: hr.URL.Path, Query: hr.URL.RawQuery, Header: h, Raw: raw, Step: -1}
	responses := hr.Method == http.MethodPost && r.Path == ResponsesPath
	known := responses || hr.Method == http.MethodPost && (r.Path == "/v1/messages" || r.Path == "/v1/messages/count_tokens")
	var decodeErr error
	switch {
	case responses:
		decodeErr = decodeResponses(raw, &r.Body)
	case known:
		decodeErr = json.Unmarshal(raw, &r.Body)
	}
	if known && r.Path != "/v1/messages/count_tokens" && decodeErr == nil {
		r.Main = s.opts.Main(r)
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, r)
	s.mu.Unlock()

	switch {
	case r.Path == "/" && (hr.Method == http.MethodHead || hr.Method == http.MethodGet):
		w.WriteHeader(http.StatusOK) // Claude Code's reachability probe (HEAD /)
		return
	case !known:
		apiError(w, http.StatusNotFound, "not_found_error", "scriptmodel serves POST /v1/messages, /v1/messages/count_tokens and /v1/responses only")
		return
	case decodeErr != nil:
		s.fail(fmt.Errorf("%s: body does not decode: %v", r.Path, decodeErr))
		apiError(w, http.StatusBadRequest, "invalid_request_error", "body does not decode")
		return
	case r.Path == "/v1/messages/count_tokens":
		writeJSON(w, map[string]int{"input_tokens": len(raw) / 4})
		return
	}
	var rep Reply
	var err error
	if r.Main {
		rep, err = s.step(r)
	} else {
		rep, err = s.opts.Side(r)
	}
	if err != nil {
		s.fail(err)
		// 400, not 5xx: clients retry server errors (Claude up to 10 times, with
		// back-off), and each retry would take the next step.
		apiError(w, http.StatusBadRequest, "invalid_request_error", "scriptmodel: "+err.Error())
		return
	}
	msg := s.message(r, rep)
	if responses {
		streamResponses(w, r, msg) // Codex always streams
		return
	}
	if r.Body.Stream {
		stream(w, msg)
	} else {
		writeJSON(w, msg)
	}
}

// step hands r to the next step, one step at a time.
func (s *Server) step(r *Request) (Reply, error) {
	s.stepLock.Lock()
	defer s.stepLock.Unlock()
	s.mu.Lock()
	i := s.next
	if i >= len(s.steps) {
		s.mu.Unlock()
		return Reply{}, fmt.Errorf("request %d after the last of %d steps", i+1, len(s.steps))
	}
	s.next++
	st := s.steps[i]
	r.Step = i
	s.mu.Unlock()
	rep, err := st(r)
	if err != nil {
		err = fmt.Errorf("step %d: %w", i+1, err)
	}
	if i == len(s.steps)-1 {
		close(s.done)
	}
	return rep, err
}

type usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

type message struct {
	ID           string  `json:"id"`
	Type         string  `json:"type"`
	Role         string  `json:"role"`
	Model        string  `json:"model"`
	Content      []Block `json:"content"`
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
	Usage        usage   `json:"usage"`
}

func (s *Server) message(r *Request, rep Reply) message {
	s.mu.Lock()
	s.ids++
	n := s.ids
	s.mu.Unlock()
	stop := rep.StopReason
	blocks := make([]Block, len(rep.Blocks))
	for i, b := range rep.Blocks {
		if b.Type == "tool_use" {
			if b.ID == "" {
				b.ID = "toolu_sm_" + strconv.Itoa(n) + "_" + strconv.Itoa(i)
			}
			if len(b.Input) == 0 {
				b.Input = json.RawMessage(`{}`)
			}
			if stop == "" {
				stop = "tool_use"
			}
		}
		blocks[i] = b
	}
	if stop == "" {
		stop = "end_turn"
	}
	model := r.Body.Model
	if model == "" {
		model = "scripted"
	}
	return message{ID: "msg_sm_" + strconv.Itoa(n), Type: "message", Role: "assistant", Model: model, Content: blocks,
		StopReason: &stop, Usage: usage{InputTokens: len(r.Raw)/4 + 1, OutputTokens: 1 + len(blocks)}}
}

// stream writes msg as the Messages API's server-sent events.
func stream(w http.ResponseWriter, msg message) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	event := func(name string, v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		if fl != nil {
			fl.Flush()
		}
	}
	start := msg
	start.Content = []Block{}
	start.StopReason = nil
	start.Usage.OutputTokens = 1
	event("message_start", map[string]any{"type": "message_start", "message": start})
	for i, b := range msg.Content {
		switch b.Type {
		case "tool_use":
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}})
			// Two deltas, as a real stream splits the JSON: clients must join them.
			in := string(b.Input)
			half := len(in) / 2
			for _, part := range []string{in[:half], in[half:]} {
				event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
			}
		default:
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": b.Text}})
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": *msg.StopReason, "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": msg.Usage.OutputTokens}})
	event("message_stop", map[string]any{"type": "message_stop"})
}

func writeJSON(w http.ResponseWriter, v any) {
	var buf bytes.Buffer
	_ = json.NewEncoder(&buf).Encode(v)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(buf.Bytes())
}

func apiError(w http.ResponseWriter, code int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": msg}})
	_, _ = w.Write(b)
}
