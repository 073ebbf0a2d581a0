package mcphealth

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/testhome"
)

const secret = "s3cret-env-value-do-not-leak"

// TestMain re-executes the test binary as a stdio MCP server when MCPHEALTH_ROLE says so.
func TestMain(m *testing.M) {
	if role := os.Getenv("MCPHEALTH_ROLE"); role != "" {
		serve(role)
		return
	}
	os.Exit(m.Run())
}

func serve(role string) {
	if marker := os.Getenv("MCPHEALTH_MARKER"); marker != "" {
		os.WriteFile(marker, []byte(role), 0o600)
	}
	switch role {
	case "healthy":
		s := newServer()
		s.Run(context.Background(), &mcp.StdioTransport{})
	case "silent":
		io.Copy(io.Discard, os.Stdin)
	case "stubborn":
		// answers, then outlives its stdin and ignores SIGTERM and SIGINT
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
		newServer().Run(context.Background(), &mcp.StdioTransport{})
		select {}
	case "endless", "flood":
		endless(role == "flood")
	case "huge-error":
		// answers every request (server/discover, initialize) with an error whose message
		// is 100,000 bytes
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			var req struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
				continue
			}
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID,
				"error": map[string]any{"code": -32000, "message": strings.Repeat("no ", 33334)}})
			os.Stdout.Write(append(b, '\n'))
		}
	case "stderr-child":
		// starts a child in a session of its own that holds its stderr (a browser)
		c := exec.Command("sleep", "300")
		c.Stderr = os.Stderr
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := c.Start(); err != nil {
			os.Exit(4)
		}
		newServer().Run(context.Background(), &mcp.StdioTransport{})
	case "daemon":
		// leaves a daemon behind: no file of the server's, a session of its own, its
		// parent gone
		if err := exec.Command("sh", "-c", "setsid sleep 300 </dev/null >/dev/null 2>&1 &").Run(); err != nil {
			os.Exit(4)
		}
		newServer().Run(context.Background(), &mcp.StdioTransport{})
	case "crash":
		os.Stderr.WriteString("fatal: token " + os.Getenv("SECRET_TOKEN") + " rejected\n")
		os.Exit(3)
	}
	os.Exit(0)
}

type noArgs struct{}

func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "helper", Version: "0.3.1"}, nil)
	h := func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	}
	mcp.AddTool(s, &mcp.Tool{Name: "alpha", Description: "first tool"}, h)
	mcp.AddTool(s, &mcp.Tool{Name: "beta", Description: "the second tool"}, h)
	return s
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// plugboard builds the real plugboard command once.
func plugboard(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcphealth-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "plugboard")
		if out, err := exec.Command("go", "build", "-o", binPath, "github.com/plugboard/plugboard").CombinedOutput(); err != nil {
			binErr = &buildErr{string(out)}
		}
	})
	if binErr != nil {
		testhome.CannotRun(t, "cannot build plugboard: %v", binErr)
	}
	return binPath
}

type buildErr struct{ out string }

func (e *buildErr) Error() string { return e.out }

// copyExe puts the test binary at p, as a plugin's bundled server.
func copyExe(t *testing.T, p string) {
	t.Helper()
	if err := os.Link(os.Args[0], p); err == nil {
		return
	}
	b, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

type fixture struct {
	pb, home, marker, mcpFile string
	opts                      Options
}

func write(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func stdio(role string, extra string) string {
	return `{"type": "stdio", "command": "./server", "args": [], "env": {"MCPHEALTH_ROLE": "` + role + `"` + extra + `}}`
}

// newFixture: agent coder with plugin "tools" (acknowledged: healthy, silent, crash, web,
// denied, hang, gone, missing) and plugin "fresh" (one stdio server, not acknowledged, that writes a marker).
func newFixture(t *testing.T) *fixture {
	t.Helper()
	self := plugboard(t)
	ok := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return newServer() }, nil))
	t.Cleanup(ok.Close)
	denied := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	t.Cleanup(denied.Close)
	// hang accepts and never answers; gone was a server and is not there any more.
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(release) })
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	root := t.TempDir()
	f := &fixture{home: root, pb: filepath.Join(root, ".plugboard"), marker: filepath.Join(root, "started")}
	write(t, filepath.Join(f.pb, "agents", "coder.json"), `{"name": "coder", "pluginDirs": ["plugins/tools", "plugins/fresh"]}`)
	for _, id := range []string{"tools", "fresh"} {
		write(t, filepath.Join(f.pb, "plugins", id, "plugin.json"), `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "`+id+`", "version": "1.0.0", "description": "test"}`)
	}
	for _, id := range []string{"tools", "fresh"} {
		copyExe(t, filepath.Join(f.pb, "plugins", id, "server"))
	}
	f.mcpFile = filepath.Join(f.pb, "plugins", "tools", "mcp.json")
	write(t, f.mcpFile, `{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {
		"healthy": `+stdio("healthy", "")+`,
		"silent": `+stdio("silent", "")+`,
		"crash": `+stdio("crash", `, "SECRET_TOKEN": "`+secret+`"`)+`,
		"web": {"type": "streamable-http", "url": "`+ok.URL+`/mcp"},
		"denied": {"type": "streamable-http", "url": "`+denied.URL+`/mcp", "headers": {"Authorization": "Bearer `+secret+`"}},
		"hang": {"type": "streamable-http", "url": "`+hang.URL+`/mcp"},
		"missing": {"type": "stdio", "command": "./nothing", "env": {"SECRET_TOKEN": "`+secret+`"}},
		"gone": {"type": "streamable-http", "url": "`+gone.URL+`/mcp", "headers": {"Authorization": "Bearer `+secret+`"}}}}`)
	write(t, filepath.Join(f.pb, "plugins", "fresh", "mcp.json"), `{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {
		"marker": `+stdio("healthy", `, "MCPHEALTH_MARKER": "`+f.marker+`"`)+`}}`)
	f.opts = Options{Home: f.home, PlugboardHome: f.pb, Target: "coder", Self: self, Timeout: 3 * time.Second}
	f.ack(t)
	return f
}

