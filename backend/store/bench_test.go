package store

import (
	"context"
	"testing"
)

// BenchmarkAddHistory measures one recorded save: a single-row insert in its own
// transaction, as the CLI and the app make after every assignment save.
func BenchmarkAddHistory(b *testing.B) {
	st := newTestStore(b)
	ctx := context.Background()
	e := HistoryEntry{
		Target:       "agent:researcher",
		Before:       []string{"plugins/a", "plugins/b"},
		After:        []string{"plugins/a", "plugins/b", "plugins/c"},
		BeforeHash:   "sha256:0000000000000000000000000000000000000000000000000000000000000000",
		AfterHash:    "sha256:1111111111111111111111111111111111111111111111111111111111111111",
		Acknowledged: []string{"c/local"},
		Actor:        "desktop",
	}
	for b.Loop() {
		if _, err := st.AddHistory(ctx, e); err != nil {
			b.Fatal(err)
		}
	}
}
