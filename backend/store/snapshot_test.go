package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
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
	if len(all) != 5 {
		t.Fatalf("Snapshots(0) = %d snapshots, want 5", len(all))
	}
	if all[0].ID != ids[6] || all[4].ID != ids[0] {
		t.Errorf("Snapshots(0) ids = %d…%d, want newest first %d…%d", all[0].ID, all[4].ID, ids[6], ids[0])
	}
	if all[0].Hash != snapshot.Hash(plugins(2, "c")) {
		t.Errorf("computed hash = %q, want snapshot.Hash of the rows", all[0].Hash)
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	st := newTestStore(t)
	ctx := context.Background()
	at := time.Date(2026, 5, 4, 3, 2, 1, 0, time.UTC)
	want := snapshot.Snapshot{Time: at, Hash: "h-big", Plugins: plugins(25, "x")}
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
	if err := st.db.QueryRow(`SELECT count(*) FROM snapshot_plugins`).Scan(&rows); err != nil || rows != 2*SnapshotRetention {
		t.Errorf("plugin rows = %d, %v; want %d (pruned with their snapshots)", rows, err, 2*SnapshotRetention)
	}
}
