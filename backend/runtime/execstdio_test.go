package runtime

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/plugboard/plugboard/backend/jsonfile"
	"github.com/plugboard/plugboard/backend/mcptap"
	"github.com/plugboard/plugboard/backend/store"
)

// TestExecStdioRefusesASharedOrLinkedConfig: mcp-stdio reads its config as a private file
// (it holds the server's env): a file group or others may read or write, a symlink or a
// folder is refused with the file and the fix named, before the working folder changes.
// The config names a command that does not exist, so a check that let the file through
// fails at the exec instead of replacing the test binary.
func TestExecStdioRefusesASharedOrLinkedConfig(t *testing.T) {
	start := t.TempDir()
	t.Chdir(start)
	cwd := t.TempDir()
	body := `{"command": "/nonexistent/plugboard-test-server", "args": [], "cwd": "` + cwd + `", "env": {"TOKEN": "s3cret"}}`
	write := func(t *testing.T, mode os.FileMode) string {
		t.Helper()
		p := filepath.Join(t.TempDir(), "0.json")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // WriteFile's mode is subject to umask
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name  string
		place func(t *testing.T) string
		want  string
	}{
		{"world-readable", func(t *testing.T) string { return write(t, 0o644) }, "chmod 600"},
		{"group-readable", func(t *testing.T) string { return write(t, 0o640) }, "chmod 600"},
		{"others-writable", func(t *testing.T) string { return write(t, 0o602) }, "chmod 600"},
		{"symlink-to-a-private-file", func(t *testing.T) string {
			link := filepath.Join(t.TempDir(), "link.json")
			if err := os.Symlink(write(t, 0o600), link); err != nil {
				t.Fatal(err)
			}
			return link
		}, "symlink"},
		{"folder", func(t *testing.T) string { return t.TempDir() }, "folder"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := c.place(t)
			_, err := ExecStdio(p)
			if err == nil || !errors.Is(err, jsonfile.ErrNotPrivate) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("ExecStdio = %v; want a refusal naming %s and %q", err, p, c.want)
			}
			if c.want == "chmod 600" && !strings.Contains(err.Error(), "chmod 600 "+p) {
				t.Errorf("ExecStdio = %v; want the fix to name the file", err)
			}
			if err != nil && strings.Contains(err.Error(), "s3cret") {
				t.Errorf("ExecStdio = %v shows an env value", err)
			}
			if wd, _ := os.Getwd(); wd != start {
				t.Errorf("working folder = %s after a refused config; want it unchanged (%s)", wd, start)
				os.Chdir(start)
			}
		})
	}
	// A private file gets as far as the exec, which fails on the missing command.
	p := write(t, 0o600)
	if _, err := ExecStdio(p); err == nil || errors.Is(err, jsonfile.ErrNotPrivate) {
		t.Errorf("ExecStdio of a private config = %v; want the exec's error", err)
	}
}

// The stdio relay (issue 13): with an activity member in its config, mcp-stdio starts the
// server as its child and counts the tool calls it relays. The tests run the real thing:
// this test binary re-executed as mcp-stdio (TestHelperExecStdio, which calls ExecStdio
// as the CLI does), which starts this test binary again as a go-sdk MCP server
// (TestHelperStdioServer).

const (
	helperRole = "PLUGBOARD_TEST_ROLE"
	// relaySecret is a tool argument: it must reach the server and never the store.
	relaySecret = "RELAY-SECRET-ARG-41c9"
)

