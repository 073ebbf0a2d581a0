package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The spool is where a skill record goes when it cannot be written to the database at
// once: state/activity.spool.jsonl, one JSON Activity per line. Writers open it with
// O_APPEND and write each line with one write(2), under a shared flock of the file, so
// lines never interleave. An import claims the file by renaming it to
// activity.spool.jsonl.importing-<time>-<pid> under an exclusive flock (so no write is
// half done and every later writer finds the new, empty spool), then inserts its lines
// and removes it. A claimed file left by an import that died is imported by the next
// one; keys make that re-import add nothing.
const (
	spoolName      = "activity.spool.jsonl"
	claimedPrefix  = spoolName + ".importing-"
	maxSpoolFile   = 64 << 20 // a spool this large is not one: read no more of it
	maxSpoolWrites = 8        // tries to find a spool file no import has claimed
	tooLarge       = ".too-large"
)

// recordBusyTimeoutMS is how long RecordActivity waits for another connection's write
// lock before it spools the record instead. The hook runs while the agent waits: long
// enough to ride out another record or a save (a millisecond or two), far shorter than
// the store's own busy timeout.
const recordBusyTimeoutMS = 20

// RecordActivity records a for a hook process, which must return at once: it inserts
// the row straight into the database when that can be done without waiting (none of
// Open's checks, no migration), and otherwise — no database yet, one whose schema
// predates the activity table, a database busy or locked for more than a few
// milliseconds, one being checked or repaired by an Open, a damaged file, a build without
// cgo — appends it to the spool, which the next Open (or ImportSpool) imports. It
// reports whether the record was spooled, and returns an error only when it could be
// neither written nor spooled. A process that records many (an MCP relay) keeps a
// Writer instead, which does the same with its connection kept open.
func RecordActivity(ctx context.Context, pbHome string, a Activity) (spooled bool, err error) {
	w := NewWriter(pbHome)
	defer w.Close()
	return w.Record(ctx, a)
}

// Writer records activity as RecordActivity does, for a process that records many: the
// database connection stays open from one record to the next (opening it, and the
// checkpoint when the last connection closes, cost milliseconds each). Every write still
// holds the shared lock on the file Open locks exclusively, and a database file that is
// no longer the one the connection has (an Open set it aside) is opened anew. A Writer
// is safe for concurrent use.
type Writer struct {
	pbHome string

	mu sync.Mutex
	db *sql.DB
	fi os.FileInfo // the file db is open on
}

// NewWriter returns a Writer for the Plugboard home pbHome; it opens nothing yet.
func NewWriter(pbHome string) *Writer {
	if abs, err := filepath.Abs(pbHome); err == nil {
		pbHome = abs
	}
	return &Writer{pbHome: pbHome}
}

// Record writes a, or spools it (see RecordActivity).
func (w *Writer) Record(ctx context.Context, a Activity) (spooled bool, err error) {
	if err := a.check(); err != nil {
		return false, err
	}
	if a.Time.IsZero() {
		a.Time = time.Now()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	derr := w.insertDirect(ctx, a)
	if derr == nil {
		return false, nil
	}
	if err := appendSpool(filepath.Join(w.pbHome, stateDir), a); err != nil {
		return false, fmt.Errorf("record skill activity: %v; and spool it: %w", derr, err)
	}
	return true, nil
}

// Close closes the connection.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.reset()
}

func (w *Writer) reset() error {
	var err error
	if w.db != nil {
		err = w.db.Close()
	}
	w.db, w.fi = nil, nil
	return err
}

