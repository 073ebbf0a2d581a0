package settings

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/backend/jsonfile"
)

// ErrStale means the file changed since the hash the save was based on; nothing was written.
var ErrStale = errors.New("settings.json changed on disk since it was read")

// StaleError carries what is on disk now, so the caller can show it.
type StaleError struct {
	Current Settings
	Hash    string
}

func (e *StaleError) Error() string { return ErrStale.Error() }
func (e *StaleError) Unwrap() error { return ErrStale }

// Save writes s if the file still has expectHash, and returns the new hash. Fields of the
// file other than Plugboard's three keep their place and bytes; a new file is created
// with mode 0600 (settings can name private folders), an existing one keeps its mode.
func Save(pbHome string, s Settings, expectHash string) (string, error) {
	s = s.Normalised()
	if err := os.MkdirAll(pbHome, 0o700); err != nil {
		return "", err
	}
	unlock, err := jsonfile.Lock(filepath.Join(pbHome, ".settings.lock"))
	if err != nil {
		return "", err
	}
	defer unlock()

	p := Path(pbHome)
	old, err := capread.ReadFile(p, capread.SettingsMax)
	mode := fs.FileMode(0o600)
	switch {
	case errors.Is(err, os.ErrNotExist):
		old = nil
	case err != nil:
		return "", fmt.Errorf("read %s: %w", p, err)
	default:
		if st, err := os.Stat(p); err == nil {
			mode = st.Mode().Perm()
		}
	}
	if Hash(old) != expectHash {
		cur, _ := parse(old)
		if old == nil {
			cur = Settings{}.Normalised()
		}
		return "", &StaleError{Current: cur, Hash: Hash(old)}
	}
	data, err := merge(old, s)
	if err != nil {
		return "", err
	}
	if err := jsonfile.WriteAtomic(p, data, mode); err != nil {
		return "", err
	}
	return Hash(data), nil
}

// merge replaces Plugboard's keys in the top-level object of old (in place, keeping the
// order of every member) and appends the ones it lacks.
func merge(old []byte, s Settings) ([]byte, error) {
	members, err := jsonfile.Members(old)
	if err != nil {
		return nil, fmt.Errorf("settings.json is not a JSON object, so it is not rewritten (%v); fix or remove it", err)
	}
	for _, m := range []struct {
		key string
		val any
	}{{"skillPluginPaths", s.SkillPluginPaths}, {"skillsEnabled", s.SkillsEnabled}, {"trustedWorkspaces", s.TrustedWorkspaces}} {
		if members, err = jsonfile.Set(members, m.key, m.val); err != nil {
			return nil, err
		}
	}
	// launchAs is written once someone has chosen something, and kept (emptied) after.
	has := false
	for _, m := range members {
		has = has || m.Key == "launchAs"
	}
	if len(s.LaunchAs) > 0 || has {
		la := s.LaunchAs
		if la == nil {
			la = map[string]string{}
		}
		if members, err = jsonfile.Set(members, "launchAs", la); err != nil {
			return nil, err
		}
	}
	return jsonfile.Encode(members)
}
