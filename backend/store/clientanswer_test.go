package store

import (
	"context"
	"testing"
	"time"
)

// An answer is found again by client, version and digest; a newer answer replaces it;
// another release or another content has none.
func TestClientAnswerKeyedByReleaseAndContent(t *testing.T) {
	ctx := context.Background()
	st := openTestStore(t, t.TempDir())
	at := time.Date(2026, 12, 5, 3, 4, 5, 0, time.UTC)
	if err := st.PutClientAnswer(ctx, "claude", "2.1.328", "d1", []byte(`{"loads":false}`), at); err != nil {
		t.Fatal(err)
	}
	if err := st.PutClientAnswer(ctx, "claude", "2.1.328", "d1", []byte(`{"loads":true}`), at.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	a, asked, ok, err := st.ClientAnswer(ctx, "claude", "2.1.328", "d1")
	if err != nil || !ok || string(a) != `{"loads":true}` || !asked.Equal(at.Add(time.Minute)) {
		t.Errorf("ClientAnswer = %s, %v, %v, %v", a, asked, ok, err)
	}
	for _, k := range [][3]string{{"claude", "2.1.197", "d1"}, {"claude", "2.1.328", "d2"}, {"codex", "2.1.328", "d1"}} {
		if _, _, ok, err := st.ClientAnswer(ctx, k[0], k[1], k[2]); ok || err != nil {
			t.Errorf("%v: ok %v, err %v", k, ok, err)
		}
	}
}
