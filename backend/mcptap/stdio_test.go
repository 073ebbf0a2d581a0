//go:build linux

package mcptap

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The relay owns its server's whole process group (issue 34): what the server left
// behind holding its stdout, and a server that ignores the SIGTERM the agent sends, are
// gone when the relay returns, and it returns (after about drainWait, not the 60 s the
// server's processes would sleep).
// Each case runs RunStdio in a re-executed test binary (TestHelperRunStdio), so that a
// signal can be sent to the relay as an agent would.
func TestRunStdioOwnsTheServersGroup(t *testing.T) {
	cases := []struct {
		name, server string
		signal       bool
	}{
		// The server exits at once; its child ignores SIGTERM and holds stdout open.
		{"left-behind", `(trap '' TERM; exec sleep 60) & echo $$ $!; exit 0`, false},
		// The server and its child ignore SIGTERM; the agent sends SIGTERM to the relay.
		{"ignores-sigterm", `trap '' TERM; (exec sleep 60) & echo $$ $!; exec sleep 60`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperRunStdio$")
			cmd.Env = append(os.Environ(), "MCPTAP_HELPER="+c.server)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil {
				t.Fatalf("the server's pids: %v", err)
			}
			var pids []int
			for _, f := range strings.Fields(line) {
				n, err := strconv.Atoi(f)
				if err != nil {
					t.Fatalf("the server printed %q", line)
				}
				pids = append(pids, n)
			}
			start := time.Now()
			if c.signal {
				_ = cmd.Process.Signal(syscall.SIGTERM)
			}
			go io.Copy(io.Discard, out)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			// The server's processes sleep 60 s: a relay that waited on them would not
			// return within this bound, whatever the machine's load. How long it took is
			// logged, not asserted (about drainWait).
			select {
			case <-done:
			case <-time.After(drainWait + 30*time.Second):
				_ = syscall.Kill(-pids[0], syscall.SIGKILL)
				_ = cmd.Process.Kill()
				t.Fatalf("the relay did not return within %v", drainWait+30*time.Second)
			}
			t.Logf("the relay returned after %v", time.Since(start))
			for _, pid := range pids {
				if alive(pid) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("process %d of the server is still running after the relay returned", pid)
				}
			}
		})
	}
}

// alive says whether pid is a process that has not ended (a zombie has ended).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// TestHelperRunStdio is not a test: it is the relay of TestRunStdioOwnsTheServersGroup,
// running the shell script MCPTAP_HELPER as its server.
func TestHelperRunStdio(t *testing.T) {
	script := os.Getenv("MCPTAP_HELPER")
	if script == "" {
		return
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	code, err := RunStdio(Child{Path: sh, Argv: []string{"sh", "-c", script}, Env: os.Environ()},
		os.Stdin, os.Stdout, SinkFunc(func(Call) {}), "test", os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	os.Exit(code)
}
