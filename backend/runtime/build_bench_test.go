package runtime

import (
	"fmt"
	"testing"

	"github.com/plugboard/plugboard/backend/benchhome/benchdb"
)

// BenchmarkBuildReused is the work of an unchanged launch inside the process (issue 16,
// goal 5): the plan of testdata/runtime/home's agent:coder (two plugins, MCP servers
// acknowledged, so the launch reads the acknowledgments from the database), whose
// projection the first Build made, so every measured Build reuses it. The database holds
// no skill activity, or as many records as a year of heavy use leaves: a launch reads
// only the acknowledgments, so it should not pay for the rest of the file.
func BenchmarkBuildReused(b *testing.B) {
	for _, records := range []int{0, 100_000} {
		b.Run(fmt.Sprintf("activity=%d", records), func(b *testing.B) {
			pb := home(b)
			if err := benchdb.AddActivity(pb, records); err != nil {
				b.Fatal(err)
			}
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
