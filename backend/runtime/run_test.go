package runtime

import (
	"context"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"syscall"
	"testing"
)

// trapAgent writes an agent that reports on the FIFO ready that it has started, and on
// SIGTERM writes "TERM" to got and exits 3.
func trapAgent(t *testing.T) (bin, ready, got string) {
	t.Helper()
	dir := t.TempDir()
	bin, ready, got = filepath.Join(dir, "agent"), filepath.Join(dir, "ready"), filepath.Join(dir, "got")
	if err := syscall.Mkfifo(ready, 0o600); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\ntrap 'echo TERM > " + got + "; exit 3' TERM\necho up > " + ready + "\nwhile :; do sleep 0.05; done\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, ready, got
}

// Run forwards a SIGTERM sent to the launcher to the agent it waits for, and returns the
// agent's exit status.
func TestRunForwardsSIGTERM(t *testing.T) {
	bin, ready, got := trapAgent(t)
	type result struct {
		code int
		err  error
	}
	done := make(chan result, 1)
	go func() {
		code, err := Run(context.Background(), &Plan{Argv: []string{bin}}, NewStarter(), strings.NewReader(""), os.Stderr, os.Stderr)
		done <- result{code, err}
	}()
	if _, err := os.ReadFile(ready); err != nil { // blocks until the agent has opened its end
		t.Fatal(err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.code != 3 || r.err != nil {
		t.Fatalf("Run = %d, %v; want the agent's 3", r.code, r.err)
	}
	if b, err := os.ReadFile(got); err != nil || string(b) != "TERM\n" {
		t.Fatalf("the agent got %q, %v; want TERM", b, err)
	}
}

// A SIGTERM caught between NewStarter and the agent's start (while the plan is built)
// stops the launch: the agent is not started and Run returns 128+15.
func TestSignalBeforeTheAgentStopsTheLaunch(t *testing.T) {
	bin, record := standIn(t)
	st := NewStarter()
	<-st.ready
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for len(st.fwd) == 0 { // the runtime hands the signal to the channel on its own goroutine
		goruntime.Gosched()
	}
	code, err := Run(context.Background(), &Plan{Argv: []string{bin}}, st, strings.NewReader(""), os.Stderr, os.Stderr)
	if code != 128+int(syscall.SIGTERM) || err == nil || !strings.Contains(err.Error(), "not started") {
		t.Fatalf("Run = %d, %v; want 143 and an error saying the agent was not started", code, err)
	}
	if _, err := os.Stat(record); !os.IsNotExist(err) {
		t.Fatalf("the agent ran (%v)", err)
	}
}
