package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Sentinels for the conditions callers branch on; the driver's error, when there is
// one, is wrapped beside them.
var (
	// ErrNotFound: no history entry or snapshot has the requested id.
	ErrNotFound = errors.New("not found")
	// ErrBusy: another connection or process held the write lock for longer than
	// the busy timeout. The operation did nothing and may be retried.
	ErrBusy = errors.New("the Plugboard database is busy")
	// ErrNoCgo: this binary was built with CGO_ENABLED=0, so it has no SQLite (the
	// driver, go-sqlite3, is C compiled with cgo). Open returns it before touching any
	// file; everything that needs no database (inspect, catalog, skills, watch) works.
	ErrNoCgo = errors.New("this plugboard was built without cgo (CGO_ENABLED=0), so it has no SQLite, which keeps " +
		"the assignment history, catalog snapshots and MCP acknowledgments (its driver, github.com/mattn/go-sqlite3, needs cgo); " +
		"build plugboard with cgo (CGO_ENABLED=1 and a C compiler such as gcc) to use them")
)

// sqliteBuiltIn is cgoBuilt (see driver_cgo.go): a variable so that a test of a cgo
// build can see what Open does in a build without.
var sqliteBuiltIn = cgoBuilt

// Where the database lives under $PLUGBOARD_HOME.
const (
	stateDir = "state"
	dbName   = "plugboard.db"
	// busyTimeoutMS is how long a connection waits for another's lock before
	// giving up with ErrBusy: long enough to ride out any write this package makes
	// (the largest is a snapshot of a few thousand rows), short enough that a stuck
	// process shows as an error rather than a hang.
	busyTimeoutMS = 5000
)

// A Part is a group of tables that one kind of caller reads and writes. Open given parts
// checks the integrity of their tables only: a launch that reads acknowledgments then
// pays for those, not for a year of skill activity (a database of 200,000 activity
// records, 56 MB, takes a quarter of a second to check whole here). The whole file is
// checked by an Open without parts, which the reloader makes for its first snapshot,
// and before any migration.
type Part int

const (
	PartAcks      Part = iota + 1 // MCP acknowledgments
	PartHistory                   // the assignment history, with the acknowledgments its entries record
	PartActivity                  // skill activity records
	PartSnapshots                 // catalog snapshots
	PartMCPHealth                 // MCP health results
	// PartRunActivity is the activity records of one run, read through the run's index:
	// no table is checked, since checking the activity table would cost far more than
	// the read (a try reads its run twice a turn). Damage in the pages it reads fails the
	// read.
	PartRunActivity
	PartClientAnswers // what the installed clients said they load (backend/clientask)
)

func (p Part) String() string {
	return [...]string{"whole", "acks", "history", "activity", "snapshots", "mcp-health", "run-activity", "client-answers"}[min(int(p), 7)]
}

// partTables are the tables of each part; AUTOINCREMENT keeps its counters in
// sqlite_sequence, which every table that inserts with one needs.
var partTables = map[Part][]string{
	PartAcks:          {"acknowledgments"},
	PartHistory:       {"history", "acknowledgments", "sqlite_sequence"},
	PartActivity:      {"activity", "sqlite_sequence"},
	PartSnapshots:     {"snapshots", "snapshot_rows", "sqlite_sequence"},
	PartMCPHealth:     {"mcp_health"},
	PartClientAnswers: {"client_answers"},
}

// Store is an open Plugboard database. It is safe for concurrent use.
type Store struct {
	db   *sql.DB
	path string
	// last is the newest snapshot this Store wrote, which AddSnapshot compares the next
	// one with when it is still the newest in the file (see AddSnapshot).
	last lastSnapshot
}

