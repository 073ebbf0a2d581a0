// Package store is Plugboard's SQLite database: the assignment history (A6), the MCP
// acknowledgments (A4), the catalog snapshots (U6) and the skill activity of launched
// agents (R8), kept in $PLUGBOARD_HOME/state/plugboard.db.
//
// # Contract
//
// The agent and template files are the source of truth; this database only remembers
// what happened to them. Losing it must never lose anything else, so [Open] is
// forgiving: a file that is not a SQLite database, fails PRAGMA integrity_check, or
// carries a schema version newer than this build knows is renamed aside to
// plugboard.db.corrupt-<UTC timestamp> (with its -wal and -shm files), a fresh
// database is created, and Open returns a warning, written for a person, that says
// what happened and where the old file went. Nothing is ever deleted. Open returns an
// error only when it cannot produce a working database (for example the folder is not
// writable, or the context ends); transient conditions such as a busy database are
// errors, never a reason to set a file aside.
//
// A database missing from an existing state folder is re-created, also with a
// warning; on the first run (no state folder yet) it is created silently. Journal
// files (-wal, -shm) found without their database are set aside too, since SQLite
// would replay a stale -wal into the new file.
//
// History entries are never removed, and neither are acknowledgments: each is a row
// (target, plugin, server, digest) written by the history entry that shows it, in the
// same transaction ([Store.AddHistory] with Acks). Losing the database loses them, and
// a launch then leaves the servers out until they are acknowledged again: a lost
// acknowledgment asks once more, it never lets a server run unasked.
//
// History entries are never removed. Catalog snapshots are a cache: AddSnapshot keeps
// the newest [SnapshotRetention] of them.
//
// # Skill activity
//
// Each skill a launched agent invokes is one row (an [Activity]: names and ids, never a
// prompt, an argument or a result), written by a hook process that must not make the
// agent wait. [RecordActivity] is its door: it inserts the row straight into the file,
// without Open's checks, waiting at most a few milliseconds for the write lock, and
// otherwise appends it as one JSON line to state/activity.spool.jsonl (O_APPEND, one
// write per line). Every Open imports the spool ([Store.ImportSpool]) under its lock.
// Each record carries a key, unique in the table, so a record imported twice (an import
// that died after its commit and before it removed the file) is kept once, and nothing
// spooled is lost: a spool file is claimed by renaming it under an exclusive flock that
// waits for the writes in flight, and a writer that finds its file claimed writes to
// the new one.
//
// The schema is a series of numbered SQL files embedded from migrations/
// (0001_history.sql, 0002_snapshots.sql, …). Each is applied in its own transaction,
// and the number of the last one applied is kept in PRAGMA user_version, so a
// database is either at a version or at the one before it, never in between.
//
// The state folder is created with mode 0700 and the database file with mode 0600;
// SQLite gives its -wal and -shm files the database file's mode.
//
// # Concurrency
//
// A [Store] wraps a database/sql pool and is safe for concurrent use by many
// goroutines. The database runs in WAL mode, so a reader never blocks a writer nor a
// writer a reader; writers take turns. Every connection has foreign keys on and a
// busy timeout of 5 s, and every transaction begins IMMEDIATE (it takes the write
// lock when it starts), so a transaction that reads and then writes waits its turn
// instead of failing with "database is locked" halfway through. Two processes (the
// desktop app and a CLI command, say) may open the same file at the same time. Open
// checks, repairs and migrates the file under an exclusive flock on
// state/plugboard.db.lock, so that one process never sets aside the database another
// has just made; the lock is released before Open returns. A new database is built
// in a temporary file and linked into place, so no one sees it half made, and each
// migration re-reads the schema version inside its transaction, so a process that
// does not take the lock (an older build) still applies each step once.
//
// Reads that return several rows ([Store.History], [Store.Snapshots]) are single
// statements, so each sees one consistent state of the database without holding the
// write lock. [Store.WithTx] is for writes: inside fn use only the *sql.Tx, never the
// Store's own methods, which would wait for the lock fn holds.
//
// # Errors
//
// Driver errors that callers branch on are mapped to sentinels: [ErrNotFound] for a
// missing entry or snapshot (and for a revert of an entry that does not exist) and
// [ErrBusy] when the lock could not be had within the busy timeout. The driver's
// error stays wrapped beside the sentinel.
//
// # Without cgo
//
// The driver, github.com/mattn/go-sqlite3, is SQLite's C source built with cgo; with
// CGO_ENABLED=0 it is a stub that cannot open anything. This package still compiles
// then (driver_cgo.go holds all that names the driver, driver_nocgo.go stands in for
// it), and [Open] returns an error wrapping [ErrNoCgo], which names the cause and the
// fix, before it creates, moves or opens any file. So a static plugboard runs inspect,
// catalog, skills and watch, and refuses history, snapshots, diff, ack and the rest
// with that message. The rows of a snapshot are backend/snapshot's type, so that
// backend/catalog, which makes and compares them, does not depend on this package.
package store
