package catalog

import (
	"path/filepath"
	"strings"

	"github.com/plugboard/plugboard/backend/settings"
)

// SettingsFile is the settings file's name inside $PLUGBOARD_HOME.
const SettingsFile = settings.FileName

// Settings are the catalog's settings (skillPluginPaths, skillsEnabled, trusted workspaces).
type Settings = settings.Settings

// expandHome turns "~/x" into home/x; other paths are returned cleaned.
func expandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return filepath.Clean(p)
}
