package store

import (
	"context"
	"testing"
	"time"
)

// TestMCPHealthKeyedByDigest: a check is found again by plugin, server and digest, a newer
// check of the same digest replaces it, and another digest (the config changed) has none.
func TestMCPHealthKeyedByDigest(t *testing.T) {
	ctx := context.Background()
	st := openTestStore(t, t.TempDir())
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := st.PutMCPHealth(ctx, "review", "lint", "d1", []byte(`{"ok":false}`), at); err != nil {
		t.Fatal(err)
	}
	if err := st.PutMCPHealth(ctx, "review", "lint", "d1", []byte(`{"ok":true}`), at.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	res, checked, ok, err := st.MCPHealth(ctx, "review", "lint", "d1")
	if err != nil || !ok || string(res) != `{"ok":true}` || !checked.Equal(at.Add(time.Minute)) {
		t.Errorf("MCPHealth = %s, %v, %v, %v", res, checked, ok, err)
	}
	if _, _, ok, err := st.MCPHealth(ctx, "review", "lint", "d2"); ok || err != nil {
		t.Errorf("another digest: ok %v, err %v", ok, err)
	}
}
