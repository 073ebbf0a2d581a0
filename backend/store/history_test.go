package store

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestHistoryRoundTrip(t *testing.T) {
	st := newTestStore(t)
	ctx := context.Background()
	at := time.Date(2026, 3, 1, 12, 30, 0, 123456789, time.FixedZone("CET", 3600))
	adds := []HistoryEntry{
		{Target: "agent:researcher", Before: nil, After: []string{"plugins/a"}, BeforeHash: "sha256:0", AfterHash: "sha256:1", Actor: "cli", Time: at},
		{Target: "template:review/researcher", Before: []string{"plugins/a"}, After: []string{"plugins/a", "/abs/b"}, Actor: "desktop"},
		{Target: "agent:researcher", Before: []string{"plugins/a"}, After: []string{"plugins/a", "plugins/mcp"},
			Acknowledged: []string{"mcp/local"}, Actor: "http"},
		{Target: "agent:writer", After: []string{}, Actor: "cli"},
	}
	ids := make([]int64, len(adds))
	for i, e := range adds {
		id, err := st.AddHistory(ctx, e)
		if err != nil {
			t.Fatalf("AddHistory(#%d) error = %v", i, err)
		}
		ids[i] = id
	}
	revert := HistoryEntry{Target: "agent:researcher", Before: adds[2].After, After: adds[2].Before, RevertOf: ids[2], Actor: "cli"}
	revertID, err := st.AddHistory(ctx, revert)
	if err != nil {
		t.Fatalf("AddHistory(revert) error = %v", err)
	}

	tests := []struct {
		target string
		limit  int
		want   []int64
	}{
		{"", 0, []int64{revertID, ids[3], ids[2], ids[1], ids[0]}},
		{"", 2, []int64{revertID, ids[3]}},
		{"", -1, []int64{revertID, ids[3], ids[2], ids[1], ids[0]}},
		{"agent:researcher", 0, []int64{revertID, ids[2], ids[0]}},
		{"agent:researcher", 1, []int64{revertID}},
		{"template:review/researcher", 10, []int64{ids[1]}},
		{"agent:nobody", 0, []int64{}},
	}
	for _, tt := range tests {
		got, err := st.History(ctx, tt.target, tt.limit)
		if err != nil {
			t.Fatalf("History(%q, %d) error = %v", tt.target, tt.limit, err)
		}
		gotIDs := []int64{}
		for _, e := range got {
			gotIDs = append(gotIDs, e.ID)
		}
		if !reflect.DeepEqual(gotIDs, tt.want) {
			t.Errorf("History(%q, %d) ids = %v, want %v", tt.target, tt.limit, gotIDs, tt.want)
		}
	}

	first, err := st.HistoryEntry(ctx, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	want := adds[0]
	want.ID, want.Time, want.Before, want.Acknowledged, want.Acks = ids[0], at.UTC(), []string{}, []string{}, []Ack{}
	want.Added, want.Removed = []string{"plugins/a"}, []string{} // worked out on reading
	if !first.Time.Equal(at) || first.Time.Location() != time.UTC {
		t.Errorf("HistoryEntry(%d).Time = %v, want %v in UTC", ids[0], first.Time, at)
	}
	if !reflect.DeepEqual(first, want) {
		t.Errorf("HistoryEntry(%d) = %+v, want %+v", ids[0], first, want)
	}
	got, err := st.HistoryEntry(ctx, revertID)
	if err != nil || got.RevertOf != ids[2] || !reflect.DeepEqual(got.Before, adds[2].After) {
		t.Errorf("HistoryEntry(revert) = %+v, %v; want RevertOf %d and Before %v", got, err, ids[2], adds[2].After)
	}
	if got.Time.IsZero() || time.Since(got.Time) > time.Minute {
		t.Errorf("HistoryEntry(revert).Time = %v, want now (AddHistory sets a zero Time)", got.Time)
	}
}

func TestHistoryNotFound(t *testing.T) {
	st := newTestStore(t)
	ctx := context.Background()
	if _, err := st.HistoryEntry(ctx, 42); !errors.Is(err, ErrNotFound) {
		t.Errorf("HistoryEntry(42) on an empty store: error = %v, want ErrNotFound", err)
	}
	_, err := st.AddHistory(ctx, HistoryEntry{Target: "agent:a", RevertOf: 42})
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("AddHistory(RevertOf: 42) error = %v, want ErrNotFound", err)
	}
	if _, err := st.AddHistory(ctx, HistoryEntry{}); err == nil || errors.Is(err, ErrNotFound) {
		t.Errorf("AddHistory(no target) error = %v, want a plain error", err)
	}
	if n := countHistory(t, st, ""); n != 0 {
		t.Errorf("after refused adds: %d entries, want 0", n)
	}
}