// ack acknowledges the tools plugin's servers as they are now, through the store.
func (f *fixture) ack(t *testing.T) {
	t.Helper()
	req := runtime.Request{Home: f.home, PlugboardHome: f.pb, Target: "coder"}
	if _, _, _, err := runtime.Acknowledge(req, []runtime.AckRef{{Plugin: "tools"}}, "test"); err != nil {
		t.Fatal(err)
	}
}

func byName(rs []Result) map[string]Result {
	out := map[string]Result{}
	for _, r := range rs {
		out[r.Name] = r
	}
	return out
}

// TestCheckEachOutcome: through the real plan and the real plugboard's mcp-stdio and
// mcp-proxy, each server is reported as it behaves, no secret is printed, and the server
// not acknowledged is never started.
func TestCheckEachOutcome(t *testing.T) {
	f := newFixture(t)
	rs, err := Check(context.Background(), f.opts)
	if err != nil {
		t.Fatal(err)
	}
	all, _ := json.Marshal(rs)
	if strings.Contains(string(all), secret) {
		t.Errorf("a secret is in the results: %s", all)
	}
	got := byName(rs)
	if len(got) != 9 {
		t.Fatalf("results = %s", all)
	}
	for _, name := range []string{"healthy", "web"} {
		r := got[name]
		if !r.OK || r.ServerInfo == nil || r.ServerInfo.Name != "helper" || r.ServerInfo.Version != "0.3.1" || r.ProtocolVersion == "" ||
			len(r.Tools) != 2 || r.Tools[0].Name != "alpha" || r.Tools[0].DescriptionChars != len("first tool") ||
			r.Tools[1].DescriptionChars != len("the second tool") || r.Tools[0].SchemaBytes == 0 || r.Error != "" || r.Digest == "" || r.Plugin != "tools" {
			t.Errorf("%s = %+v", name, r)
		}
		if r.ReadyMs > r.Ms {
			t.Errorf("%s: ready %d ms after the end %d ms", name, r.ReadyMs, r.Ms)
		}
	}
	if r := got["silent"]; r.OK || r.Error != "did not answer initialize within 3s" {
		t.Errorf("silent = %+v", r)
	}
	if r := got["crash"]; r.OK || r.Error != "exited with status 3 before answering initialize" || !strings.Contains(r.Stderr, "fatal: token … rejected") {
		t.Errorf("crash = %+v", r)
	}
	if r := got["denied"]; r.OK || !strings.HasPrefix(r.Error, "HTTP 401 from http://127.0.0.1:") {
		t.Errorf("denied = %+v", r)
	}
	// The plugin's own path is not a secret: the message says which file is missing.
	if r := got["missing"]; r.OK || !strings.Contains(r.Stderr, filepath.Join(f.pb, "plugins", "tools", "nothing")) {
		t.Errorf("missing = %+v", r)
	}
	if r := got["hang"]; r.OK || r.Error != "did not answer initialize within 3s" {
		t.Errorf("hang = %+v", r)
	}
	if r := got["gone"]; r.OK || !strings.HasPrefix(r.Error, "cannot reach http://127.0.0.1:") || !strings.HasSuffix(r.Error, "nothing accepts connections there (connection refused); is the server running?") {
		t.Errorf("gone = %+v", r)
	}
	if r := got["marker"]; r.OK || !r.NotAcknowledged || r.Plugin != "fresh" || r.Ack != "plugboard ack agent:coder fresh/marker" || r.AckTarget != "agent:coder" ||
		!strings.HasPrefix(r.Error, runtime.NotAcknowledged) {
		t.Errorf("marker = %+v", r)
	}
	if _, err := os.Stat(f.marker); !os.IsNotExist(err) {
		t.Errorf("the server not acknowledged was started (marker: %v)", err)
	}
}

