package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/plugboard/plugboard/backend/activity"
	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/scriptmodel"
	"github.com/plugboard/plugboard/backend/store"
	"github.com/plugboard/plugboard/backend/testhome"
)

// End-to-end proof of MCP tool call counting (issue 13, item 1): the real claude and the
// real pi, started by the real plugboard launch against the scripted model, call tools
// of the e2e home's stdio servers (through plugboard mcp-stdio) and of its remote server
// (through plugboard mcp-proxy); some of the calls fail. plugboard activity --json then
// reports exactly those calls per server and tool, with their errors and the target.

// Tools of the remote server besides lookup: one that always fails (a tool error, a
// result with isError) and one whose request the server refuses with HTTP 500, so that
// mcp-proxy answers the JSON-RPC error itself.
const (
	e2eFailTool, e2eRefusedTool = "fail", "refused"
	// mcpActivitySecret is a tool argument: it must reach the servers and never the store.
	mcpActivitySecret = "SECRET-MCP-ARG-3e8a"
)

// mcpActivityRemote is the remote server of these tests: the go-sdk's streamable HTTP
// handler with lookup, fail and refused.
func mcpActivityRemote() http.Handler {
	s := mcp.NewServer(&mcp.Implementation{Name: e2eRemote, Version: "1.0.0"}, nil)
	type query struct {
		Query string `json:"query" jsonschema:"what to look up"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: e2eLookupTool, Description: "Look a query up on the remote server"},
		func(_ context.Context, _ *mcp.CallToolRequest, in query) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "remote answer for " + in.Query}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: e2eFailTool, Description: "A tool that always fails"},
		func(context.Context, *mcp.CallToolRequest, query) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New("the fail tool failed, as it always does")
		})
	mcp.AddTool(s, &mcp.Tool{Name: e2eRefusedTool, Description: "A tool the server refuses to run"},
		func(context.Context, *mcp.CallToolRequest, query) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "never reached"}}}, nil, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"name":"`+e2eRefusedTool+`"`)) {
				http.Error(w, "refused", http.StatusInternalServerError)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// mcpCallSpec is one MCP tool call of a script: the server, the tool and its arguments.
type mcpCallSpec struct {
	server, tool string
	args         map[string]string
}

// mcpActivityCalls are the calls each agent makes. The Cursor server's call fails: its
// call log is a folder (launchMCPActivity), so its record tool answers a tool error.
var mcpActivityCalls = []mcpCallSpec{
	{e2eStdio, e2eRecordTool, map[string]string{"note": "first " + mcpActivitySecret}},
	{e2eStdio, e2eRecordTool, map[string]string{"note": "second"}},
	{e2eRemote, e2eLookupTool, map[string]string{"query": mcpActivitySecret}},
	{e2eRemote, e2eFailTool, map[string]string{"query": "x"}},
	{e2eRemote, e2eRefusedTool, map[string]string{"query": "y"}},
	{e2eCursorStdio, e2eRecordTool, map[string]string{"note": "cursor"}},
}

// wantMCPActivity is the report of those calls for target: "server plugin tool calls
// errors byTarget", most called first.
func wantMCPActivity(target string) []string {
	one := `{"` + target + `":1}`
	return []string{
		e2eStdio + " " + e2eKit + " " + e2eRecordTool + ` 2 0 {"` + target + `":2}`,
		e2eCursorStdio + " " + e2eCursorID + " " + e2eRecordTool + " 1 1 " + one,
		e2eRemote + " " + e2eKit + " " + e2eFailTool + " 1 1 " + one,
		e2eRemote + " " + e2eKit + " " + e2eLookupTool + " 1 0 " + one,
		e2eRemote + " " + e2eKit + " " + e2eRefusedTool + " 1 1 " + one,
	}
}

// launchMCPActivity builds the e2e home with the remote server of these tests, assigns
// the Cursor plugin, acknowledges the servers, and runs the real "plugboard launch
// --require-ack TARGET -- args" in the net against the steps, waiting for the agent.
// The Cursor server's call log (E2E_CURSOR_RECORD) is a folder, where it cannot write.
func launchMCPActivity(t *testing.T, target string, pbEnv []string, steps []scriptmodel.Step, args []string) (e2eHome, runtime.Plan, *scriptmodel.Server) {
	t.Helper()
	n := newE2ENet(t)
	h := buildE2EHome(t, n.startRemote(t, mcpActivityRemote()))
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(testBinary(t), args...)
		cmd.Env = []string{"HOME=" + h.root, "PATH=" + os.Getenv("PATH")}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("plugboard %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("assign", "--home", h.pb, "agent:"+target, "--add", e2eCursorID, "--ack-mcp")
	run("ack", "--home", h.pb, "agent:"+target)
	plan := dryRun(t, h.pb, pbEnv, target)
	model := n.startModel(t, append(steps, scriptmodel.Say("done"))...)
	if err := model.WritePIModels(h.root); err != nil {
		t.Fatal(err)
	}
	unwritable := filepath.Join(h.root, "not-a-file")
	if err := os.Mkdir(unwritable, 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	argv := n.argv(append([]string{testBinary(t), "launch", "--require-ack", "--home", h.pb, target, "--"}, args...)...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(append([]string{"HOME=" + h.root, "PATH=" + os.Getenv("PATH"), "TERM=dumb", "E2E_CURSOR_RECORD=" + unwritable},
		pbEnv...), model.ClaudeEnv()...)
	cmd.Dir = t.TempDir()
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("%s: the agent ran %v", target, time.Since(start).Round(time.Millisecond))
	if err != nil || model.Err() != nil {
		t.Fatalf("plugboard launch %s: %v; model: %v\nstdout:\n%s\nstderr:\n%s", target, err, model.Err(), stdout.String(), stderr.String())
	}
	select {
	case <-model.Done():
	default:
		t.Fatalf("the agent exited with %d steps of the script unused\nstdout:\n%s\nstderr:\n%s", model.Remaining(), stdout.String(), stderr.String())
	}
	return h, plan, model
}

// checkMCPActivity checks the report and the rows: exactly the scripted calls, per server
// and tool, with their errors, the target, the launch's backend and fingerprint, and
// none of the arguments stored.
func checkMCPActivity(t *testing.T, h e2eHome, plan runtime.Plan, target string) {
	t.Helper()
	want := wantMCPActivity(target)
	for i := range 2 { // the second read imports nothing more
		rep := activityReport(t, h)
		if got := toolUses(rep); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("read %d: activity tools\n%s\nwant\n%s", i, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	if rep := activityReport(t, h, "agent:nobody"); len(rep.Tools) != 0 {
		t.Errorf("activity of another target lists tools %v", toolUses(rep))
	}
	recs := storedActivity(t, h.pb)
	keys := map[string]bool{}
	for _, r := range recs {
		keys[r.Key] = true
		if !r.IsTool() || r.Target != target || r.Backend != plan.Backend || r.Fingerprint != plan.Fingerprint || r.How != store.HowModel ||
			r.Run != "" || r.MS < 0 || time.Since(r.Time) > 10*time.Minute {
			t.Errorf("row %+v\nwant a tool call of %s by %s, fingerprint %s", r, target, plan.Backend, plan.Fingerprint)
		}
	}
	if len(recs) != len(mcpActivityCalls) || len(keys) != len(recs) {
		t.Errorf("%d rows with %d keys, want one row for each of the %d calls", len(recs), len(keys), len(mcpActivityCalls))
	}
	noSecretsIn(t, filepath.Join(h.pb, "state"), mcpActivitySecret)
}

// toolUses renders the report's tools as wantMCPActivity does.
func toolUses(rep activity.Report) []string {
	var out []string
	for _, u := range rep.Tools {
		b, _ := json.Marshal(u.ByTarget)
		out = append(out, fmt.Sprintf("%s %s %s %d %d %s", u.Server, u.Plugin, u.Tool, u.Calls, u.Errors, b))
	}
	return out
}

// The real claude calls tools of the stdio servers and the remote server; each call is
// counted once, the failed ones (a tool error from a stdio server and from the remote,
// and the remote's refusal, which mcp-proxy answers) as errors.
func TestClaudeCountsMCPToolCallsEndToEnd(t *testing.T) {
	claude := client(t, testhome.Claude)
	calls := &toolCalls{client: "claude"}
	var steps []scriptmodel.Step
	var allowed []string
	for _, c := range mcpActivityCalls {
		name := "mcp__" + c.server + "__" + c.tool
		steps = append(steps, func(r *scriptmodel.Request) (scriptmodel.Reply, error) { return calls.use(r, name, name, c.args) })
		allowed = append(allowed, name)
	}
	const target = "e2e-claude"
	h, plan, model := launchMCPActivity(t, target, []string{"PLUGBOARD_CLAUDE_BIN=" + claude}, steps,
		[]string{"-p", "call the tools", "--output-format", "stream-json", "--verbose", "--allowedTools", strings.Join(allowed, ",")})
	checkAnswers(t, model, calls)
	checkMCPActivity(t, h, plan, "agent:"+target)
}

// The real pi calls the same tools through pi-mcp-adapter's mcp tool; each call is
// counted once, with the same errors.
func TestPICountsMCPToolCallsEndToEnd(t *testing.T) {
	pi := client(t, ".bin/pi")
	adapter := client(t, "pi-mcp-adapter/index.ts")
	calls := &toolCalls{client: "pi"}
	var steps []scriptmodel.Step
	for _, c := range mcpActivityCalls {
		name := "mcp__" + c.server + "__" + c.tool
		steps = append(steps, func(r *scriptmodel.Request) (scriptmodel.Reply, error) {
			return calls.use(r, name, "mcp", map[string]any{"tool": c.server + "_" + c.tool, "args": c.args})
		})
	}
	const target = "e2e-pi"
	h, plan, model := launchMCPActivity(t, target, []string{"PLUGBOARD_PI_BIN=" + pi, "PLUGBOARD_PI_MCP_ADAPTER=" + adapter}, steps,
		append(scriptmodel.PIArgs(), "--offline", "--no-session", "-p", "call the tools"))
	checkAnswers(t, model, calls)
	checkMCPActivity(t, h, plan, "agent:"+target)
}

// checkAnswers checks that the calls that succeed reached their servers (the model got
// their answers), so the counts are of calls that were made.
func checkAnswers(t *testing.T, model *scriptmodel.Server, calls *toolCalls) {
	t.Helper()
	m := model.Main()
	last := m[len(m)-1]
	for _, c := range calls.all() {
		a := last.Answer(c.id)
		switch c.label {
		case "mcp__" + e2eStdio + "__" + e2eRecordTool:
			if !strings.Contains(a, "recorded by "+e2eStdio) {
				t.Errorf("the model got %q for %s", a, c.label)
			}
		case "mcp__" + e2eRemote + "__" + e2eLookupTool:
			if !strings.Contains(a, "remote answer for "+mcpActivitySecret) {
				t.Errorf("the model got %q for %s", a, c.label)
			}
		default:
			if a == "" {
				t.Errorf("the model got no answer for %s", c.label)
			}
		}
	}
}
