package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/scriptmodel"
	"github.com/plugboard/plugboard/backend/testhome"
)

// End-to-end proof with the real agents (issue 11, item 7): plugboard launch starts the
// real claude and pi against a scripted model (backend/scriptmodel) on a loopback that
// reaches nothing else; the script calls every skill and every MCP tool of a target that
// holds a portable package (skill, stdio server, remote server behind mcp-proxy), a
// legacy Claude package and a Cursor plugin. The servers are real: the stdio one is this
// test binary re-executed (TestE2EHelperMCPStdio), the remote one the go-sdk's
// streamable HTTP handler in this process.

// Names in the e2e home. PI has no namespaces, so every skill name is unique.
const (
	e2eKit, e2eOld, e2eCursor           = "kit", "oldtools", "cursorkit"
	e2eMarket, e2eCursorID              = "e2e-market", e2eCursor + "@" + e2eMarket // Cursor's cache: <marketplace>/<plugin>/<revision>
	e2eKitSkill, e2eOldSkill, e2eCurSk  = "brief", "legacy-note", "cursor-tip"
	e2eStdio, e2eRemote, e2eCursorStdio = "kitstdio", "kitremote", "cursorstdio"
	e2eRecordTool, e2eLookupTool        = "record", "lookup"
	e2eTenantHeader, e2eTenantValue     = "X-E2e-Tenant", "tenant-for-the-test"
)

// skillBody is the marker each skill's body carries; the model must see it in a tool
// result, read from the projection.
func skillBody(name string) string { return "BODY-OF-" + strings.ToUpper(name) + "-7f3a" }

// e2eHome is a private home with the three packages and two agents over them.
type e2eHome struct {
	root   string // HOME of plugboard and of the agents
	pb     string // PLUGBOARD_HOME
	kit    string // installed portable package
	old    string // installed legacy package
	cursor string // Cursor marketplace plugin: the revision folder in ~/.cursor/plugins/cache
	record string // the stdio servers' call log (JSONL), outside every package
}