func TestHistoryJSON(t *testing.T) {
	st := newTestStore(t)
	ctx := context.Background()
	id, err := st.AddHistory(ctx, HistoryEntry{Target: "agent:a", Actor: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	stored, err := st.HistoryEntry(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		entry HistoryEntry
	}{
		{"as stored", stored},
		{"built with nil lists", HistoryEntry{ID: 1, Target: "agent:a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.entry)
			if err != nil {
				t.Fatal(err)
			}
			s := string(b)
			for _, want := range []string{`"before":[]`, `"after":[]`, `"acknowledged":[]`} {
				if !strings.Contains(s, want) {
					t.Errorf("json.Marshal(entry) = %s, want %s", s, want)
				}
			}
			if strings.Contains(s, "null") || strings.Contains(s, "revertOf") {
				t.Errorf("json.Marshal(entry) = %s, want no null and no revertOf", s)
			}
			var back HistoryEntry
			if err := json.Unmarshal(b, &back); err != nil || back.Target != "agent:a" {
				t.Errorf("json.Unmarshal(%s) = %+v, %v", s, back, err)
			}
		})
	}
	// Pointers and slices of entries use the same method.
	b, _ := json.Marshal([]*HistoryEntry{{Target: "agent:b"}})
	if !strings.Contains(string(b), `"after":[]`) {
		t.Errorf("json.Marshal([]*HistoryEntry) = %s, want after []", b)
	}
}

// TestHistoryUnset: "no pluginDirs member" survives the round trip, distinct from [].
func TestHistoryUnset(t *testing.T) {
	st := newTestStore(t)
	ctx := context.Background()
	id, err := st.AddHistory(ctx, HistoryEntry{Target: "template:t/a", BeforeUnset: true, After: []string{"plugins/x"}})
	if err != nil {
		t.Fatal(err)
	}
	e, err := st.HistoryEntry(ctx, id)
	if err != nil || !e.BeforeUnset || e.AfterUnset || len(e.Before) != 0 {
		t.Errorf("HistoryEntry = %+v, %v; want BeforeUnset only", e, err)
	}
}

// A files entry keeps each file's text, an absent side as null, and RevertedBy finds
// the entry that reverted it.
func TestHistoryFilesAndRevertedBy(t *testing.T) {
	st := newTestStore(t)
	ctx := context.Background()
	text := "{\"name\": \"coder\"}\n"
	id, err := st.AddHistory(ctx, HistoryEntry{Target: "agent:coder", Kind: KindFiles, Actor: "cli",
		Files: []FileChange{{Path: "agents/coder.json", After: &text}}})
	if err != nil {
		t.Fatal(err)
	}
	e, err := st.HistoryEntry(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Files) != 1 || e.Files[0].Path != "agents/coder.json" || e.Files[0].Before != nil || e.Files[0].After == nil || *e.Files[0].After != text {
		t.Fatalf("Files = %+v, want agents/coder.json from nothing to %q", e.Files, text)
	}
	b, _ := json.Marshal(e)
	if !strings.Contains(string(b), `"files":[{"path":"agents/coder.json","before":null,"after":`) {
		t.Errorf("JSON = %s, want the file with before null", b)
	}
	if by, err := st.RevertedBy(ctx, id); err != nil || by != 0 {
		t.Fatalf("RevertedBy before a revert = %d, %v; want 0", by, err)
	}
	rid, err := st.AddHistory(ctx, HistoryEntry{Target: "agent:coder", Kind: KindFiles, RevertOf: id, Actor: "cli",
		Files: []FileChange{{Path: "agents/coder.json", Before: &text}}})
	if err != nil {
		t.Fatal(err)
	}
	if by, err := st.RevertedBy(ctx, id); err != nil || by != rid {
		t.Errorf("RevertedBy = %d, %v; want %d", by, err, rid)
	}
}
