package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
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
	if !strings.HasPrefix(h, HashPrefix) || len(h) != len(HashPrefix)+64 {
		t.Errorf("Hash = %q, want %s and 64 hex digits", h, HashPrefix)
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
	// One row's JSON split differently between two rows must not collide: each row is
	// hashed on its own.
	if Hash([]Plugin{{ID: "ab"}, {ID: ""}}) == Hash([]Plugin{{ID: "a"}, {ID: "b"}}) {
		t.Error("rows with the same characters in other fields give the same hash")
	}
}

// rowsHash is Hash written out: the SHA-256 of each row's json.Marshal, then of the digests.
func rowsHash(t testing.TB, rows []Plugin) string {
	all := sha256.New()
	for _, r := range rows {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		all.Write(sum[:])
	}
	return HashPrefix + hex.EncodeToString(all.Sum(nil))
}

// jsonHash is the hash earlier versions stored: the SHA-256 of json.Marshal of the rows.
func jsonHash(t testing.TB, rows []Plugin) string {
	if rows == nil {
		rows = []Plugin{}
	}
	b, err := json.Marshal(rows)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return JSONHashPrefix + hex.EncodeToString(sum[:])
}

// oddRows covers every escape encoding/json makes in a string.
func oddRows() []Plugin {
	odd := []string{"", "plain", `q"uote\back`, "<html>&", "tab\there\nline\rcr", "\x00\x01\x1f\x7f",
		"é中文😀", "\u2028\u2029", "bad\xffutf8\xc3", strings.Repeat("long/path/", 600)}
	var rows []Plugin
	for i, s := range odd {
		rows = append(rows, Plugin{ID: s, Source: "user", Path: "/p/" + s, ContentHash: "sha256:" + s,
			Valid: i%2 == 0, Errors: i, Warnings: -i, Skills: i * 1000, Servers: 1 << 40})
	}
	return rows
}

// Each row is hashed as its JSON, and JSONHash is the hash of the rows' JSON, so hashes
// stored by earlier versions still compare equal.
func TestHashIsOfTheJSON(t *testing.T) {
	rows := oddRows()
	for _, set := range [][]Plugin{nil, {}, rows[:1], rows} {
		if got, want := Hash(set), rowsHash(t, set); got != want {
			t.Errorf("Hash(%d rows) = %s, want the hash of the rows' JSON %s", len(set), got, want)
		}
		if got, want := JSONHash(set), jsonHash(t, set); got != want {
			t.Errorf("JSONHash(%d rows) = %s, want the hash of the JSON %s", len(set), got, want)
		}
	}
}

// A Hasher fed a sequence of snapshots (rows edited, added, removed, moved) gives what
// Hash gives each of them from scratch, and re-hashes only the rows that changed.
func TestHasherRemembers(t *testing.T) {
	base := oddRows()
	edit := func(rows []Plugin, f func([]Plugin) []Plugin) []Plugin { return f(slices.Clone(rows)) }
	steps := [][]Plugin{
		base,
		edit(base, func(r []Plugin) []Plugin { r[3].Errors++; return r }),
		edit(base, func(r []Plugin) []Plugin { r[3].Errors++; return append(r, Plugin{ID: "new", Path: "/new"}) }),
		edit(base, func(r []Plugin) []Plugin { return r[2:] }),
		edit(base, func(r []Plugin) []Plugin { r[0], r[1] = r[1], r[0]; return r }),
		nil,
		base,
	}
	var h Hasher
	for i, rows := range steps {
		if got, want := h.Hash(rows), Hash(rows); got != want {
			t.Errorf("step %d: Hasher = %s, Hash = %s", i, got, want)
		}
	}
	// Rows the Hasher has seen at their positions are not hashed again.
	h.Hash(base)
	h.Hash(edit(base, func(r []Plugin) []Plugin { r[5].Skills++; return r }))
	if h.hashed != 1 {
		t.Errorf("after one edit the Hasher hashed %d rows, want 1", h.hashed)
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
