//go:build !cgo

package store

// Built without cgo, go-sqlite3 is a stub whose Open always fails, so this package does
// not import it at all: Open returns ErrNoCgo before it touches any file, and the
// driver's error classes below never occur. See driver_cgo.go.
const cgoBuilt = false

func isBusy(error) bool          { return false }
func isForeignKey(error) bool    { return false }
func isPlainSQLError(error) bool { return false }
func isJournalGone(error) bool   { return false }
func damagedReason(error) string { return "" }
