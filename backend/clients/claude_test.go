package clients

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/plugboard/plugboard/backend/testhome"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/clients/oracle"
)

// The fixtures: one hand-written folder per Claude rule, named for the rule it proves.
// expected.json records what each pinned Claude Code's init event said of each, by
// version; -update rewrites it from the real clients (go test ./backend/clients -run
// TestClaudeRealClient -update).
var (
	fixtures = filepath.Join("..", "..", "testdata", "clients", "claude")
	update   = flag.Bool("update", false, "rewrite testdata/clients/claude/expected.json from the real claude")
)

type recorded struct {
	Loads  bool     `json:"loads"`
	Plugin string   `json:"plugin"`
	Skills []string `json:"skills"`
	Agents []string `json:"agents"`
}

func fixtureNames(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	if len(out) < 100 {
		t.Fatalf("only %d fixtures in %s", len(out), fixtures)
	}
	return out
}

// readRecorded reads expected.json: version → fixture → what that version loaded.
func readRecorded(t *testing.T) map[string]map[string]recorded {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]map[string]recorded
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// agentNames lists a verdict's agent names, sorted.
func agentNames(v Verdict) []string {
	out := []string{}
	for _, a := range v.Agents {
		out = append(out, a.Name)
	}
	sort.Strings(out)
	return out
}

func compare(t *testing.T, name string, v Verdict, want recorded) {
	t.Helper()
	if v.Loads != want.Loads || (want.Loads && v.Plugin != want.Plugin) || !slices.Equal(v.Alone(), nonNil(want.Skills)) {
		t.Errorf("%s: model loads=%v plugin=%q skills=%v (%s); claude loads=%v plugin=%q skills=%v",
			name, v.Loads, v.Plugin, v.Alone(), v.Why, want.Loads, want.Plugin, want.Skills)
	}
	if want.Loads && !slices.Equal(agentNames(v), nonNil(want.Agents)) {
		t.Errorf("%s: model agents %v, claude %v", name, agentNames(v), want.Agents)
	}
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// The model of each modelled release agrees with what that release of the real claude
// said of every fixture (recorded), and every pinned release is modelled.
func TestClaudeFixtures(t *testing.T) {
	all := readRecorded(t)
	for _, c := range testhome.ClaudeVersions {
		if ClaudeModelled(c.Version) != c.Version {
			t.Errorf("claude %s is pinned in build/agents but not modelled (claudeReleases)", c.Version)
		}
		want := all[c.Version]
		for _, name := range fixtureNames(t) {
			w, ok := want[name]
			if !ok {
				t.Errorf("%s has no recorded outcome for claude %s; run the real-client test with -update", name, c.Version)
				continue
			}
			compare(t, c.Version+" "+name, JudgeClaudeAs(filepath.Join(fixtures, name), c.Version), w)
		}
	}
}

// The recording is the real claude's: every fixture is run through every pinned release
// again, and both the recording and that release's model must match what it prints now.
func TestClaudeRealClient(t *testing.T) {
	all := readRecorded(t)
	for _, c := range testhome.ClaudeVersions {
		t.Run(c.Version, func(t *testing.T) {
			got := runFixtures(t, testhome.AgentBin(t, c.Bin), c.Version)
			if *update {
				all[c.Version] = got
				b, _ := json.MarshalIndent(all, "", "  ")
				if err := os.WriteFile(filepath.Join(fixtures, "expected.json"), append(b, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want := all[c.Version]
			for _, name := range fixtureNames(t) {
				g := got[name]
				if w := want[name]; w.Loads != g.Loads || w.Plugin != g.Plugin || !slices.Equal(nonNil(w.Skills), g.Skills) || !slices.Equal(nonNil(w.Agents), g.Agents) {
					t.Errorf("%s: recorded %+v, the real claude %s now says %+v", name, w, c.Version, g)
				}
				compare(t, name, JudgeClaudeAs(filepath.Join(fixtures, name), c.Version), g)
			}
		})
	}
}

// runFixtures runs every fixture through the claude at bin, which must be version, two at
// a time, and returns what it loaded from each.
func runFixtures(t *testing.T, bin, version string) map[string]recorded {
	t.Helper()
	return askEach(t, fixtureNames(t), func(ctx context.Context, name string) (recorded, error) {
		in, err := oracle.Claude(ctx, bin, filepath.Join(fixtures, name))
		if err == nil && in.Version != version {
			err = fmt.Errorf("%s is claude %s, not %s: make deps-agents installs the pinned versions", bin, in.Version, version)
		}
		return recorded{Loads: in.Loads, Plugin: in.Plugin, Skills: in.Skills, Agents: in.Agents}, err
	})
}

// askEach asks a real client about every key, two at a time, each within two minutes,
// and returns the answers by key; any error fails the test, every one reported.
func askEach[T any](t *testing.T, keys []string, ask func(ctx context.Context, key string) (T, error)) map[string]T {
	t.Helper()
	got := make(map[string]T, len(keys))
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	errs := make(chan error, len(keys))
	for _, key := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			v, err := ask(ctx, key)
			if err != nil {
				errs <- fmt.Errorf("%s: %w", key, err)
				return
			}
			mu.Lock()
			got[key] = v
			mu.Unlock()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
	return got
}
