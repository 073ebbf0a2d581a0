package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// rec is a complete activity record for tests.
func rec(key, skill, how string) Activity {
	return Activity{Key: key, Time: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), Target: "agent:coder", Backend: "claude",
		Fingerprint: "sha256:abc", Session: "0b7c2f1e-session", Skill: skill, Plugin: "kit", Version: "1.0.0", Hash: "sha256:def", How: how, Kind: KindSkill}
}

func countActivity(t testing.TB, st *Store) int {
	t.Helper()
	all, err := st.Activity(context.Background(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	return len(all)
}

func TestActivityAddAndRead(t *testing.T) {
	st := newTestStore(t)
	ctx := context.Background()
	a, b := rec("k1", "kit:brief", HowModel), rec("k2", "kit:brief", HowUser)
	b.Time = a.Time.Add(time.Hour)
	if n, err := st.AddActivity(ctx, a, b); err != nil || n != 2 {
		t.Fatalf("AddActivity(a, b) = %d, %v; want 2, nil", n, err)
	}
	// The same key again is the same invocation: kept once.
	if n, err := st.AddActivity(ctx, a); err != nil || n != 0 {
		t.Errorf("AddActivity(a) again = %d, %v; want 0, nil", n, err)
	}
	got, err := st.Activity(ctx, time.Time{})
	if err != nil || len(got) != 2 || got[0] != a || got[1] != b {
		t.Fatalf("Activity(all) = %+v, %v; want [a b]", got, err)
	}
	if got, _ := st.Activity(ctx, a.Time.Add(time.Minute)); len(got) != 1 || got[0].Key != "k2" {
		t.Errorf("Activity(since after a) = %+v, want [b]", got)
	}
}

func TestActivityIsNamesOnly(t *testing.T) {
	st := newTestStore(t)
	for name, a := range map[string]Activity{
		"no key":       {Skill: "s", How: HowModel},
		"no skill":     {Key: "k", How: HowModel},
		"unknown how":  {Key: "k", Skill: "s", How: "tool"},
		"a prompt":     {Key: "k", Skill: "s\nplease summarise my secret notes", How: HowUser},
		"a long value": {Key: "k", Skill: "s", Plugin: strings.Repeat("x", maxName+1), How: HowUser},
		"unknown kind": {Key: "k", Skill: "s", How: HowModel, Kind: "prompt"},
		"tool no tool": {Key: "k", Kind: KindTool, Server: "db", How: HowModel},
		"tool by user": {Key: "k", Kind: KindTool, Server: "db", Tool: "query", How: HowUser},
		"tool arg":     {Key: "k", Kind: KindTool, Server: "db", Tool: "query\n{\"sql\": \"select\"}", How: HowModel},
		"negative ms":  {Key: "k", Kind: KindTool, Server: "db", Tool: "query", How: HowModel, MS: -1},
	} {
		if _, err := st.AddActivity(context.Background(), a); err == nil {
			t.Errorf("AddActivity(%s) = nil error, want a refusal", name)
		}
		if _, err := RecordActivity(context.Background(), t.TempDir(), a); err == nil {
			t.Errorf("RecordActivity(%s) = nil error, want a refusal", name)
		}
	}
	if n := countActivity(t, st); n != 0 {
		t.Errorf("%d rows after refusals", n)
	}
}

// Tool calls and a try's run are stored beside skill records and read back as written;
// RunActivity finds a run's records only, and PruneActivity drops what is older than
// the retention.
func TestActivityToolsRunsAndPrune(t *testing.T) {
	st := newTestStore(t)
	ctx := context.Background()
	old := rec("k0", "kit:brief", HowModel)
	old.Time = old.Time.Add(-40 * 24 * time.Hour)
	call := Activity{Key: "t1", Time: old.Time.Add(39 * 24 * time.Hour), Target: "agent:coder", Backend: "claude",
		Kind: KindTool, Server: "db", Tool: "query", MS: 42, Failed: true, How: HowModel, Run: "run-1"}
	mine := rec("k1", "kit:brief", HowModel)
	mine.Run = "run-1"
	other := rec("k2", "kit:brief", HowUser)
	other.Run = "run-2"
	if _, err := st.AddActivity(ctx, old, call, mine, other); err != nil {
		t.Fatal(err)
	}
	got, err := st.RunActivity(ctx, "run-1")
	if err != nil || len(got) != 2 || got[0] != call || got[1] != mine {
		t.Fatalf("RunActivity(run-1) = %+v, %v; want [call mine]", got, err)
	}
	if got, err := st.RunActivity(ctx, ""); err != nil || len(got) != 0 {
		t.Errorf("RunActivity(\"\") = %+v, %v; want none (the records of launches that are not tries)", got, err)
	}
	n, err := st.PruneActivity(ctx, old.Time.Add(time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("PruneActivity = %d, %v; want 1", n, err)
	}
	if n := countActivity(t, st); n != 3 {
		t.Errorf("%d rows after pruning one of four", n)
	}
}

func TestRecordActivityWritesTheDatabase(t *testing.T) {
	home := t.TempDir()
	openTestStore(t, home).Close()
	spooled, err := RecordActivity(context.Background(), home, rec("k1", "kit:brief", HowModel))
	if err != nil || spooled {
		t.Fatalf("RecordActivity = spooled %v, %v; want written", spooled, err)
	}
	if _, err := os.Lstat(filepath.Join(home, "state", spoolName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a spool exists after a direct write: %v", err)
	}
	if n := countActivity(t, openTestStore(t, home)); n != 1 {
		t.Errorf("%d rows, want 1", n)
	}
}

// lockDatabase holds the write lock of home's database (BEGIN EXCLUSIVE in a connection
// of its own, as another process would) until the returned function is called.
func lockDatabase(t *testing.T, home string) (release func()) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+dbPath(home)+"?_busy_timeout=0")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
				t.Error(err)
			}
			conn.Close()
			db.Close()
		})
	}
	t.Cleanup(release)
	return release
}

