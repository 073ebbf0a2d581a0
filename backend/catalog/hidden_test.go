package catalog

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/plugboard/plugboard/backend/testhome"
)

// A hidden folder in $PLUGBOARD_HOME/plugins — the staging folder of plugboard install
// (.install-<random>) or of plugboard link --copy — is never catalogued, by a full scan
// or by a refresh that sees it change, even when it holds a valid package.
func TestHiddenFoldersInPluginsNotCatalogued(t *testing.T) {
	dir := t.TempDir()
	o := Options{Home: filepath.Join(dir, "home"), PlugboardHome: filepath.Join(dir, "home", ".plugboard")}
	plugins := filepath.Join(o.PlugboardHome, "plugins")
	manifest := `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "%s", "version": "1.0.0"}`
	testhome.WriteFile(t, filepath.Join(plugins, "shown", "plugin.json"), fmt.Sprintf(manifest, "shown"))
	c := Load(o)
	staged := filepath.Join(plugins, ".install-123", "plugin.json")
	testhome.WriteFile(t, staged, fmt.Sprintf(manifest, "staged"))
	testhome.WriteFile(t, filepath.Join(plugins, ".install-456", "ready", "ghost", "plugin.json"), fmt.Sprintf(manifest, "ghost"))
	for name, cat := range map[string]*Catalog{"load": Load(o), "refresh": Refresh(c, o, []string{staged, filepath.Dir(staged)})} {
		if len(cat.Plugins) != 1 || cat.Plugins[0].ID != "shown" {
			var ids []string
			for _, p := range cat.Plugins {
				ids = append(ids, p.ID)
			}
			t.Errorf("%s lists %v, want only shown", name, ids)
		}
	}
}
