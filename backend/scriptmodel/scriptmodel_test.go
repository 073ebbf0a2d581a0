package scriptmodel

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// post sends body to the server and returns the status and the raw answer.
func post(t *testing.T, url, path, body string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// sseEvent is one server-sent event.
type sseEvent struct {
	name string
	data map[string]any
}

func parseSSE(t *testing.T, s string) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &cur.data); err != nil {
				t.Fatalf("data line %q: %v", line, err)
			}
		case line == "":
			if cur.name != "" {
				if cur.data["type"] != cur.name {
					t.Errorf("event %s carries type %v", cur.name, cur.data["type"])
				}
				out = append(out, cur)
			}
			cur = sseEvent{}
		}
	}
	return out
}

// assemble rebuilds the assistant message from the stream as a client does: blocks from
// content_block_start, text and partial JSON joined from the deltas.
func assemble(t *testing.T, evs []sseEvent) (blocks []Block, stop string) {
	t.Helper()
	partial := map[int]string{}
	for _, e := range evs {
		idx := -1
		if f, ok := e.data["index"].(float64); ok {
			idx = int(f)
		}
		switch e.name {
		case "content_block_start":
			cb := e.data["content_block"].(map[string]any)
			b := Block{Type: cb["type"].(string)}
			if b.Type == "tool_use" {
				b.ID, b.Name = cb["id"].(string), cb["name"].(string)
			}
			if idx != len(blocks) {
				t.Fatalf("block index %d, want %d", idx, len(blocks))
			}
			blocks = append(blocks, b)
		case "content_block_delta":
			d := e.data["delta"].(map[string]any)
			switch d["type"] {
			case "text_delta":
				blocks[idx].Text += d["text"].(string)
			case "input_json_delta":
				partial[idx] += d["partial_json"].(string)
			default:
				t.Errorf("delta type %v", d["type"])
			}
		case "message_delta":
			stop = e.data["delta"].(map[string]any)["stop_reason"].(string)
		}
	}
	for i, p := range partial {
		blocks[i].Input = json.RawMessage(p)
	}
	return blocks, stop
}

func names(evs []sseEvent) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.name)
	}
	return out
}

const toolsReq = `{"model":"m","max_tokens":10,"stream":true,"system":[{"type":"text","text":"SYS-PROMPT"}],` +
	`"tools":[{"name":"Skill","input_schema":{"type":"object"}},{"name":"mcp__docs__find"}],` +
	`"messages":[{"role":"user","content":"hello"},` +
	`{"role":"system","content":"listing: - ns:name"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Skill","input":{}}]},` +
	`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"Base directory: /p"}]},` +
	`{"type":"tool_result","tool_use_id":"t2","content":"plain string result"}]}]}`