// TestCheckPluginServerAndCache: PLUGIN/SERVER checks that server alone, its result is
// cached under its digest, and a change of its config (a new digest) leaves no cached
// result until it is checked again.
func TestCheckPluginServerAndCache(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	o := f.opts
	o.Target, o.Plugin, o.Server = "", "tools", "healthy"
	// A plan of the plugin's folder alone has its own target, acknowledged here for it.
	o.Acked = func(target, plugin, server, digest string) bool { return plugin == "tools" }
	rs, err := Check(ctx, o)
	if err != nil || len(rs) != 1 || !rs[0].OK || rs[0].Cached {
		t.Fatalf("Check = %+v, %v", rs, err)
	}
	c, err := Cached(ctx, f.pb, "tools", "healthy", rs[0].Digest)
	if err != nil || c == nil || !c.Cached || c.CheckedAt == "" || !c.OK || len(c.Tools) != 2 {
		t.Fatalf("Cached = %+v, %v", c, err)
	}
	b, _ := os.ReadFile(f.mcpFile)
	write(t, f.mcpFile, strings.Replace(string(b), `"args": [], "env": {"MCPHEALTH_ROLE": "healthy"}`, `"args": ["--x"], "env": {"MCPHEALTH_ROLE": "healthy"}`, 1))
	rs2, err := Check(ctx, o)
	if err != nil || len(rs2) != 1 || !rs2[0].OK || rs2[0].Digest == rs[0].Digest {
		t.Fatalf("after the change: %+v, %v", rs2, err)
	}
	if c, err := Cached(ctx, f.pb, "tools", "healthy", rs[0].Digest); err != nil || c == nil {
		t.Errorf("the old digest's result: %+v, %v", c, err)
	}
	if c, err := Cached(ctx, f.pb, "tools", "healthy", rs2[0].Digest); err != nil || c == nil || !c.Cached {
		t.Errorf("the new digest's result: %+v, %v", c, err)
	}
}

// TestCheckPluginNeedsItsOwnAck: a plugin checked alone is a launch of its folder, whose
// servers are not acknowledged by the agent's acknowledgment; the ack command the result
// names (target dir:FOLDER) acknowledges them, and the next check starts the server.
func TestCheckPluginNeedsItsOwnAck(t *testing.T) {
	f := newFixture(t)
	o := f.opts
	o.Target, o.Plugin = "", "tools"
	o.Server = "healthy"
	rs, err := Check(context.Background(), o)
	if err != nil || len(rs) != 1 || !rs[0].NotAcknowledged {
		t.Fatalf("Check = %+v, %v", rs, err)
	}
	dir := filepath.Join(f.pb, "plugins", "tools")
	if want := "plugboard ack dir:" + dir + " tools/healthy"; rs[0].Ack != want {
		t.Fatalf("ack command %q, want %q", rs[0].Ack, want)
	}
	req := runtime.Request{Home: f.home, PlugboardHome: f.pb, Target: "dir:" + dir}
	if _, acked, _, err := runtime.Acknowledge(req, []runtime.AckRef{{Plugin: "tools", Server: "healthy"}}, "test"); err != nil || len(acked) != 1 {
		t.Fatalf("ack for dir:%s: %v, %v", dir, acked, err)
	}
	if rs, err = Check(context.Background(), o); err != nil || len(rs) != 1 || !rs[0].OK {
		t.Fatalf("after the ack: %+v, %v", rs, err)
	}
}

