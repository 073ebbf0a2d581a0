package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/testhome"
)

func runAckCmd(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(append([]string{"ack"}, args...), Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""),
		Getenv: func(k string) string { return env[k] }})
	return code, out.String(), errb.String()
}

// TestLaunchRequireAck: a server that is not acknowledged stops `launch --require-ack`
// with exit 4 and is left out of a plain launch; after `plugboard ack` it launches.
func TestLaunchRequireAck(t *testing.T) {
	pb := testhome.CopyTestdata(t, filepath.Join("runtime", "home"))
	env := map[string]string{"HOME": t.TempDir(), "PLUGBOARD_HOME": pb}
	code, out, errOut := runLaunchCmd(t, env, "coder", "--require-ack", "--dry-run", "--json")
	if code != ExitNeedAck {
		t.Fatalf("launch --require-ack --dry-run = exit %d, want %d: %s", code, ExitNeedAck, errOut)
	}
	for _, want := range []string{"review/lint runs lint with 5 args, env keys LINT_CONFIG, LINT_TOKEN", "review/docs streamable-http to https://127.0.0.1:9, headers X-Tenant", "plugboard ack agent:coder"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(out+errOut, "do-not-leak") {
		t.Error("an env or header value was printed")
	}
	if !strings.Contains(out, `"reason": "not acknowledged: `) {
		t.Errorf("the JSON plan does not show the drops:\n%s", out)
	}
	// Without --require-ack the servers are left out and the launch goes on.
	code, out, errOut = runLaunchCmd(t, env, "coder", "--dry-run")
	if code != ExitOK || !strings.Contains(out, "MCP servers: plugin:legacy-tools:legacy-search\n") || !strings.Contains(errOut, "left out server review/lint: not acknowledged") {
		t.Errorf("launch --dry-run = %d\n%s\n%s", code, out, errOut)
	}

	// Acknowledge one server, then the rest.
	code, out, errOut = runAckCmd(t, env, "coder", "review/lint")
	if code != ExitOK || !strings.Contains(out, "review/lint runs lint with 5 args") || strings.Contains(out, "review/docs") {
		t.Fatalf("ack coder review/lint = %d\n%s\n%s", code, out, errOut)
	}
	if code, _, _ := runLaunchCmd(t, env, "coder", "--require-ack", "--dry-run"); code != ExitNeedAck {
		t.Errorf("with docs still unacknowledged: exit %d, want %d", code, ExitNeedAck)
	}
	code, out, _ = runAckCmd(t, env, "coder", "--json")
	var doc struct {
		Target       string `json:"target"`
		Acknowledged []struct{ Plugin, Server, Digest string }
		History      int64 `json:"history"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != ExitOK || doc.Target != "agent:coder" || len(doc.Acknowledged) != 1 ||
		doc.Acknowledged[0].Server != "docs" || !strings.HasPrefix(doc.Acknowledged[0].Digest, "sha256:") || doc.History == 0 {
		t.Fatalf("ack --json = %d %s (%v)", code, out, err)
	}
	code, out, errOut = runLaunchCmd(t, env, "coder", "--require-ack", "--dry-run")
	if code != ExitOK || !strings.Contains(out, "MCP servers: docs, lint, plugin:legacy-tools:legacy-search\n") {
		t.Errorf("after ack: launch = %d\n%s\n%s", code, out, errOut)
	}
	if code, out, _ := runAckCmd(t, env, "coder"); code != ExitOK || !strings.Contains(out, "nothing to acknowledge") {
		t.Errorf("ack again = %d %s", code, out)
	}
	// The history shows the acknowledgments.
	code, out, _ = runHistoryCmd(t, env)
	if code != ExitOK || !strings.Contains(out, "acknowledged review/lint (") || !strings.Contains(out, "acknowledged review/docs (") {
		t.Errorf("history = %d\n%s", code, out)
	}

	// A changed command asks again.
	mcp := filepath.Join(pb, "plugins", "review", "mcp.json")
	b, _ := os.ReadFile(mcp)
	os.WriteFile(mcp, []byte(strings.Replace(string(b), `"./bin/lint"`, `"sh"`, 1)), 0o644)
	if code, _, errOut := runLaunchCmd(t, env, "coder", "--require-ack", "--dry-run"); code != ExitNeedAck || !strings.Contains(errOut, "review/lint runs sh") {
		t.Errorf("after the command changed: exit %d: %s", code, errOut)
	}

	for _, args := range [][]string{{}, {"coder", "review/lint/x"}, {"coder", "/lint"}} {
		if code, _, _ := runAckCmd(t, env, args...); code != ExitUsage {
			t.Errorf("ack %v = %d, want %d", args, code, ExitUsage)
		}
	}
	if code, _, errOut := runAckCmd(t, env, "coder", "review/nope"); code != ExitInvalid || !strings.Contains(errOut, "review/nope") {
		t.Errorf("ack an unknown server = %d %s", code, errOut)
	}
	if code, _, _ := runAckCmd(t, env, "nobody"); code != ExitUsage {
		t.Errorf("ack an unknown target = %d", code)
	}
}

func runHistoryCmd(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(append([]string{"history"}, args...), Env{Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }})
	return code, out.String(), errb.String()
}
