// Package mcphealth checks MCP servers as a launch starts them (plugboard mcp check): it
// builds the target's plan with runtime.Build, runs each server's client entry (plugboard
// mcp-stdio or mcp-proxy with the projection's private config) as a child speaking MCP on
// its stdin and stdout, and runs initialize, notifications/initialized, tools/list and,
// when offered, prompts/list and resources/list. Each result is kept in the store, keyed
// by the server's acknowledgment digest, until its config changes. No env or header
// value is ever reported: they are replaced by "…" in the stderr tail and the errors.
package mcphealth

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/store"
)

// DefaultTimeout bounds each server's check.
const DefaultTimeout = 10 * time.Second

// stderrTail is how much of a failed server's stderr is reported.
const stderrTail = 2048

// Options says what to check.
type Options struct {
	Home, PlugboardHome string
	// Target is a target id or agent name; ignored when Plugin is set.
	Target string
	// Plugin checks a plan of that plugin's folder alone ($PLUGBOARD_HOME/plugins/ID, or
	// Dir when set: Dir alone checks that folder); Server, when set, only that server of it.
	Plugin, Server, Dir string
	// Self is the plugboard executable the entries run.
	Self string
	// Timeout per server; 0 means DefaultTimeout.
	Timeout time.Duration
	// Env is the environment the agent would inherit; nil means os.Environ().
	Env []string
	// Acked overrides the store's acknowledgments (tests); nil reads the store.
	Acked runtime.AckedFunc
	// Bins, PIMCPAdapter: as runtime.Request.
	Bins         map[string]string
	PIMCPAdapter string
	// Progress, when set, is told before each server starts (done of total checked, the
	// next one as plugin/server) and once more when all are done (next "").
	Progress func(done, total int, next string)
}

// Info names a server as it answered initialize.
type Info struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Tool is one listed tool and its size: what a client puts in the model's context.
type Tool struct {
	Name             string `json:"name"`
	DescriptionChars int    `json:"descriptionChars"`
	SchemaBytes      int    `json:"schemaBytes"`
}

// Result is one server's check.
type Result struct {
	Plugin          string `json:"plugin"`
	Name            string `json:"name"`
	OK              bool   `json:"ok"`
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	ServerInfo      *Info  `json:"serverInfo,omitempty"`
	Tools           []Tool `json:"tools"`
	Prompts         int    `json:"prompts"`
	Resources       int    `json:"resources"`
	// Truncated names the lists the server offered more of than a check keeps
	// (MaxListed items, MaxPages pages): "tools", "prompts", "resources".
	Truncated []string `json:"truncated,omitempty"`
	Ms        int64    `json:"ms"`
	ReadyMs   int64    `json:"readyMs"`
	Error     string   `json:"error,omitempty"`
	Stderr    string   `json:"stderr,omitempty"`
	// NotAcknowledged: the server was not started; Ack is the command that acknowledges it
	// and AckTarget the target an acknowledgment is for (the page's Acknowledge button).
	NotAcknowledged bool   `json:"notAcknowledged,omitempty"`
	Ack             string `json:"ack,omitempty"`
	AckTarget       string `json:"ackTarget,omitempty"`
	Digest          string `json:"digest,omitempty"`
	Cached          bool   `json:"cached"`
	// Checked: Known found a check of the server as it is now; false, nothing is known of it.
	Checked   bool   `json:"checked"`
	CheckedAt string `json:"checkedAt,omitempty"`
}

