package skill

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

// BenchmarkFastMap is FastMap against the yaml.v3 decode it spares, on the frontmatter of
// BenchmarkFrontmatter.
func BenchmarkFastMap(b *testing.B) {
	fm := []byte("name: pdf-tools\ndescription: Extract text. Use when handling PDFs.\nlicense: MIT\nmetadata:\n  author: bench\n  version: \"1.0\"\n")
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := FastMap(fm); !ok {
				b.Fatal("not plain")
			}
		}
	})
	b.Run("yaml.v3", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var m map[string]any
			if err := yaml.Unmarshal(fm, &m); err != nil {
				b.Fatal(err)
			}
		}
	})
}
