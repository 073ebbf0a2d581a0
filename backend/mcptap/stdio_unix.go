//go:build unix && !linux

package mcptap

import "syscall"

// childAttr puts the child in a process group of its own. There is no parent-death
// signal here: a child outlives a relay killed with SIGKILL until it reads the end of
// its stdin.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
