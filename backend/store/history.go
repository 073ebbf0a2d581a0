package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// timeLayout is how times are stored: RFC 3339, UTC, fixed width, so that they read
// well in the sqlite3 shell and text order is time order.
const timeLayout = "2006-01-02T15:04:05.000000000Z07:00"

// HistoryEntry is one recorded save of an assignment target (A6).
type HistoryEntry struct {
	ID           int64     `json:"id"`
	Time         time.Time `json:"time"`         // UTC
	Target       string    `json:"target"`       // e.g. "agent:researcher", "template:review/researcher"
	Before       []string  `json:"before"`       // pluginDirs before the save, as written
	After        []string  `json:"after"`        // pluginDirs after the save
	BeforeHash   string    `json:"beforeHash"`   // the target's content hash before the save
	AfterHash    string    `json:"afterHash"`    // and after
	Acknowledged []string  `json:"acknowledged"` // MCP servers acknowledged ("plugin/server")
	// BeforeUnset and AfterUnset record that the target had no pluginDirs member (a
	// template slot using its agent's defaults): a revert restores that, not [].
	BeforeUnset bool   `json:"beforeUnset,omitempty"`
	AfterUnset  bool   `json:"afterUnset,omitempty"`
	RevertOf    int64  `json:"revertOf,omitempty"`
	Actor       string `json:"actor"` // "cli", "desktop", "http"
	// Kind is "" for a save of pluginDirs and KindAck for an explicit acknowledgment,
	// which changes no file (Before and After are then the target's pluginDirs as they
	// are).
	Kind string `json:"kind,omitempty"`
	// Acks are the acknowledged servers with their digests; AddHistory records each as
	// an acknowledgment of the entry's target (see Acknowledgments).
	Acks []Ack `json:"acks"`
	// Files are the whole files an entry of KindFiles wrote or removed.
	Files []FileChange `json:"files,omitempty"`
	// Added are the pluginDirs entries of After that Before did not have, in After's
	// order, and Removed those of Before that After does not have: what the save put in
	// and took out. Worked out when the entry is read (and written as JSON); AddHistory
	// ignores them.
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
}

// FileChange is one file an entry of KindFiles changed: Path relative to the Plugboard
// home, Before and After its text (nil: there was, or is, no file).
type FileChange struct {
	Path   string  `json:"path"`
	Before *string `json:"before"`
	After  *string `json:"after"`
}

// History entry kinds other than "" (a save of pluginDirs).
const (
	// KindAck only acknowledges MCP servers; it changes no file.
	KindAck = "ack"
	// KindFiles writes or removes whole assignment files (an agent made, copied,
	// renamed or deleted; a template slot added or removed); Files says which.
	KindFiles = "files"
)

// MarshalJSON writes absent lists as [] rather than null, so that readers of the JSON
// (the page, `plugboard history --json`) never meet a null where a list belongs.
func (e HistoryEntry) MarshalJSON() ([]byte, error) {
	type plain HistoryEntry // without the method, to avoid recursion
	p := plain(e)
	p.Before, p.After, p.Acknowledged = orEmpty(p.Before), orEmpty(p.After), orEmpty(p.Acknowledged)
	if p.Acks == nil {
		p.Acks = []Ack{}
	}
	p.Added, p.Removed = missingFrom(e.After, e.Before), missingFrom(e.Before, e.After)
	return json.Marshal(p)
}

func missingFrom(a, b []string) []string {
	out := []string{}
	if len(a) == 0 {
		return out
	}
	in := make(map[string]bool, len(b))
	for _, x := range b {
		in[x] = true
	}
	for _, x := range a {
		if !in[x] {
			out = append(out, x)
			in[x] = true
		}
	}
	return out
}

