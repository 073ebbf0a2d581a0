package catalog

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/plugboard/plugboard/backend/benchhome"
)

// BenchmarkLoad scans synthetic homes of N portable plugins × 10 skills + mcp.json each
// (page cache warm; `make bench` also measures a cold process against a read-only floor).
func BenchmarkLoad(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("plugins=%d", n), func(b *testing.B) {
			home := b.TempDir()
			pb := filepath.Join(home, ".plugboard")
			if err := benchhome.Generate(pb, n, 10); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				c := Load(Options{Home: home, PlugboardHome: pb})
				if len(c.Plugins) != n {
					b.Fatalf("loaded %d plugins", len(c.Plugins))
				}
			}
		})
	}
}

// BenchmarkWriteJSON is the encoding of `plugboard catalog --json` for 1,000 portable
// plugins × 10 skills (about 11 MB), the part of the command after the load.
func BenchmarkWriteJSON(b *testing.B) {
	home := b.TempDir()
	pb := filepath.Join(home, ".plugboard")
	if err := benchhome.Generate(pb, 1000, 10); err != nil {
		b.Fatal(err)
	}
	c := Load(Options{Home: home, PlugboardHome: pb})
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		w := &countingWriter{}
		if err := c.WriteJSON(w); err != nil {
			b.Fatal(err)
		}
		n = w.n
	}
	b.SetBytes(int64(n))
}

type countingWriter struct{ n int }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }
