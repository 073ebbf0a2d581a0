package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// openTestStore opens the store of the Plugboard home pbHome, fails the test on an
// error or a warning, and closes the store when the test ends.
func openTestStore(t testing.TB, pbHome string) *Store {
	t.Helper()
	st, warnings, err := Open(context.Background(), pbHome)
	if err != nil {
		t.Fatalf("Open(%s) error = %v", pbHome, err)
	}
	if len(warnings) > 0 {
		t.Fatalf("Open(%s) warnings = %q, want none", pbHome, warnings)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// newTestStore opens a store in a fresh temporary Plugboard home.
func newTestStore(t testing.TB) *Store {
	t.Helper()
	return openTestStore(t, t.TempDir())
}

// dbPath is where Open puts the database of pbHome.
func dbPath(pbHome string) string {
	return filepath.Join(pbHome, "state", "plugboard.db")
}

// pragma reads one integer or text pragma from the store's database.
func pragma[T any](t testing.TB, st *Store, name string) T {
	t.Helper()
	var v T
	if err := st.db.QueryRowContext(context.Background(), "PRAGMA "+name).Scan(&v); err != nil {
		t.Fatalf("PRAGMA %s: %v", name, err)
	}
	return v
}

// countHistory is the number of history entries for target ("" for all).
func countHistory(t testing.TB, st *Store, target string) int {
	t.Helper()
	entries, err := st.History(context.Background(), target, 0)
	if err != nil {
		t.Fatalf("History(%q) error = %v", target, err)
	}
	return len(entries)
}

func mode(t testing.TB, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}