// TestCheckEndsEveryProcess: servers that answer and then will not go — one outlives its
// stdin and ignores SIGTERM, one leaves a child in a session of its own holding its
// stderr, one leaves a daemon behind — are each reported as listed, in the time the
// listing took; the check returns well within its timeout (not when the timeout, or the
// daemon, ends) and no process of it is left.
func TestCheckEndsEveryProcess(t *testing.T) {
	self := plugboard(t)
	root := t.TempDir()
	pb := filepath.Join(root, ".plugboard")
	tag := fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano())
	write(t, filepath.Join(pb, "agents", "coder.json"), `{"name": "coder", "pluginDirs": ["plugins/bad"]}`)
	write(t, filepath.Join(pb, "plugins", "bad", "plugin.json"), `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "bad", "version": "1.0.0", "description": "test"}`)
	copyExe(t, filepath.Join(pb, "plugins", "bad", "server"))
	extra := `, "MCPHEALTH_TAG": "` + tag + `"`
	write(t, filepath.Join(pb, "plugins", "bad", "mcp.json"), `{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {
		"stubborn": `+stdio("stubborn", extra)+`, "stderr-child": `+stdio("stderr-child", extra)+`, "daemon": `+stdio("daemon", extra)+`}}`)
	req := runtime.Request{Home: root, PlugboardHome: pb, Target: "coder"}
	if _, _, _, err := runtime.Acknowledge(req, []runtime.AckRef{{Plugin: "bad"}}, "test"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, pid := range testhome.WithEnv("MCPHEALTH_TAG", tag) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	const timeout = 10 * time.Second
	start := time.Now()
	rs, err := Check(context.Background(), Options{Home: root, PlugboardHome: pb, Target: "coder", Self: self, Timeout: timeout})
	took := time.Since(start)
	if err != nil || len(rs) != 3 {
		t.Fatalf("Check = %+v, %v", rs, err)
	}
	for _, r := range rs {
		if !r.OK || len(r.Tools) != 2 || r.Ms >= timeout.Milliseconds() {
			t.Errorf("%s = %+v", r.Name, r)
		}
	}
	// three servers, each stopped within its grace and Wait's delay: far below one timeout
	if took >= timeout {
		t.Errorf("the check of three servers took %v, a whole timeout (%v)", took, timeout)
	}
	if left := testhome.WithEnv("MCPHEALTH_TAG", tag); len(left) > 0 {
		t.Errorf("processes of the check left running: %v", left)
	}
}

// endless is a raw MCP server over stdio whose tools/list never ends: every page holds 100
// tools and names a next one; flood answers one page of 300,000 tools (~23 MiB).
func endless(flood bool) {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	page := 0
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
			continue
		}
		var result any
		switch req.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": strings.Repeat("n", 5000), "version": "1"}}
		case "tools/list":
			n := 100
			if flood {
				n = 300000
			}
			tools := make([]any, n)
			for i := range tools {
				tools[i] = map[string]any{"name": fmt.Sprintf("t%d-%d", page, i), "description": "a tool", "inputSchema": map[string]any{"type": "object"}}
			}
			page++
			result = map[string]any{"tools": tools, "nextCursor": fmt.Sprintf("p%d", page)}
		default:
			result = map[string]any{}
		}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
		out.Write(append(b, '\n'))
		out.Flush()
	}
}

// TestCheckBoundsWhatItKeeps: a server whose tools/list pages never end is listed up to
// MaxListed tools and reported truncated; one that answers a 23 MiB page is cut off at
// MaxAnswerBytes with a sentence; a 5,000-byte server name is clipped, and so is an
// error message of 100,000 bytes.
func TestCheckBoundsWhatItKeeps(t *testing.T) {
	self := plugboard(t)
	root := t.TempDir()
	pb := filepath.Join(root, ".plugboard")
	write(t, filepath.Join(pb, "agents", "coder.json"), `{"name": "coder", "pluginDirs": ["plugins/big"]}`)
	write(t, filepath.Join(pb, "plugins", "big", "plugin.json"), `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "big", "version": "1.0.0", "description": "test"}`)
	copyExe(t, filepath.Join(pb, "plugins", "big", "server"))
	write(t, filepath.Join(pb, "plugins", "big", "mcp.json"), `{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {
		"endless": `+stdio("endless", "")+`, "flood": `+stdio("flood", "")+`, "huge-error": `+stdio("huge-error", "")+`}}`)
	req := runtime.Request{Home: root, PlugboardHome: pb, Target: "coder"}
	if _, _, _, err := runtime.Acknowledge(req, []runtime.AckRef{{Plugin: "big"}}, "test"); err != nil {
		t.Fatal(err)
	}
	rs, err := Check(context.Background(), Options{Home: root, PlugboardHome: pb, Target: "coder", Self: self, Timeout: 20 * time.Second})
	if err != nil || len(rs) != 3 {
		t.Fatalf("Check = %v, %v", len(rs), err)
	}
	got := byName(rs)
	if r := got["endless"]; !r.OK || len(r.Tools) != MaxListed || strings.Join(r.Truncated, ",") != "tools" || r.ServerInfo == nil || len(r.ServerInfo.Name) > 210 {
		t.Errorf("endless: ok %v, %d tools, truncated %v, error %q", r.OK, len(r.Tools), r.Truncated, r.Error)
	}
	if r := got["huge-error"]; r.OK || !strings.HasPrefix(r.Error, "initialize answered with an error: no no") || len(r.Error) > maxError+4 {
		t.Errorf("huge-error: ok %v, error of %d bytes: %.200q", r.OK, len(r.Error), r.Error)
	}
	if r := got["flood"]; r.OK || !strings.Contains(r.Error, "answered more than 16 MiB") || len(r.Tools) != 0 {
		t.Errorf("flood: ok %v, %d tools, error %q", r.OK, len(r.Tools), r.Error)
	}
	b, _ := json.Marshal(rs)
	if len(b) > 200<<10 {
		t.Errorf("the results are %d bytes", len(b))
	}
}

