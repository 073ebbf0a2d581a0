package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
)

// Ack is one acknowledged MCP server: the plugin id, the server's name, its transport
// and the digest of what it runs (mcpconfig.Digest: names and counts, never a value).
type Ack struct {
	Plugin string `json:"plugin"`
	Server string `json:"server"`
	Type   string `json:"type,omitempty"`
	Digest string `json:"digest"`
}

// Acknowledgment is an Ack recorded for a target: when, by whom, and the history entry
// that recorded it.
type Acknowledgment struct {
	Ack
	Target  string `json:"target"`
	Time    string `json:"time"` // RFC 3339, UTC
	Actor   string `json:"actor"`
	History int64  `json:"history,omitempty"`
}

func orEmptyAcks(l []Ack) []Ack {
	if l == nil {
		return []Ack{}
	}
	return l
}

// Acknowledgments returns what has been acknowledged for target ("" for every target),
// sorted by target, plugin, server and time. Rows are added only by AddHistory (an
// entry's Acks) and never removed: a digest once acknowledged for a target stays so, and
// a server that changes gets a new digest that is not.
func (s *Store) Acknowledgments(ctx context.Context, target string) ([]Acknowledgment, error) {
	const cols = `SELECT target, plugin, server, digest, type, time, actor, history_id FROM acknowledgments`
	query, args := cols+` ORDER BY target, plugin, server, time`, []any{}
	if target != "" {
		query, args = cols+` WHERE target = ? ORDER BY plugin, server, time`, []any{target}
	}
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("read acknowledgments: %w", mapErr(err))
	}
	defer rows.Close()
	out := []Acknowledgment{}
	for rows.Next() {
		var a Acknowledgment
		var hid sql.NullInt64
		if err := rows.Scan(&a.Target, &a.Plugin, &a.Server, &a.Digest, &a.Type, &a.Time, &a.Actor, &hid); err != nil {
			return nil, fmt.Errorf("read acknowledgments: %w", mapErr(err))
		}
		a.History = hid.Int64
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read acknowledgments: %w", mapErr(err))
	}
	return out, nil
}

// Exists reports whether pbHome has a database file, without creating or opening one:
// readers that would find nothing in a new database (a dry run asking what has been
// acknowledged) look first and leave a home without one untouched.
func Exists(pbHome string) bool {
	_, err := os.Stat(filepath.Join(pbHome, stateDir, dbName))
	return err == nil
}
