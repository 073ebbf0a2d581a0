package activity

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/store"
)

// serverFixture is a Plugboard home with a database and a projection whose index is
// testIndex (its home pointed at pb), and a recorder serving that launch.
func serverFixture(t testing.TB) (*Server, string) {
	t.Helper()
	pb := t.TempDir()
	st, _, err := store.Open(context.Background(), pb)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	projection := filepath.Join(pb, "runtime", "claude", "fp")
	ix := *testIndex
	ix.Home = pb
	b, _ := json.Marshal(ix)
	if err := os.MkdirAll(projection, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(projection, runtime.ActivityIndexFile), b, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := ServeActivity(&runtime.Plan{Target: "agent:coder", Projection: projection}, "/elsewhere", t.TempDir(), "run-7")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, pb
}

func post(t testing.TB, s *Server, path, token, body string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.URL+path, strings.NewReader(body))
	req.Header.Set(runtime.ActivityTokenHeader, token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// The recorder a launcher hosts takes Claude's hooks and PI's events with its token, and
// stores what activity record would, in the index's home, with the launch's target and
// run; without the token, and for input that reports no invocation, it stores nothing.
func TestServerRecords(t *testing.T) {
	s, pb := serverFixture(t)
	for _, c := range []struct {
		path, token, body string
		want              int
	}{
		{"/claude", s.Token, skillInput("alpha:summarize", "alpha:summarize"), http.StatusNoContent},
		{"/claude", s.Token, skillInput("alpha:summarize", "alpha:summarize"), http.StatusNoContent}, // the same call again
		{"/pi", s.Token, `{"event":"command","skill":"summarize","session":"s-1","call":"c-1"}`, http.StatusNoContent},
		{"/claude", "wrong", skillInput("beta:translate", "beta:translate"), http.StatusForbidden},
		{"/claude", "", skillInput("beta:translate", "beta:translate"), http.StatusForbidden},
		{"/claude", s.Token, submit, http.StatusNoContent}, // the prompt itself: not an invocation
		{"/claude", s.Token, "not json", http.StatusNoContent},
		// Over maxHookInput: answered, not read on, not recorded.
		{"/claude", s.Token, strings.Replace(skillInput("beta:translate", "beta:translate"), `"toolu_1"`, `"toolu_big"`, 1) +
			strings.Repeat(" ", maxHookInput), http.StatusNoContent},
		{"/nope", s.Token, skillInput("beta:translate", "beta:translate"), http.StatusNotFound},
	} {
		if got := post(t, s, c.path, c.token, c.body); got != c.want {
			t.Errorf("POST %s (token %q) = %d, want %d", c.path, c.token, got, c.want)
		}
	}
	if res, err := http.Get(s.URL + "/claude"); err != nil || res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /claude = %v, %v; want 405", res, err)
	} else {
		res.Body.Close()
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	st, _, err := store.Open(context.Background(), pb)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	recs, _ := st.Activity(context.Background(), time.Time{})
	if len(recs) != 2 {
		t.Fatalf("stored %+v, want the Skill call and the PI command", recs)
	}
	c, p := recs[0], recs[1]
	if c.Skill != "alpha:summarize" || c.Plugin != "alpha" || c.Hash != "sha256:aaa" || c.Target != "agent:coder" || c.Run != "run-7" ||
		c.Backend != "claude" || c.Fingerprint != "sha256:fp" || c.How != store.HowModel {
		t.Errorf("the Skill call is stored as %+v", c)
	}
	if p.Skill != "summarize" || p.Backend != runtime.PI || p.How != store.HowUser || p.Target != "agent:coder" {
		t.Errorf("the PI command is stored as %+v", p)
	}
	b, _ := os.ReadFile(filepath.Join(pb, "state", "plugboard.db"))
	if strings.Contains(string(b), "SECRET") {
		t.Error("the database holds an argument of the hook")
	}
}

// BenchmarkActivityRecordHTTP is the cost of one skill use recorded by the recorder a
// launch hosts: Claude's HTTP hook POSTs the hook input and waits for the answer, which
// comes once the row is in the database.
func BenchmarkActivityRecordHTTP(b *testing.B) {
	s, _ := serverFixture(b)
	client := &http.Client{}
	b.ResetTimer()
	for i := range b.N {
		body := strings.Replace(skillInput("alpha:summarize", "alpha:summarize"), `"toolu_1"`, fmt.Sprintf(`"toolu_%d"`, i), 1) // a row each
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/claude", strings.NewReader(body))
		req.Header.Set(runtime.ActivityTokenHeader, s.Token)
		res, err := client.Do(req)
		if err != nil || res.StatusCode != http.StatusNoContent {
			b.Fatalf("POST: %v %v", res, err)
		}
		res.Body.Close()
	}
}
