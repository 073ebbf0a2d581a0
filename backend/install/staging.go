package install

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Names in $PLUGBOARD_HOME/plugins, hidden so that the catalog never lists them.
const (
	stagingPrefix = ".install-"     // a staging folder: .install-<random>
	stagingLock   = "lock"          // in a staging folder, locked while it is in use
	lockName      = ".install.lock" // the home's install lock
)

// staging is one install's private folder in plugins/, locked while it lives.
type staging struct {
	dir  string
	lock *os.File
}

// newStaging removes the staging folders no live install holds (what a failed or
// killed install left), then makes and locks a new one. Both happen under the home's
// install lock, so a folder is never taken for stale between its creation and its lock.
func newStaging(dir string) (*staging, error) {
	unlock, err := lockHome(dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := cleanStale(dir); err != nil {
		return nil, err
	}
	d, err := os.MkdirTemp(dir, stagingPrefix+"*")
	if err != nil {
		return nil, fmt.Errorf("making a staging folder in %s: %w", dir, err)
	}
	f, err := os.OpenFile(filepath.Join(d, stagingLock), os.O_CREATE|os.O_RDWR, 0o600)
	if err == nil {
		if err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
		}
	}
	if err != nil {
		os.RemoveAll(d)
		return nil, fmt.Errorf("locking the staging folder %s: %w", d, err)
	}
	return &staging{dir: d, lock: f}, nil
}

// remove deletes the staging folder and what is left in it (a replaced plugin), then
// releases its lock.
func (s *staging) remove() {
	os.RemoveAll(s.dir)
	s.lock.Close()
}

// cleanStale removes every staging folder in dir whose lock no process holds. The
// caller holds the home's install lock.
func cleanStale(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), stagingPrefix) || !e.IsDir() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		f, err := os.OpenFile(filepath.Join(p, stagingLock), os.O_RDWR, 0)
		if err == nil {
			if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
				f.Close()
				continue // a live install's
			}
		}
		if rerr := os.RemoveAll(p); rerr != nil {
			errs = append(errs, fmt.Errorf("removing the staging folder %s a failed install left: %w; remove it yourself", p, rerr))
		}
		if f != nil {
			f.Close()
		}
	}
	return errors.Join(errs...)
}
