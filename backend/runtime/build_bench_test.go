package runtime

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/benchhome"
	"github.com/plugboard/plugboard/backend/benchhome/benchdb"
)

// BenchmarkBuildReused is the work of an unchanged launch inside the process (issue 16,
// goal 5): the plan of testdata/runtime/home's agent:coder (two plugins, MCP servers
// acknowledged, so the launch reads the acknowledgments from the database), whose
// projection the first Build made, so every measured Build reuses it. The variants: a
// database with no skill activity, or with as many records as a year of heavy use
// leaves (a launch reads only the acknowledgments, so it should not pay for the rest of
// the file); and a skill with 200 reference files of 20 KB (4 MB), whose unchanged files
// a launch should not read again (ctree.Sums); and a home of 100 more agents, which a
// launch of one should not pay for (assign.Lookup).
func BenchmarkBuildReused(b *testing.B) {
	for _, c := range []struct {
		name       string
		records    int
		references int
		agents     int
	}{{"activity=0", 0, 0, 0}, {"activity=100000", 100_000, 0, 0}, {"references=200", 0, 200, 0}, {"agents=100", 0, 0, 100}} {
		b.Run(c.name, func(b *testing.B) {
			pb := home(b)
			if err := benchdb.AddActivity(pb, c.records); err != nil {
				b.Fatal(err)
			}
			for i := range c.agents {
				agent := fmt.Sprintf(`{"name": "agent-%03d", "pluginDirs": ["plugins/review", "plugins/legacy-tools"]}`, i)
				if err := os.WriteFile(filepath.Join(pb, "agents", fmt.Sprintf("agent-%03d.json", i)), []byte(agent), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			if err := benchhome.AddReferences(filepath.Join(pb, "plugins", "review", "skills", "explain"), c.references); err != nil {
				b.Fatal(err)
			}
			// Launches remember the hashes of files changed more than 3 s before they
			// start (ctree.Sums): the files are that old when a person launches again.
			time.Sleep(3*time.Second + 100*time.Millisecond)
			req := request(pb, "coder")
			build(b, req)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if p := build(b, req); !p.Reused {
					b.Fatal("the projection was made anew")
				}
			}
		})
	}
}
