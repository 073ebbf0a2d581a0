package devlink

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/plugboard/plugboard/backend/testhome"
)

// A folder of the package swapped again and again with a link to a folder outside it
// (renameat2 RENAME_EXCHANGE) while link --copy syncs it: no byte from outside ever
// reaches the copy, whichever state each sync sees.
func TestCopySyncUnderSwapperTakesNothingFromOutside(t *testing.T) {
	o, pkg := setup(t)
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "id_ed25519"), "-----BEGIN OPENSSH PRIVATE KEY-----")
	docs := filepath.Join(pkg, "skills", "greet", "docs")
	writeFile(t, filepath.Join(docs, "id_ed25519"), "notes")
	o.Copy = true
	r, err := Link(pkg, o)
	if err != nil {
		t.Fatal(err)
	}
	swap := filepath.Join(filepath.Dir(pkg), "swap") // beside the package, outside it
	if err := os.Symlink(outside, swap); err != nil {
		t.Fatal(err)
	}
	halt := testhome.Swap(t, docs, swap)
	var synced, refused int
	for i := 0; i < 300; i++ {
		if err := Sync(r.Name, o); err != nil {
			refused++
		} else {
			synced++
		}
		filepath.Walk(r.Dest, func(p string, info os.FileInfo, err error) error {
			if err == nil && info.Mode().IsRegular() {
				if b, _ := os.ReadFile(p); bytes.Contains(b, []byte("PRIVATE KEY")) {
					t.Fatalf("sync %d: the copy holds the outside key at %s", i, p)
				}
			}
			return nil
		})
	}
	halt()
	t.Logf("300 syncs under the swapper: %d synced, %d refused; 0 outside bytes", synced, refused)
	if refused == 0 || synced == 0 {
		t.Errorf("the swapper did not race the sync both ways (synced %d, refused %d)", synced, refused)
	}
}
