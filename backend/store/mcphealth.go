package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// PutMCPHealth records the result (JSON) of checking the MCP server of plugin whose
// acknowledgment digest is digest, checked at checked, replacing an earlier check of the
// same server and digest.
func (s *Store) PutMCPHealth(ctx context.Context, plugin, server, digest string, result []byte, checked time.Time) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO mcp_health (plugin, server, digest, result, checked) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (plugin, server, digest) DO UPDATE SET result = excluded.result, checked = excluded.checked`,
		plugin, server, digest, string(result), checked.UTC().Format(time.RFC3339Nano))
	if err != nil {
		return fmt.Errorf("record MCP health: %w", mapErr(err))
	}
	return nil
}

// MCPHealth returns the last recorded check of the server as it is now (its digest) and
// when it ran; ok is false when there is none.
func (s *Store) MCPHealth(ctx context.Context, plugin, server, digest string) (result []byte, checked time.Time, ok bool, err error) {
	var res, at string
	err = s.db.QueryRowContext(ctx, `SELECT result, checked FROM mcp_health WHERE plugin = ? AND server = ? AND digest = ?`,
		plugin, server, digest).Scan(&res, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, time.Time{}, false, nil
	}
	if err != nil {
		return nil, time.Time{}, false, fmt.Errorf("read MCP health: %w", mapErr(err))
	}
	checked, _ = time.Parse(time.RFC3339Nano, at)
	return []byte(res), checked, true, nil
}
