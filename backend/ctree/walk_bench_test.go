package ctree

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/pathsafe"
)

// BenchmarkWalk lists and hashes a skill folder of 100 files of 2 KiB in 10 folders: Walk
// against filepath.WalkDir reading and hashing each file (no containment).
func BenchmarkWalk(b *testing.B) {
	root, err := pathsafe.Root(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(root, "skills", "bench")
	for i := range 100 {
		p := filepath.Join(dir, fmt.Sprintf("d%d", i%10), fmt.Sprintf("f%d.md", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Repeat("x", 2048)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("ctree", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if t, err := Walk(root, dir, Options{}); err != nil || len(t.Files) != 100 {
				b.Fatal(err)
			}
		}
	})
	b.Run("WalkDir", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				data, err := os.ReadFile(p)
				sha256.Sum256(data)
				n++
				return err
			})
			if err != nil || n != 100 {
				b.Fatal(err)
			}
		}
	})
}
