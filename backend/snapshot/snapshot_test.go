package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
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

// jsonHash is Hash as earlier versions computed it: the SHA-256 of json.Marshal of the rows.
func jsonHash(t testing.TB, rows []Plugin) string {
	if rows == nil {
		rows = []Plugin{}
	}
	b, err := json.Marshal(rows)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// The hash streamed row by row is the hash of the rows' JSON, so hashes stored by earlier
// versions still compare equal; the strings cover every escape encoding/json makes.
func TestHashIsOfTheJSON(t *testing.T) {
	odd := []string{"", "plain", `q"uote\back`, "<html>&", "tab\there\nline\rcr", "\x00\x01\x1f\x7f",
		"é中文😀", "\u2028\u2029", "bad\xffutf8\xc3", strings.Repeat("long/path/", 600)}
	var rows []Plugin
	for i, s := range odd {
		rows = append(rows, Plugin{ID: s, Source: "user", Path: "/p/" + s, ContentHash: "sha256:" + s,
			Valid: i%2 == 0, Errors: i, Warnings: -i, Skills: i * 1000, Servers: 1 << 40})
	}
	for _, set := range [][]Plugin{nil, {}, rows[:1], rows} {
		if got, want := Hash(set), jsonHash(t, set); got != want {
			t.Errorf("Hash(%d rows) = %s, want the hash of the JSON %s", len(set), got, want)
		}
	}
}

// appendString quotes any string the way encoding/json does.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a", "<>&", "\u2028", "\xff", "\"\\\n\r\t\x00", "日本"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendString(nil, s); string(got) != string(want) {
			t.Errorf("appendString(%q) = %s, want %s", s, got, want)
		}
	})
}
