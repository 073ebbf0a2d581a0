//go:build !unix

package store

import "context"

// lockOpen is a no-op where flock is not available: Open is then safe against
// concurrent Opens in other processes only as far as SQLite's own locking goes.
func lockOpen(ctx context.Context, dir string) (unlock func(), err error) {
	return func() {}, nil
}