// TestHelperStdioServer is not a test: it is the MCP server the relay tests start. Its
// tools: echo (answers its text), fail (a tool error: a result with isError), big (a
// 2 MiB text, longer than a line the relay parses whole). It copies what it reads and
// writes to TEE_IN and TEE_OUT, writes its pid to PID_FILE, and when stdin ends exits
// with EXIT_CODE, or with LINGER stays until a signal ends it.
func TestHelperStdioServer(t *testing.T) {
	if os.Getenv(helperRole) != "mcp-server" {
		return
	}
	die := func(err error) {
		fmt.Fprintln(os.Stderr, "helper server:", err)
		os.Exit(3)
	}
	if err := os.WriteFile(os.Getenv("PID_FILE"), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		die(err)
	}
	teeIn, err := os.Create(os.Getenv("TEE_IN"))
	if err != nil {
		die(err)
	}
	teeOut, err := os.Create(os.Getenv("TEE_OUT"))
	if err != nil {
		die(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "helper", Version: "1.0.0"}, nil)
	type text struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in text) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo " + in.Text}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "fail"}, func(context.Context, *mcp.CallToolRequest, text) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("this tool always fails")
	})
	mcp.AddTool(s, &mcp.Tool{Name: "big"}, func(context.Context, *mcp.CallToolRequest, text) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("B", 2<<20)}}}, nil, nil
	})
	err = s.Run(context.Background(), &mcp.IOTransport{Reader: io.NopCloser(io.TeeReader(os.Stdin, teeIn)),
		Writer: nopWriteCloser{io.MultiWriter(os.Stdout, teeOut)}})
	teeIn.Close()
	teeOut.Close()
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		die(err)
	}
	if os.Getenv("LINGER") != "" {
		select {}
	}
	code, _ := strconv.Atoi(os.Getenv("EXIT_CODE"))
	os.Exit(code)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// TestHelperExecStdio is not a test: it is plugboard mcp-stdio, ExecStdio on CONFIG
// with the exit the CLI gives it.
func TestHelperExecStdio(t *testing.T) {
	if os.Getenv(helperRole) != "mcp-stdio" {
		return
	}
	code, err := ExecStdio(os.Getenv("CONFIG"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "plugboard mcp-stdio:", err)
	}
	os.Exit(code)
}

// relay is one mcp-stdio process with its server, driven through pipes.
type relay struct {
	t          testing.TB
	pb, dir    string
	cmd        *exec.Cmd
	stdin      io.WriteCloser
	out        *bufio.Reader
	sent, got  bytes.Buffer
	stderr     bytes.Buffer
	teeIn      string
	teeOut     string
	pidFile    string
	waitResult chan error
}

// startRelay writes a stdio config for the helper server (with the activity member)
// and starts mcp-stdio on it for agent:coder in try run run-7. serverEnv is added to
// the server's env; extra files are passed to mcp-stdio (and so to the server).
func startRelay(t testing.TB, serverEnv map[string]string, extra ...*os.File) *relay {
	return startStdio(t, true, serverEnv, extra...)
}

