package catalog

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/jsondoc"
)

// SettingsFile is the settings file's name inside $PLUGBOARD_HOME.
const SettingsFile = "settings.json"

// Settings is what the catalog reads from $PLUGBOARD_HOME/settings.json.
type Settings struct {
	// SkillPluginPaths are extra plugin folders (absolute or ~/...).
	SkillPluginPaths []string `json:"skillPluginPaths"`
	// SkillsEnabled turns skills off by bare name or plugin-qualified id ({"name": false});
	// a skill not named is enabled.
	SkillsEnabled map[string]bool `json:"skillsEnabled"`
	// TrustedWorkspaces are workspace folders whose project MCP files may load (F9).
	TrustedWorkspaces []string `json:"trustedWorkspaces"`
}

// ReadSettings reads settings.json; a missing file is empty settings, a broken one is an
// issue and empty settings (nothing else stops).
func ReadSettings(plugboardHome string) (s Settings, issues issue.List) {
	defer func() { s = s.normalised() }()
	p := filepath.Join(plugboardHome, SettingsFile)
	data, err := capread.ReadFile(p, capread.SettingsMax)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		issues.Errorf(CodeSettings, p, "", "settings.json %s; Plugboard runs with default settings until it is fixed", capread.Describe(err))
		return s, issues
	}
	if _, err := jsondoc.Decode(data); err != nil {
		issues.Errorf(CodeSettings, p, "", "settings.json %v; Plugboard runs with default settings until it is fixed", err)
		var se *jsondoc.SyntaxError
		if errors.As(err, &se) {
			issues[0].Line = se.Line
		}
		return s, issues
	}
	if err := json.Unmarshal(data, &s); err != nil {
		issues.Errorf(CodeSettings, p, "", "settings.json has a field of the wrong type (%v); skillPluginPaths and trustedWorkspaces are lists of folder paths, skillsEnabled maps names to true/false", err)
		return Settings{}, issues
	}
	return s, nil
}

// normalised makes every list and map non-nil, so JSON shows [] and {} rather than null.
func (s Settings) normalised() Settings {
	if s.SkillPluginPaths == nil {
		s.SkillPluginPaths = []string{}
	}
	if s.SkillsEnabled == nil {
		s.SkillsEnabled = map[string]bool{}
	}
	if s.TrustedWorkspaces == nil {
		s.TrustedWorkspaces = []string{}
	}
	return s
}

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

// Enabled says whether a skill is enabled by the settings.
func (s Settings) Enabled(ids ...string) bool {
	for _, id := range ids {
		if on, ok := s.SkillsEnabled[id]; ok && !on {
			return false
		}
	}
	return true
}
