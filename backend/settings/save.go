package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/plugboard/plugboard/backend/capread"
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
	unlock, err := lock(pbHome)
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
	if err := writeAtomic(p, data, mode); err != nil {
		return "", err
	}
	return Hash(data), nil
}

// merge replaces Plugboard's keys in the top-level object of old (in place, keeping the
// order of every member) and appends the ones it lacks.
func merge(old []byte, s Settings) ([]byte, error) {
	mine := []struct {
		key string
		val any
	}{{"skillPluginPaths", s.SkillPluginPaths}, {"skillsEnabled", s.SkillsEnabled}, {"trustedWorkspaces", s.TrustedWorkspaces}}
	members, err := topMembers(old)
	if err != nil {
		return nil, fmt.Errorf("settings.json is not a JSON object, so it is not rewritten (%v); fix or remove it", err)
	}
	for _, m := range mine {
		raw, err := json.Marshal(m.val)
		if err != nil {
			return nil, err
		}
		found := false
		for i := range members {
			if members[i].key == m.key {
				members[i].val, found = raw, true
			}
		}
		if !found {
			members = append(members, member{m.key, raw})
		}
	}
	var buf bytes.Buffer
	buf.WriteString("{\n")
	for i, m := range members {
		k, _ := json.Marshal(m.key)
		var v bytes.Buffer
		if err := json.Indent(&v, m.val, "  ", "  "); err != nil {
			return nil, err
		}
		fmt.Fprintf(&buf, "  %s: %s", k, v.Bytes())
		if i < len(members)-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString("}\n")
	return buf.Bytes(), nil
}

type member struct {
	key string
	val json.RawMessage
}

// topMembers returns the members of a top-level JSON object in file order.
func topMembers(data []byte) ([]member, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("the top level is not an object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		out = append(out, member{key, raw})
	}
	return out, nil
}

// writeAtomic writes data to a temporary file beside p, syncs it, and renames it over p,
// so a crash leaves the old file or the new one, never a torn one.
func writeAtomic(p string, data []byte, mode fs.FileMode) error {
	dir := filepath.Dir(p)
	f, err := os.CreateTemp(dir, "."+filepath.Base(p)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a successful rename this finds nothing
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync() // make the rename durable
		d.Close()
	}
	return nil
}

// lock takes an exclusive advisory lock on the home folder's lock file, so that the
// read-compare-write of a save is one step across processes.
func lock(pbHome string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(pbHome, ".settings.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
