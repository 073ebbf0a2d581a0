package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// PutClientAnswer records answer (JSON) as what release version of client loads from a
// folder whose content digest is digest, asked at asked; an earlier answer for the same
// key is replaced.
func (s *Store) PutClientAnswer(ctx context.Context, client, version, digest string, answer []byte, asked time.Time) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO client_answers (client, version, digest, answer, asked) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (client, version, digest) DO UPDATE SET answer = excluded.answer, asked = excluded.asked`,
		client, version, digest, string(answer), asked.UTC().Format(time.RFC3339Nano))
	if err != nil {
		return fmt.Errorf("record a client's answer: %w", mapErr(err))
	}
	return nil
}

// ClientAnswer returns the recorded answer of release version of client about content
// digest and when it was asked; ok is false when there is none.
func (s *Store) ClientAnswer(ctx context.Context, client, version, digest string) (answer []byte, asked time.Time, ok bool, err error) {
	var a, at string
	err = s.db.QueryRowContext(ctx, `SELECT answer, asked FROM client_answers WHERE client = ? AND version = ? AND digest = ?`,
		client, version, digest).Scan(&a, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, time.Time{}, false, nil
	}
	if err != nil {
		return nil, time.Time{}, false, fmt.Errorf("read a client's answer: %w", mapErr(err))
	}
	asked, _ = time.Parse(time.RFC3339Nano, at)
	return []byte(a), asked, true, nil
}
