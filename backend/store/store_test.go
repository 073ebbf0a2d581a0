package store

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
)

func TestOpenFreshDatabase(t *testing.T) {
	home := t.TempDir()
	st := openTestStore(t, home)

	if got, want := st.Path(), dbPath(home); got != want {
		t.Errorf("Path() = %q, want %q", got, want)
	}
	if got, want := pragma[int](t, st, "user_version"), schemaVersion(); got != want {
		t.Errorf("user_version = %d, want %d (the number of migrations)", got, want)
	}
	if want := 11; schemaVersion() != want {
		t.Errorf("schemaVersion() = %d, want %d (0001_history, 0002_snapshots, 0003_history_unset, 0004_acknowledgments, 0005_activity, 0006_activity_tools, 0007_mcp_health, 0008_snapshot_rows, 0009_client_answers, 0010_history_files, 0011_snapshot_totals)", schemaVersion(), want)
	}
	for pragmaName, want := range map[string]string{"journal_mode": "wal", "foreign_keys": "1", "busy_timeout": "5000"} {
		if got := pragma[string](t, st, pragmaName); got != want {
			t.Errorf("PRAGMA %s = %q, want %q", pragmaName, got, want)
		}
	}
	for _, table := range []string{"history", "snapshots", "snapshot_rows", "acknowledgments", "activity"} {
		var n int
		err := st.db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, table).Scan(&n)
		if err != nil || n != 1 {
			t.Errorf("table %s: count = %d, err = %v; want 1, nil", table, n, err)
		}
	}
}

func TestReopenIsIdempotent(t *testing.T) {
	home := t.TempDir()
	st := openTestStore(t, home)
	id, err := st.AddHistory(context.Background(), HistoryEntry{Target: "agent:a", After: []string{"plugins/x"}})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()

	for i := range 3 {
		st := openTestStore(t, home)
		if got := pragma[int](t, st, "user_version"); got != schemaVersion() {
			t.Errorf("reopen %d: user_version = %d, want %d", i, got, schemaVersion())
		}
		if e, err := st.HistoryEntry(context.Background(), id); err != nil || e.Target != "agent:a" {
			t.Errorf("reopen %d: HistoryEntry(%d) = %+v, %v; want the entry kept", i, id, e, err)
		}
		st.Close()
	}
}

func TestConcurrentFirstOpen(t *testing.T) {
	// Processes starting at once on a new home, or on an empty file made by hand,
	// each create or convert and migrate the file; every one must end with a working
	// store and no write may be lost.
	for _, emptyFile := range []bool{false, true} {
		for round := range 10 {
			home := t.TempDir()
			if emptyFile {
				if err := os.MkdirAll(filepath.Join(home, "state"), 0o700); err != nil {
					t.Fatal(err)
				}
				writeFile(t, dbPath(home), nil)
			}
			var wg sync.WaitGroup
			for i := range 4 {
				wg.Go(func() {
					st, _, err := Open(context.Background(), home)
					if err != nil {
						t.Errorf("empty file %v, round %d: Open #%d error = %v", emptyFile, round, i, err)
						return
					}
					defer st.Close()
					if err := addMany(context.Background(), st, "agent:a", 10, 1); err != nil {
						t.Errorf("empty file %v, round %d: store #%d: %v", emptyFile, round, i, err)
					}
				})
			}
			wg.Wait()
			st := openTestStore(t, home)
			if got := pragma[int](t, st, "user_version"); got != schemaVersion() {
				t.Errorf("empty file %v, round %d: user_version = %d, want %d", emptyFile, round, got, schemaVersion())
			}
			if n := countHistory(t, st, ""); n != 40 {
				t.Errorf("empty file %v, round %d: %d entries, want 40", emptyFile, round, n)
			}
			st.Close()
		}
	}
}

