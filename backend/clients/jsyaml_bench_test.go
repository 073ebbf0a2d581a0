package clients

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

// BenchmarkUnmatchedQuote is the look for a quoted value run onto the next line against
// the yaml.v3 parse of the block it spares (yaml12Refuses), on a frontmatter with quotes.
func BenchmarkUnmatchedQuote(b *testing.B) {
	block := "name: pdf-tools\ndescription: \"Extract text. Use when handling PDFs.\"\nlicense: MIT\nmetadata:\n  author: 'bench'\n  version: \"1.0\"\n"
	b.Run("scan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if unmatchedQuote(block) {
				b.Fatal("unmatched")
			}
		}
	})
	b.Run("yaml.v3", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(block), &doc); err != nil {
				b.Fatal(err)
			}
		}
	})
}
