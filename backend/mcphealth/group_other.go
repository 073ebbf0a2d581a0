//go:build !unix

package mcphealth

import "os/exec"

func ownGroup(cmd *exec.Cmd) {}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// killMarked: there is no /proc to find a check's processes in.
func killMarked(string) {}
