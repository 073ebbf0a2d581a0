//go:build !unix

package mcptap

import (
	"os"
	"syscall"
)

// childAttr: no process group or parent-death signal on this system.
func childAttr() *syscall.SysProcAttr { return nil }

// signalGroup: no process groups here; the child alone is signalled (SIGKILL kills it).
func signalGroup(p *os.Process, s os.Signal) {
	if s == syscall.SIGKILL {
		_ = p.Kill()
		return
	}
	_ = p.Signal(s)
}