func buildE2EHome(t *testing.T, remoteURL string) e2eHome {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := e2eHome{root: root, pb: filepath.Join(root, ".plugboard")}
	h.kit = filepath.Join(h.pb, "plugins", e2eKit)
	h.old = filepath.Join(h.pb, "plugins", e2eOld)
	h.cursor = filepath.Join(root, ".cursor", "plugins", "cache", e2eMarket, e2eCursor, "0a1b2c3d")
	h.record = filepath.Join(root, "mcp-calls.jsonl")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	skill := func(dir, name, desc string) {
		testhome.WriteFile(t, filepath.Join(dir, "skills", name, "SKILL.md"),
			"---\nname: "+name+"\ndescription: "+desc+"\n---\n# "+name+"\n\n"+skillBody(name)+"\n")
	}
	// The stdio server: a script in the package that re-executes this test binary as
	// an MCP server (the command is "./bin/serve", resolved against the plugin root).
	server := func(dir string) {
		p := filepath.Join(dir, "bin", "serve")
		testhome.WriteFile(t, p, "#!/bin/sh\nexec "+shellQuote(self)+" -test.run='^TestE2EHelperMCPStdio$' -- \"$@\"\n")
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	// Portable Agent Plugins 1.0 package.
	testhome.WriteFile(t, filepath.Join(h.kit, "plugin.json"), `{
  "$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json",
  "name": "kit",
  "version": "1.0.0",
  "description": "End-to-end test kit: one skill, a stdio and a remote MCP server"
}
`)
	skill(h.kit, e2eKitSkill, "Write a brief. Use when asked for a brief.")
	server(h.kit)
	testhome.WriteFile(t, filepath.Join(h.kit, "mcp.json"), fmt.Sprintf(`{
  "$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json",
  "mcpServers": {
    %q: {
      "type": "stdio",
      "command": "./bin/serve",
      "args": ["--root", "${PLUGIN_ROOT}", "--data", "${PLUGIN_DATA}"],
      "env": {"E2E_ROLE": "mcp-stdio", "E2E_SERVER": %q, "E2E_RECORD": %q, "E2E_ROOT_SEEN": "${PLUGIN_ROOT}"},
      "cwd": "${PLUGIN_ROOT}/bin"
    },
    %q: {
      "type": "streamable-http",
      "url": %q,
      "headers": {%q: %q}
    }
  }
}
`, e2eStdio, e2eStdio, h.record, e2eRemote, remoteURL, e2eTenantHeader, e2eTenantValue))

	// Legacy Claude package.
	testhome.WriteFile(t, filepath.Join(h.old, ".claude-plugin", "plugin.json"), `{"name": "oldtools", "version": "0.1.0", "description": "A legacy Claude plugin"}`+"\n")
	skill(h.old, e2eOldSkill, "Take a legacy note. Use when asked for a note.")

	// Cursor plugin installed from a marketplace, with a stdio server of its own in
	// Cursor's shape and interpolation: its root by ${CURSOR_PLUGIN_ROOT}, the call log by
	// an environment reference that mcp-stdio resolves from the environment the agent
	// gives it (launchE2E sets E2E_CURSOR_RECORD).
	testhome.WriteFile(t, filepath.Join(h.cursor, ".cursor-plugin", "plugin.json"), `{"name": "cursorkit", "version": "0.2.0", "description": "A Cursor plugin"}`+"\n")
	skill(h.cursor, e2eCurSk, "Give a Cursor tip. Use when asked for a tip.")
	server(h.cursor)
	testhome.WriteFile(t, filepath.Join(h.cursor, ".mcp.json"), fmt.Sprintf(`{
  "mcpServers": {
    %q: {"command": "${CURSOR_PLUGIN_ROOT}/bin/serve", "args": ["--root", "${CURSOR_PLUGIN_ROOT}"],
      "env": {"E2E_ROLE": "mcp-stdio", "E2E_SERVER": %q, "E2E_RECORD": "${env:E2E_CURSOR_RECORD}", "E2E_ROOT_SEEN": "${CURSOR_PLUGIN_ROOT}"}}
  }
}
`, e2eCursorStdio, e2eCursorStdio))

	// The Cursor plugin is assigned by its id by the real plugboard assign (launchE2E).
	dirs := fmt.Sprintf(`["plugins/%s", "plugins/%s"]`, e2eKit, e2eOld)
	testhome.WriteFile(t, filepath.Join(h.pb, "agents", "e2e-claude.json"), `{"name": "e2e-claude", "pluginDirs": `+dirs+`}`+"\n")
	testhome.WriteFile(t, filepath.Join(h.pb, "agents", "e2e-pi.json"), `{"name": "e2e-pi", "backend": "pi", "pluginDirs": `+dirs+`}`+"\n")
	testhome.WriteFile(t, filepath.Join(h.pb, "agents", "e2e-codex.json"), `{"name": "e2e-codex", "backend": "codex", "pluginDirs": `+dirs+`}`+"\n")
	testhome.WriteFile(t, filepath.Join(h.pb, "agents", "e2e-copilot.json"), `{"name": "e2e-copilot", "backend": "copilot", "pluginDirs": `+dirs+`}`+"\n")
	return h
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// mcpCall is one tool call a stdio server recorded.
type mcpCall struct {
	Server, Tool, Note string
	Cwd                string
	PluginRoot         string `json:"pluginRoot"`
	PluginData         string `json:"pluginData"`
	RootSeen           string `json:"rootSeen"`
	Args               []string
}

type recordArgs struct {
	Note string `json:"note" jsonschema:"a note to record"`
}

// TestE2EHelperMCPStdio is not a test: it is the stdio MCP server the e2e packages
// start (bin/serve re-executes this binary with E2E_ROLE=mcp-stdio). Its one tool,
// record, appends the server's cwd, PLUGIN_ROOT, PLUGIN_DATA and argv to E2E_RECORD
// and answers them.
func TestE2EHelperMCPStdio(t *testing.T) {
	if os.Getenv("E2E_ROLE") != "mcp-stdio" {
		return
	}
	name := os.Getenv("E2E_SERVER")
	s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: e2eRecordTool, Description: "Record a note with where this server runs"},
		func(_ context.Context, _ *mcp.CallToolRequest, in recordArgs) (*mcp.CallToolResult, any, error) {
			cwd, _ := os.Getwd()
			c := mcpCall{Server: name, Tool: e2eRecordTool, Note: in.Note, Cwd: cwd, PluginRoot: os.Getenv("PLUGIN_ROOT"),
				PluginData: os.Getenv("PLUGIN_DATA"), RootSeen: os.Getenv("E2E_ROOT_SEEN"), Args: flagArgs()}
			b, _ := json.Marshal(c)
			f, err := os.OpenFile(os.Getenv("E2E_RECORD"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
			if err == nil {
				_, err = f.Write(append(b, '\n'))
				if cerr := f.Close(); err == nil {
					err = cerr
				}
			}
			if err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "recorded by " + name + ": " + string(b)}}}, nil, nil
		})
	err := s.Run(context.Background(), &mcp.StdioTransport{})
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "e2e stdio server:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// flagArgs are the arguments after the test binary's own ("--" and on).
func flagArgs() []string {
	for i, a := range os.Args {
		if a == "--" {
			return os.Args[i+1:]
		}
	}
	return nil
}

// remoteServer is the portable package's remote MCP server: the go-sdk's streamable
// HTTP handler, recording every call and the tenant header of every request.
type remoteServer struct {
	mu      sync.Mutex
	calls   []string // lookup queries
	tenants []string // values of the configured header on tool calls
}

