package mcptap

import "syscall"

// childAttr puts the child in a process group of its own and has Linux send it SIGTERM
// when the thread that started it dies (this process killed, even with SIGKILL).
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
