package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/plugboard/plugboard/backend/testhome"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
)

// testBinary builds the real plugboard command once for the package's tests.
func testBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	return builtBinary(t)
}

// builtBinary builds the plugboard binary once per test process, for tests and benchmarks.
func builtBinary(tb testing.TB) string {
	tb.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "plugboard-bin-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "plugboard")
		out, err := exec.Command("go", "build", "-o", binPath, "../..").CombinedOutput()
		if err != nil {
			binErr = &buildError{err, out}
		}
	})
	if binErr != nil {
		tb.Fatal(binErr)
	}
	return binPath
}

type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string { return "go build: " + e.err.Error() + "\n" + string(e.out) }

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// launchHome copies testdata/runtime/home; env points HOME beside it. The MCP servers
// of agents coder and pi-coder are acknowledged (plugboard ack; ack_test.go launches
// without).
func launchHome(t *testing.T) (pb string, env map[string]string) {
	pb = testhome.CopyTestdata(t, filepath.Join("runtime", "home"))
	env = map[string]string{"HOME": t.TempDir(), "PLUGBOARD_HOME": pb}
	for _, target := range []string{"agent:coder", "agent:pi-coder"} {
		if code, _, errOut := runAckCmd(t, env, target); code != ExitOK {
			t.Fatalf("plugboard ack %s: exit %d: %s", target, code, errOut)
		}
	}
	return pb, env
}

func runLaunchCmd(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(append([]string{"launch"}, args...), Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""),
		Getenv: func(k string) string { return env[k] }, Executable: func() (string, error) { return "/usr/local/bin/plugboard", nil }})
	return code, out.String(), errb.String()
}

func TestLaunchDryRunJSON(t *testing.T) {
	_, env := launchHome(t)
	code, out, errOut := runLaunchCmd(t, env, "coder", "--dry-run", "--json", "--", "--model", "opus")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"backend", "argv", "envKeys", "projection", "fingerprint", "skills", "servers", "suppressed", "collisions"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("dry-run JSON has no %q", k)
		}
	}
	var p struct {
		Argv    []string `json:"argv"`
		Skills  []string `json:"skills"`
		Servers []string `json:"servers"`
	}
	json.Unmarshal([]byte(out), &p)
	if p.Argv[0] != "claude" || !slices.Equal(p.Argv[len(p.Argv)-2:], []string{"--model", "opus"}) || len(p.Skills) != 3 || len(p.Servers) != 3 {
		t.Errorf("plan = %+v", p)
	}
	if strings.Contains(out+errOut, "do-not-leak") {
		t.Error("an env or header value was printed")
	}
	// Text form: the exact command first.
	code, out, _ = runLaunchCmd(t, env, "coder", "--dry-run", "--mode", "benchmark")
	if code != ExitOK || !strings.HasPrefix(out, "claude --plugin-dir ") || !strings.Contains(out, "MCP servers: plugin:legacy-tools:legacy-search\n") {
		t.Errorf("text dry-run (%d):\n%s", code, out)
	}
}

