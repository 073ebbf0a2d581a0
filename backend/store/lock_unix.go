//go:build unix

package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// openLockTimeout bounds how long Open waits for another Open (in this process or
// another) to finish checking or repairing the file; that takes milliseconds, so a
// wait this long means the other process is stuck.
const openLockTimeout = 30 * time.Second

// lockOpen takes the lock that lets one Open at a time check, set aside, create or
// migrate the database: an exclusive flock on <dir>/plugboard.db.lock. Without it, two
// processes starting on a damaged file could each set aside what the other had just
// made. The lock is not held while a Store is in use.
func lockOpen(ctx context.Context, dir string) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, dbName+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the lock file: %w", err)
	}
	deadline := time.Now().Add(openLockTimeout)
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("another Plugboard process has been opening the database for %v; try again when it has finished", openLockTimeout)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(wait):
		}
	}
}
