package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"
)

// sidecars are the files SQLite keeps beside a database; they belong to it and move
// with it. A stale -wal left beside a new database would be replayed into it.
var sidecars = []string{"-wal", "-shm", "-journal"}

// moveOrder is the database's files in the order setAside moves them: sidecars first.
var moveOrder = []string{"-wal", "-shm", "-journal", ""}

// damagedError says why a database file cannot be used and must be set aside. Its
// reason completes the sentence "the Plugboard database <path> …".
type damagedError struct {
	reason string
	err    error
}

func (e *damagedError) Error() string { return e.reason }
func (e *damagedError) Unwrap() error { return e.err }

// setAside renames path and its sidecar files to path.corrupt-<UTC timestamp>[-N],
// keeping the suffixes, so the moved copy opens as it was in the sqlite3 shell. It
// returns the new name of the database file. The sidecars move first: were the
// database moved and a -wal left behind, the new database would replay it.
func setAside(path string) (string, error) {
	base := path + ".corrupt-" + time.Now().UTC().Format("20060102T150405Z")
	aside := base
	for n := 2; taken(aside); n++ {
		aside = fmt.Sprintf("%s-%d", base, n)
	}
	for _, suffix := range moveOrder {
		err := os.Rename(path+suffix, aside+suffix)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("move %s aside: %w", path+suffix, err)
		}
	}
	return aside, nil
}

func taken(aside string) bool {
	for _, suffix := range moveOrder {
		if _, err := os.Lstat(aside + suffix); !errors.Is(err, fs.ErrNotExist) {
			return true
		}
	}
	return false
}

// openChecked opens the pool and proves the file is a usable Plugboard database:
// readable, no newer than this build, passing the integrity check (of the tables of
// parts, or of the whole file when parts is empty), migrated. A *damagedError means the
// file must be set aside; any other error is returned as it is.
func openChecked(ctx context.Context, path string, parts []Part) (*sql.DB, error) {
	db, err := sql.Open("sqlite3", dsn(path))
	if err != nil {
		return nil, err
	}
	if err := check(ctx, db, parts); err != nil {
		db.Close()
		return nil, err
	}
	// Keep a few connections warm: each new one reopens the file and runs the pragmas.
	db.SetMaxIdleConns(8)
	return db, nil
}

func check(ctx context.Context, db *sql.DB, parts []Part) error {
	if err := connect(ctx, db); err != nil {
		return classify(fmt.Errorf("connect: %w", err))
	}
	v, err := userVersion(ctx, db)
	if err != nil {
		return classify(err)
	}
	if known := schemaVersion(); v > known {
		return &damagedError{reason: fmt.Sprintf("was written by a newer version of Plugboard "+
			"(its schema version is %d; this version knows versions up to %d)", v, known)}
	}
	if v < schemaVersion() {
		parts = nil // a file about to be migrated is checked whole first
	}
	problems, err := integrityProblems(ctx, db, parts)
	if err != nil {
		return classify(fmt.Errorf("check integrity: %w", err))
	}
	if problems != "" {
		return &damagedError{reason: "is damaged (SQLite's integrity check says: " + problems + ")"}
	}
	if err := migrate(ctx, db); err != nil {
		if isPlainSQLError(err) {
			// A plain SQL error from a migration on a sound file: tables that
			// are not this program's (another tool's database, or a build that
			// did not number its schema) under a version this build would migrate.
			return &damagedError{reason: fmt.Sprintf("holds tables this version of Plugboard does not expect (%v)", err), err: err}
		}
		return classify(err)
	}
	return nil
}

// connect opens the pool's first connection, retrying until the busy timeout has
// passed while SQLite refuses without waiting. It does that when several connections
// turn the same empty file into a WAL database at once (createDatabase avoids this
// for the files this package makes; an empty file made by hand can still meet it): the
// losers fail at once with "database is locked" or, having found the stale journal
// they meant to delete deleted already, with a disk I/O error.
func connect(ctx context.Context, db *sql.DB) error {
	deadline := time.Now().Add(busyTimeoutMS * time.Millisecond)
	for wait := 2 * time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		err := db.PingContext(ctx)
		retry := errors.Is(mapErr(err), ErrBusy) || isJournalGone(err)
		if !retry || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// integrityProblems runs SQLite's integrity check and returns its first few findings
// joined, or "" when it says ok. With parts it checks only their tables and those
// tables' indexes (PRAGMA integrity_check(TABLE)), which costs what those tables hold
// rather than what the whole file does.
func integrityProblems(ctx context.Context, db *sql.DB, parts []Part) (string, error) {
	var found []string
	if len(parts) == 0 {
		found, err := integrityRun(ctx, db, "PRAGMA integrity_check(3)", nil)
		return strings.Join(found, "; "), err
	}
	checked := map[string]bool{} // parts share tables (sqlite_sequence, acknowledgments)
	for _, p := range parts {
		for _, table := range partTables[p] {
			if checked[table] {
				continue
			}
			checked[table] = true
			// PRAGMA takes no bound parameters; the table names are this package's.
			var err error
			if found, err = integrityRun(ctx, db, "PRAGMA integrity_check("+table+")", found); err != nil {
				return "", err
			}
		}
	}
	return strings.Join(found, "; "), nil
}

// integrityRun runs one integrity check query and adds what it found, up to three
// findings in all, to found.
func integrityRun(ctx context.Context, db *sql.DB, query string, found []string) ([]string, error) {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, err
		}
		if line != "ok" && len(found) < 3 {
			found = append(found, line)
		}
	}
	return found, rows.Err()
}

// classify turns the driver's "not a database" and "corrupt" results into a
// *damagedError and maps everything else to the package's sentinels.
func classify(err error) error {
	if reason := damagedReason(err); reason != "" {
		return &damagedError{reason: reason, err: err}
	}
	return mapErr(err)
}