func TestLaunchRefusals(t *testing.T) {
	_, env := launchHome(t)
	code, out, errOut := runLaunchCmd(t, env, "clash", "--dry-run", "--json")
	if code != ExitInvalid || !strings.Contains(errOut, `skill "check" is provided by other and review`) || !strings.Contains(out, `"collisions"`) {
		t.Errorf("collision: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, args := range [][]string{
		{}, {"a", "b"}, {"coder", "--plugins", "some"}, {"coder", "--mode", "fast"}, {"nobody", "--dry-run"},
		{"coder", "--backend", "cursor", "--dry-run"}, {"template:team/__active__", "--dry-run"},
	} {
		if code, _, errOut := runLaunchCmd(t, env, args...); code != ExitUsage || errOut == "" {
			t.Errorf("launch %v = %d, want 2 with a message", args, code)
		}
	}
}

// The agent is started in the foreground with the plan's argv; its exit status is ours.
// The agent is a recording stand-in (the real clients need an account to run).
func TestLaunchRunsTheAgent(t *testing.T) {
	pb, env := launchHome(t)
	dir := t.TempDir()
	record := filepath.Join(dir, "argv")
	agent := filepath.Join(dir, "pi-stand-in")
	os.WriteFile(agent, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > "+record+"\nexit 5\n"), 0o755)
	env["PLUGBOARD_PI_BIN"] = agent
	code, _, errOut := runLaunchCmd(t, env, "pi-coder", "--", "-p", "hello there")
	if code != 5 {
		t.Fatalf("exit %d, want the agent's 5: %s", code, errOut)
	}
	b, _ := os.ReadFile(record)
	got := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	proj := filepath.Join(pb, "runtime", "pi")
	if len(got) != 9 || got[0] != "--no-skills" || got[1] != "--skill" || !strings.HasPrefix(got[2], proj) || got[5] != "-e" || !strings.HasPrefix(got[6], proj) ||
		!slices.Equal(got[7:], []string{"-p", "hello there"}) {
		t.Errorf("agent argv = %q", got)
	}
	if !strings.Contains(errOut, "left out plugin broken") {
		t.Errorf("the dropped plugin was not reported: %s", errOut)
	}
}

func TestMCPStdioStartsInItsFolder(t *testing.T) {
	bin := testBinary(t)
	dir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "server.json")
	write(t, cfg, `{"command": "sh", "args": ["-c", "pwd; echo \"$1|$LINT|$PLUGIN_ROOT|$PLUGIN_DATA\"", "sh", "${HOME}"],
		"env": {"LINT": "on", "PLUGIN_ROOT": "/the/root", "PLUGIN_DATA": "/the/data"}, "cwd": "`+dir+`"}`)
	os.Chmod(cfg, 0o600) // a private file, as a launch writes it; mcp-stdio refuses one others may read
	cmd := exec.Command(bin, "mcp-stdio", "--config", cfg)
	cmd.Env = append(os.Environ(), "PLUGIN_ROOT=/from/the/client", "LINT=off")
	out, err := cmd.Output()
	if err != nil || string(out) != dir+"\n${HOME}|on|/the/root|/the/data\n" {
		t.Errorf("mcp-stdio: %q, %v", out, err)
	}
	write(t, cfg, `{"command": "true", "cwd": "`+filepath.Join(dir, "missing")+`"}`)
	os.Chmod(cfg, 0o600)
	if out, err := exec.Command(bin, "mcp-stdio", "--config", cfg).CombinedOutput(); err == nil || !strings.Contains(string(out), "working folder") {
		t.Errorf("missing folder: %q, %v", out, err)
	}
	// A config others may read is refused, naming the file and the fix.
	os.Chmod(cfg, 0o644)
	if out, err := exec.Command(bin, "mcp-stdio", "--config", cfg).CombinedOutput(); err == nil || !strings.Contains(string(out), "chmod 600 "+cfg) {
		t.Errorf("shared config: %q, %v", out, err)
	}
}

// The text of a dry run says whether the projection is new, reused, or made anew because
// its files no longer match its seal (and why); the dry run itself writes nothing.
func TestLaunchDryRunSaysReusedOrMadeAnew(t *testing.T) {
	pb, env := launchHome(t)
	line := func() string {
		t.Helper()
		code, out, errOut := runLaunchCmd(t, env, "coder", "--dry-run")
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		return strings.Split(out, "\n")[2]
	}
	if l := line(); !strings.HasSuffix(l, "(new)") {
		t.Errorf("first dry run: %q", l)
	}
	if _, err := os.Lstat(filepath.Join(pb, "runtime")); !os.IsNotExist(err) {
		t.Fatalf("the dry run wrote the runtime folder: %v", err)
	}
	env["PLUGBOARD_CLAUDE_BIN"] = "/bin/true"
	if code, _, errOut := runLaunchCmd(t, env, "coder"); code != ExitOK {
		t.Fatalf("launch with /bin/true: %d %s", code, errOut)
	}
	if l := line(); !strings.HasSuffix(l, "(reused)") {
		t.Errorf("after the launch: %q", l)
	}
	skills, _ := filepath.Glob(filepath.Join(pb, "runtime", "claude", "*", "plugins", "review", "skills", "check", "SKILL.md"))
	if len(skills) != 1 {
		t.Fatalf("projected SKILL.md: %v", skills)
	}
	os.Remove(skills[0])
	if l := line(); !strings.Contains(l, "(made anew: plugins/review/skills/check/SKILL.md is missing)") {
		t.Errorf("after a deleted SKILL.md: %q", l)
	}
}