// insertDirect writes a into the existing database, waiting at most recordBusyTimeoutMS
// for the write lock. It holds a shared lock on the file Open locks exclusively, so it
// never writes into a file an Open is about to set aside. Called with w.mu held.
func (w *Writer) insertDirect(ctx context.Context, a Activity) error {
	if !sqliteBuiltIn {
		return ErrNoCgo
	}
	dir := filepath.Join(w.pbHome, stateDir)
	path := filepath.Join(dir, dbName)
	fi, err := os.Lstat(path)
	if err != nil {
		w.reset()
		return errNoDatabase
	}
	lock, err := os.OpenFile(filepath.Join(dir, dbName+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := flock(lock, false, false); err != nil {
		return err // an Open is checking or repairing the file
	}
	if w.db != nil && !os.SameFile(w.fi, fi) {
		w.reset() // set aside and made anew since the connection was opened
	}
	if w.db == nil {
		// mode=rw: never create a file here (an Open makes and migrates it); no
		// journal-mode change (the file is in WAL mode already); synchronous as every
		// connection of Open's.
		db, err := sql.Open("sqlite3", fmt.Sprintf("%s?mode=rw&_busy_timeout=%d&_synchronous=NORMAL", fileURI(path), recordBusyTimeoutMS))
		if err != nil {
			return err
		}
		db.SetMaxOpenConns(1)
		w.db, w.fi = db, fi
	}
	if _, err := insertOne(ctx, w.db, a); err != nil {
		w.reset() // a damaged or replaced file: open it anew next time
		return mapErr(err)
	}
	return nil
}

// appendSpool appends a to the spool of the state folder dir as one line, written at
// once.
func appendSpool(dir string, a Activity) error {
	line, err := json.Marshal(a)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	if _, err := makeStateDir(dir); err != nil {
		return err
	}
	path := filepath.Join(dir, spoolName)
	for range maxSpoolWrites {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return err
		}
		if err := flock(f, false, true); err != nil {
			f.Close()
			return err
		}
		if !isFileAt(f, path) {
			f.Close() // an import claimed this one between the open and the lock
			continue
		}
		_, err = f.Write(line)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	return fmt.Errorf("the spool %s was claimed by an import %d times in a row", path, maxSpoolWrites)
}

// onlySpool reports whether the state folder dir holds nothing but spool files: a
// hook made it before there was any database, so a missing database is no loss.
func onlySpool(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		return false
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), spoolName) {
			return false
		}
	}
	return true
}

// isFileAt reports whether f is still the file at path.
func isFileAt(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(path)
	return err == nil && os.SameFile(a, b)
}

// ImportSpool moves the records of the spool into the database, each once (a record
// whose key is there already is skipped), and removes what it imported. Open calls it;
// a long-running process calls it before it reads activity. Lines that cannot be read
// (a torn write of a process killed mid-line) are skipped and said in warnings. When
// the database is busy the spool is left for the next import.
func (s *Store) ImportSpool(ctx context.Context) (warnings []string, err error) {
	dir := filepath.Dir(s.path)
	if err := claimSpool(dir); err != nil {
		return nil, fmt.Errorf("import the skill activity spool: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("import the skill activity spool: %w", err)
	}
	var claimed []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), claimedPrefix) && !strings.HasSuffix(e.Name(), tooLarge) && e.Type().IsRegular() {
			claimed = append(claimed, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(claimed)
	for _, file := range claimed {
		w, err := s.importFile(ctx, file)
		warnings = append(warnings, w...)
		if err != nil {
			return warnings, fmt.Errorf("import the skill activity spool %s: %w", file, err)
		}
	}
	return warnings, nil
}

// claimSpool renames the spool of dir, if there is one, to a claimed name, under an
// exclusive lock that waits for the writes in flight.
func claimSpool(dir string) error {
	path := filepath.Join(dir, spoolName)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if err := flock(f, true, true); err != nil {
		return err
	}
	if !isFileAt(f, path) {
		return nil // another import claimed it first
	}
	claimed := claimedPrefix + time.Now().UTC().Format("20060102T150405.000000000Z") + "-" + strconv.Itoa(os.Getpid())
	return os.Rename(path, filepath.Join(dir, claimed))
}

// importFile inserts the records of one claimed spool file in one transaction and
// removes the file once they are committed.
func (s *Store) importFile(ctx context.Context, file string) (warnings []string, err error) {
	data, err := readSpool(file)
	if errors.Is(err, errTooLarge) {
		// No hook writes this much: set it aside rather than fail every import.
		if err := os.Rename(file, file+tooLarge); err != nil {
			return nil, err
		}
		return []string{fmt.Sprintf("%s is larger than a skill activity spool can be; it was moved to %s%s and not imported", file, file, tooLarge)}, nil
	}
	if err != nil {
		return nil, err
	}
	var recs []Activity
	bad := 0
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var a Activity
		if json.Unmarshal(line, &a) != nil || a.check() != nil {
			bad++
			continue
		}
		recs = append(recs, a)
	}
	if len(recs) > 0 {
		if _, err := s.AddActivity(ctx, recs...); err != nil {
			return nil, err
		}
	}
	if bad > 0 {
		warnings = append(warnings, fmt.Sprintf("%s: %d lines of the skill activity spool could not be read and were skipped", file, bad))
	}
	return warnings, os.Remove(file)
}

var errTooLarge = errors.New("larger than a skill activity spool can be")

// readSpool reads a claimed spool file, at most maxSpoolFile bytes of it.
func readSpool(file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSpoolFile+1))
	if err == nil && len(data) > maxSpoolFile {
		err = errTooLarge
	}
	return data, err
}
