//go:build unix

package mcphealth

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the entry in a process group of its own, so that a server that does
// not answer is ended with everything it started (mcp-stdio's child).
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
