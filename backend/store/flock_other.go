//go:build !unix

package store

import "os"

// flock is a no-op where flock is not available (see lockOpen): the spool then relies on
// appends of one line each and on idempotent keys alone.
func flock(f *os.File, exclusive, wait bool) error { return nil }
