package assign

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/testhome"
)

// fixtureDir is testdata/assign/<name> in the repository.
func fixtureDir(name string) string {
	return filepath.Join("..", "..", "testdata", "assign", name)
}

// fixture copies testdata/assign/<name> into a fresh temporary $PLUGBOARD_HOME.
func fixture(t testing.TB, name string) string {
	t.Helper()
	return testhome.CopyTestdata(t, filepath.Join("assign", name))
}

// loadCatalog scans pb with an empty user home.
func loadCatalog(t testing.TB, pb string) *catalog.Catalog {
	t.Helper()
	return catalog.Load(catalog.Options{Home: t.TempDir(), PlugboardHome: pb, Workers: 2})
}

// mainHome copies the main fixture and loads its catalog.
func mainHome(t testing.TB) (string, *catalog.Catalog) {
	t.Helper()
	pb := fixture(t, "home")
	return pb, loadCatalog(t, pb)
}

func readFile(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func target(t testing.TB, pb string, cat *catalog.Catalog, id string) Target {
	t.Helper()
	ts, _ := Targets(pb, cat)
	for _, x := range ts {
		if x.ID == id {
			return x
		}
	}
	t.Fatalf("no target %s", id)
	return Target{}
}

// dirsIn returns the pluginDirs of the file's top level (agent) or of slot i of
// "agents" (template), and whether the member is present.
func dirsIn(t testing.TB, p string, slot int) ([]string, bool) {
	t.Helper()
	var doc struct {
		PluginDirs *[]string `json:"pluginDirs"`
		Agents     []struct {
			PluginDirs *[]string `json:"pluginDirs"`
		} `json:"agents"`
	}
	if err := json.Unmarshal(readFile(t, p), &doc); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	d := doc.PluginDirs
	if slot >= 0 {
		d = doc.Agents[slot].PluginDirs
	}
	if d == nil {
		return nil, false
	}
	return *d, true
}

func eq(a, b []string) bool { return slices.Equal(a, b) }