// startStdio is startRelay, or with counting false a config without the activity member
// (mcp-stdio replaces itself with the server).
func startStdio(t testing.TB, counting bool, serverEnv map[string]string, extra ...*os.File) *relay {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{t: t, pb: t.TempDir(), dir: t.TempDir(), waitResult: make(chan error, 1)}
	r.teeIn, r.teeOut, r.pidFile = filepath.Join(r.dir, "in"), filepath.Join(r.dir, "out"), filepath.Join(r.dir, "pid")
	env := map[string]string{helperRole: "mcp-server", "TEE_IN": r.teeIn, "TEE_OUT": r.teeOut, "PID_FILE": r.pidFile}
	maps.Copy(env, serverEnv)
	cfg := StdioConfig{Command: self, Args: []string{"-test.run=^TestHelperStdioServer$"}, Env: env, Cwd: r.dir,
		Activity: &mcptap.Info{Home: r.pb, Backend: Claude, Fingerprint: "sha256:feed", Plugin: "kit", Server: "helper"}}
	if !counting {
		cfg.Activity = nil
	}
	file := filepath.Join(r.dir, "stdio.json")
	if err := os.WriteFile(file, mustJSON(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r.cmd = exec.Command(self, "-test.run=^TestHelperExecStdio$")
	r.cmd.Env = append(os.Environ(), helperRole+"=mcp-stdio", "CONFIG="+file,
		ActivityTargetEnv+"=agent:coder", ActivityRunEnv+"=run-7")
	r.cmd.Stderr = &r.stderr
	r.cmd.ExtraFiles = extra
	if r.stdin, err = r.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := r.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	r.out = bufio.NewReader(io.TeeReader(stdout, &r.got))
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.waitResult <- r.cmd.Wait() }()
	t.Cleanup(func() {
		r.cmd.Process.Kill()
		if b, err := os.ReadFile(r.pidFile); err == nil {
			if pid, err := strconv.Atoi(string(b)); err == nil {
				syscall.Kill(pid, syscall.SIGKILL) // a server the test left behind
			}
		}
	})
	return r
}

func (r *relay) send(line string) {
	r.t.Helper()
	r.sent.WriteString(line + "\n")
	if _, err := io.WriteString(r.stdin, line+"\n"); err != nil {
		r.t.Fatalf("write to mcp-stdio: %v\nstderr: %s", err, r.stderr.String())
	}
}

// answer reads the next line mcp-stdio writes, which must answer id; it fails the test
// rather than wait more than a minute.
func (r *relay) answer(id int) map[string]json.RawMessage {
	r.t.Helper()
	type read struct {
		line []byte
		err  error
	}
	c := make(chan read, 1)
	go func() {
		l, err := r.out.ReadBytes('\n')
		c <- read{l, err}
	}()
	select {
	case got := <-c:
		var m map[string]json.RawMessage
		if got.err != nil || json.Unmarshal(got.line, &m) != nil || string(m["id"]) != strconv.Itoa(id) {
			r.t.Fatalf("mcp-stdio wrote %.300q (%v); want the answer to call %d\nstderr: %s", got.line, got.err, id, r.stderr.String())
		}
		return m
	case <-time.After(time.Minute):
		r.t.Fatalf("no answer to call %d within a minute\nstderr: %s", id, r.stderr.String())
	}
	return nil
}

// exit waits for mcp-stdio to end and returns its exit status.
func (r *relay) exit() int {
	r.t.Helper()
	select {
	case err := <-r.waitResult:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			r.t.Fatal(err)
		}
		return r.cmd.ProcessState.ExitCode()
	case <-time.After(time.Minute):
		r.t.Fatalf("mcp-stdio did not exit within a minute\nstderr: %s", r.stderr.String())
	}
	return -1
}