func orEmpty(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// AddHistory records e and returns its id. ID is ignored; a zero Time becomes now
// (any other Time is stored in UTC). A RevertOf that names no entry is ErrNotFound.
// Each of e.Acks becomes an acknowledgment of e.Target in the same transaction, so an
// acknowledgment is never without the history entry that shows it (an Ack already
// recorded for the target keeps its first entry).
func (s *Store) AddHistory(ctx context.Context, e HistoryEntry) (int64, error) {
	if e.Target == "" {
		return 0, errors.New("add history entry: no target")
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	var lists [3]string
	for i, l := range [][]string{e.Before, e.After, e.Acknowledged} {
		b, err := json.Marshal(orEmpty(l))
		if err != nil {
			return 0, fmt.Errorf("add history entry for %s: %w", e.Target, err)
		}
		lists[i] = string(b)
	}
	acks, err := json.Marshal(orEmptyAcks(e.Acks))
	if err != nil {
		return 0, fmt.Errorf("add history entry for %s: %w", e.Target, err)
	}
	files, err := json.Marshal(orEmptyFiles(e.Files))
	if err != nil {
		return 0, fmt.Errorf("add history entry for %s: %w", e.Target, err)
	}
	for _, a := range e.Acks {
		if a.Plugin == "" || a.Server == "" || a.Digest == "" {
			return 0, fmt.Errorf("add history entry for %s: an acknowledgment needs a plugin, a server and a digest (got %+v)", e.Target, a)
		}
	}
	revertOf := sql.NullInt64{Int64: e.RevertOf, Valid: e.RevertOf != 0}
	when := e.Time.UTC().Format(timeLayout)
	var id int64
	err = withTx(ctx, s.db, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO history
		(time, target, before_dirs, after_dirs, before_hash, after_hash, acknowledged, revert_of, actor, before_unset, after_unset, acks, kind, files)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			when, e.Target, lists[0], lists[1], e.BeforeHash, e.AfterHash, lists[2], revertOf, e.Actor, e.BeforeUnset, e.AfterUnset, string(acks), e.Kind, string(files))
		if err != nil {
			return err
		}
		if id, err = res.LastInsertId(); err != nil {
			return err
		}
		for _, a := range e.Acks {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO acknowledgments
				(target, plugin, server, digest, type, time, actor, history_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
				e.Target, a.Plugin, a.Server, a.Digest, a.Type, when, e.Actor, id); err != nil {
				return err
			}
		}
		return nil
	})
	if isForeignKey(err) {
		return 0, fmt.Errorf("add history entry for %s: the reverted entry %d: %w", e.Target, e.RevertOf, ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("add history entry for %s: %w", e.Target, mapErr(err))
	}
	return id, nil
}

const historyColumns = `id, time, target, before_dirs, after_dirs, before_hash, after_hash, acknowledged, revert_of, actor, before_unset, after_unset, acks, kind, files`

// History returns the entries for target ("" for every target), newest first, at
// most limit of them (limit <= 0: all). No entries is an empty slice, not an error.
func (s *Store) History(ctx context.Context, target string, limit int) ([]HistoryEntry, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	query, args := `SELECT `+historyColumns+` FROM history ORDER BY id DESC LIMIT ?`, []any{limit}
	if target != "" {
		query, args = `SELECT `+historyColumns+` FROM history WHERE target = ? ORDER BY id DESC LIMIT ?`, []any{target, limit}
	}
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("read history: %w", mapErr(err))
	}
	defer rows.Close()
	entries := []HistoryEntry{}
	for rows.Next() {
		e, err := scanHistory(rows)
		if err != nil {
			return nil, fmt.Errorf("read history: %w", err)
		}
		entries = append(entries, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read history: %w", mapErr(err))
	}
	return entries, nil
}

// HistoryEntry returns the entry with id, or an error wrapping ErrNotFound.
func (s *Store) HistoryEntry(ctx context.Context, id int64) (HistoryEntry, error) {
	row := s.db.QueryRowContext(ctx, `SELECT `+historyColumns+` FROM history WHERE id = ?`, id)
	e, err := scanHistory(row)
	if errors.Is(err, sql.ErrNoRows) {
		return HistoryEntry{}, fmt.Errorf("history entry %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return HistoryEntry{}, fmt.Errorf("history entry %d: %w", id, err)
	}
	return e, nil
}

type scanner interface{ Scan(dest ...any) error }

func scanHistory(r scanner) (HistoryEntry, error) {
	var (
		e        HistoryEntry
		when     string
		lists    [3]string
		revertOf sql.NullInt64
		acks     string
		files    string
	)
	err := r.Scan(&e.ID, &when, &e.Target, &lists[0], &lists[1], &e.BeforeHash, &e.AfterHash, &lists[2], &revertOf, &e.Actor, &e.BeforeUnset, &e.AfterUnset, &acks, &e.Kind, &files)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return e, err
		}
		return e, mapErr(err)
	}
	if e.Time, err = parseTime(when); err != nil {
		return e, fmt.Errorf("entry %d: %w", e.ID, err)
	}
	for i, dst := range []*[]string{&e.Before, &e.After, &e.Acknowledged} {
		if err := json.Unmarshal([]byte(lists[i]), dst); err != nil {
			return e, fmt.Errorf("entry %d: list column %d: %w", e.ID, i+1, err)
		}
		*dst = orEmpty(*dst)
	}
	if err := json.Unmarshal([]byte(acks), &e.Acks); err != nil {
		return e, fmt.Errorf("entry %d: acks: %w", e.ID, err)
	}
	e.Acks = orEmptyAcks(e.Acks)
	if err := json.Unmarshal([]byte(files), &e.Files); err != nil {
		return e, fmt.Errorf("entry %d: files: %w", e.ID, err)
	}
	if len(e.Files) == 0 {
		e.Files = nil // as written: an entry of no files has none
	}
	e.Added, e.Removed = missingFrom(e.After, e.Before), missingFrom(e.Before, e.After)
	e.RevertOf = revertOf.Int64
	return e, nil
}

func orEmptyFiles(l []FileChange) []FileChange {
	if l == nil {
		return []FileChange{}
	}
	return l
}

// RevertedBy returns the id of the newest entry that reverted entry id, or 0 when none
// did.
func (s *Store) RevertedBy(ctx context.Context, id int64) (int64, error) {
	var by int64
	err := s.db.QueryRowContext(ctx, `SELECT id FROM history WHERE revert_of = ? ORDER BY id DESC LIMIT 1`, id).Scan(&by)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read history: %w", mapErr(err))
	}
	return by, nil
}

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("stored time %q: %w", s, err)
	}
	return t.UTC(), nil
}
