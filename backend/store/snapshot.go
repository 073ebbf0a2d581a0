package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/plugboard/plugboard/backend/snapshot"
)

// SnapshotRetention is how many snapshots AddSnapshot keeps; older ones are removed
// with their rows. Snapshots are a cache for "what changed between two scans", and a
// catalog changes at every save while a plugin is being developed, so without a cap
// a thousand-plugin catalog would grow the file by megabytes an hour.
const SnapshotRetention = 100

// AddSnapshot stores sn unless its Hash equals the latest snapshot's, and returns the
// id of the stored snapshot (stored true) or of that equal latest one (stored false).
// An empty Hash is computed with snapshot.Hash (a caller that stores many snapshots
// passes one from its snapshot.Hasher); a zero Time becomes now. Storing removes
// snapshots beyond SnapshotRetention. The Store keeps sn.Plugins as the newest rows
// (the next AddSnapshot compares with them): the caller must not modify them afterwards.
//
// Rows are stored as changes (migration 0008): the rows sn shares, position by position,
// with the newest snapshot are that snapshot's rows extended to sn, and only the others
// are written. The newest snapshot's rows come from memory when this Store wrote it and
// no other process has added one since, and from the file otherwise.
func (s *Store) AddSnapshot(ctx context.Context, sn snapshot.Snapshot) (id int64, stored bool, err error) {
	if sn.Hash == "" {
		sn.Hash = snapshot.Hash(sn.Plugins)
	}
	if sn.Time.IsZero() {
		sn.Time = time.Now()
	}
	s.last.mu.Lock()
	defer s.last.mu.Unlock()
	err = s.WithTx(ctx, func(tx *sql.Tx) error {
		var (
			latest   string
			latestID int64
		)
		err := tx.QueryRowContext(ctx, `SELECT id, hash FROM snapshots ORDER BY id DESC LIMIT 1`).Scan(&latestID, &latest)
		// A hash of the earlier form (the rows' JSON) is compared in that form, so the first
		// scan after an upgrade stores no copy of an unchanged catalog.
		if err == nil && (latest == sn.Hash || strings.HasPrefix(latest, snapshot.JSONHashPrefix) && latest == snapshot.JSONHash(sn.Plugins)) {
			// The same plugin rows: no new snapshot, but the newest one keeps the catalog's
			// totals of this scan (a standalone skill's error changes them, not the rows).
			id = latestID
			if sn.Totals == nil {
				return nil
			}
			_, err := tx.ExecContext(ctx, `UPDATE snapshots SET errors = ?, warnings = ? WHERE id = ? AND (errors IS NOT ? OR warnings IS NOT ?)`,
				sn.Totals.Errors, sn.Totals.Warnings, latestID, sn.Totals.Errors, sn.Totals.Warnings)
			return err
		}
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		var prev []snapshot.Plugin
		if latestID != 0 {
			if prev, err = s.last.rowsOf(ctx, tx, latestID); err != nil {
				return err
			}
		}
		var errs, warns sql.NullInt64
		if sn.Totals != nil {
			errs = sql.NullInt64{Int64: int64(sn.Totals.Errors), Valid: true}
			warns = sql.NullInt64{Int64: int64(sn.Totals.Warnings), Valid: true}
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO snapshots (time, hash, errors, warnings) VALUES (?, ?, ?, ?)`,
			sn.Time.UTC().Format(timeLayout), sn.Hash, errs, warns)
		if err != nil {
			return err
		}
		if id, err = res.LastInsertId(); err != nil {
			return err
		}
		if err := writeChanges(ctx, tx, latestID, id, prev, sn.Plugins); err != nil {
			return err
		}
		stored = true
		var cutoff int64
		err = tx.QueryRowContext(ctx, `SELECT id FROM snapshots ORDER BY id DESC LIMIT 1 OFFSET ?`, SnapshotRetention).Scan(&cutoff)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM snapshots WHERE id <= ?`, cutoff); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM snapshot_rows WHERE last_id <= ?`, cutoff)
		return err
	})
	if err != nil {
		s.last.forget()
		return 0, false, fmt.Errorf("add catalog snapshot: %w", err)
	}
	if stored {
		s.last.remember(id, sn.Plugins)
	}
	return id, stored, nil
}

// lastSnapshot is the newest snapshot's rows as a Store wrote them.
type lastSnapshot struct {
	mu   sync.Mutex
	id   int64
	rows []snapshot.Plugin
}

func (l *lastSnapshot) remember(id int64, rows []snapshot.Plugin) {
	l.id, l.rows = id, rows // AddSnapshot's caller does not modify them (see AddSnapshot)
}

func (l *lastSnapshot) forget() { l.id, l.rows = 0, nil }

// rowsOf returns the rows of snapshot id, the newest in the file: from memory when they
// are the ones remembered, else the open-ended rows in the file.
func (l *lastSnapshot) rowsOf(ctx context.Context, tx *sql.Tx, id int64) ([]snapshot.Plugin, error) {
	if l.id == id && l.rows != nil {
		return l.rows, nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT seq, plugin_id, source, path, content_hash, valid, errors, warnings, skills, servers
		FROM snapshot_rows WHERE last_id IS NULL ORDER BY seq`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []snapshot.Plugin
	for rows.Next() {
		var (
			seq int
			p   snapshot.Plugin
		)
		if err := rows.Scan(&seq, &p.ID, &p.Source, &p.Path, &p.ContentHash, &p.Valid, &p.Errors, &p.Warnings, &p.Skills, &p.Servers); err != nil {
			return nil, err
		}
		if seq != len(out) {
			return nil, fmt.Errorf("snapshot %d: row %d missing (the rows table is damaged)", id, len(out))
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// writeChanges stores snapshot id, whose rows are next, as changes from snapshot prevID
// (0: none), whose rows are prev: a row that differs from, or has no, counterpart at the
// same position ends prev's run there and starts its own.
func writeChanges(ctx context.Context, tx *sql.Tx, prevID, id int64, prev, next []snapshot.Plugin) error {
	var end, insert *sql.Stmt
	defer func() {
		for _, st := range []*sql.Stmt{end, insert} {
			if st != nil {
				st.Close()
			}
		}
	}()
	for seq := range max(len(prev), len(next)) {
		if seq < len(prev) && seq < len(next) && prev[seq] == next[seq] {
			continue
		}
		if seq < len(prev) {
			if end == nil {
				var err error
				if end, err = tx.PrepareContext(ctx, `UPDATE snapshot_rows SET last_id = ? WHERE seq = ? AND last_id IS NULL`); err != nil {
					return err
				}
			}
			if _, err := end.ExecContext(ctx, prevID, seq); err != nil {
				return fmt.Errorf("plugin %q: %w", prev[seq].ID, err)
			}
		}
		if seq < len(next) {
			if insert == nil {
				var err error
				insert, err = tx.PrepareContext(ctx, `INSERT INTO snapshot_rows
					(seq, first_id, last_id, plugin_id, source, path, content_hash, valid, errors, warnings, skills, servers)
					VALUES (?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
				if err != nil {
					return err
				}
			}
			p := next[seq]
			if _, err := insert.ExecContext(ctx, seq, id, p.ID, p.Source, p.Path, p.ContentHash, p.Valid, p.Errors, p.Warnings, p.Skills, p.Servers); err != nil {
				return fmt.Errorf("plugin %q: %w", p.ID, err)
			}
		}
	}
	return nil
}

// snapshotQuery reads snapshots with their rows in one statement, so that the result
// is one consistent state even while another process adds or prunes snapshots.
// %s selects the snapshots.
const snapshotQuery = `SELECT s.id, s.time, s.hash, s.errors, s.warnings, p.seq,
	COALESCE(p.plugin_id, ''), COALESCE(p.source, ''), COALESCE(p.path, ''), COALESCE(p.content_hash, ''),
	COALESCE(p.valid, 0), COALESCE(p.errors, 0), COALESCE(p.warnings, 0), COALESCE(p.skills, 0), COALESCE(p.servers, 0)
	FROM (%s) AS s LEFT JOIN snapshot_rows AS p ON p.first_id <= s.id AND (p.last_id IS NULL OR p.last_id >= s.id)
	ORDER BY s.id DESC, p.seq`

// Snapshots returns the newest snapshots first with their plugin rows, at most limit
// of them (limit <= 0: all that are kept).
func (s *Store) Snapshots(ctx context.Context, limit int) ([]snapshot.Snapshot, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	sns, err := s.readSnapshots(ctx, fmt.Sprintf(snapshotQuery, `SELECT id, time, hash, errors, warnings FROM snapshots ORDER BY id DESC LIMIT ?`), limit)
	if err != nil {
		return nil, fmt.Errorf("read catalog snapshots: %w", err)
	}
	return sns, nil
}

// Snapshot returns the snapshot with id, or an error wrapping ErrNotFound.
func (s *Store) Snapshot(ctx context.Context, id int64) (snapshot.Snapshot, error) {
	sns, err := s.readSnapshots(ctx, fmt.Sprintf(snapshotQuery, `SELECT id, time, hash, errors, warnings FROM snapshots WHERE id = ?`), id)
	if err != nil {
		return snapshot.Snapshot{}, fmt.Errorf("catalog snapshot %d: %w", id, err)
	}
	if len(sns) == 0 {
		return snapshot.Snapshot{}, fmt.Errorf("catalog snapshot %d: %w", id, ErrNotFound)
	}
	return sns[0], nil
}

func (s *Store) readSnapshots(ctx context.Context, query string, args ...any) ([]snapshot.Snapshot, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, mapErr(err)
	}
	defer rows.Close()
	sns := []snapshot.Snapshot{}
	for rows.Next() {
		var (
			id          int64
			when, hash  string
			errs, warns sql.NullInt64
			seq         sql.NullInt64
			p           snapshot.Plugin
		)
		err := rows.Scan(&id, &when, &hash, &errs, &warns, &seq, &p.ID, &p.Source, &p.Path, &p.ContentHash,
			&p.Valid, &p.Errors, &p.Warnings, &p.Skills, &p.Servers)
		if err != nil {
			return nil, mapErr(err)
		}
		if len(sns) == 0 || sns[len(sns)-1].ID != id {
			t, err := parseTime(when)
			if err != nil {
				return nil, fmt.Errorf("snapshot %d: %w", id, err)
			}
			sn := snapshot.Snapshot{ID: id, Time: t, Hash: hash, Plugins: []snapshot.Plugin{}}
			if errs.Valid && warns.Valid {
				sn.Totals = &snapshot.Totals{Errors: int(errs.Int64), Warnings: int(warns.Int64)}
			}
			sns = append(sns, sn)
		}
		if seq.Valid { // NULL: a snapshot with no plugin rows
			last := &sns[len(sns)-1]
			last.Plugins = append(last.Plugins, p)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, mapErr(err)
	}
	return sns, nil
}