func (r *relay) initialize() {
	r.t.Helper()
	r.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	r.answer(1)
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func toolCall(id int, tool string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"text":%q}}}`, id, tool, relaySecret)
}

// TestExecStdioCountsToolCalls: through mcp-stdio, a real MCP server gets exactly the
// bytes the client sent and the client exactly the bytes the server wrote (a 2 MiB
// answer included); every tools/call is one row of the store with its tool, whether it
// failed (a tool error, an unknown tool's JSON-RPC error), the target and run from the
// environment and the names from the config, a repeated id included; other methods
// count nothing; no argument reaches the store; and mcp-stdio exits with the server's
// status once stdin ends.
func TestExecStdioCountsToolCalls(t *testing.T) {
	r := startRelay(t, map[string]string{"EXIT_CODE": "7"})
	r.initialize()
	r.send(toolCall(2, "echo"))
	if m := r.answer(2); !strings.Contains(string(m["result"]), "echo "+relaySecret) {
		t.Errorf("echo answered %s", m["result"])
	}
	r.send(toolCall(3, "fail"))
	if m := r.answer(3); !strings.Contains(string(m["result"]), `"isError":true`) {
		t.Errorf("fail answered %s, want a tool error", m["result"])
	}
	r.send(toolCall(4, "no-such-tool"))
	if m := r.answer(4); m["error"] == nil {
		t.Errorf("an unknown tool answered %s, want a JSON-RPC error", m["result"])
	}
	r.send(toolCall(5, "big"))
	if m := r.answer(5); len(m["result"]) < 2<<20 {
		t.Errorf("big answered %d bytes", len(m["result"]))
	}
	r.send(`{"jsonrpc":"2.0","id":6,"method":"tools/list"}`)
	r.answer(6)
	r.send(toolCall(2, "echo")) // ids may repeat once answered
	r.answer(2)
	r.stdin.Close()
	if code := r.exit(); code != 7 {
		t.Errorf("mcp-stdio exited %d, want the server's 7\nstderr: %s", code, r.stderr.String())
	}

	if b, err := os.ReadFile(r.teeIn); err != nil || !bytes.Equal(b, r.sent.Bytes()) {
		t.Errorf("the server read %d bytes that differ from the %d sent (%v)", len(b), r.sent.Len(), err)
	}
	if b, err := os.ReadFile(r.teeOut); err != nil || !bytes.Equal(b, r.got.Bytes()) {
		t.Errorf("the client read %d bytes that differ from the %d the server wrote (%v)", r.got.Len(), len(b), err)
	}

	st, _, err := store.Open(context.Background(), r.pb)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := st.Activity(context.Background(), time.Time{})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	keys := map[string]bool{}
	for _, a := range recs {
		got = append(got, fmt.Sprintf("%s/%s failed=%v", a.Server, a.Tool, a.Failed))
		keys[a.Key] = true
		if !a.IsTool() || a.Plugin != "kit" || a.Backend != Claude || a.Fingerprint != "sha256:feed" || a.Target != "agent:coder" ||
			a.Run != "run-7" || a.How != store.HowModel || a.MS < 0 || time.Since(a.Time) > time.Hour {
			t.Errorf("row %+v", a)
		}
	}
	want := []string{"helper/echo failed=false", "helper/fail failed=true", "helper/no-such-tool failed=true",
		"helper/big failed=false", "helper/echo failed=false"}
	if !slices.Equal(got, want) || len(keys) != len(want) {
		t.Errorf("rows %v (%d keys)\nwant %v", got, len(keys), want)
	}
	err = filepath.WalkDir(r.pb, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(relaySecret)) {
				t.Errorf("%s holds a tool argument", p)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestExecStdioForwardsSignals: a SIGTERM to mcp-stdio reaches the server (which dies of
// it), and mcp-stdio exits as a shell shows that: 128+15.
func TestExecStdioForwardsSignals(t *testing.T) {
	r := startRelay(t, nil)
	r.initialize()
	r.send(toolCall(2, "echo"))
	r.answer(2)
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := r.exit(); code != 128+int(syscall.SIGTERM) {
		t.Errorf("mcp-stdio exited %d after SIGTERM, want %d\nstderr: %s", code, 128+int(syscall.SIGTERM), r.stderr.String())
	}
}

// TestExecStdioServerDiesWithIt: a server that would outlive the end of its stdin is
// killed when mcp-stdio is (SIGKILL, nothing forwarded): the parent-death signal. The
// server holds the write end of a pipe it inherited; the read end sees EOF once every
// holder is gone.
func TestExecStdioServerDiesWithIt(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("the parent-death signal is Linux's")
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	r := startRelay(t, map[string]string{"LINGER": "1"}, pw)
	pw.Close()
	r.initialize() // the server is up
	if err := r.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	r.exit()
	done := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(pr)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatalf("the server still runs a minute after mcp-stdio was killed")
	}
}

// BenchmarkExecStdioCall measures one tools/call round trip through mcp-stdio: "exec"
// (no activity member: the server replaces mcp-stdio) against "relay" (the server is a
// child, every call relayed, parsed and recorded into the store).
func BenchmarkExecStdioCall(b *testing.B) {
	for _, counting := range []bool{false, true} {
		b.Run(map[bool]string{false: "exec", true: "relay"}[counting], func(b *testing.B) {
			r := startStdio(b, counting, nil)
			// The rows go into a database, as in a home where the app has run (without one
			// they would be spooled, which is cheaper).
			st, _, err := store.Open(context.Background(), r.pb)
			if err != nil {
				b.Fatal(err)
			}
			st.Close()
			r.initialize()
			b.ResetTimer()
			for i := range b.N {
				r.send(toolCall(i+2, "echo"))
				r.answer(i + 2)
			}
			b.StopTimer()
			r.stdin.Close()
			r.exit()
		})
	}
}