func spoolLines(t *testing.T, home string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, "state", spoolName))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// A database locked by another connection loses nothing: the record waits in the spool,
// the hook returns at once, and the next Open imports it once.
func TestRecordActivitySpoolsWhenLocked(t *testing.T) {
	home := t.TempDir()
	openTestStore(t, home).Close()
	release := lockDatabase(t, home)
	start := time.Now()
	spooled, err := RecordActivity(context.Background(), home, rec("k1", "kit:brief", HowModel))
	if err != nil || !spooled {
		t.Fatalf("RecordActivity on a locked database = spooled %v, %v; want spooled", spooled, err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("RecordActivity waited %v on a locked database", d)
	}
	lines := spoolLines(t, home)
	if len(lines) != 1 {
		t.Fatalf("spool = %q, want one line", lines)
	}
	var a Activity
	if err := json.Unmarshal([]byte(lines[0]), &a); err != nil || a.Key != "k1" || a.Skill != "kit:brief" {
		t.Errorf("spooled line %q: %+v, %v", lines[0], a, err)
	}
	release()
	for i := range 2 {
		if n := countActivity(t, openTestStore(t, home)); n != 1 {
			t.Errorf("open %d after the lock: %d rows, want 1", i, n)
		}
	}
	if lines := spoolLines(t, home); lines != nil {
		t.Errorf("spool after the import = %q, want none", lines)
	}
}

// Before there is any database, or while it has a schema without the activity table, a
// record is spooled, and the Open that creates or migrates the file imports it (with no
// warning about a missing database: there never was one).
func TestRecordActivityBeforeTheDatabase(t *testing.T) {
	t.Run("no database", func(t *testing.T) {
		home := t.TempDir()
		if spooled, err := RecordActivity(context.Background(), home, rec("k1", "kit:brief", HowUser)); err != nil || !spooled {
			t.Fatalf("RecordActivity in a new home = spooled %v, %v; want spooled", spooled, err)
		}
		if got := mode(t, filepath.Join(home, "state", spoolName)); got != 0o600 {
			t.Errorf("spool mode %v, want 0600", got)
		}
		if n := countActivity(t, openTestStore(t, home)); n != 1 {
			t.Errorf("%d rows, want 1", n)
		}
	})
	t.Run("schema 4", func(t *testing.T) {
		home := t.TempDir()
		if err := os.MkdirAll(filepath.Join(home, "state"), 0o700); err != nil {
			t.Fatal(err)
		}
		rawDB(t, dbPath(home), "PRAGMA journal_mode = WAL;\n"+schemaAt(t, 4))
		if spooled, err := RecordActivity(context.Background(), home, rec("k1", "kit:brief", HowModel)); err != nil || !spooled {
			t.Fatalf("RecordActivity on schema 4 = spooled %v, %v; want spooled", spooled, err)
		}
		st := openTestStore(t, home)
		if v := pragma[int](t, st, "user_version"); v != schemaVersion() {
			t.Errorf("user_version = %d, want %d", v, schemaVersion())
		}
		if n := countActivity(t, st); n != 1 {
			t.Errorf("%d rows, want 1", n)
		}
	})
}

// An import that died after its commit left its claimed file behind: the next import
// adds nothing twice. A torn line (a writer killed mid-write) is skipped with a warning,
// and the lines around it are imported.
func TestImportSpoolExactlyOnce(t *testing.T) {
	home := t.TempDir()
	st := openTestStore(t, home)
	ctx := context.Background()
	if _, err := st.AddActivity(ctx, rec("k1", "kit:brief", HowModel)); err != nil {
		t.Fatal(err)
	}
	line := func(a Activity) string { b, _ := json.Marshal(a); return string(b) + "\n" }
	claimed := filepath.Join(home, "state", claimedPrefix+"20261201T100000.000000000Z-1")
	writeFile(t, claimed, []byte(line(rec("k1", "kit:brief", HowModel))+`{"key":"k9","ski`+"\n"+line(rec("k2", "kit:other", HowUser))))
	warnings, err := st.ImportSpool(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "1 lines of the skill activity spool could not be read") {
		t.Errorf("ImportSpool warnings = %q, want one about the torn line", warnings)
	}
	if n := countActivity(t, st); n != 2 {
		t.Errorf("%d rows after importing a file with k1 (recorded) and k2, want 2", n)
	}
	if _, err := os.Lstat(claimed); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the imported file is still there: %v", err)
	}
}

