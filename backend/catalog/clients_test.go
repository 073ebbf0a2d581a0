package catalog

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/plugboard/plugboard/backend/clients"
)

// The catalog hands the client models what it has read (file bytes, parsed frontmatter,
// listings, a skill folder's among them); the verdicts must be exactly those the models
// reach reading everything themselves, on every fixture of every client rule.
func TestClientVerdictsFromTheCatalogsReads(t *testing.T) {
	n := 0
	for _, client := range []string{"claude", "codex"} {
		root := filepath.Join("..", "..", "testdata", "clients", client)
		entries, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			n++
			dir := filepath.Join(root, e.Name())
			p := Inspect(dir, t.TempDir())
			want := clients.Judge(dir)
			if p.Clients == nil || !reflect.DeepEqual(*p.Clients, want) {
				t.Errorf("%s/%s: from the catalog's reads %+v\nread afresh %+v", client, e.Name(), p.Clients, want)
			}
		}
	}
	if n < 250 {
		t.Fatalf("only %d fixtures", n)
	}
}