func TestStream(t *testing.T) {
	tests := []struct {
		name      string
		reply     Reply
		wantStop  string
		wantNames []string
	}{
		{"text", Reply{Blocks: []Block{TextBlock("done")}}, "end_turn",
			[]string{"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}},
		{"tool use", Reply{Blocks: []Block{TextBlock("calling"), ToolUse("", "Skill", map[string]string{"skill": "ns:name"})}}, "tool_use",
			[]string{"message_start", "content_block_start", "content_block_delta", "content_block_stop",
				"content_block_start", "content_block_delta", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}},
		{"explicit stop", Reply{Blocks: []Block{TextBlock("x")}, StopReason: "max_tokens"}, "max_tokens", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen *Request
			s := Start(Options{}, func(r *Request) (Reply, error) { seen = r; return tt.reply, nil })
			defer s.Close()
			code, out := post(t, s.URL, "/v1/messages?beta=true", toolsReq)
			if code != 200 {
				t.Fatalf("status %d: %s", code, out)
			}
			evs := parseSSE(t, out)
			if tt.wantNames != nil && !slices.Equal(names(evs), tt.wantNames) {
				t.Errorf("events %v, want %v", names(evs), tt.wantNames)
			}
			blocks, stop := assemble(t, evs)
			if stop != tt.wantStop {
				t.Errorf("stop %q, want %q", stop, tt.wantStop)
			}
			if len(blocks) != len(tt.reply.Blocks) {
				t.Fatalf("blocks %+v", blocks)
			}
			for i, b := range blocks {
				want := tt.reply.Blocks[i]
				if b.Type != want.Type || b.Text != want.Text || b.Name != want.Name {
					t.Errorf("block %d: %+v, want %+v", i, b, want)
				}
				if b.Type == "tool_use" {
					var got, exp any
					if err := json.Unmarshal(b.Input, &got); err != nil {
						t.Fatalf("joined input %q: %v", b.Input, err)
					}
					_ = json.Unmarshal(want.Input, &exp)
					if fmt.Sprint(got) != fmt.Sprint(exp) || !strings.HasPrefix(b.ID, "toolu_") {
						t.Errorf("tool_use %s %s, want input %s", b.ID, b.Input, want.Input)
					}
				}
			}
			// What the step saw, decoded.
			if seen == nil || seen.Query != "beta=true" || seen.SystemText() != "SYS-PROMPT\n" ||
				!slices.Equal(seen.ToolNames(), []string{"Skill", "mcp__docs__find"}) || !seen.HasTool("Skill") {
				t.Fatalf("step saw %+v", seen)
			}
			res := seen.ToolResults()
			if len(res) != 2 || res[0].Content.Text() != "Base directory: /p\n" || res[1].Content.Text() != "plain string result\n" {
				t.Errorf("tool results %+v", res)
			}
			if r, ok := seen.ToolResult("t2"); !ok || r.ToolUseID != "t2" {
				t.Errorf("ToolResult(t2) = %+v %v", r, ok)
			}
			if txt := seen.Texts(); !strings.Contains(txt, "hello") || !strings.Contains(txt, "listing: - ns:name") || !strings.Contains(txt, "plain string result") {
				t.Errorf("Texts %q", txt)
			}
			select {
			case <-s.Done():
			default:
				t.Error("Done not closed after the last step")
			}
			if err := s.Err(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestRoutes(t *testing.T) {
	tests := []struct {
		name, method, path, body string
		wantCode                 int
		wantIn                   string
		wantMain                 bool
		wantErr                  bool
	}{
		{"json reply", "POST", "/v1/messages", `{"model":"m","tools":[{"name":"x"}],"messages":[]}`, 200, `"text":"step one"`, true, false},
		{"side request", "POST", "/v1/messages", `{"model":"m","messages":[{"role":"user","content":"title?"}]}`, 200, `"text":"ok"`, false, false},
		{"count tokens", "POST", "/v1/messages/count_tokens", `{"model":"m","messages":[]}`, 200, `"input_tokens"`, false, false},
		{"unknown path", "GET", "/v1/models", ``, 404, `not_found_error`, false, false},
		{"reachability probe", "HEAD", "/", ``, 200, ``, false, false},
		{"bad body", "POST", "/v1/messages", `{`, 400, `invalid_request_error`, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Start(Options{}, Say("step one"))
			defer s.Close()
			req, _ := http.NewRequest(tt.method, s.URL+tt.path, strings.NewReader(tt.body))
			req.Header.Set("X-Api-Key", "secret-value")
			req.Header.Set("Authorization", "Bearer secret-value")
			req.Header.Set("Anthropic-Version", "2023-06-01")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.wantCode || !strings.Contains(string(b), tt.wantIn) {
				t.Errorf("%d %s, want %d with %s", resp.StatusCode, b, tt.wantCode, tt.wantIn)
			}
			reqs := s.Requests()
			if len(reqs) != 1 || reqs[0].Path != tt.path || reqs[0].Main != tt.wantMain {
				t.Fatalf("recorded %+v", reqs)
			}
			if h := reqs[0].Header; h.Get("X-Api-Key") != "" || h.Get("Authorization") != "" || h.Get("Anthropic-Version") != "2023-06-01" {
				t.Errorf("recorded headers %v", h)
			}
			if (s.Err() != nil) != tt.wantErr {
				t.Errorf("Err() = %v", s.Err())
			}
			if want := 0; tt.wantMain && s.Remaining() != want {
				t.Errorf("remaining %d", s.Remaining())
			}
		})
	}
}

// A main request after the last step, or a step's error, is an API error the client
// sees at once, and is kept in Err.
func TestExhaustedAndFailingSteps(t *testing.T) {
	boom := errors.New("boom")
	s := Start(Options{}, func(*Request) (Reply, error) { return Reply{}, boom })
	defer s.Close()
	body := `{"model":"m","tools":[{"name":"x"}],"messages":[]}`
	if code, out := post(t, s.URL, "/v1/messages", body); code != 400 || !strings.Contains(out, "boom") {
		t.Errorf("failing step: %d %s", code, out)
	}
	if code, out := post(t, s.URL, "/v1/messages", body); code != 400 || !strings.Contains(out, "after the last") {
		t.Errorf("exhausted: %d %s", code, out)
	}
	if err := s.Err(); !errors.Is(err, boom) || !strings.Contains(err.Error(), "after the last of 1 steps") {
		t.Errorf("Err() = %v", err)
	}
	if m := s.Main(); len(m) != 2 || m[0].Step != 0 || m[1].Step != -1 {
		t.Errorf("main requests %+v", m)
	}
}

// Requests in parallel: steps run one at a time and in order, side requests never take
// a step, every request is recorded.
func TestConcurrentRequests(t *testing.T) {
	const n = 8
	var mu sync.Mutex
	running, maxRunning := 0, 0
	var order []int
	steps := make([]Step, n)
	for i := range steps {
		steps[i] = func(r *Request) (Reply, error) {
			mu.Lock()
			running++
			maxRunning = max(maxRunning, running)
			order = append(order, r.Step)
			mu.Unlock()
			mu.Lock()
			running--
			mu.Unlock()
			return Reply{Blocks: []Block{TextBlock(fmt.Sprint(i))}}, nil
		}
	}
	s := Start(Options{}, steps...)
	defer s.Close()
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			post(t, s.URL, "/v1/messages", `{"model":"m","stream":true,"tools":[{"name":"x"}],"messages":[]}`)
		}()
		go func() {
			defer wg.Done()
			post(t, s.URL, "/v1/messages", `{"model":"m","messages":[]}`)
		}()
	}
	wg.Wait()
	<-s.Done()
	if !slices.Equal(order, []int{0, 1, 2, 3, 4, 5, 6, 7}) || maxRunning != 1 {
		t.Errorf("steps ran in order %v, at most %d at once", order, maxRunning)
	}
	if len(s.Requests()) != 2*n || len(s.Main()) != n || s.Err() != nil {
		t.Errorf("%d requests, %d main, err %v", len(s.Requests()), len(s.Main()), s.Err())
	}
}

func TestEnvHelpers(t *testing.T) {
	s := Start(Options{})
	defer s.Close()
	env := s.ClaudeEnv()
	if !slices.Contains(env, "ANTHROPIC_BASE_URL="+s.URL) || !slices.Contains(env, "ANTHROPIC_API_KEY="+NotAKey) ||
		!slices.Contains(env, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1") {
		t.Errorf("ClaudeEnv %v", env)
	}
	home := t.TempDir()
	if err := s.WritePIModels(home); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Providers map[string]struct {
			BaseURL string `json:"baseUrl"`
			API     string
			Models  []struct{ ID string }
		}
	}
	b, err := os.ReadFile(filepath.Join(home, ".pi", "agent", "models.json"))
	if err != nil || json.Unmarshal(b, &doc) != nil {
		t.Fatalf("models.json: %v %s", err, b)
	}
	p := doc.Providers[PIProvider]
	if p.BaseURL != s.URL || p.API != "anthropic-messages" || len(p.Models) != 1 || p.Models[0].ID != PIModel {
		t.Errorf("provider %+v", p)
	}
	if !slices.Equal(PIArgs(), []string{"--provider", PIProvider, "--model", PIModel}) {
		t.Error(PIArgs())
	}
}

// The helper process of TestNetns: a client that posts one request to the URL it is
// given and prints the answer's text.
func TestHelperClient(t *testing.T) {
	url := os.Getenv("SCRIPTMODEL_HELPER_URL")
	if url == "" {
		return
	}
	resp, err := http.Post(url+"/v1/messages", "application/json", strings.NewReader(`{"model":"m","tools":[{"name":"x"}],"messages":[]}`))
	if err != nil {
		fmt.Println("dial error:", err)
		os.Exit(3)
	}
	b, _ := io.ReadAll(resp.Body)
	fmt.Println(string(b))
	os.Exit(0)
}

// A server listening in the namespace is reachable from a process run in it, and not
// from this one's network.
func TestNetns(t *testing.T) {
	ns, err := NewNetns()
	if errors.Is(err, ErrNoNetns) && os.Getenv("CI") == "" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := ns.Close(); err != nil {
			t.Errorf("holder: %v", err)
		}
	}()
	l, err := ns.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := Start(Options{Listener: l}, Say("from inside"))
	defer s.Close()
	if c, err := net.Dial("tcp", l.Addr().String()); err == nil {
		c.Close()
		t.Fatalf("%s is reachable from outside the namespace", l.Addr())
	}
	argv := ns.Command(os.Args[0], "-test.run=^TestHelperClient$")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "SCRIPTMODEL_HELPER_URL="+s.URL)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "from inside") {
		t.Fatalf("client in the namespace: %v\n%s", err, out)
	}
	<-s.Done()
}

