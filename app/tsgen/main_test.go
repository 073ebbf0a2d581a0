package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestModelsUpToDate fails when frontend/src/models.gen.ts is not what the Go types make
// now: a field renamed, added or retyped in Go must reach the page's types (and then its
// typecheck) in the same commit.
func TestModelsUpToDate(t *testing.T) {
	want, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	const path = "../../frontend/src/models.gen.ts"
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: run go generate ./... (or go generate ./app/tsgen) to write it", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	i := 0
	for i < len(g) && i < len(w) && g[i] == w[i] {
		i++
	}
	line := func(l []string) string {
		if i < len(l) {
			return l[i]
		}
		return "(end of file)"
	}
	t.Errorf("frontend/src/models.gen.ts is stale: run go generate ./... (or go generate ./app/tsgen), then npm run typecheck in frontend.\n"+
		"first difference, line %d:\n  committed: %s\n  generated: %s", i+1, line(g), line(w))
}
