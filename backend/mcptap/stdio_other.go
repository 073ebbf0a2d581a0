//go:build !unix

package mcptap

import "syscall"

// childAttr: no process group or parent-death signal on this system.
func childAttr() *syscall.SysProcAttr { return nil }
