package store

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/snapshot"
)

var garbage = bytes.Repeat([]byte("this is not a SQLite database \x00\xff\x13\x37 "), 300)

// rawDB runs statements on path through the driver directly, as another program or a
// newer build of Plugboard would.
func rawDB(t *testing.T, path string, stmts string) {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(stmts); err != nil {
		t.Fatalf("raw %q: %v", stmts, err)
	}
}

// schemaAt is the SQL of a database as version n of the schema left it: migrations 1 to
// n, then user_version n.
func schemaAt(t *testing.T, n int) string {
	t.Helper()
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, m := range ms[:n] {
		b.WriteString(m.sql + "\n")
	}
	fmt.Fprintf(&b, "PRAGMA user_version = %d;\n", n)
	return b.String()
}

func rawUserVersion(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v int
	if err := db.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		t.Fatalf("user_version of %s: %v", path, err)
	}
	return v
}

func TestDamagedDatabaseIsSetAside(t *testing.T) {
	var truncated []byte // what the "truncated" case left in place
	tests := []struct {
		name        string
		prepare     func(t *testing.T, path string)
		asideSuffix string // the moved file check inspects: the database or a sidecar
		wantWarning string
		check       func(t *testing.T, aside string)
	}{{
		name:        "garbage bytes",
		prepare:     func(t *testing.T, path string) { writeFile(t, path, garbage) },
		wantWarning: "is not a SQLite database",
		check:       func(t *testing.T, aside string) { sameBytes(t, aside, garbage) },
	}, {
		name: "truncated to half",
		prepare: func(t *testing.T, path string) {
			st, _, err := Open(context.Background(), filepath.Dir(filepath.Dir(path)))
			if err != nil {
				t.Fatal(err)
			}
			for range 300 {
				if _, err := st.AddHistory(context.Background(), HistoryEntry{Target: "agent:old", After: []string{"plugins/a", "plugins/b"}}); err != nil {
					t.Fatal(err)
				}
			}
			st.Close()
			whole, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			truncated = whole[:len(whole)/2]
			writeFile(t, path, truncated)
		},
		wantWarning: "is damaged",
		check:       func(t *testing.T, aside string) { sameBytes(t, aside, truncated) },
	}, {
		name:        "schema version from a newer build",
		prepare:     func(t *testing.T, path string) { rawDB(t, path, "CREATE TABLE future (x); PRAGMA user_version = 999") },
		wantWarning: "newer version of Plugboard (its schema version is 999; this version knows versions up to 11)",
		check: func(t *testing.T, aside string) {
			if v := rawUserVersion(t, aside); v != 999 {
				t.Errorf("moved database user_version = %d, want 999 (not migrated down)", v)
			}
		},
	}, {
		name:        "another program's tables at version 0",
		prepare:     func(t *testing.T, path string) { rawDB(t, path, "CREATE TABLE history (something_else)") },
		wantWarning: "holds tables this version of Plugboard does not expect",
		check: func(t *testing.T, aside string) {
			if v := rawUserVersion(t, aside); v != 0 {
				t.Errorf("moved database user_version = %d, want 0", v)
			}
		},
	}, {
		name: "journal files without their database",
		prepare: func(t *testing.T, path string) {
			writeFile(t, path+"-wal", garbage)
			writeFile(t, path+"-shm", garbage[:100])
		},
		asideSuffix: "-wal",
		wantWarning: "was missing but its journal files (plugboard.db-wal, plugboard.db-shm) were still there",
		check:       func(t *testing.T, aside string) { sameBytes(t, aside, garbage) },
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			path := dbPath(home)
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			tt.prepare(t, path)

			st, warnings, err := Open(context.Background(), home)
			if err != nil {
				t.Fatalf("Open() error = %v, want a fresh database", err)
			}
			defer st.Close()
			aside := onlyAside(t, path)
			t.Logf("warnings: %q", warnings)
			if len(warnings) != 1 || !strings.Contains(warnings[0], aside) || !strings.Contains(warnings[0], tt.wantWarning) {
				t.Errorf("Open() warnings = %q, want one naming %s and saying %q", warnings, aside, tt.wantWarning)
			}
			if _, err := os.Stat(aside + tt.asideSuffix); err != nil {
				t.Fatalf("moved file: %v", err)
			}
			tt.check(t, aside+tt.asideSuffix)

			// The new database works and is a clean, current one.
			if got := pragma[int](t, st, "user_version"); got != schemaVersion() {
				t.Errorf("new database user_version = %d, want %d", got, schemaVersion())
			}
			if _, err := st.AddHistory(context.Background(), HistoryEntry{Target: "agent:new"}); err != nil {
				t.Fatalf("AddHistory on the new database: %v", err)
			}
			if n := countHistory(t, st, ""); n != 1 {
				t.Errorf("new database has %d entries, want 1", n)
			}
			if got := mode(t, path); got != 0o600 {
				t.Errorf("new database mode = %v, want 0600", got)
			}
			openTestStore(t, home) // and reopens without a warning
		})
	}
}