// Writers appending while imports run: every record ends in the database exactly once.
func TestSpoolWritersDuringImports(t *testing.T) {
	home := t.TempDir()
	st := openTestStore(t, home)
	ctx := context.Background()
	dir := filepath.Join(home, "state")
	const writers, each = 8, 40
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if err := appendSpool(dir, rec(fmt.Sprintf("w%d-%d", w, i), "kit:brief", HowModel)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	done := make(chan struct{})
	var imports sync.WaitGroup
	imports.Go(func() {
		for {
			if _, err := st.ImportSpool(ctx); err != nil {
				t.Error(err)
			}
			select {
			case <-done:
				return
			default:
			}
		}
	})
	wg.Wait()
	close(done)
	imports.Wait()
	if _, err := st.ImportSpool(ctx); err != nil {
		t.Fatal(err)
	}
	if n := countActivity(t, st); n != writers*each {
		t.Errorf("%d rows, want %d", n, writers*each)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), spoolName) {
			t.Errorf("%s left after the last import", e.Name())
		}
	}
}

// A Writer keeps its connection between records, and a database file that was replaced
// since (an Open set a damaged one aside and made a new one) gets the next record, not
// the file the connection was opened on.
func TestWriterFollowsAReplacedDatabase(t *testing.T) {
	home := t.TempDir()
	openTestStore(t, home).Close()
	w := NewWriter(home)
	defer w.Close()
	ctx := context.Background()
	for _, k := range []string{"k1", "k2"} {
		if spooled, err := w.Record(ctx, rec(k, "kit:brief", HowModel)); err != nil || spooled {
			t.Fatalf("Record(%s) = spooled %v, %v; want written", k, spooled, err)
		}
	}
	aside := dbPath(home) + ".aside"
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Rename(dbPath(home)+suffix, aside+suffix); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	fresh, _, err := Open(ctx, home) // a new, empty database where the old one was (and a warning saying so)
	if err != nil {
		t.Fatal(err)
	}
	fresh.Close()
	if spooled, err := w.Record(ctx, rec("k3", "kit:brief", HowModel)); err != nil || spooled {
		t.Fatalf("Record(k3) = spooled %v, %v; want written", spooled, err)
	}
	st := openTestStore(t, home)
	defer st.Close()
	if got, _ := st.Activity(ctx, time.Time{}); len(got) != 1 || got[0].Key != "k3" {
		t.Errorf("the new database holds %+v, want k3 alone", got)
	}
}
