//go:build cgo

package store

import (
	"errors"

	"github.com/mattn/go-sqlite3" // the "sqlite3" database/sql driver
)

// The SQLite driver, github.com/mattn/go-sqlite3, is SQLite's C source compiled with
// cgo. This file holds everything that names it; driver_nocgo.go stands in for it in a
// build without cgo, where the driver is only a stub (its Open fails, and its error
// type and codes do not exist), so that such a build still compiles and Open refuses
// with ErrNoCgo instead.
const cgoBuilt = true

// sqliteCode is the primary result code of a driver error, and ok false for an error
// that is not one.
func sqliteCode(err error) (code sqlite3.ErrNo, extended sqlite3.ErrNoExtended, ok bool) {
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return 0, 0, false
	}
	return se.Code, se.ExtendedCode, true
}

// isBusy reports SQLITE_BUSY or SQLITE_LOCKED: the lock was not had in time.
func isBusy(err error) bool {
	code, _, ok := sqliteCode(err)
	return ok && (code == sqlite3.ErrBusy || code == sqlite3.ErrLocked)
}

// isForeignKey reports a FOREIGN KEY constraint failure.
func isForeignKey(err error) bool {
	_, ext, ok := sqliteCode(err)
	return ok && ext == sqlite3.ErrConstraintForeignKey
}

// isPlainSQLError reports SQLITE_ERROR, the result of a statement the schema does not
// fit (a missing table or column, say).
func isPlainSQLError(err error) bool {
	code, _, ok := sqliteCode(err)
	return ok && code == sqlite3.ErrError
}

// isJournalGone reports SQLITE_IOERR_DELETE_NOENT: a connection meant to delete a
// stale journal that another had deleted already.
func isJournalGone(err error) bool {
	_, ext, ok := sqliteCode(err)
	return ok && ext == sqlite3.ErrIoErrDeleteNoent
}

// damagedReason completes "the Plugboard database <path> …" for a driver error that
// says the file is not a database or is corrupt; "" for any other error.
func damagedReason(err error) string {
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return ""
	}
	switch se.Code {
	case sqlite3.ErrNotADB:
		return "is not a SQLite database"
	case sqlite3.ErrCorrupt:
		return "is damaged (" + se.Error() + ")"
	}
	return ""
}
