package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/snapshot"
)

func plugins(n int, version string) []snapshot.Plugin {
	ps := make([]snapshot.Plugin, n)
	for i := range ps {
		ps[i] = snapshot.Plugin{ID: fmt.Sprintf("p%d", i), Source: "home", Path: fmt.Sprintf("/h/plugins/p%d", i),
			ContentHash: "sha256:" + version, Valid: i%3 != 0, Errors: i % 3, Warnings: i % 2, Skills: i, Servers: i % 4}
	}
	return ps
}

func TestAddSnapshotStoresOnlyChanges(t *testing.T) {
	st := newTestStore(t)
	ctx := context.Background()
	steps := []struct {
		name       string
		sn         snapshot.Snapshot
		wantStored bool // false: the latest snapshot's id comes back instead
	}{
		{"first scan", snapshot.Snapshot{Hash: "h1", Plugins: plugins(3, "a")}, true},
		{"same hash", snapshot.Snapshot{Hash: "h1", Plugins: plugins(3, "a")}, false},
		{"changed hash", snapshot.Snapshot{Hash: "h2", Plugins: plugins(4, "b")}, true},
		{"back to the first hash", snapshot.Snapshot{Hash: "h1", Plugins: plugins(3, "a")}, true},
		{"empty catalog, hash computed", snapshot.Snapshot{}, true},
		{"empty again, hash computed", snapshot.Snapshot{Plugins: []snapshot.Plugin{}}, false},
		{"rows computed", snapshot.Snapshot{Plugins: plugins(2, "c")}, true},
		{"same rows computed", snapshot.Snapshot{Plugins: plugins(2, "c")}, false},
		// An earlier version stored the hash of the rows' JSON: the same rows hashed the
		// present way are the same snapshot, and other rows are not.
		{"earlier version's hash", snapshot.Snapshot{Hash: snapshot.JSONHash(plugins(2, "d")), Plugins: plugins(2, "d")}, true},
		{"same rows after the upgrade", snapshot.Snapshot{Plugins: plugins(2, "d")}, false},
		{"other rows after the upgrade", snapshot.Snapshot{Plugins: plugins(2, "e")}, true},
	}
	ids := make([]int64, len(steps))
	for i, s := range steps {
		id, stored, err := st.AddSnapshot(ctx, s.sn)
		if err != nil {
			t.Fatalf("%s: AddSnapshot error = %v", s.name, err)
		}
		ids[i] = id
		if stored != s.wantStored {
			t.Errorf("%s: AddSnapshot stored = %v, want %v", s.name, stored, s.wantStored)
		}
		if !s.wantStored && i > 0 && id != ids[i-1] {
			t.Errorf("%s: AddSnapshot id = %d, want the latest snapshot's %d", s.name, id, ids[i-1])
		}
	}
	all, err := st.Snapshots(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 7 {
		t.Fatalf("Snapshots(0) = %d snapshots, want 7", len(all))
	}
	if all[0].ID != ids[10] || all[6].ID != ids[0] {
		t.Errorf("Snapshots(0) ids = %d…%d, want newest first %d…%d", all[0].ID, all[6].ID, ids[10], ids[0])
	}
	if all[2].Hash != snapshot.Hash(plugins(2, "c")) {
		t.Errorf("computed hash = %q, want snapshot.Hash of the rows", all[2].Hash)
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	st := newTestStore(t)
	ctx := context.Background()
	at := time.Date(2026, 5, 4, 3, 2, 1, 0, time.UTC)
	want := snapshot.Snapshot{Time: at, Hash: "h-big", Plugins: plugins(25, "x"), Totals: &snapshot.Totals{Errors: 3, Warnings: 1}}
	want.Plugins = append(want.Plugins, snapshot.Plugin{ID: "p1", Source: "cursor-local", Path: "/c/p1"}) // a shadowed id
	id, _, err := st.AddSnapshot(ctx, want)
	if err != nil {
		t.Fatal(err)
	}
	emptyID, _, err := st.AddSnapshot(ctx, snapshot.Snapshot{Hash: "h-empty", Time: at.Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	want.ID = id

	got, err := st.Snapshot(ctx, id)
	if err != nil {
		t.Fatalf("Snapshot(%d) error = %v", id, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Snapshot(%d) = %+v\nwant %+v", id, got, want)
	}
	empty, err := st.Snapshot(ctx, emptyID)
	if err != nil || empty.Plugins == nil || len(empty.Plugins) != 0 {
		t.Errorf("Snapshot(empty) = %+v, %v; want Plugins []", empty, err)
	}
	b, _ := json.Marshal(got.Plugins[0])
	if s := string(b); !strings.Contains(s, `"contentHash":"sha256:x"`) || !strings.Contains(s, `"id":"p0"`) {
		t.Errorf("json.Marshal(plugin) = %s, want camelCase keys", s)
	}

	// the same rows again with other totals: no new snapshot, the newest keeps these totals
	same := snapshot.Snapshot{Time: at.Add(2 * time.Minute), Hash: "h-empty", Totals: &snapshot.Totals{Errors: 7, Warnings: 2}}
	if again, stored, err := st.AddSnapshot(ctx, same); err != nil || stored || again != emptyID {
		t.Fatalf("AddSnapshot(same rows) = %d %v %v", again, stored, err)
	}
	if e, _ := st.Snapshot(ctx, emptyID); e.Info().Errors != 7 || e.Info().Warnings != 2 {
		t.Errorf("the newest snapshot's totals = %+v, want 7 errors, 2 warnings", e.Totals)
	}
	if old, _ := st.Snapshot(ctx, id); old.Info().Errors != 3 {
		t.Errorf("an older snapshot's totals changed: %+v", old.Totals)
	}

	latest, err := st.Snapshots(ctx, 1)
	if err != nil || len(latest) != 1 || latest[0].ID != emptyID {
		t.Errorf("Snapshots(1) = %+v, %v; want only the newest (%d)", latest, err, emptyID)
	}
	if _, err := st.Snapshot(ctx, 9999); !errors.Is(err, ErrNotFound) {
		t.Errorf("Snapshot(9999) error = %v, want ErrNotFound", err)
	}
}

func TestSnapshotRetention(t *testing.T) {
	st := newTestStore(t)
	ctx := context.Background()
	var last int64
	for i := range SnapshotRetention + 5 {
		id, stored, err := st.AddSnapshot(ctx, snapshot.Snapshot{Plugins: plugins(2, fmt.Sprint(i))})
		if err != nil || !stored {
			t.Fatalf("AddSnapshot #%d = %v, %v", i, stored, err)
		}
		last = id
	}
	all, err := st.Snapshots(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != SnapshotRetention || all[0].ID != last {
		t.Errorf("after %d adds: %d snapshots, newest %d; want %d, newest %d", SnapshotRetention+5, len(all), all[0].ID, SnapshotRetention, last)
	}
	var rows int
	if err := st.db.QueryRow(`SELECT count(*) FROM snapshot_rows`).Scan(&rows); err != nil || rows != 2*SnapshotRetention {
		t.Errorf("plugin rows = %d, %v; want %d (pruned with their snapshots)", rows, err, 2*SnapshotRetention)
	}
}

// A scan that changed one plugin of a thousand writes one row (migration 0008), and every
// snapshot still reads back whole.
func TestSnapshotStoresChangedRowsOnly(t *testing.T) {
	st := newTestStore(t)
	ctx := context.Background()
	first := plugins(1000, "a")
	second := slices.Clone(first)
	second[500].ContentHash = "sha256:b"
	ids := make([]int64, 2)
	for i, rows := range [][]snapshot.Plugin{first, second} {
		id, stored, err := st.AddSnapshot(ctx, snapshot.Snapshot{Plugins: rows})
		if err != nil || !stored {
			t.Fatalf("AddSnapshot #%d = %v, %v", i, stored, err)
		}
		ids[i] = id
	}
	if n := countRows(t, st); n != 1001 {
		t.Errorf("rows stored = %d, want 1001 (1,000 and the one that changed)", n)
	}
	for i, want := range [][]snapshot.Plugin{first, second} {
		got, err := st.Snapshot(ctx, ids[i])
		if err != nil || !reflect.DeepEqual(got.Plugins, want) {
			t.Errorf("Snapshot(%d): %v; rows equal: %v", ids[i], err, reflect.DeepEqual(got.Plugins, want))
		}
	}
}

// Snapshots that grow, shrink, change and come back read back as they were added, with
// two Stores on one file taking turns (each must then read the other's newest rows from
// the file, not from its memory), across pruning.
func TestSnapshotChangesRoundTrip(t *testing.T) {
	home := t.TempDir()
	a, b := openTestStore(t, home), openTestStore(t, home)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	rows := plugins(20, "0")
	added := map[int64][]snapshot.Plugin{}
	var order []int64
	for i := range SnapshotRetention + 40 {
		switch rng.IntN(4) {
		case 0: // a plugin changes
			if len(rows) > 0 {
				rows[rng.IntN(len(rows))].ContentHash = fmt.Sprint("sha256:", i)
			}
		case 1: // one appears
			rows = append(rows, snapshot.Plugin{ID: fmt.Sprint("new", i), Source: "home", Valid: true, Skills: i})
		case 2: // one goes
			if len(rows) > 0 {
				j := rng.IntN(len(rows))
				rows = slices.Delete(rows, j, j+1)
			}
		case 3: // several change at once
			for j := range rows {
				if rng.IntN(3) == 0 {
					rows[j].Warnings++
				}
			}
		}
		st := a
		if rng.IntN(2) == 0 {
			st = b
		}
		id, stored, err := st.AddSnapshot(ctx, snapshot.Snapshot{Plugins: slices.Clone(rows)})
		if err != nil {
			t.Fatalf("AddSnapshot #%d: %v", i, err)
		}
		if stored {
			added[id] = slices.Clone(rows)
			order = append(order, id)
		}
	}
	all, err := a.Snapshots(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != min(len(order), SnapshotRetention) {
		t.Fatalf("%d snapshots kept, want %d", len(all), min(len(order), SnapshotRetention))
	}
	for _, sn := range all {
		want := added[sn.ID]
		if want == nil {
			want = []snapshot.Plugin{}
		}
		if !reflect.DeepEqual(sn.Plugins, want) {
			t.Fatalf("snapshot %d read back as %d rows, added with %d (or different rows)", sn.ID, len(sn.Plugins), len(want))
		}
	}
	// nothing outlives the snapshots kept: every row belongs to one of them
	var orphans int
	if err := a.db.QueryRow(`SELECT count(*) FROM snapshot_rows WHERE last_id < (SELECT min(id) FROM snapshots)`).Scan(&orphans); err != nil || orphans != 0 {
		t.Errorf("rows of pruned snapshots = %d, %v; want 0", orphans, err)
	}
}

// A database of schema 7 keeps its snapshots through migration 0008, and the next
// snapshot is stored as changes from the newest of them.
func TestMigrateSnapshotsToChanges(t *testing.T) {
	home := t.TempDir()
	path := dbPath(home)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	old := schemaAt(t, 7)
	old += "INSERT INTO snapshots (id, time, hash) VALUES (1, '2026-01-01T00:00:00.000000000Z', 'h1'), (2, '2026-01-02T00:00:00.000000000Z', 'h2');\n"
	for _, r := range []string{"(1, 0, 'a', 1)", "(1, 1, 'b', 1)", "(2, 0, 'a', 2)", "(2, 1, 'b', 1)"} {
		old += "INSERT INTO snapshot_plugins (snapshot_id, seq, plugin_id, content_hash, skills, source, path, valid, errors, warnings, servers) " +
			"SELECT column1, column2, column3, 'sha256:x', column4, 'home', '/p', 1, 0, 0, 0 FROM (VALUES " + r + ");\n"
	}
	rawDB(t, path, old)
	st := openTestStore(t, home)
	ctx := context.Background()
	for id, skills := range map[int64][]int{1: {1, 1}, 2: {2, 1}} {
		sn, err := st.Snapshot(ctx, id)
		if err != nil || len(sn.Plugins) != 2 || sn.Plugins[0].Skills != skills[0] || sn.Plugins[1].Skills != skills[1] || sn.Plugins[1].ID != "b" {
			t.Errorf("migrated snapshot %d = %+v, %v", id, sn, err)
		}
	}
	next := []snapshot.Plugin{
		{ID: "a", Source: "home", Path: "/p", ContentHash: "sha256:x", Valid: true, Skills: 2},
		{ID: "b", Source: "home", Path: "/p", ContentHash: "sha256:y", Valid: true, Skills: 1},
	}
	id, stored, err := st.AddSnapshot(ctx, snapshot.Snapshot{Plugins: next})
	if err != nil || !stored {
		t.Fatalf("AddSnapshot after migrating = %v, %v", stored, err)
	}
	if got, err := st.Snapshot(ctx, id); err != nil || !reflect.DeepEqual(got.Plugins, next) {
		t.Errorf("Snapshot(%d) = %+v, %v; want %+v", id, got.Plugins, err, next)
	}
	if n := countRows(t, st); n != 5 {
		t.Errorf("rows = %d, want 5 (4 migrated, 1 changed)", n)
	}
}

func countRows(t *testing.T, st *Store) int {
	t.Helper()
	var n int
	if err := st.db.QueryRow(`SELECT count(*) FROM snapshot_rows`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
