// Package benchdb fills a Plugboard database for benchmarks. It is apart from benchhome
// so that startbench, which measures the peak memory of the processes it starts, does
// not link SQLite: a child started with vfork counts its parent's resident memory in
// its peak.
package benchdb

import (
	"context"
	"fmt"
	"time"

	"github.com/plugboard/plugboard/backend/store"
)

// AddActivity records n skill uses of agent:coder, a minute apart from the start of
// 2026, in the database of the Plugboard home pbHome (making it): the skill activity a
// year of heavy use leaves, which commands that do not read it should not pay for.
func AddActivity(pbHome string, n int) error {
	st, _, err := store.Open(context.Background(), pbHome)
	if err != nil {
		return err
	}
	defer st.Close()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	recs := make([]store.Activity, 0, 10_000)
	for i := range n {
		recs = append(recs, store.Activity{Key: fmt.Sprintf("bench-%d", i), Time: start.Add(time.Duration(i) * time.Minute),
			Target: "agent:coder", Backend: "claude", Fingerprint: "bench", Session: fmt.Sprintf("session-%d", i/20),
			Skill: "review:check", Plugin: "review", Version: "1.0.0", Hash: "sha256:bench", How: store.HowModel, Kind: store.KindSkill})
		if len(recs) == cap(recs) || i == n-1 {
			if _, err := st.AddActivity(context.Background(), recs...); err != nil {
				return err
			}
			recs = recs[:0]
		}
	}
	return nil
}
