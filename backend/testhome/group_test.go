package testhome

import (
	"context"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startFamily starts a shell that starts a background child writing its pid to a file,
// then waits; it returns the shell and the child's pid.
func startFamily(t *testing.T, ctx context.Context) (*exec.Cmd, int) {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "child")
	cmd := exec.CommandContext(ctx, "sh", "-c", `sleep 60 & echo $! > "$0.tmp" && mv "$0.tmp" "$0"; wait`, pidFile)
	OwnGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { StopGroup(t, cmd.Process.Pid) }) // a test that fails early leaves nothing running
	pid, err := strconv.Atoi(strings.TrimSpace(string(WaitFile(t, pidFile))))
	if err != nil {
		t.Fatal(err)
	}
	return cmd, pid
}

// running reports whether pid is a process that is not a zombie.
func running(pid int) bool {
	_, live, _, ok := procStat(strconv.Itoa(pid))
	return ok && live
}

// StopGroup ends what the started process started too, and returns only once it no
// longer runs; killing the process alone leaves its child running.
func TestStopGroupEndsTheChildren(t *testing.T) {
	cmd, child := startFamily(t, context.Background())
	if !running(child) || len(liveInGroup(cmd.Process.Pid)) != 2 {
		t.Fatalf("child %d running %v, group %v", child, running(child), liveInGroup(cmd.Process.Pid))
	}
	StopGroup(t, cmd.Process.Pid)
	if running(child) {
		t.Errorf("the child %d still runs after StopGroup", child)
	}
	if live := liveInGroup(cmd.Process.Pid); len(live) != 0 {
		t.Errorf("still in the group: %v", live)
	}
	cmd.Wait()
	StopGroup(t, cmd.Process.Pid) // a second call finds nothing to do
}

// A command made with a context kills its whole group when the context ends.
func TestOwnGroupCancelKillsTheGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cmd, child := startFamily(t, ctx)
	cancel()
	cmd.Wait()
	for deadline := time.Now().Add(10 * time.Second); running(child) && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
	}
	if running(child) {
		t.Errorf("the child %d still runs after the context ended", child)
	}
}

// Without a context OwnGroup sets no Cancel, which exec refuses on such a command.
func TestOwnGroupPlainCommandStarts(t *testing.T) {
	cmd := exec.Command("true")
	OwnGroup(cmd)
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
}
