package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestAcknowledgmentsRecordedWithTheirEntry(t *testing.T) {
	st := newTestStore(t)
	ctx := context.Background()
	lint := Ack{Plugin: "review", Server: "lint", Type: "stdio", Digest: "sha256:aaa"}
	docs := Ack{Plugin: "review", Server: "docs", Type: "sse", Digest: "sha256:bbb"}
	save, err := st.AddHistory(ctx, HistoryEntry{Target: "agent:coder", After: []string{"plugins/review"},
		Acknowledged: []string{"review/lint", "review/docs"}, Acks: []Ack{lint, docs}, Actor: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	// The same digest again (another entry) keeps its first acknowledgment; a new digest
	// of the same server is a second row; another target is its own.
	lint2 := lint
	lint2.Digest = "sha256:ccc"
	explicit, err := st.AddHistory(ctx, HistoryEntry{Target: "agent:coder", Kind: KindAck, Acks: []Ack{lint, lint2}, Actor: "http"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddHistory(ctx, HistoryEntry{Target: "agent:other", Kind: KindAck, Acks: []Ack{docs}, Actor: "desktop"}); err != nil {
		t.Fatal(err)
	}
	got, err := st.Acknowledgments(ctx, "agent:coder")
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		server, digest, actor string
		history               int64
	}
	var rows []row
	for _, a := range got {
		if a.Target != "agent:coder" || a.Plugin != "review" || a.Time == "" {
			t.Errorf("Acknowledgments row %+v", a)
		}
		rows = append(rows, row{a.Server, a.Digest, a.Actor, a.History})
	}
	want := []row{{"docs", "sha256:bbb", "cli", save}, {"lint", "sha256:aaa", "cli", save}, {"lint", "sha256:ccc", "http", explicit}}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("Acknowledgments(agent:coder) = %+v, want %+v", rows, want)
	}
	if all, _ := st.Acknowledgments(ctx, ""); len(all) != 4 {
		t.Errorf("Acknowledgments(\"\") = %d rows, want 4", len(all))
	}
	if none, err := st.Acknowledgments(ctx, "agent:nobody"); err != nil || none == nil || len(none) != 0 {
		t.Errorf("Acknowledgments(agent:nobody) = %v, %v; want [] and no error", none, err)
	}
	// The entries show what they acknowledged, digests included.
	e, err := st.HistoryEntry(ctx, explicit)
	if err != nil || e.Kind != KindAck || !reflect.DeepEqual(e.Acks, []Ack{lint, lint2}) {
		t.Errorf("HistoryEntry(explicit) = %+v, %v", e, err)
	}
	if e, _ := st.HistoryEntry(ctx, save); e.Kind != "" || len(e.Acks) != 2 {
		t.Errorf("HistoryEntry(save) = %+v", e)
	}
}

func TestAcknowledgmentNeedsItsFacts(t *testing.T) {
	st := newTestStore(t)
	ctx := context.Background()
	_, err := st.AddHistory(ctx, HistoryEntry{Target: "agent:coder", Acks: []Ack{{Plugin: "review", Server: "lint"}}})
	if err == nil {
		t.Fatal("AddHistory with an Ack without a digest: no error")
	}
	// A failing acknowledgment leaves no history entry behind (one transaction).
	_, err = st.AddHistory(ctx, HistoryEntry{Target: "agent:coder", RevertOf: 99, Acks: []Ack{{Plugin: "p", Server: "s", Digest: "d"}}})
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("AddHistory(RevertOf 99) error = %v, want ErrNotFound", err)
	}
	if n := countHistory(t, st, ""); n != 0 {
		t.Errorf("%d history entries after failed adds, want 0", n)
	}
	if got, _ := st.Acknowledgments(ctx, ""); len(got) != 0 {
		t.Errorf("acknowledgments after failed adds: %+v", got)
	}
}

// TestMigrateToAcknowledgments: a database of schema 3 with history is migrated; its
// entries read with no acks and no kind, and nothing counts as acknowledged (the old
// history names servers but not what they ran).
func TestMigrateToAcknowledgments(t *testing.T) {
	home := t.TempDir()
	path := dbPath(home)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	rawDB(t, path, schemaAt(t, 3)+`
		INSERT INTO history (time, target, after_dirs, acknowledged, actor) VALUES ('2026-01-01T00:00:00.000000000Z', 'agent:coder', '["plugins/review"]', '["review/lint"]', 'cli');`)
	st := openTestStore(t, home)
	if v := pragma[int](t, st, "user_version"); v != schemaVersion() {
		t.Fatalf("user_version after Open = %d, want %d", v, schemaVersion())
	}
	entries, err := st.History(context.Background(), "agent:coder", 0)
	if err != nil || len(entries) != 1 {
		t.Fatalf("History = %+v, %v", entries, err)
	}
	if e := entries[0]; !reflect.DeepEqual(e.Acknowledged, []string{"review/lint"}) || len(e.Acks) != 0 || e.Acks == nil || e.Kind != "" {
		t.Errorf("migrated entry = %+v", e)
	}
	if got, _ := st.Acknowledgments(context.Background(), ""); len(got) != 0 {
		t.Errorf("acknowledgments after migrating: %+v, want none", got)
	}
}
