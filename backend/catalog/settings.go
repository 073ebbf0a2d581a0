package catalog

import "github.com/plugboard/plugboard/backend/settings"

// SettingsFile is the settings file's name inside $PLUGBOARD_HOME.
const SettingsFile = settings.FileName

// Settings are the catalog's settings (skillPluginPaths, skillsEnabled, trusted workspaces).
type Settings = settings.Settings
