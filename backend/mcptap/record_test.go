package mcptap

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/store"
)

var testInfo = Info{Backend: "claude", Fingerprint: "sha256:0123", Plugin: "kit", Server: "tools"}

// stored opens the store of pbHome (importing the spool) and returns its records.
func stored(t *testing.T, pbHome string) []store.Activity {
	t.Helper()
	st, _, err := store.Open(context.Background(), pbHome)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	recs, err := st.Activity(context.Background(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestRecorderWritesOneRowPerCall: every call is one tool row with the server's names
// from Info, the target and run it was given, and a key of its own, also when the
// client reuses an id; a row is written into an existing database, or spooled and
// imported when there is none yet.
func TestRecorderWritesOneRowPerCall(t *testing.T) {
	for _, withDB := range []bool{true, false} {
		pb := t.TempDir()
		if withDB {
			stored(t, pb) // makes the database
		}
		info := testInfo
		info.Home = pb
		rec := NewRecorder(info, "agent:coder", "run-1", "test", nil)
		at := time.Now().Add(-time.Minute).UTC().Truncate(time.Millisecond)
		rec.Record(Call{ID: "n:1", Tool: "search", At: at, MS: 12})
		rec.Record(Call{ID: "n:1", Tool: "search", At: at, MS: 30, Failed: true})
		rec.Record(Call{ID: "s:x", Tool: "fetch", At: at, MS: 0})
		rec.Close(time.Minute)
		_, err := os.Lstat(filepath.Join(pb, "state", "activity.spool.jsonl"))
		if spooled := err == nil; spooled == withDB {
			t.Errorf("database %v: spool there %v", withDB, spooled)
		}
		recs := stored(t, pb)
		if len(recs) != 3 {
			t.Fatalf("database %v: %d rows %+v, want 3", withDB, len(recs), recs)
		}
		keys := map[string]bool{}
		for i, r := range recs {
			keys[r.Key] = true
			if !r.IsTool() || r.Server != "tools" || r.Plugin != "kit" || r.Backend != "claude" || r.Fingerprint != "sha256:0123" ||
				r.Target != "agent:coder" || r.Run != "run-1" || r.How != store.HowModel || !r.Time.Equal(at) || !strings.HasPrefix(r.Key, "mcp:") {
				t.Errorf("database %v: row %d = %+v", withDB, i, r)
			}
		}
		if len(keys) != 3 {
			t.Errorf("database %v: keys %v, want three different ones", withDB, keys)
		}
		got := []string{}
		for _, r := range recs {
			got = append(got, r.Tool+" "+map[bool]string{true: "failed", false: "ok"}[r.Failed])
		}
		if strings.Join(got, ",") != "search ok,search failed,fetch ok" {
			t.Errorf("database %v: rows %v, want search ok, search failed, fetch ok", withDB, got)
		}
	}
}

// TestRecorderNeverWaits: while the store cannot take a record (the spool locked by
// another process, and no database), Record still returns at once: the queue fills and
// the calls beyond it are dropped, said once on the log; once the lock is gone, the
// queued ones are written.
func TestRecorderNeverWaits(t *testing.T) {
	pb := t.TempDir()
	spool := filepath.Join(pb, "state", "activity.spool.jsonl")
	if err := os.MkdirAll(filepath.Dir(spool), 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(spool, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	info := testInfo
	info.Home = pb
	log := &strings.Builder{}
	rec := NewRecorder(info, "agent:coder", "", "plugboard mcp-stdio", log)
	const n = 3 * queueSize
	for i := range n {
		rec.Record(Call{ID: Key(int64(i)), Tool: "t", At: time.Now()})
	}
	dropped := rec.dropped.Load()
	if dropped < n-queueSize-1 {
		t.Errorf("%d of %d calls dropped while the store was locked; at most %d fit the queue and one the writer", dropped, n, queueSize)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_UN); err != nil {
		t.Fatal(err)
	}
	rec.Close(time.Minute)
	if got := len(stored(t, pb)); got != n-int(dropped) {
		t.Errorf("%d rows, want the %d calls that were not dropped", got, n-int(dropped))
	}
	if s := log.String(); strings.Count(s, "faster than they can be recorded") != 1 || !strings.Contains(s, "were not counted") ||
		!strings.HasPrefix(s, "plugboard mcp-stdio: ") {
		t.Errorf("log = %q, want one line for the first drop and the count at Close", s)
	}
}