// Open opens (creating) <pbHome>/state/plugboard.db, sets it aside and starts a fresh
// one when it is damaged or from a newer build, and migrates it to this build's
// schema. Damage is found by SQLite's integrity check: of the whole file, or, given
// parts, of their tables only (see Part); damage elsewhere is left for an Open that
// checks it. The warnings are for a person (the CLI prints them, the app shows them);
// they are returned even when err is not nil. Open never panics. In a build without
// cgo it returns an error wrapping ErrNoCgo and creates, moves and opens nothing.
func Open(ctx context.Context, pbHome string, parts ...Part) (st *Store, warnings []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			st, err = nil, fmt.Errorf("open the Plugboard database: unexpected failure: %v", r)
		}
	}()
	if !sqliteBuiltIn {
		return nil, nil, fmt.Errorf("open the Plugboard database: %w", ErrNoCgo)
	}
	if pbHome == "" {
		return nil, nil, errors.New("open the Plugboard database: no Plugboard home folder given")
	}
	if abs, aerr := filepath.Abs(pbHome); aerr == nil {
		pbHome = abs
	}
	dir := filepath.Join(pbHome, stateDir)
	path := filepath.Join(dir, dbName)
	firstRun, err := makeStateDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("open the Plugboard database: %w", err)
	}
	// A hook that ran before any database existed made the folder for its spool only.
	firstRun = firstRun || onlySpool(dir)
	unlock, err := lockOpen(ctx, dir)
	if err != nil {
		return nil, nil, fmt.Errorf("open the Plugboard database: %w", err)
	}
	defer unlock()
	warnings, err = prepareFile(ctx, path, firstRun)
	if err != nil {
		return nil, warnings, fmt.Errorf("open the Plugboard database: %w", err)
	}
	db, err := openChecked(ctx, path, parts)
	var bad *damagedError
	if errors.As(err, &bad) {
		aside, aerr := setAside(path)
		if aerr != nil {
			return nil, warnings, fmt.Errorf("the Plugboard database %s %s, and it could not be moved aside: %w", path, bad.reason, aerr)
		}
		warnings = append(warnings, fmt.Sprintf("the Plugboard database %s %s. It was moved to %s and a new, empty database was created in its place. "+
			"Your agents and templates are unchanged; the assignment history and catalog snapshots recorded before now are only in the moved file.",
			path, bad.reason, aside))
		if _, err = createDatabase(ctx, path); err == nil {
			db, err = openChecked(ctx, path, parts)
		}
	}
	if err != nil {
		return nil, warnings, fmt.Errorf("open the Plugboard database %s: %w", path, err)
	}
	st = &Store{db: db, path: path}
	// Skill records that hooks spooled while the database was busy (RecordActivity).
	w, ierr := st.ImportSpool(ctx)
	warnings = append(warnings, w...)
	if ierr != nil && !errors.Is(ierr, ErrBusy) {
		warnings = append(warnings, ierr.Error()+"; the spool is kept and imported at the next open")
	}
	return st, warnings, nil
}

// Close closes the pool. Calls in flight finish first; later calls fail.
func (s *Store) Close() error {
	return s.db.Close()
}

// Path is the database file's absolute path.
func (s *Store) Path() string {
	return s.path
}

// WithTx runs fn in one IMMEDIATE transaction: it holds the write lock from the start,
// commits when fn returns nil and rolls back otherwise (also when fn panics, after
// which the panic continues). Inside fn use only tx, never the Store's methods.
func (s *Store) WithTx(ctx context.Context, fn func(*sql.Tx) error) error {
	return withTx(ctx, s.db, fn)
}

func withTx(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) (err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return mapErr(fmt.Errorf("begin transaction: %w", err))
	}
	committed := false
	defer func() {
		if !committed {
			if rerr := tx.Rollback(); rerr != nil && !errors.Is(rerr, sql.ErrTxDone) && err != nil {
				err = fmt.Errorf("%w (and roll back: %v)", err, rerr)
			}
		}
	}()
	if err := fn(tx); err != nil {
		return mapErr(err)
	}
	if err := tx.Commit(); err != nil {
		return mapErr(fmt.Errorf("commit: %w", err))
	}
	committed = true
	return nil
}

// mapErr adds the sentinel a driver error stands for, keeping the driver error
// wrapped too. Errors that already carry a sentinel pass through unchanged.
func mapErr(err error) error {
	if err == nil || errors.Is(err, ErrNotFound) || errors.Is(err, ErrBusy) {
		return err
	}
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	if isBusy(err) {
		return fmt.Errorf("%w: %w", ErrBusy, err)
	}
	return err
}

// dsn is the go-sqlite3 data source for path. Every connection the pool opens runs
// these settings: WAL, foreign keys, the busy timeout, IMMEDIATE transactions, and
// synchronous=NORMAL (in WAL mode a power cut may lose the last commits, never
// corrupt the file; the files on disk stay the source of truth either way).
func dsn(path string) string {
	return fmt.Sprintf("%s?mode=rwc&_journal_mode=WAL&_foreign_keys=on&_busy_timeout=%d&_txlock=immediate&_synchronous=NORMAL",
		fileURI(path), busyTimeoutMS)
}

// fileURI is path as a file: URI without a query. SQLite decodes %XX in the path;
// escape what would otherwise end the path part (? and #) and the escape character
// itself.
func fileURI(path string) string {
	return "file:" + strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23").Replace(filepath.ToSlash(path))
}
