//go:build unix

package store

import (
	"errors"
	"os"
	"syscall"
)

// flock takes an advisory lock on f: shared or exclusive, waiting for it or not. A lock
// that cannot be had at once without waiting is ErrBusy. Closing f releases it.
func flock(f *os.File, exclusive, wait bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	if !wait {
		how |= syscall.LOCK_NB
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return ErrBusy
		}
		return err
	}
}
