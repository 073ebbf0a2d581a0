package settings

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

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

// ErrUnreadable means settings.json could not be read cleanly (it cannot be read, is not
// JSON, or has a field of the wrong type): what Plugboard runs with is then the defaults,
// not the file, so writing it would replace what the user wrote. Nothing was written.
var ErrUnreadable = errors.New("settings.json could not be read cleanly, so it is not rewritten")

// UnreadableError says why the file was not read cleanly (the read's first issue).
type UnreadableError struct{ Problem string }

func (e *UnreadableError) Error() string {
	return ErrUnreadable.Error() + ": " + e.Problem + "; fix the file (or remove it) and try again"
}
func (e *UnreadableError) Unwrap() error { return ErrUnreadable }

// Update is the one way Plugboard writes settings.json: it reads the file, refuses with an
// *UnreadableError when it could not be read cleanly, applies edit to what it read, and
// saves the result only if the file still holds what was read (Save). When expectHash is
// given, the file must have that hash to start with (a page that shows settings saves
// what it showed), else a *StaleError is returned; without it, a save that loses a race
// with another writer is done again on what that writer saved (up to three times). An
// edit that changes nothing writes nothing. It returns the settings and hash before and
// the hash after.
func Update(pbHome, expectHash string, edit func(*Settings) error) (before Settings, beforeHash, afterHash string, err error) {
	for attempt := 0; attempt < 3; attempt++ {
		st, hash, issues := Read(pbHome)
		if len(issues) > 0 {
			return st, hash, hash, &UnreadableError{Problem: issues[0].Message}
		}
		if expectHash != "" && hash != expectHash {
			return st, hash, hash, &StaleError{Current: st, Hash: hash}
		}
		next := st.clone()
		if err := edit(&next); err != nil {
			return st, hash, hash, err
		}
		if equalSettings(st, next.Normalised()) {
			return st, hash, hash, nil
		}
		after, err := save(pbHome, next, hash)
		if errors.Is(err, ErrStale) && expectHash == "" {
			continue
		}
		return st, hash, after, err
	}
	st, hash, _ := Read(pbHome)
	return st, hash, hash, &StaleError{Current: st, Hash: hash}
}

// save writes s if the file still has expectHash, and returns the new hash. Fields of the
// file other than Plugboard's keep their place and bytes; a new file is created with mode
// 0600 (settings can name private folders), an existing one keeps its mode.
func save(pbHome string, s Settings, expectHash string) (string, error) {
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
	// activityRetentionDays likewise: written once set, and then kept (0: keep all).
	if s.ActivityRetentionDays != 0 || slices.ContainsFunc(members, func(m jsonfile.Member) bool { return m.Key == "activityRetentionDays" }) {
		if members, err = jsonfile.Set(members, "activityRetentionDays", s.ActivityRetentionDays); err != nil {
			return nil, err
		}
	}
	return jsonfile.Encode(members)
}

// clone copies s deeply, so an edit cannot change what was read.
func (s Settings) clone() Settings {
	c := Settings{SkillPluginPaths: slices.Clone(s.SkillPluginPaths), TrustedWorkspaces: slices.Clone(s.TrustedWorkspaces),
		SkillsEnabled: maps.Clone(s.SkillsEnabled), LaunchAs: maps.Clone(s.LaunchAs), ActivityRetentionDays: s.ActivityRetentionDays}
	return c
}

func equalSettings(a, b Settings) bool {
	return slices.Equal(a.SkillPluginPaths, b.SkillPluginPaths) && slices.Equal(a.TrustedWorkspaces, b.TrustedWorkspaces) &&
		maps.Equal(a.SkillsEnabled, b.SkillsEnabled) && maps.Equal(a.LaunchAs, b.LaunchAs) &&
		a.ActivityRetentionDays == b.ActivityRetentionDays
}
