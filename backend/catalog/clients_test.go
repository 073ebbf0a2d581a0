package catalog

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/plugboard/plugboard/backend/clients"
)

// The catalog hands the client models what it has read (file bytes, parsed frontmatter,
// listings); the verdicts must be exactly those the models reach reading everything
// themselves, on every fixture of every client rule.
func TestClientVerdictsFromTheCatalogsReads(t *testing.T) {
	root := filepath.Join("..", "..", "testdata", "clients", "claude")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		n++
		dir := filepath.Join(root, e.Name())
		p := Inspect(dir, t.TempDir())
		want := clients.Judge(dir)
		if p.Clients == nil || !reflect.DeepEqual(*p.Clients, want) {
			t.Errorf("%s: from the catalog's reads %+v\nread afresh %+v", e.Name(), p.Clients, want)
		}
	}
	if n < 100 {
		t.Fatalf("only %d fixtures", n)
	}
}
