package devlink

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/plugboard/plugboard/backend/jsonfile"
)

// The symlinks Link made are recorded in $PLUGBOARD_HOME/state/links.json
// ({"links": {"<dest>": "<source>"}}), so that Unlink and List can tell them from a link
// the user or Cursor made in the same folder: a copy carries its own marker, a symlink
// cannot. Writes go through jsonfile (a lock, then an atomic replace).
const registryName = "links.json"

type registry struct {
	Links map[string]string `json:"links"`
}

func registryPath(pbHome string) string { return filepath.Join(pbHome, "state", registryName) }

func readRegistry(pbHome string) registry {
	r := registry{Links: map[string]string{}}
	data, err := os.ReadFile(registryPath(pbHome))
	if err == nil {
		_ = json.Unmarshal(data, &r) // a damaged file records nothing: links then read as not ours
	}
	if r.Links == nil {
		r.Links = map[string]string{}
	}
	return r
}

// ours reports whether the symlink at dest, pointing at target, is one Link made.
func ours(pbHome, dest, target string) bool {
	src, ok := readRegistry(pbHome).Links[dest]
	return ok && sameFolder(src, target)
}

// updateRegistry records (source != "") or forgets (source == "") the link at dest.
func updateRegistry(pbHome, dest, source string) error {
	p := registryPath(pbHome)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	unlock, err := jsonfile.Lock(p + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	r := readRegistry(pbHome)
	if source == "" {
		if _, ok := r.Links[dest]; !ok {
			return nil
		}
		delete(r.Links, dest)
	} else {
		r.Links[dest] = source
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	mode := fs.FileMode(0o600)
	if st, err := os.Stat(p); err == nil {
		mode = st.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return jsonfile.WriteAtomic(p, append(data, '\n'), mode)
}
