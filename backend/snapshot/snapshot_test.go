package snapshot

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestJSON(t *testing.T) {
	if b, _ := json.Marshal(Snapshot{}); !strings.Contains(string(b), `"plugins":[]`) {
		t.Errorf("json.Marshal(Snapshot{}) = %s, want plugins []", b)
	}
	b, _ := json.Marshal(Plugin{ID: "p0", ContentHash: "sha256:x"})
	if s := string(b); !strings.Contains(s, `"contentHash":"sha256:x"`) || !strings.Contains(s, `"id":"p0"`) {
		t.Errorf("json.Marshal(plugin) = %s, want camelCase keys", s)
	}
}

func TestInfo(t *testing.T) {
	at := time.Date(2026, 5, 4, 3, 2, 1, 0, time.UTC)
	sn := Snapshot{ID: 7, Time: at, Hash: "h", Plugins: []Plugin{
		{ID: "a", Valid: true, Warnings: 1},
		{ID: "b", Errors: 2, Warnings: 3},
		{ID: "c", Valid: true},
	}}
	want := Info{ID: 7, Time: at, Hash: "h", Plugins: 3, Valid: 2, Errors: 2, Warnings: 4}
	if got := sn.Info(); got != want {
		t.Errorf("Info() = %+v, want %+v", got, want)
	}
}

func TestHash(t *testing.T) {
	rows := []Plugin{{ID: "a", Path: "/a"}, {ID: "b", Path: "/b"}}
	h := Hash(rows)
	if !strings.HasPrefix(h, "sha256:") || len(h) != len("sha256:")+64 {
		t.Errorf("Hash = %q, want sha256: and 64 hex digits", h)
	}
	if Hash([]Plugin{{ID: "a", Path: "/a"}, {ID: "b", Path: "/b"}}) != h {
		t.Error("equal rows give different hashes")
	}
	if Hash([]Plugin{rows[1], rows[0]}) == h {
		t.Error("rows in another order give the same hash")
	}
	if Hash(nil) != Hash([]Plugin{}) {
		t.Error("nil and no rows give different hashes")
	}
}
