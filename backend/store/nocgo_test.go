package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// withoutSQLite makes Open behave, until the test ends, as in a build with CGO_ENABLED=0
// (where driver_nocgo.go is compiled instead of driver_cgo.go). No test here runs in
// parallel, so the switch is seen by this test only.
func withoutSQLite(t *testing.T) {
	sqliteBuiltIn = false
	t.Cleanup(func() { sqliteBuiltIn = cgoBuilt })
}

// Without cgo, Open says why there is no database and how to get one, and touches
// nothing: no state folder is made in a new home, and an existing database is neither
// opened nor set aside as damaged.
func TestOpenWithoutCgo(t *testing.T) {
	ctx := context.Background()
	fresh := t.TempDir()
	used := t.TempDir()
	openTestStore(t, used).Close()
	before, err := os.ReadDir(filepath.Join(used, stateDir))
	if err != nil {
		t.Fatal(err)
	}

	withoutSQLite(t)
	for _, home := range []string{fresh, used} {
		st, warnings, err := Open(ctx, home)
		if st != nil || len(warnings) > 0 || !errors.Is(err, ErrNoCgo) {
			t.Fatalf("Open(%s) without cgo = %v, %q, %v; want ErrNoCgo", home, st, warnings, err)
		}
		for _, want := range []string{"built without cgo (CGO_ENABLED=0)", "no SQLite", "go-sqlite3",
			"build plugboard with cgo (CGO_ENABLED=1"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Open error = %q, want it to say %q", err, want)
			}
		}
	}
	if entries, _ := os.ReadDir(fresh); len(entries) > 0 {
		t.Errorf("Open without cgo made %s in a new home", entries[0].Name())
	}
	after, err := os.ReadDir(filepath.Join(used, stateDir))
	if err != nil {
		t.Fatal(err)
	}
	names := func(es []os.DirEntry) []string {
		var n []string
		for _, e := range es {
			n = append(n, e.Name())
		}
		return n
	}
	if !slices.Equal(names(before), names(after)) {
		t.Errorf("Open without cgo changed the state folder: %q, was %q", names(after), names(before))
	}
	if !Exists(used) {
		t.Error("Open without cgo moved the database away")
	}
}
