//go:build unix

package mcphealth

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// ownGroup starts the entry in a process group of its own, so that a server that does
// not answer is ended with everything it started (mcp-stdio's child).
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// killMarked kills every process whose environment holds markVar=mark: what a server
// started and that left its process group (setsid, a double fork). It reads /proc
// (Linux; elsewhere there is nothing to read and nothing is done), again until a round
// finds none, as one may fork while it is being killed; a process that cleared its
// environment is not found.
func killMarked(mark string) {
	want := []byte(markVar + "=" + mark + "\x00")
	for round := 0; round < 10; round++ {
		entries, err := os.ReadDir("/proc")
		if err != nil {
			return
		}
		found := 0
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == os.Getpid() {
				continue
			}
			env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
			if err != nil || !bytes.Contains(append([]byte{0}, env...), append([]byte{0}, want...)) {
				continue
			}
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				found++
			}
		}
		if found == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond) // a killed process takes a moment to die
	}
}
