package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/testhome"
)

// stuckServer writes a plugin whose stdio MCP server never answers, ignores SIGTERM,
// SIGINT and SIGHUP, keeps a child in its group that holds its stderr and leaves a daemon
// in a session of its own; every one of its processes carries MCPCHECK_TAG=tag.
func stuckServer(t *testing.T, pb, tag string) (plugin string) {
	t.Helper()
	dir := filepath.Join(pb, "plugins", "stuck")
	write(t, filepath.Join(dir, "plugin.json"), strings.Replace(manifest, "%s", "stuck", 1))
	write(t, filepath.Join(dir, "server"), "#!/bin/sh\ntrap '' TERM INT HUP\nsetsid sh -c 'trap \"\" TERM; exec sleep 300' </dev/null >/dev/null 2>&1 &\nsleep 300 &\nexec sleep 300\n")
	if err := os.Chmod(filepath.Join(dir, "server"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "mcp.json"), `{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {
		"stuck": {"type": "stdio", "command": "./server", "env": {"MCPCHECK_TAG": "`+tag+`"}}}}`)
	return dir
}

// plugboard mcp check of a server that never answers and will not go: with --timeout 2s
// the command returns within the timeout and a second, saying so; SIGTERM during a check
// with a long timeout ends it within a second; neither leaves a process of the check.
func TestMCPCheckStopsWhatItStarted(t *testing.T) {
	bin := testBinary(t)
	home := t.TempDir()
	pb := filepath.Join(home, ".plugboard")
	for _, signal := range []bool{false, true} {
		tag := fmt.Sprintf("%s-%v-%d", t.Name(), signal, time.Now().UnixNano())
		dir := stuckServer(t, pb, tag)
		t.Cleanup(func() {
			for _, pid := range testhome.WithEnv("MCPCHECK_TAG", tag) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		})
		env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
		ack := exec.Command(bin, "ack", "dir:"+dir, "stuck/stuck")
		ack.Env = env
		if out, err := ack.CombinedOutput(); err != nil {
			t.Fatalf("ack: %v\n%s", err, out)
		}
		timeout := "2s"
		if signal {
			timeout = "60s"
		}
		cmd := exec.Command(bin, "mcp", "check", "--timeout", timeout, "stuck/stuck")
		cmd.Env = env
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// timed from when the server runs (its processes carry the tag), not from the
		// command's own start
		for len(testhome.WithEnv("MCPCHECK_TAG", tag)) < 3 && time.Since(start) < 20*time.Second {
			time.Sleep(20 * time.Millisecond)
		}
		start = time.Now()
		if signal {
			_ = cmd.Process.Signal(syscall.SIGTERM) // the user presses Ctrl-C
		}
		_ = cmd.Wait()
		took := time.Since(start)
		limit := 3 * time.Second // the timeout and a second
		if signal {
			limit = time.Second
		}
		t.Logf("signal %v: returned after %v", signal, took)
		if took > limit {
			t.Errorf("signal %v: the check returned after %v, over %v\n%s", signal, took, limit, out.String())
		}
		if !signal && !strings.Contains(out.String(), "did not answer initialize within 2s") {
			t.Errorf("the check said:\n%s", out.String())
		}
		if left := testhome.WithEnv("MCPCHECK_TAG", tag); len(left) > 0 {
			t.Errorf("signal %v: processes of the check left: %v", signal, left)
		}
	}
}
