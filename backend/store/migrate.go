package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one numbered schema step.
type migration struct {
	version int    // the number in the file name; user_version after the step
	name    string // the file name, for error messages
	sql     string
}

// migrations returns the embedded steps in order. Numbers must run 1, 2, 3, … with no
// gap or repeat; a build with a bad set fails every Open (and the package's tests).
var migrations = sync.OnceValues(func() ([]migration, error) {
	return loadMigrations(migrationFiles, "migrations")
})

func loadMigrations(fsys fs.FS, dir string) ([]migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	var ms []migration
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %q: name must be NNNN_name.sql", e.Name())
		}
		body, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("read migration %q: %w", e.Name(), err)
		}
		ms = append(ms, migration{version: v, name: e.Name(), sql: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %q: expected number %d (numbers run from 1 without gaps)", m.name, i+1)
		}
	}
	return ms, nil
}

// schemaVersion is the version this build migrates to: the number of migrations.
func schemaVersion() int {
	ms, _ := migrations()
	return len(ms)
}

func userVersion(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int, error) {
	var v int
	if err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}

// migrate brings db up to schemaVersion. Each step runs in its own IMMEDIATE
// transaction that re-reads user_version first, so another process migrating the same
// file at the same moment makes this one skip the steps it already applied.
func migrate(ctx context.Context, db *sql.DB) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	current, err := userVersion(ctx, db)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if m.version <= current {
			continue
		}
		err := withTx(ctx, db, func(tx *sql.Tx) error {
			v, err := userVersion(ctx, tx)
			if err != nil {
				return err
			}
			if v >= m.version {
				return nil
			}
			if v != m.version-1 {
				return fmt.Errorf("schema version is %d, cannot apply %s", v, m.name)
			}
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return err
			}
			// PRAGMA takes no bound parameters; the version is an int from this build.
			_, err = tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.version))
			return err
		})
		if err != nil {
			return fmt.Errorf("apply migration %s: %w", m.name, err)
		}
	}
	return nil
}