func TestFileModes(t *testing.T) {
	t.Run("state folder missing is created 0700", func(t *testing.T) {
		home := t.TempDir()
		st := openTestStore(t, home)
		if got := mode(t, filepath.Join(home, "state")); got != 0o700 {
			t.Errorf("state folder mode = %v, want 0700", got)
		}
		if got := mode(t, st.Path()); got != 0o600 {
			t.Errorf("database file mode = %v, want 0600", got)
		}
		if got := mode(t, st.Path()+"-wal"); got != 0o600 {
			t.Errorf("-wal file mode = %v, want 0600", got)
		}
	})
	t.Run("wider modes are narrowed", func(t *testing.T) {
		home := t.TempDir()
		openTestStore(t, home).Close()
		if err := os.Chmod(filepath.Join(home, "state"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dbPath(home), 0o644); err != nil {
			t.Fatal(err)
		}
		openTestStore(t, home)
		if got := mode(t, filepath.Join(home, "state")); got != 0o700 {
			t.Errorf("state folder mode = %v, want 0700", got)
		}
		if got := mode(t, dbPath(home)); got != 0o600 {
			t.Errorf("database file mode = %v, want 0600", got)
		}
	})
}

func TestPathWithURICharacters(t *testing.T) {
	home := filepath.Join(t.TempDir(), "odd?name#with%25 chars")
	st := openTestStore(t, home)
	if _, err := st.AddHistory(context.Background(), HistoryEntry{Target: "agent:a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dbPath(home)); err != nil {
		t.Errorf("database not at %s: %v", dbPath(home), err)
	}
}

func TestOpenErrors(t *testing.T) {
	if _, _, err := Open(context.Background(), ""); err == nil {
		t.Error(`Open(ctx, "") error = nil, want an error`)
	}
	// A state "folder" that is a file cannot be used, and is not a reason to
	// move anything aside.
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "state"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if st, _, err := Open(context.Background(), home); err == nil {
		st.Close()
		t.Error("Open with a file named state: error = nil, want an error")
	}
	// A nil context must not panic.
	var nilCtx context.Context
	if st, _, err := Open(nilCtx, t.TempDir()); err == nil {
		st.Close()
	}
}

func TestWithTx(t *testing.T) {
	st := newTestStore(t)
	ctx := context.Background()
	insert := func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO history (time, target) VALUES ('2026-01-01T00:00:00.000000000Z', 'agent:tx')`)
		return err
	}
	boom := errors.New("boom")
	if err := st.WithTx(ctx, func(tx *sql.Tx) error {
		if err := insert(tx); err != nil {
			return err
		}
		return boom
	}); !errors.Is(err, boom) {
		t.Errorf("WithTx(fn returning boom) = %v, want boom", err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("WithTx(fn that panics) did not re-panic")
			}
		}()
		_ = st.WithTx(ctx, func(tx *sql.Tx) error {
			_ = insert(tx)
			panic("fn panics")
		})
	}()
	if n := countHistory(t, st, "agent:tx"); n != 0 {
		t.Errorf("after two rolled-back transactions: %d entries, want 0", n)
	}
	if err := st.WithTx(ctx, insert); err != nil {
		t.Fatalf("WithTx(insert) = %v", err)
	}
	if n := countHistory(t, st, "agent:tx"); n != 1 {
		t.Errorf("after a committed transaction: %d entries, want 1", n)
	}
}

func TestLoadMigrations(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	tests := []struct {
		name    string
		files   fstest.MapFS
		want    int
		wantErr string
	}{
		{"in order", fstest.MapFS{"m/0002_b.sql": file("B"), "m/0001_a.sql": file("A"), "m/README": file("")}, 2, ""},
		{"gap", fstest.MapFS{"m/0001_a.sql": file("A"), "m/0003_c.sql": file("C")}, 0, "expected number 2"},
		{"repeat", fstest.MapFS{"m/0001_a.sql": file("A"), "m/0001_b.sql": file("B")}, 0, "expected number 2"},
		{"no number", fstest.MapFS{"m/first.sql": file("A")}, 0, "NNNN_name.sql"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms, err := loadMigrations(tt.files, "m")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("loadMigrations() error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(ms) != tt.want || ms[0].sql != "A" {
				t.Errorf("loadMigrations() = %+v, %v; want %d in order", ms, err, tt.want)
			}
		})
	}
	if _, err := migrations(); err != nil {
		t.Errorf("embedded migrations: %v", err)
	}
}
