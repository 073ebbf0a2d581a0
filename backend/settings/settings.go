// Package settings reads and writes $PLUGBOARD_HOME/settings.json. A read returns the
// settings with a content hash; a save names the hash it was based on and is refused,
// writing nothing, when the file changed since (requirement A3's habit, applied to every
// user file). Saves are atomic (temporary file in the same folder, fsync, rename), keep
// every other field of the file, its key order and its mode. Functions are safe for
// concurrent use by one process; two processes saving from the same hash are settled by
// the hash check under an advisory lock on the folder.
package settings

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/jsondoc"
)

// FileName is the settings file's name inside $PLUGBOARD_HOME.
const FileName = "settings.json"

// CodeInvalid is the issue code of a settings file that cannot be used.
const CodeInvalid = "settings.invalid"

// Settings is what Plugboard keeps in settings.json.
type Settings struct {
	// SkillPluginPaths are extra plugin folders (absolute or ~/...).
	SkillPluginPaths []string `json:"skillPluginPaths"`
	// SkillsEnabled turns skills off by bare name or plugin-qualified id ({"name": false});
	// a skill not named is enabled.
	SkillsEnabled map[string]bool `json:"skillsEnabled"`
	// TrustedWorkspaces are workspace folders whose project MCP files may load (F9).
	TrustedWorkspaces []string `json:"trustedWorkspaces"`
	// LaunchAs records, per plugin id, the user's explicit choice to launch a package the
	// specification rejects as a client loads it ({"my-plugin": "claude"}): the launch
	// then hands that client the folder as it is (issue 10).
	LaunchAs map[string]string `json:"launchAs,omitempty"`
	// ActivityRetentionDays is how many days of skill and tool activity the store keeps
	// (R8); 0 keeps all of it.
	ActivityRetentionDays int `json:"activityRetentionDays,omitempty"`
}

// LaunchAsClient is the client a plugin is launched as despite its spec verdict, or "".
func (s Settings) LaunchAsClient(pluginID string) string { return s.LaunchAs[pluginID] }

// Enabled says whether a skill is enabled, given its bare name and its qualified id.
func (s Settings) Enabled(ids ...string) bool {
	for _, id := range ids {
		if on, ok := s.SkillsEnabled[id]; ok && !on {
			return false
		}
	}
	return true
}

// Normalised makes every list and map non-nil, so JSON shows [] and {} rather than null.
func (s Settings) Normalised() Settings {
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

// Hash identifies one content of the file; a missing file has the hash of no bytes.
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Path returns the settings file of a Plugboard home.
func Path(pbHome string) string { return filepath.Join(pbHome, FileName) }

// Read reads the settings and their hash. A missing file is empty settings; a broken one
// is an issue and empty settings (nothing else stops), with the hash of what is on disk.
func Read(pbHome string) (Settings, string, issue.List) {
	p := Path(pbHome)
	data, err := capread.ReadFile(p, capread.SettingsMax)
	if errors.Is(err, os.ErrNotExist) {
		return Settings{}.Normalised(), Hash(nil), nil
	}
	var issues issue.List
	if err != nil {
		issues.Errorf(CodeInvalid, p, "", "settings.json %s; Plugboard runs with default settings until it is fixed", capread.Describe(err))
		return Settings{}.Normalised(), "", issues
	}
	s, err := parse(data)
	if err != nil {
		issues.Errorf(CodeInvalid, p, "", "settings.json %v; Plugboard runs with default settings until it is fixed", err)
		issues[0].Line = jsondoc.ErrorLine(err)
		return Settings{}.Normalised(), Hash(data), issues
	}
	return s, Hash(data), nil
}

func parse(data []byte) (Settings, error) {
	var s Settings
	if _, err := jsondoc.Decode(data); err != nil {
		return s, err
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return Settings{}, errors.New("has a field of the wrong type (" + err.Error() + "); skillPluginPaths and trustedWorkspaces are lists of folder paths, skillsEnabled maps names to true/false, launchAs maps plugin ids to a client name, activityRetentionDays is a whole number of days")
	}
	if s.ActivityRetentionDays < 0 {
		return Settings{}, errors.New("has activityRetentionDays below 0; give the number of days of activity to keep, or 0 to keep all of it")
	}
	return s.Normalised(), nil
}