func (r *remoteServer) handler() http.Handler {
	s := mcp.NewServer(&mcp.Implementation{Name: e2eRemote, Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: e2eLookupTool, Description: "Look a query up on the remote server"},
		func(_ context.Context, req *mcp.CallToolRequest, in struct {
			Query string `json:"query" jsonschema:"what to look up"`
		}) (*mcp.CallToolResult, any, error) {
			r.mu.Lock()
			r.calls = append(r.calls, in.Query)
			if req.Extra != nil && req.Extra.Header != nil {
				r.tenants = append(r.tenants, req.Extra.Header.Get(e2eTenantHeader))
			}
			r.mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "remote answer for " + in.Query}}}, nil, nil
		})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
}

func (r *remoteServer) seen() (calls, tenants []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls), slices.Clone(r.tenants)
}

// e2eNet is where the model and the remote server listen and the agents run: an empty
// network namespace with loopback up when this process may make one (as root), so that
// nothing the agents start reaches any network but that loopback. Without one (not
// root) the agents run on this machine's loopback, still with a private HOME and no
// credentials; under CI as root a namespace that cannot be made fails the test.
type e2eNet struct{ ns *scriptmodel.Netns }

func newE2ENet(t *testing.T) e2eNet {
	t.Helper()
	ns, err := scriptmodel.NewNetns()
	if err != nil {
		if os.Getenv("CI") != "" && os.Geteuid() == 0 {
			t.Fatalf("network namespace: %v", err)
		}
		t.Logf("no network namespace (%v): the agents run on this machine's loopback", err)
		return e2eNet{}
	}
	t.Cleanup(func() {
		if err := ns.Close(); err != nil {
			t.Errorf("network namespace holder: %v", err)
		}
	})
	return e2eNet{ns: ns}
}

func (n e2eNet) listen(t *testing.T) net.Listener {
	t.Helper()
	var l net.Listener
	var err error
	if n.ns != nil {
		l, err = n.ns.Listen("127.0.0.1:0")
	} else {
		l, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func (n e2eNet) argv(argv ...string) []string {
	if n.ns == nil {
		return argv
	}
	return n.ns.Command(argv...)
}

func (n e2eNet) startModel(t *testing.T, steps ...scriptmodel.Step) *scriptmodel.Server {
	t.Helper()
	s := scriptmodel.Start(scriptmodel.Options{Listener: n.listen(t)}, steps...)
	t.Cleanup(s.Close)
	return s
}

// startRemote serves h in the net and returns its MCP URL.
func (n e2eNet) startRemote(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = n.listen(t)
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// opensTrace runs a command under strace and says which files the processes an agent
// binary became (and all their descendants: threads, MCP servers) opened or tried to
// open. Plugboard's own reads before it starts the agent are told apart by the process
// tree, so the real launch is traced whole.
type opensTrace struct{ file string }

// strace returns a tracer, or nil when strace cannot run here (fails under CI).
func straceOpens(t *testing.T) *opensTrace {
	t.Helper()
	if err := exec.Command("strace", "-f", "-qq", "-o", "/dev/null", "true").Run(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("strace cannot run (%v): the no-read-outside-the-projection check needs it (apt-get install strace)", err)
		}
		t.Logf("strace cannot run (%v): the no-read-outside-the-projection check is not made", err)
		return nil
	}
	return &opensTrace{file: filepath.Join(t.TempDir(), "strace.txt")}
}

func (o *opensTrace) wrap(argv []string) []string {
	if o == nil {
		return argv
	}
	return append([]string{"strace", "-f", "-qq", "-y", "--seccomp-bpf", "-s", "4096",
		"-e", "trace=execve,open,openat,openat2,creat,clone,clone3,fork,vfork", "-o", o.file}, argv...)
}

var (
	straceLine  = regexp.MustCompile(`^(\d+)\s+(.*)$`)
	straceExec  = regexp.MustCompile(`^execve\("([^"]*)"`)
	straceFork  = regexp.MustCompile(`^(?:<\.\.\. )?(?:clone3?|fork|vfork)\b.*\)\s+= (\d+)$`)
	straceOpen  = regexp.MustCompile(`^(?:open|openat|openat2|creat)\((?:(?:AT_FDCWD|\d+)<([^>]*)>, )?"([^"]*)"`)
	straceFdRet = regexp.MustCompile(`= \d+<([^>]*)>$`)
)

// agentOpens parses the trace: every path the tree rooted at a successful execve of bin
// tried to open (absolute), and every path the rest of the traced processes did.
func (o *opensTrace) agentOpens(t *testing.T, bin string) (agent, others []string) {
	t.Helper()
	data, err := os.ReadFile(o.file)
	if err != nil {
		t.Fatal(err)
	}
	type open struct {
		pid  string
		path string
	}
	var opens []open
	children := map[string][]string{}
	pendingExec := map[string]string{}
	roots := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		m := straceLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		pid, rest := m[1], m[2]
		if e := straceExec.FindStringSubmatch(rest); e != nil {
			pendingExec[pid] = e[1]
		}
		if strings.HasPrefix(rest, "execve(") || strings.HasPrefix(rest, "<... execve resumed>") {
			if strings.HasSuffix(rest, "= 0") && pendingExec[pid] == bin {
				roots[pid] = true
			}
		}
		if f := straceFork.FindStringSubmatch(rest); f != nil {
			children[pid] = append(children[pid], f[1])
		}
		if op := straceOpen.FindStringSubmatch(rest); op != nil {
			p := op[2]
			if !filepath.IsAbs(p) {
				p = filepath.Join(op[1], p)
			}
			opens = append(opens, open{pid, filepath.Clean(p)})
		}
		if r := straceFdRet.FindStringSubmatch(rest); r != nil && strings.Contains(rest, "open") {
			opens = append(opens, open{pid, r[1]})
		}
	}
	tree := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		if tree[p] {
			return
		}
		tree[p] = true
		for _, c := range children[p] {
			walk(c)
		}
	}
	for r := range roots {
		walk(r)
	}
	if len(roots) == 0 {
		t.Fatalf("the trace shows no execve of %s", bin)
	}
	for _, op := range opens {
		if tree[op.pid] {
			agent = append(agent, op.path)
		} else {
			others = append(others, op.path)
		}
	}
	return agent, others
}