func TestSetAsideTwiceInOneSecond(t *testing.T) {
	home := t.TempDir()
	path := dbPath(home)
	var asides []string
	for i := range 3 {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		writeFile(t, path, garbage)
		st, warnings, err := Open(context.Background(), home)
		if err != nil || len(warnings) != 1 {
			t.Fatalf("Open #%d = %q, %v; want one warning", i, warnings, err)
		}
		st.Close()
		os.Remove(path + "-wal")
		os.Remove(path + "-shm")
		os.Remove(path)
	}
	asides, _ = filepath.Glob(path + ".corrupt-*")
	if len(asides) != 3 {
		t.Errorf("moved files = %q, want 3 distinct ones", asides)
	}
	for _, a := range asides {
		sameBytes(t, a, garbage)
	}
}

func TestMissingDatabaseWarns(t *testing.T) {
	home := t.TempDir()
	openTestStore(t, home).Close() // the first run says nothing
	for _, suffix := range moveOrder {
		os.Remove(dbPath(home) + suffix)
	}
	st, warnings, err := Open(context.Background(), home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if len(warnings) != 1 || !strings.Contains(warnings[0], "was missing; a new, empty one was created") {
		t.Errorf("Open() after the database was deleted: warnings = %q, want one saying it was missing", warnings)
	}
}

// onlyAside returns the one path.corrupt-* name (without a sidecar suffix).
func onlyAside(t *testing.T, path string) string {
	t.Helper()
	matches, err := filepath.Glob(path + ".corrupt-*")
	if err != nil {
		t.Fatal(err)
	}
	var bases []string
	for _, m := range matches {
		for _, s := range sidecars {
			m = strings.TrimSuffix(m, s)
		}
		if !slices.Contains(bases, m) {
			bases = append(bases, m)
		}
	}
	if len(bases) != 1 {
		t.Fatalf("moved files %q, want one set", matches)
	}
	return bases[0]
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func sameBytes(t *testing.T, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s: %d bytes, %v; want the original %d bytes", path, len(got), err, len(want))
	}
}

func TestTransientErrorsSetNothingAside(t *testing.T) {
	home := t.TempDir()
	st := openTestStore(t, home)
	if _, err := st.AddHistory(context.Background(), HistoryEntry{Target: "agent:kept"}); err != nil {
		t.Fatal(err)
	}
	st.Close()

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if st, warnings, err := Open(ctx, home); err == nil || len(warnings) != 0 {
		if st != nil {
			st.Close()
		}
		t.Fatalf("Open(cancelled context) = %q, %v; want an error and no warning", warnings, err)
	}
	if matches, _ := filepath.Glob(dbPath(home) + ".corrupt-*"); len(matches) != 0 {
		t.Errorf("Open(cancelled context) moved %q aside", matches)
	}
	if n := countHistory(t, openTestStore(t, home), "agent:kept"); n != 1 {
		t.Errorf("after a cancelled Open: %d entries, want the 1 kept", n)
	}
}

// damageTable overwrites the root page of table in the database at path (closed, its
// journal checkpointed) with garbage, as a disk error there would leave it.
func damageTable(t *testing.T, path, table string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	var root, size int64
	err = db.QueryRow("SELECT rootpage FROM sqlite_schema WHERE type = 'table' AND name = ?", table).Scan(&root)
	if err == nil {
		err = db.QueryRow("PRAGMA page_size").Scan(&size)
	}
	db.Close()
	if err != nil {
		t.Fatalf("root page of %s: %v", table, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(garbage[:size], (root-1)*size); err != nil {
		t.Fatal(err)
	}
}

// An Open given parts checks their tables only: damage elsewhere leaves the file in
// place for an Open that reads it, damage in them sets the file aside. A whole Open
// finds damage anywhere.
func TestOpenChecksTheTablesOfItsParts(t *testing.T) {
	tests := []struct {
		damaged string
		parts   []Part
		older   bool // the file's schema is one version behind, so Open migrates it
		aside   bool
	}{
		{damaged: "activity", parts: []Part{PartAcks}, aside: false},
		{damaged: "activity", parts: []Part{PartHistory, PartMCPHealth}, aside: false},
		{damaged: "activity", parts: []Part{PartActivity}, aside: true},
		{damaged: "activity", parts: nil, aside: true},
		{damaged: "acknowledgments", parts: []Part{PartAcks}, aside: true},
		{damaged: "acknowledgments", parts: []Part{PartHistory}, aside: true},
		{damaged: "acknowledgments", parts: []Part{PartActivity}, aside: false},
		{damaged: "history", parts: []Part{PartHistory}, aside: true},
		{damaged: "snapshot_rows", parts: []Part{PartSnapshots}, aside: true},
		{damaged: "snapshot_rows", parts: []Part{PartAcks}, aside: false},
		{damaged: "activity", parts: []Part{PartAcks}, older: true, aside: true}, // checked whole before migrating
		{damaged: "activity", parts: []Part{PartRunActivity}, aside: false},      // read through the run's index
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%v/older=%v", tt.damaged, tt.parts, tt.older), func(t *testing.T) {
			ctx := context.Background()
			home := t.TempDir()
			st := openTestStore(t, home)
			if _, err := st.AddHistory(ctx, HistoryEntry{Target: "agent:coder", Kind: KindAck,
				Acks: []Ack{{Plugin: "review", Server: "lint", Digest: "sha256:1"}}}); err != nil {
				t.Fatal(err)
			}
			recs := make([]Activity, 500) // several pages, so the root is an interior page
			for i := range recs {
				recs[i] = rec(fmt.Sprintf("k%d", i), "kit:brief", HowModel)
				recs[i].Run = "run-1"
			}
			if _, err := st.AddActivity(ctx, recs...); err != nil {
				t.Fatal(err)
			}
			if _, _, err := st.AddSnapshot(ctx, snapshot.Snapshot{Plugins: plugins(3, "1")}); err != nil {
				t.Fatal(err)
			}
			st.Close()
			damageTable(t, dbPath(home), tt.damaged)
			if tt.older {
				rawDB(t, dbPath(home), fmt.Sprintf("PRAGMA user_version = %d", schemaVersion()-1))
			}

			st, warnings, err := Open(ctx, home, tt.parts...)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer st.Close()
			matches, _ := filepath.Glob(dbPath(home) + ".corrupt-*")
			if got := len(matches) > 0; got != tt.aside {
				t.Fatalf("set aside = %v (warnings %q), want %v", got, warnings, tt.aside)
			}
			if tt.aside {
				if len(warnings) != 1 || !strings.Contains(warnings[0], "is damaged") {
					t.Errorf("warnings = %q, want one saying the database is damaged", warnings)
				}
				return
			}
			if len(warnings) != 0 {
				t.Errorf("warnings = %q, want none", warnings)
			}
			for _, p := range tt.parts { // what the parts hold still reads
				switch p {
				case PartAcks, PartHistory:
					if acks, err := st.Acknowledgments(ctx, "agent:coder"); err != nil || len(acks) != 1 {
						t.Errorf("Acknowledgments = %v, %v; want the one recorded", acks, err)
					}
				case PartRunActivity: // unchecked, the damage fails the read instead of passing unseen
					if recs, err := st.RunActivity(ctx, "run-1"); err == nil {
						t.Errorf("RunActivity on a damaged table = %d records, no error", len(recs))
					}
				}
			}
		})
	}
}