// TestCheckStartsNothingOnceCancelled: Ctrl-C (the context's end) while the first of three
// servers is being checked ends that check at once, and the two others are never started.
func TestCheckStartsNothingOnceCancelled(t *testing.T) {
	self := plugboard(t)
	root := t.TempDir()
	pb := filepath.Join(root, ".plugboard")
	write(t, filepath.Join(pb, "agents", "coder.json"), `{"name": "coder", "pluginDirs": ["plugins/slow"]}`)
	write(t, filepath.Join(pb, "plugins", "slow", "plugin.json"), `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "slow", "version": "1.0.0", "description": "test"}`)
	copyExe(t, filepath.Join(pb, "plugins", "slow", "server"))
	servers := []string{}
	for _, n := range []string{"a", "b", "c"} {
		servers = append(servers, `"`+n+`": `+stdio("silent", `, "MCPHEALTH_MARKER": "`+filepath.Join(root, "started-"+n)+`"`))
	}
	write(t, filepath.Join(pb, "plugins", "slow", "mcp.json"), `{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {`+strings.Join(servers, ",")+`}}`)
	req := runtime.Request{Home: root, PlugboardHome: pb, Target: "coder"}
	if _, _, _, err := runtime.Acknowledge(req, []runtime.AckRef{{Plugin: "slow"}}, "test"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for {
			if _, err := os.Stat(filepath.Join(root, "started-a")); err == nil {
				cancel()
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	const timeout = 20 * time.Second
	start := time.Now()
	rs, err := Check(ctx, Options{Home: root, PlugboardHome: pb, Target: "coder", Self: self, Timeout: timeout})
	took := time.Since(start)
	if err != nil || len(rs) != 3 {
		t.Fatalf("Check = %+v, %v", rs, err)
	}
	if took >= timeout/2 {
		t.Errorf("the cancelled check returned after %v", took)
	}
	for _, n := range []string{"b", "c"} {
		if _, err := os.Stat(filepath.Join(root, "started-"+n)); err == nil {
			t.Errorf("server %s was started after the check was cancelled", n)
		}
	}
	for _, r := range rs {
		want := "not checked: the check was cancelled before this server was started"
		if r.Name == "a" {
			want = "the check was cancelled before initialize was answered"
		}
		if r.OK || r.Error != want {
			t.Errorf("%s = ok %v, %q; want %q", r.Name, r.OK, r.Error, want)
		}
	}
}

// TestUnreachableInWords: the Go network errors mcp-proxy passes on become a sentence a
// person can act on; anything else is left as it is ("").
func TestUnreachableInWords(t *testing.T) {
	for msg, want := range map[string]string{
		`Post "https://127.0.0.1:9/mcp": dial tcp 127.0.0.1:9: connect: connection refused`: "nothing accepts connections there (connection refused); is the server running?",
		`dial tcp: lookup mcp.invalid: no such host`:                                        "the host name does not resolve; check the URL",
		`dial tcp 10.0.0.1:443: i/o timeout`:                                                "it did not answer in time (a firewall, or the server is down)",
		`tls: failed to verify certificate: x509: certificate signed by unknown authority`:  "its TLS certificate is not trusted here (expired, self-signed or for another name)",
		`http: server gave HTTP response to HTTPS client`:                                   "it speaks http, not https; check the URL's scheme",
		`remote error: tls: handshake failure`:                                              "the TLS handshake failed; check that the URL's scheme (https or http) is the server's",
		`method not found`:                                                                  "",
	} {
		if got := unreachable(msg); got != want {
			t.Errorf("unreachable(%q) = %q, want %q", msg, got, want)
		}
	}
}