// under lists the paths inside any of dirs.
func under(paths []string, dirs ...string) []string {
	var out []string
	for _, p := range paths {
		for _, d := range dirs {
			if p == d || strings.HasPrefix(p, d+string(filepath.Separator)) {
				out = append(out, p)
				break
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// e2eRun is one launch of a real agent against a script.
type e2eRun struct {
	h      e2eHome
	plan   runtime.Plan
	model  *scriptmodel.Server
	remote *remoteServer
	trace  *opensTrace
	bin    string
	stdout string
}

// launchE2E builds the home, acknowledges its MCP servers, takes the dry-run plan,
// starts the model with the steps the script makes from that plan, and runs the real
// "plugboard launch --require-ack TARGET -- args" (under strace when it can) in the net,
// waiting for the agent to exit.
func launchE2E(t *testing.T, target, bin string, pbEnv []string, script func(e2eHome, runtime.Plan) []scriptmodel.Step,
	agentArgs func(*scriptmodel.Server) []string) e2eRun {
	t.Helper()
	n := newE2ENet(t)
	r := e2eRun{remote: &remoteServer{}, bin: bin, trace: straceOpens(t)}
	r.h = buildE2EHome(t, n.startRemote(t, r.remote.handler()))
	// A Cursor marketplace plugin is assigned like any other, by its id; the entry written
	// holds no revision folder (a Cursor update keeps it).
	assign := exec.Command(testBinary(t), "assign", "--home", r.h.pb, "agent:"+target, "--add", e2eCursorID, "--ack-mcp")
	assign.Env = []string{"HOME=" + r.h.root, "PATH=" + os.Getenv("PATH")}
	if out, err := assign.CombinedOutput(); err != nil {
		t.Fatalf("plugboard assign %s --add %s: %v\n%s", target, e2eCursorID, err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(r.h.pb, "agents", target+".json")); !strings.Contains(string(b), `"~/.cursor/plugins/cache/`+e2eMarket+"/"+e2eCursor+`"`) {
		t.Fatalf("the assignment wrote %s", b)
	}
	// The MCP servers run only once acknowledged for the target (runtime/ack.go): the
	// real plugboard ack does it, and the launch below requires it (--require-ack), so
	// an unacknowledged server fails the launch instead of going missing.
	ack := exec.Command(testBinary(t), "ack", "--home", r.h.pb, "agent:"+target)
	ack.Env = []string{"HOME=" + r.h.root, "PATH=" + os.Getenv("PATH")}
	if out, err := ack.CombinedOutput(); err != nil || !strings.Contains(string(out), "acknowledged for agent:"+target) {
		t.Fatalf("plugboard ack %s: %v\n%s", target, err, out)
	}
	r.plan = dryRun(t, r.h.pb, pbEnv, target)
	r.model = n.startModel(t, script(r.h, r.plan)...)
	if err := r.model.WritePIModels(r.h.root); err != nil {
		t.Fatal(err)
	}
	// Codex's provider is the user's own setting, which the launch carries over, before
	// the tables a script put in the user's config.
	codexConfig := filepath.Join(r.h.root, ".codex", "config.toml")
	own, _ := os.ReadFile(codexConfig)
	testhome.WriteFile(t, codexConfig, r.model.CodexConfig()+"\n"+string(own))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	argv := append([]string{testBinary(t), "launch", "--require-ack", "--home", r.h.pb, target, "--"}, agentArgs(r.model)...)
	argv = n.argv(r.trace.wrap(argv)...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	// HOME is the one dryRun gave plugboard (the parent of PLUGBOARD_HOME), so the
	// launch builds the same plan; no credentials but the model's dummy key.
	cmd.Env = append(append([]string{"HOME=" + r.h.root, "PATH=" + os.Getenv("PATH"), "TERM=dumb", "E2E_CURSOR_RECORD=" + r.h.record}, pbEnv...), slices.Concat(r.model.ClaudeEnv(), r.model.CopilotEnv(), r.model.CodexEnv())...)
	cmd.Dir = t.TempDir()
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r.stdout = stdout.String()
	t.Logf("%s: the agent ran %v; %d model requests (%d scripted)", target, time.Since(start).Round(time.Millisecond), len(r.model.Requests()), len(r.model.Main()))
	if err != nil || ctx.Err() != nil {
		t.Fatalf("plugboard launch %s: %v (%v)\nstdout:\n%s\nstderr:\n%s\nmodel: %v", target, err, ctx.Err(), stdout.String(), stderr.String(), r.model.Err())
	}
	if err := r.model.Err(); err != nil {
		t.Fatalf("the script failed: %v\nstdout:\n%s", err, stdout.String())
	}
	select {
	case <-r.model.Done():
	default:
		t.Fatalf("the agent exited with %d steps of the script unused\nstdout:\n%s\nstderr:\n%s", r.model.Remaining(), stdout.String(), stderr.String())
	}
	return r
}

// last is the final scripted request: it carries the whole conversation.
func (r e2eRun) last(t *testing.T) *scriptmodel.Request {
	m := r.model.Main()
	if len(m) == 0 {
		t.Fatal("no scripted request")
	}
	return m[len(m)-1]
}

// stdioConfigs reads the projection's private stdio server files (what the plan
// normalised), by server name through the client config that points at them.
func (r e2eRun) stdioConfigs(t *testing.T) map[string]runtime.StdioConfig {
	t.Helper()
	var cfg struct {
		MCPServers map[string]struct{ Args []string } `json:"mcpServers" toml:"mcp_servers"`
	}
	if r.plan.Backend == runtime.Codex { // Codex's servers are in its config.toml
		if _, err := toml.DecodeFile(filepath.Join(r.plan.Projection, "config.toml"), &cfg); err != nil {
			t.Fatalf("projection config.toml: %v", err)
		}
	} else if b, err := os.ReadFile(filepath.Join(r.plan.Projection, "mcp.json")); err != nil || json.Unmarshal(b, &cfg) != nil {
		t.Fatalf("projection mcp.json: %v", err)
	}
	out := map[string]runtime.StdioConfig{}
	for name, e := range cfg.MCPServers {
		if len(e.Args) != 3 || e.Args[0] != "mcp-stdio" {
			continue
		}
		var c runtime.StdioConfig
		b, err := os.ReadFile(e.Args[2])
		if err != nil || json.Unmarshal(b, &c) != nil {
			t.Fatalf("stdio config of %s: %v", name, err)
		}
		out[name] = c
	}
	return out
}

// checkMCP checks that each stdio tool call reached its server where the plan put it,
// and the remote call reached the remote server through the proxy with its header.
func (r e2eRun) checkMCP(t *testing.T, note string, answers map[string]string) {
	t.Helper()
	cfgs := r.stdioConfigs(t)
	want := []string{e2eCursorStdio, e2eStdio}
	if got := slices.Sorted(maps.Keys(cfgs)); !slices.Equal(got, want) {
		t.Errorf("stdio servers in the projection %v, want %v", got, want)
	}
	b, err := os.ReadFile(r.h.record)
	if err != nil {
		t.Fatalf("no stdio server call was recorded: %v", err)
	}
	calls := map[string][]mcpCall{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var c mcpCall
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("record %q: %v", line, err)
		}
		calls[c.Server] = append(calls[c.Server], c)
	}
	data := runtime.DataDir(r.h.pb, e2eKit)
	kit := mcpCall{Server: e2eStdio, Tool: e2eRecordTool, Note: note, Cwd: filepath.Join(r.h.kit, "bin"),
		PluginRoot: r.h.kit, PluginData: data, RootSeen: r.h.kit, Args: []string{"--root", r.h.kit, "--data", data}}
	if c := cfgs[e2eStdio]; c.Cwd != kit.Cwd || c.Env["PLUGIN_ROOT"] != kit.PluginRoot || c.Env["PLUGIN_DATA"] != kit.PluginData {
		t.Errorf("the plan normalised %s to cwd %s, PLUGIN_ROOT %s, PLUGIN_DATA %s; want %s, %s, %s", e2eStdio,
			c.Cwd, c.Env["PLUGIN_ROOT"], c.Env["PLUGIN_DATA"], kit.Cwd, kit.PluginRoot, kit.PluginData)
	}
	if got := calls[e2eStdio]; len(got) != 1 || fmt.Sprint(got[0]) != fmt.Sprint(kit) {
		t.Errorf("%s recorded %+v\nwant one call %+v", e2eStdio, got, kit)
	}
	if a := answers[e2eStdio]; !strings.Contains(a, "recorded by "+e2eStdio) || !strings.Contains(a, `"Note":"`+note+`"`) {
		t.Errorf("the model got %q for the %s call", a, e2eStdio)
	}
	if st, err := os.Stat(data); err != nil || !st.IsDir() {
		t.Errorf("PLUGIN_DATA %s was not made: %v", data, err)
	}
	// The Cursor server ran in its plugin folder (no cwd given), with its root and data
	// set and its environment reference resolved where it was started.
	cur := mcpCall{Server: e2eCursorStdio, Tool: e2eRecordTool, Note: note, Cwd: r.h.cursor, PluginRoot: r.h.cursor,
		PluginData: runtime.DataDir(r.h.pb, e2eCursorID), RootSeen: r.h.cursor, Args: []string{"--root", r.h.cursor}}
	if c := cfgs[e2eCursorStdio]; !c.EnvRefs || c.Env["E2E_RECORD"] != "${env:E2E_CURSOR_RECORD}" {
		t.Errorf("the plan wrote %s's environment reference as %q (envRefs %v); want it kept for mcp-stdio", e2eCursorStdio, c.Env["E2E_RECORD"], c.EnvRefs)
	}
	if got := calls[e2eCursorStdio]; len(got) != 1 || fmt.Sprint(got[0]) != fmt.Sprint(cur) {
		t.Errorf("%s recorded %+v\nwant one call %+v", e2eCursorStdio, got, cur)
	}
	got, tenants := r.remote.seen()
	if !slices.Equal(got, []string{note}) || !slices.Equal(tenants, []string{e2eTenantValue}) {
		t.Errorf("the remote server got calls %v with tenant headers %q; want [%s] with the configured header", got, tenants, note)
	}
	if a := answers[e2eRemote]; !strings.Contains(a, "remote answer for "+note) {
		t.Errorf("the model got %q for the %s call", a, e2eRemote)
	}
}

// checkNoReadOutside checks, on the trace, that the agent's processes opened nothing in
// the installed packages whose skills the plan projected (dirs) except the stdio
// servers' commands, that they did open the projected skills (so the trace sees such
// opens), and that plugboard itself read the installed skills (Build does, R1).
// checkRecordedByLauncher checks that each skill the turn invoked is one use of the
// target in plugboard activity, and (under strace) that no process ran "plugboard
// activity record" for them: the launch hosted the recorder, and the agent posted to it.
func (r e2eRun) checkRecordedByLauncher(t *testing.T, target string, skills []string) {
	t.Helper()
	got := uses(activityReport(t, r.h))
	for _, s := range skills {
		if u := got[s]; !strings.HasSuffix(u, ` 1 {"`+target+`":1}`) {
			t.Errorf("activity of %s: %q; want one use by %s (all: %v)", s, u, target, got)
		}
	}
	if r.trace == nil {
		return
	}
	data, err := os.ReadFile(r.trace.file)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `"activity", "record"`) {
		t.Errorf("a process ran plugboard activity record: the launch's own recorder did not take the skill uses")
	}
}

func (r e2eRun) checkNoReadOutside(t *testing.T, projected []string, dirs ...string) {
	t.Helper()
	if r.trace == nil {
		return
	}
	agent, others := r.trace.agentOpens(t, r.bin)
	// sh reads the stdio servers' scripts: the one file of a package a server opens
	allowed := []string{filepath.Join(r.h.kit, "bin", "serve"), filepath.Join(r.h.cursor, "bin", "serve")}
	var bad []string
	for _, p := range under(agent, dirs...) {
		if !slices.Contains(allowed, p) {
			bad = append(bad, p)
		}
	}
	if len(bad) > 0 {
		t.Errorf("the agent opened files of the installed packages: %v", bad)
	} else {
		t.Logf("trace: the agent opened %d paths, none in the installed packages but %s", len(agent), allowed)
	}
	for _, p := range projected {
		if !slices.Contains(agent, p) {
			t.Errorf("the trace shows no open of the projected %s by the agent", p)
		}
	}
	if len(under(others, filepath.Join(r.h.kit, "skills"))) == 0 {
		t.Errorf("the trace shows plugboard never read the installed skills, so it cannot tell the agent's reads from its own")
	}
}

// The real claude, started by the real plugboard launch, runs a whole turn against the
// scripted model: it invokes each skill (the Skill tool) and each MCP tool
// (mcp__server__tool); the bodies it sends back come from the projection (legacy ones
// from the installed folder, as Claude gets it as it is), the tool calls reach the real
// servers where the plan put them, and nothing it opens lies in the installed portable
// or Cursor package but the stdio server's command.
func TestClaudeRunsTheProjectionEndToEnd(t *testing.T) {
	claude := client(t, testhome.Claude)
	skills := []struct{ id, name string }{
		{e2eKit + ":" + e2eKitSkill, e2eKitSkill}, {e2eCursor + ":" + e2eCurSk, e2eCurSk}, {e2eOld + ":" + e2eOldSkill, e2eOldSkill}}
	calls := &toolCalls{client: "claude"}
	use := func(tool string, input any) scriptmodel.Step {
		return func(r *scriptmodel.Request) (scriptmodel.Reply, error) { return calls.use(r, tool, tool, input) }
	}
	script := func(e2eHome, runtime.Plan) []scriptmodel.Step {
		var steps []scriptmodel.Step
		for _, s := range skills {
			steps = append(steps, use("Skill", map[string]string{"skill": s.id}))
		}
		steps = append(steps,
			use("mcp__"+e2eStdio+"__"+e2eRecordTool, map[string]string{"note": "claude"}),
			use("mcp__"+e2eRemote+"__"+e2eLookupTool, map[string]string{"query": "claude"}))
		steps = append(steps, use("mcp__"+e2eCursorStdio+"__"+e2eRecordTool, map[string]string{"note": "claude"}))
		return append(steps, scriptmodel.Say("done"))
	}
	allowed := "Skill,mcp__" + e2eStdio + "__" + e2eRecordTool + ",mcp__" + e2eRemote + "__" + e2eLookupTool + ",mcp__" + e2eCursorStdio + "__" + e2eRecordTool
	r := launchE2E(t, "e2e-claude", claude, []string{"PLUGBOARD_CLAUDE_BIN=" + claude}, script, func(*scriptmodel.Server) []string {
		return []string{"-p", "use every skill and tool", "--output-format", "stream-json", "--verbose", "--allowedTools", allowed}
	})
	wantSkills := []string{e2eCursor + ":" + e2eCurSk, e2eKit + ":" + e2eKitSkill, e2eOld + ":" + e2eOldSkill}
	if !slices.Equal(r.plan.Skills, wantSkills) {
		t.Fatalf("plan skills %v, want %v", r.plan.Skills, wantSkills)
	}

	// The launch ran the plan's projection: claude's init event lists its plugins.
	var init struct {
		Type, Subtype string
		Plugins       []struct{ Name, Path string }
	}
	var result struct{ Type, Subtype, Result string }
	for _, line := range strings.Split(r.stdout, "\n") {
		var ev struct{ Type, Subtype string }
		if json.Unmarshal([]byte(line), &ev) != nil {
			continue
		}
		switch {
		case ev.Type == "system" && ev.Subtype == "init":
			_ = json.Unmarshal([]byte(line), &init)
		case ev.Type == "result":
			_ = json.Unmarshal([]byte(line), &result)
		}
	}
	wantPlugins := map[string]string{e2eKit: filepath.Join(r.plan.Projection, "plugins", e2eKit),
		e2eCursor: filepath.Join(r.plan.Projection, "plugins", e2eCursor), e2eOld: r.h.old}
	for _, p := range init.Plugins {
		if w, ok := wantPlugins[p.Name]; ok && p.Path != w {
			t.Errorf("claude loaded plugin %s from %s, want %s", p.Name, p.Path, w)
		}
		delete(wantPlugins, p.Name)
	}
	if len(wantPlugins) > 0 {
		t.Errorf("claude did not load %v (init: %+v)", wantPlugins, init.Plugins)
	}
	if result.Subtype != "success" || result.Result != "done" {
		t.Errorf("claude's result %+v", result)
	}

	// The skill listing the model saw names every planned skill.
	first := r.model.Main()[0]
	for _, s := range r.plan.Skills {
		if !strings.Contains(first.Texts(), "- "+s+": ") {
			t.Errorf("the first request's skill listing lacks %s", s)
		}
	}

	// The bodies claude sent back, and where it says they live.
	last := r.last(t)
	dirs := map[string]string{
		e2eKitSkill: filepath.Join(r.plan.Projection, "plugins", e2eKit, "skills", e2eKitSkill),
		e2eCurSk:    filepath.Join(r.plan.Projection, "plugins", e2eCursor, "skills", e2eCurSk),
		e2eOldSkill: filepath.Join(r.h.old, "skills", e2eOldSkill), // legacy: as it is (R1)
	}
	answers := map[string]string{}
	for i, c := range calls.all() {
		a := last.Answer(c.id)
		if i < len(skills) {
			s := skills[i]
			if !strings.Contains(a, "Launching skill: "+s.id) || !strings.Contains(a, skillBody(s.name)) ||
				!strings.Contains(a, "Base directory for this skill: "+dirs[s.name]+"\n") {
				t.Errorf("claude answered the %s skill with %q; want its body from %s", s.id, a, dirs[s.name])
			}
			continue
		}
		answers[strings.Split(c.label, "__")[1]] = a
	}
	r.checkMCP(t, "claude", answers)
	r.checkNoReadOutside(t, []string{filepath.Join(dirs[e2eKitSkill], "SKILL.md"), filepath.Join(dirs[e2eCurSk], "SKILL.md")},
		r.h.kit, r.h.cursor)
	r.checkRecordedByLauncher(t, "agent:e2e-claude", wantSkills)
}

// The real pi, started by the real plugboard launch with the MCP bridge, runs a whole
// turn against the scripted model: it reads each skill at the location its system
// prompt lists (inside the projection, legacy skills included: PI gets copies of all)
// and calls each MCP tool through pi-mcp-adapter's mcp tool; the tool calls reach the
// real servers where the plan put them, and nothing it opens lies in any installed
// package but the stdio server's command.
func TestPIRunsTheProjectionEndToEnd(t *testing.T) {
	pi := client(t, ".bin/pi")
	adapter := client(t, "pi-mcp-adapter/index.ts")
	calls := &toolCalls{client: "pi"}
	names := []string{e2eKitSkill, e2eCurSk, e2eOldSkill}
	script := func(_ e2eHome, plan runtime.Plan) []scriptmodel.Step {
		var steps []scriptmodel.Step
		for _, name := range names {
			steps = append(steps, func(r *scriptmodel.Request) (scriptmodel.Reply, error) {
				for _, s := range r.AvailableSkills() {
					if s.Name == name {
						return calls.use(r, "skill:"+name, "read", map[string]string{"path": s.Location})
					}
				}
				return scriptmodel.Reply{}, fmt.Errorf("pi's system prompt lists no skill %s: %+v", name, r.AvailableSkills())
			})
		}
		mcpCall := func(server, tool string, args map[string]string) scriptmodel.Step {
			return func(r *scriptmodel.Request) (scriptmodel.Reply, error) {
				return calls.use(r, server, "mcp", map[string]any{"tool": server + "_" + tool, "args": args})
			}
		}
		steps = append(steps, mcpCall(e2eStdio, e2eRecordTool, map[string]string{"note": "pi"}),
			mcpCall(e2eRemote, e2eLookupTool, map[string]string{"query": "pi"}))
		steps = append(steps, mcpCall(e2eCursorStdio, e2eRecordTool, map[string]string{"note": "pi"}))
		return append(steps, scriptmodel.Say("done"))
	}
	pbEnv := []string{"PLUGBOARD_PI_BIN=" + pi, "PLUGBOARD_PI_MCP_ADAPTER=" + adapter}
	r := launchE2E(t, "e2e-pi", pi, pbEnv, script, func(*scriptmodel.Server) []string {
		return append(scriptmodel.PIArgs(), "--offline", "--no-session", "-p", "use every skill and tool")
	})
	if want := []string{e2eKitSkill, e2eCurSk, e2eOldSkill}; !slices.Equal(r.plan.Skills, want) {
		t.Fatalf("plan skills %v, want %v", r.plan.Skills, want)
	}
	if !slices.Contains(r.plan.EnvKeys, runtime.PIMCPConfigMode) {
		t.Errorf("the plan does not put the bridge in exclusive mode: %v", r.plan.EnvKeys)
	}
	if strings.TrimSpace(r.stdout) != "done" {
		t.Errorf("pi printed %q, want the script's last text", r.stdout)
	}

	// The listing PI gave the model: exactly the planned skills, each in the projection.
	first := r.model.Main()[0]
	var listed []string
	locations := map[string]string{}
	for _, s := range first.AvailableSkills() {
		listed = append(listed, s.Name)
		locations[s.Name] = s.Location
		if want := filepath.Join(r.plan.Projection, "skills", s.Name, "SKILL.md"); s.Location != want {
			t.Errorf("pi lists %s at %s, want %s", s.Name, s.Location, want)
		}
	}
	if slices.Sort(listed); !slices.Equal(listed, r.plan.Skills) {
		t.Errorf("pi listed skills %v, the plan has %v", listed, r.plan.Skills)
	}

	last := r.last(t)
	answers := map[string]string{}
	var projected []string
	for _, c := range calls.all() {
		a := last.Answer(c.id)
		if name, ok := strings.CutPrefix(c.label, "skill:"); ok {
			if !strings.Contains(a, skillBody(name)) {
				t.Errorf("pi's read of %s answered %q; want its body", locations[name], a)
			}
			projected = append(projected, locations[name])
			continue
		}
		answers[c.label] = a
	}
	r.checkMCP(t, "pi", answers)
	r.checkNoReadOutside(t, projected, r.h.kit, r.h.cursor, r.h.old)
	r.checkRecordedByLauncher(t, "agent:e2e-pi", r.plan.Skills)
}

// toolCalls records, in order, each tool_use a script answers with, under the label a
// test reads its answer by. Steps run one at a time; the lock keeps the race detector
// honest across the model server's goroutines.
type toolCalls struct {
	client string
	mu     sync.Mutex
	list   []toolCall
}

type toolCall struct{ id, label string }

// use answers r with a call of tool (which the client must offer) and records it as label.
func (c *toolCalls) use(r *scriptmodel.Request, label, tool string, input any) (scriptmodel.Reply, error) {
	if !r.HasTool(tool) {
		return scriptmodel.Reply{}, fmt.Errorf("%s does not offer %s; it offers %v", c.client, tool, r.ToolNames())
	}
	id := fmt.Sprintf("toolu_e2e_%d", r.Step)
	c.mu.Lock()
	c.list = append(c.list, toolCall{id, label})
	c.mu.Unlock()
	return scriptmodel.Reply{Blocks: []scriptmodel.Block{scriptmodel.ToolUse(id, tool, input)}}, nil
}

func (c *toolCalls) all() []toolCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.list)
}
