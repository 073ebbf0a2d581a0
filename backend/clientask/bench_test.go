package clientask

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/plugboard/plugboard/backend/benchhome"
	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/clients"
	"github.com/plugboard/plugboard/backend/store"
	"github.com/plugboard/plugboard/backend/testhome"
)

// BenchmarkAsk: from a scan of the benchmark home (packages of 10 skills and an mcp.json
// each) to every package answered by the real client, the answers first asked (a new
// database: every package runs the client, in batches) and then taken from the database
// (the next scan of an unchanged home). Each pinned claude release, and the pinned codex.
func BenchmarkAsk(b *testing.B) {
	asked := []Client{{Name: clients.Codex, Bin: ".bin/codex", Version: "0.169.0"}}
	for _, c := range testhome.ClaudeVersions {
		asked = append(asked, Client{Name: clients.Claude, Bin: c.Bin, Version: c.Version})
	}
	for _, c := range asked {
		for _, n := range []int{100, 1000} {
			pb := filepath.Join(b.TempDir(), ".plugboard")
			if err := benchhome.Generate(pb, n, 10); err != nil {
				b.Fatal(err)
			}
			cl := Client{Name: c.Name, Bin: testhome.AgentBin(b, c.Bin), Version: c.Version}
			cat := catalog.Load(catalog.Options{Home: filepath.Dir(pb), PlugboardHome: pb, Installed: map[string]string{c.Name: c.Version}})
			for _, cached := range []bool{false, true} {
				name := fmt.Sprintf("%s-%s/packages=%d/asked", c.Name, c.Version, n)
				if cached {
					name = fmt.Sprintf("%s-%s/packages=%d/stored", c.Name, c.Version, n)
				}
				b.Run(name, func(b *testing.B) {
					a := &Asker{Store: openStore(b)}
					if cached {
						if _, err := a.Ask(context.Background(), cl, cat, nil); err != nil {
							b.Fatal(err)
						}
					}
					for b.Loop() {
						if !cached {
							b.StopTimer()
							a.Store = openStore(b) // a new, empty database
							b.StartTimer()
						}
						rs, err := a.Ask(context.Background(), cl, cat, nil)
						if err != nil {
							b.Fatal(err)
						}
						for _, r := range rs {
							if r.Error != "" || len(r.Differs) > 0 {
								b.Fatalf("%s: %s %v", r.Plugin, r.Error, r.Differs)
							}
						}
					}
				})
			}
		}
	}
}

func openStore(b *testing.B) *store.Store {
	st, _, err := store.Open(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}