func TestAnswerAndAvailableSkills(t *testing.T) {
	body := `{"model":"m","tools":[{"name":"read"}],
"system":"intro\n<available_skills>\n  <skill>\n    <name>brief</name>\n    <description>Write a brief &amp; more.</description>\n    <location>/p/skills/brief/SKILL.md</location>\n  </skill>\n  <skill><name>tip</name><description>d</description><location>/p/skills/tip/SKILL.md</location></skill>\n</available_skills>\nend",
"messages":[{"role":"user","content":"go"},
{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"Skill","input":{}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"Launching skill: kit:brief"},{"type":"text","text":"Base directory for this skill: /p"}]},
{"role":"user","content":"a second user message of the same turn"},
{"role":"assistant","content":[{"type":"tool_use","id":"b","name":"read","input":{}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"b","content":[{"type":"text","text":"file text"}]}]}]}`
	var seen *Request
	s := Start(Options{}, func(r *Request) (Reply, error) { seen = r; return Reply{Blocks: []Block{TextBlock("ok")}}, nil })
	defer s.Close()
	if code, out := post(t, s.URL, "/v1/messages", body); code != 200 {
		t.Fatalf("%d %s", code, out)
	}
	tests := []struct{ id, want, not string }{
		{"a", "Launching skill: kit:brief\nBase directory for this skill: /p\na second user message", "file text"},
		{"b", "file text", "Launching"},
		{"missing", "", "x"},
	}
	for _, tt := range tests {
		got := seen.Answer(tt.id)
		if !strings.Contains(got, tt.want) || (tt.not != "" && strings.Contains(got, tt.not)) || (tt.want == "" && got != "") {
			t.Errorf("Answer(%s) = %q", tt.id, got)
		}
	}
	want := []AvailableSkill{{"brief", "Write a brief & more.", "/p/skills/brief/SKILL.md"}, {"tip", "d", "/p/skills/tip/SKILL.md"}}
	if got := seen.AvailableSkills(); !slices.Equal(got, want) {
		t.Errorf("AvailableSkills() = %+v", got)
	}
}
