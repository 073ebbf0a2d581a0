package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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
// An empty Hash is computed with snapshot.Hash; a zero Time becomes now. Storing removes
// snapshots beyond SnapshotRetention.
func (s *Store) AddSnapshot(ctx context.Context, sn snapshot.Snapshot) (id int64, stored bool, err error) {
	if sn.Hash == "" {
		sn.Hash = snapshot.Hash(sn.Plugins)
	}
	if sn.Time.IsZero() {
		sn.Time = time.Now()
	}
	err = s.WithTx(ctx, func(tx *sql.Tx) error {
		var latest string
		err := tx.QueryRowContext(ctx, `SELECT id, hash FROM snapshots ORDER BY id DESC LIMIT 1`).Scan(&id, &latest)
		if err == nil && latest == sn.Hash {
			return nil
		}
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO snapshots (time, hash) VALUES (?, ?)`, sn.Time.UTC().Format(timeLayout), sn.Hash)
		if err != nil {
			return err
		}
		if id, err = res.LastInsertId(); err != nil {
			return err
		}
		if err := insertPlugins(ctx, tx, id, sn.Plugins); err != nil {
			return err
		}
		stored = true
		_, err = tx.ExecContext(ctx, `DELETE FROM snapshots WHERE id <= (SELECT id FROM snapshots ORDER BY id DESC LIMIT 1 OFFSET ?)`,
			SnapshotRetention)
		return err
	})
	if err != nil {
		return 0, false, fmt.Errorf("add catalog snapshot: %w", err)
	}
	return id, stored, nil
}

func insertPlugins(ctx context.Context, tx *sql.Tx, id int64, plugins []snapshot.Plugin) error {
	if len(plugins) == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO snapshot_plugins
		(snapshot_id, seq, plugin_id, source, path, content_hash, valid, errors, warnings, skills, servers)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for i, p := range plugins {
		_, err := stmt.ExecContext(ctx, id, i, p.ID, p.Source, p.Path, p.ContentHash, p.Valid, p.Errors, p.Warnings, p.Skills, p.Servers)
		if err != nil {
			return fmt.Errorf("plugin %q: %w", p.ID, err)
		}
	}
	return nil
}

// snapshotQuery reads snapshots with their rows in one statement, so that the result
// is one consistent state even while another process adds or prunes snapshots.
// %s selects the snapshots.
const snapshotQuery = `SELECT s.id, s.time, s.hash, p.seq,
	COALESCE(p.plugin_id, ''), COALESCE(p.source, ''), COALESCE(p.path, ''), COALESCE(p.content_hash, ''),
	COALESCE(p.valid, 0), COALESCE(p.errors, 0), COALESCE(p.warnings, 0), COALESCE(p.skills, 0), COALESCE(p.servers, 0)
	FROM (%s) AS s LEFT JOIN snapshot_plugins AS p ON p.snapshot_id = s.id
	ORDER BY s.id DESC, p.seq`

// Snapshots returns the newest snapshots first with their plugin rows, at most limit
// of them (limit <= 0: all that are kept).
func (s *Store) Snapshots(ctx context.Context, limit int) ([]snapshot.Snapshot, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	sns, err := s.readSnapshots(ctx, fmt.Sprintf(snapshotQuery, `SELECT id, time, hash FROM snapshots ORDER BY id DESC LIMIT ?`), limit)
	if err != nil {
		return nil, fmt.Errorf("read catalog snapshots: %w", err)
	}
	return sns, nil
}

// Snapshot returns the snapshot with id, or an error wrapping ErrNotFound.
func (s *Store) Snapshot(ctx context.Context, id int64) (snapshot.Snapshot, error) {
	sns, err := s.readSnapshots(ctx, fmt.Sprintf(snapshotQuery, `SELECT id, time, hash FROM snapshots WHERE id = ?`), id)
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
			id         int64
			when, hash string
			seq        sql.NullInt64
			p          snapshot.Plugin
		)
		err := rows.Scan(&id, &when, &hash, &seq, &p.ID, &p.Source, &p.Path, &p.ContentHash,
			&p.Valid, &p.Errors, &p.Warnings, &p.Skills, &p.Servers)
		if err != nil {
			return nil, mapErr(err)
		}
		if len(sns) == 0 || sns[len(sns)-1].ID != id {
			t, err := parseTime(when)
			if err != nil {
				return nil, fmt.Errorf("snapshot %d: %w", id, err)
			}
			sns = append(sns, snapshot.Snapshot{ID: id, Time: t, Hash: hash, Plugins: []snapshot.Plugin{}})
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
