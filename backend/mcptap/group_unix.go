//go:build unix

package mcptap

import (
	"os"
	"syscall"
)

// signalGroup sends s to p's whole process group (p is its leader, childAttr).
func signalGroup(p *os.Process, s os.Signal) {
	if n, ok := s.(syscall.Signal); ok {
		_ = syscall.Kill(-p.Pid, n)
		return
	}
	_ = p.Signal(s)
}