// Check builds the plan and checks every server of it (or the one named), recording each
// result in the store. An error is returned only when there is no plan to check.
func Check(ctx context.Context, o Options) ([]Result, error) {
	req := runtime.Request{Home: o.Home, PlugboardHome: o.PlugboardHome, Target: o.Target, Self: o.Self, Acked: o.Acked,
		Bins: o.Bins, PIMCPAdapter: o.PIMCPAdapter}
	if o.Plugin != "" || o.Dir != "" {
		dir := o.Dir
		if dir == "" {
			dir = filepath.Join(o.PlugboardHome, "plugins", o.Plugin)
		}
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("%w: no plugin %q in %s", runtime.ErrTarget, o.Plugin, filepath.Join(o.PlugboardHome, "plugins"))
		}
		req.Dirs = []string{dir}
	}
	if o.Self == "" {
		return nil, errors.New("the plugboard executable's path is not known")
	}
	plan, err := runtime.Build(req)
	if err != nil {
		return nil, err
	}
	_, states, _ := runtime.LaunchServers(req)
	digests := map[string]string{}
	for _, s := range states {
		digests[s.Plugin+"\x00"+s.Server] = s.Digest
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	base := o.Env
	if base == nil {
		base = os.Environ()
	}
	want := func(plugin, server string) bool {
		return o.Server == "" || server == o.Server
	}
	var out []Result
	for _, d := range plan.Dropped {
		if d.What != "server" || !want(d.Plugin, d.Name) {
			continue
		}
		if !strings.HasPrefix(d.Reason, runtime.NotAcknowledged) {
			out = append(out, Result{Plugin: d.Plugin, Name: d.Name, Tools: []Tool{}, Error: "not launched: " + d.Reason})
			continue
		}
		r := Result{Plugin: d.Plugin, Name: d.Name, Tools: []Tool{}, NotAcknowledged: true, Error: d.Reason,
			Ack: "plugboard ack " + plan.Target + " " + d.Plugin + "/" + d.Name, AckTarget: plan.Target}
		if d.Ack != nil {
			r.Digest = d.Ack.Digest
		}
		out = append(out, r)
	}
	entries, err := readEntries(plan)
	if err != nil {
		return out, err
	}
	var st *store.Store
	if len(entries) > 0 {
		if s, _, err := store.Open(ctx, o.PlugboardHome, store.PartMCPHealth); err == nil {
			st = s
			defer st.Close()
		}
	}
	var todo []entry
	for _, e := range entries {
		if want(e.plugin, e.server) {
			todo = append(todo, e)
		}
	}
	progress := o.Progress
	if progress == nil {
		progress = func(int, int, string) {}
	}
	for i, e := range todo {
		progress(i, len(todo), e.plugin+"/"+e.server)
		if ctx.Err() != nil {
			// Cancelled (Ctrl-C, the page closed): no further server is started.
			out = append(out, Result{Plugin: e.plugin, Name: e.server, Tools: []Tool{},
				Error: "not checked: the check was cancelled before this server was started"})
			continue
		}
		r := check(ctx, e, plan.Env(base), timeout)
		r.Digest, r.Checked = digests[e.plugin+"\x00"+e.server], true
		now := time.Now().UTC()
		r.CheckedAt = now.Format(time.RFC3339)
		if st != nil && r.Digest != "" {
			if b, err := json.Marshal(r); err == nil {
				_ = st.PutMCPHealth(ctx, r.Plugin, r.Name, r.Digest, b, now)
			}
		}
		out = append(out, r)
	}
	progress(len(todo), len(todo), "")
	if o.Server != "" && len(out) == 0 {
		return nil, fmt.Errorf("%w: the launch of %s has no MCP server %q", runtime.ErrTarget, plan.Target, o.Server)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Plugin != out[j].Plugin {
			return out[i].Plugin < out[j].Plugin
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// compactLen is the length of v as compact JSON with no HTML escaping: what a client that
// forwards a tool's input schema sends.
func compactLen(v any) int {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return 0
	}
	return b.Len() - 1 // the encoder's newline
}

// Known lists the MCP servers a launch of req would start, each with its last check
// when that check is of the server as it is now (its digest), else with Checked false.
// It starts nothing.
func Known(ctx context.Context, req runtime.Request) ([]Result, error) {
	target, states, err := runtime.LaunchServers(req)
	if err != nil {
		return nil, err
	}
	out := make([]Result, 0, len(states))
	var st *store.Store // opened once, for all the servers, when there is a database
	if len(states) > 0 && store.Exists(req.PlugboardHome) {
		if st, _, err = store.Open(ctx, req.PlugboardHome, store.PartMCPHealth); err != nil {
			return nil, err
		}
		defer st.Close()
	}
	for _, s := range states {
		var r *Result
		if st != nil {
			if r, err = cachedIn(ctx, st, s.Plugin, s.Server, s.Digest); err != nil {
				return nil, err
			}
		}
		if r == nil {
			r = &Result{Plugin: s.Plugin, Name: s.Server, Tools: []Tool{}, Digest: s.Digest}
		}
		r.NotAcknowledged, r.Ack, r.AckTarget = !s.Acknowledged, "", ""
		if r.NotAcknowledged {
			r.Ack = "plugboard ack " + target + " " + s.Plugin + "/" + s.Server
			r.AckTarget = target
		}
		out = append(out, *r)
	}
	return out, nil
}

// Cached returns the last check of the server as it is now (digest), marked cached, or
// nil when it has not been checked since its config last changed.
func Cached(ctx context.Context, pbHome, plugin, server, digest string) (*Result, error) {
	if !store.Exists(pbHome) {
		return nil, nil
	}
	st, _, err := store.Open(ctx, pbHome, store.PartMCPHealth)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return cachedIn(ctx, st, plugin, server, digest)
}

// cachedIn is Cached in an open store.
func cachedIn(ctx context.Context, st *store.Store, plugin, server, digest string) (*Result, error) {
	b, checked, ok, err := st.MCPHealth(ctx, plugin, server, digest)
	if err != nil || !ok {
		return nil, err
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("read MCP health: %w", err)
	}
	r.Cached, r.Checked, r.CheckedAt = true, true, checked.UTC().Format(time.RFC3339)
	return &r, nil
}

// entry is one client entry of the plan's MCP config, and what its private file says.
type entry struct {
	plugin, server string
	command        string
	args           []string
	env            map[string]string
	secrets        []string // env and header values, never reported
	origin         string   // a remote server's scheme://host
}

func readEntries(plan *runtime.Plan) ([]entry, error) {
	b, err := os.ReadFile(filepath.Join(plan.Projection, "mcp.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		MCPServers map[string]struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Join(plan.Projection, "mcp.json"), err)
	}
	var out []entry
	for name, ce := range doc.MCPServers {
		e := entry{plugin: "", server: name, command: ce.Command, args: ce.Args, env: ce.Env}
		for _, v := range ce.Env {
			e.secrets = append(e.secrets, v)
		}
		if len(ce.Args) == 3 && ce.Args[1] == "--config" {
			var cfg struct {
				URL      string            `json:"url"`
				Env      map[string]string `json:"env"`
				Headers  map[string]string `json:"headers"`
				Activity *struct {
					Plugin string `json:"plugin"`
					Server string `json:"server"`
				} `json:"activity"`
			}
			if b, err := os.ReadFile(ce.Args[2]); err == nil && json.Unmarshal(b, &cfg) == nil {
				for k, v := range cfg.Env {
					if !runtime.LocationVar(k) {
						e.secrets = append(e.secrets, v)
					}
				}
				for _, v := range cfg.Headers {
					e.secrets = append(e.secrets, v)
				}
				if cfg.Activity != nil {
					e.plugin, e.server = cfg.Activity.Plugin, cfg.Activity.Server
				}
				if u, err := url.Parse(cfg.URL); err == nil && u.Host != "" {
					e.origin = u.Scheme + "://" + u.Host
				}
			}
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].server < out[j].server })
	return out, nil
}

// tail keeps the last bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - 4*stderrTail; over > 0 {
		t.buf = append(t.buf[:0:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// sanitise replaces every secret in s by "…".
func sanitise(s string, secrets []string) string {
	sort.Slice(secrets, func(i, j int) bool { return len(secrets[i]) > len(secrets[j]) })
	for _, v := range secrets {
		if v != "" {
			s = strings.ReplaceAll(s, v, "…")
		}
	}
	return s
}

func lastBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	for len(s) > 0 && !utf8.RuneStart(s[0]) {
		s = s[1:]
	}
	return s
}

// httpStatus finds an HTTP error status (its text, "Unauthorized") in the bridge's stderr.
func httpStatus(s string) int {
	for code := 400; code < 600; code++ {
		if text := http.StatusText(code); text != "" && regexp.MustCompile(`\b`+regexp.QuoteMeta(text)+`\b`).MatchString(s) {
			return code
		}
	}
	return 0
}

// check runs one entry as the client would and lists what it offers.
func check(ctx context.Context, e entry, env []string, timeout time.Duration) (r Result) {
	r = Result{Plugin: e.plugin, Name: e.server, Tools: []Tool{}}
	for k, v := range e.env {
		env = append(env, k+"="+v)
	}
	// Every process the server starts carries this mark in its environment: one that
	// leaves the process group (a daemon) is still found and ended with the check.
	mark := checkMark()
	env = append(env, markVar+"="+mark)
	stderr := &tail{}
	start := time.Now()
	var ended time.Time // when the answers were in, before the server was stopped
	defer func() {
		if ended.IsZero() {
			ended = time.Now()
		}
		r.Ms = ended.Sub(start).Milliseconds()
		if !r.OK {
			r.Error = clipTo(sanitise(r.Error, e.secrets), maxError)
			r.Stderr = lastBytes(sanitise(stderr.String(), e.secrets), stderrTail)
		}
	}()
	inR, inW, err := os.Pipe()
	if err != nil {
		r.Error = err.Error()
		return r
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		r.Error = err.Error()
		return r
	}
	cmd := exec.Command(e.command, e.args...)
	cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = env, inR, outW, stderr
	// Wait returns this long after the server exits even when a child of it still holds
	// its stderr open (a browser, a daemon): the check must not wait on them.
	cmd.WaitDelay = time.Second
	ownGroup(cmd)
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		r.Error = "cannot start " + e.command + ": " + err.Error()
		return r
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// The server is stopped as a client stops one (spec: stdin closed, then signals), but
	// with no long grace: stdin is closed (the session, or here), it has a moment to exit,
	// then its whole process group is killed, and every process of the check that left
	// the group. The check returns within its timeout and a second, whatever the server
	// does.
	defer func() {
		ended = time.Now()
		inW.Close()
		select {
		case <-exited:
		case <-tctx.Done():
		case <-time.After(stopGrace):
		}
		killGroup(cmd)
		killMarked(mark) // before the wait: a server mcp-stdio started in a group of its own holds the pipes
		<-exited
		killMarked(mark)
	}()

	client := mcp.NewClient(&mcp.Implementation{Name: "plugboard-mcp-check", Version: "1"}, nil)
	capped := &capReader{r: outR, left: MaxAnswerBytes}
	session, err := client.Connect(tctx, &mcp.IOTransport{Reader: capped, Writer: inW}, nil)
	if err != nil {
		inW.Close()
		var answer *jsonrpc.Error
		select {
		case <-tctx.Done():
		default:
			if errors.As(err, &answer) {
				// The server (or mcp-proxy for the remote) answered initialize with an
				// error; its stderr is whole once it has exited (stdin is closed).
				select {
				case <-exited:
				case <-tctx.Done():
				}
				r.Error = "initialize answered with an error: " + answer.Message
				if code := httpStatus(stderr.String()); code != 0 && e.origin != "" {
					r.Error = fmt.Sprintf("HTTP %d from %s", code, e.origin)
				} else if why := unreachable(answer.Message); why != "" && e.origin != "" {
					r.Error = fmt.Sprintf("cannot reach %s: %s", e.origin, why)
				}
				outR.Close()
				return r
			}
		}
		select {
		case <-exited:
			r.Error = exitedError(cmd, e, stderr.String(), "before answering initialize")
		case <-tctx.Done():
			r.Error = fmt.Sprintf("did not answer initialize within %s", timeout)
			if ctx.Err() != nil {
				r.Error = "the check was cancelled before initialize was answered"
			}
		}
		outR.Close()
		return r
	}
	defer session.Close()
	r.ReadyMs = time.Since(start).Milliseconds()
	init := session.InitializeResult()
	r.ProtocolVersion = init.ProtocolVersion
	if init.ServerInfo != nil {
		r.ServerInfo = &Info{Name: clip(init.ServerInfo.Name), Version: clip(init.ServerInfo.Version)}
	}
	fail := func(what string, err error) Result {
		select {
		case <-exited:
			r.Error = exitedError(cmd, e, stderr.String(), "before answering "+what)
		default:
			if capped.over {
				r.Error = fmt.Sprintf("answered more than %d MiB in all; a check reads no more", MaxAnswerBytes>>20)
			} else if tctx.Err() != nil {
				r.Error = fmt.Sprintf("did not answer %s within %s", what, timeout)
			} else {
				r.Error = what + ": " + err.Error()
			}
		}
		return r
	}
	// each list: page by page, up to MaxListed items and MaxPages pages
	list := func(what string, page func(cursor string) (n int, next string, err error)) error {
		cursor, total := "", 0
		for pages := 1; ; pages++ {
			n, next, err := page(cursor)
			if err != nil {
				return err
			}
			if total += n; total >= MaxListed || (next != "" && pages == MaxPages) {
				if total > MaxListed || next != "" {
					r.Truncated = append(r.Truncated, what)
				}
				return nil
			}
			if cursor = next; cursor == "" {
				return nil
			}
		}
	}
	err = list("tools", func(cursor string) (int, string, error) {
		res, err := session.ListTools(tctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return 0, "", err
		}
		for _, t := range res.Tools {
			if len(r.Tools) < MaxListed {
				r.Tools = append(r.Tools, Tool{Name: clip(t.Name), DescriptionChars: len(utf16.Encode([]rune(t.Description))), SchemaBytes: compactLen(t.InputSchema)})
			}
		}
		return len(res.Tools), res.NextCursor, nil
	})
	if err != nil {
		return fail("tools/list", err)
	}
	if init.Capabilities != nil && init.Capabilities.Prompts != nil {
		err := list("prompts", func(cursor string) (int, string, error) {
			res, err := session.ListPrompts(tctx, &mcp.ListPromptsParams{Cursor: cursor})
			if err != nil {
				return 0, "", err
			}
			r.Prompts = min(r.Prompts+len(res.Prompts), MaxListed)
			return len(res.Prompts), res.NextCursor, nil
		})
		if err != nil {
			return fail("prompts/list", err)
		}
	}
	if init.Capabilities != nil && init.Capabilities.Resources != nil {
		err := list("resources", func(cursor string) (int, string, error) {
			res, err := session.ListResources(tctx, &mcp.ListResourcesParams{Cursor: cursor})
			if err != nil {
				return 0, "", err
			}
			r.Resources = min(r.Resources+len(res.Resources), MaxListed)
			return len(res.Resources), res.NextCursor, nil
		})
		if err != nil {
			return fail("resources/list", err)
		}
	}
	r.OK = true
	return r
}

// What a check keeps of a server's answers: nothing unbounded reaches the store or the
// page (a server once listed 375,000 tools, 211 MiB, in endless pages).
const (
	MaxListed      = 1000     // tools, prompts and resources each; more is "truncated"
	MaxPages       = 100      // pages of one list
	MaxAnswerBytes = 16 << 20 // everything the server writes to the check
	maxName        = 200      // bytes of a tool's or the server's name and version
	maxError       = 1000     // bytes of the error a result keeps (a server's error message is its own text)
)

// clip cuts s to maxName bytes, on a character boundary.
func clip(s string) string { return clipTo(s, maxName) }

// clipTo cuts s to max bytes, on a character boundary, and marks the cut.
func clipTo(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// capReader reads at most left bytes of r, then fails (over set).
type capReader struct {
	r    io.ReadCloser
	left int64
	over bool
}

func (c *capReader) Close() error { return c.r.Close() }

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		c.over = true
		return 0, errors.New("the server's answers exceed the check's limit")
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// stopGrace is how long a server whose stdin was closed has to exit before it is killed.
const stopGrace = 300 * time.Millisecond

// markVar is the environment variable that marks a check's processes.
const markVar = "PLUGBOARD_MCP_CHECK"

// checkMark is a new random mark.
func checkMark() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// exitedError says how the entry ended: an HTTP status the bridge reported, or the
// exit status.
func exitedError(cmd *exec.Cmd, e entry, stderr, when string) string {
	if code := httpStatus(stderr); code != 0 && e.origin != "" {
		return fmt.Sprintf("HTTP %d from %s", code, e.origin)
	}
	if why := unreachable(stderr); why != "" && e.origin != "" {
		return fmt.Sprintf("cannot reach %s: %s", e.origin, why)
	}
	if ps := cmd.ProcessState; ps != nil {
		if ps.Exited() {
			return fmt.Sprintf("exited with status %d %s", ps.ExitCode(), when)
		}
		return fmt.Sprintf("ended (%s) %s", ps.String(), when)
	}
	return "ended " + when
}

// unreachable says in words why a remote server could not be reached, from the Go
// network error mcp-proxy passed on ("dial tcp 127.0.0.1:9: connect: connection
// refused"), or "" when msg is not one of these.
func unreachable(msg string) string {
	for _, c := range []struct{ in, says string }{
		{"connection refused", "nothing accepts connections there (connection refused); is the server running?"},
		{"no such host", "the host name does not resolve; check the URL"},
		{"server misbehaving", "the host name could not be looked up; check the URL and the network"},
		{"network is unreachable", "the network to it is unreachable; check the connection"},
		{"no route to host", "there is no route to the host; check the connection"},
		{"i/o timeout", "it did not answer in time (a firewall, or the server is down)"},
		{"certificate", "its TLS certificate is not trusted here (expired, self-signed or for another name)"},
		{"tls: ", "the TLS handshake failed; check that the URL's scheme (https or http) is the server's"},
		{"http: server gave HTTP response to HTTPS client", "it speaks http, not https; check the URL's scheme"},
		{"connection reset by peer", "the server closed the connection (connection reset)"},
		{"EOF", "the server closed the connection without answering"},
	} {
		if strings.Contains(msg, c.in) {
			return c.says
		}
	}
	return ""
}
