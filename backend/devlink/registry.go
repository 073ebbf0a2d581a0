package devlink

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/plugboard/plugboard/backend/jsondoc"
	"github.com/plugboard/plugboard/backend/jsonfile"
)

// What Link made is recorded in $PLUGBOARD_HOME/state/links.json, and only what is
// recorded there is ever unlinked or synced:
//
//	{"links":  {"<dest>": "<source>"},
//	 "copies": {"<dest>": {"source": "<source>", "id": "<random>"}}}
//
// A symlink is Link's when the registry records it with the folder it points to; a copy
// is Link's when the registry records it and the marker inside it (MarkerFile) carries
// the same id. A marker alone proves nothing: any plugin can ship one. The id also tells
// a recorded copy from a folder put in its place later (the copy deleted by hand, the
// name reused), which carries no marker or another id.
//
// Every write takes the registry's lock, reads the registry afresh under it, and
// replaces the file atomically (jsonfile), so two processes never lose each other's
// entries. Unlink and Sync decide on a registry read under that lock too, and act while
// holding it: what they remove or overwrite is what the registry records at that moment,
// not what an earlier read said. In a home with no registry nothing is recorded, so there
// they refuse without the lock and write nothing, not even the state folder.
//
// Homes whose copies were made before copies were recorded hold copies with a marker and
// no entry (and no id): those read as folders Plugboard did not make, left alone, and
// the refusal says to delete the folder and link --copy again. A Plugboard that predates
// "copies" keeps "links" as it is but drops "copies" when it rewrites the file; the copies
// then read as not Plugboard's, which is the safe way to fail.
const registryName = "links.json"

type registry struct {
	Links  map[string]string    `json:"links"`
	Copies map[string]copyEntry `json:"copies,omitempty"`
	home   string               // $PLUGBOARD_HOME it was read from, for messages
}

// copyEntry records one copy: its source and the id its marker carries.
type copyEntry struct {
	Source string `json:"source"`
	ID     string `json:"id"`
}

func registryPath(pbHome string) string { return filepath.Join(pbHome, "state", registryName) }

// RegistryPath is the file that records the links and copies Link made: a watcher of the
// copies' sources watches it, so that a copy made later is kept in step too.
func RegistryPath(pbHome string) string { return registryPath(pbHome) }

// readRegistry reads the registry; a home without one records nothing. A registry that
// cannot be read or parsed (a hand edit gone wrong) is an error naming it: nothing is
// then unlinked, synced or recorded, since a write would replace every entry it holds.
func readRegistry(pbHome string) (registry, error) {
	r := registry{home: pbHome, Links: map[string]string{}, Copies: map[string]copyEntry{}}
	p := registryPath(pbHome)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	where := p
	if err != nil {
		err = fmt.Errorf("cannot be read (%v)", err)
	} else if _, derr := jsondoc.Decode(data); derr != nil {
		where, err = fmt.Sprintf("%s:%d", p, jsondoc.ErrorLine(derr)), derr
	} else if uerr := json.Unmarshal(data, &r); uerr != nil {
		err = fmt.Errorf("has the wrong shape (%v)", uerr)
	}
	if err != nil {
		return r, fmt.Errorf("%s: the record of what plugboard link made %v; fix it, or move it aside (the links and copies it recorded then read as not Plugboard's); nothing was changed", where, err)
	}
	if r.Links == nil {
		r.Links = map[string]string{}
	}
	if r.Copies == nil {
		r.Copies = map[string]copyEntry{}
	}
	return r, nil
}

// ours reports whether the symlink at dest, pointing at target, is one Link made.
func (r registry) ours(dest, target string) bool {
	src, ok := r.Links[dest]
	return ok && sameFolder(src, target)
}

// withRegistry runs fn on the registry read under its lock, and writes the registry back
// atomically, still under the lock, when fn reports a change. fn's error is returned
// after the write, so a change made before a failure is still recorded.
func withRegistry(pbHome string, fn func(r *registry) (changed bool, err error)) error {
	p := registryPath(pbHome)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	unlock, err := jsonfile.Lock(p + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	r, err := readRegistry(pbHome)
	if err != nil {
		return err
	}
	changed, ferr := fn(&r)
	if !changed {
		return ferr
	}
	return errors.Join(ferr, writeRegistry(p, r))
}

func writeRegistry(p string, r registry) error {
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

// updateRegistry records (source != "") or forgets (source == "") the symlink at dest.
// A copy recorded at dest is forgotten either way: dest is a symlink now.
func updateRegistry(pbHome, dest, source string) error {
	return withRegistry(pbHome, func(r *registry) (bool, error) {
		_, hadCopy := r.Copies[dest]
		delete(r.Copies, dest)
		if source == "" {
			_, ok := r.Links[dest]
			delete(r.Links, dest)
			return ok || hadCopy, nil
		}
		if r.Links[dest] == source && !hadCopy {
			return false, nil
		}
		r.Links[dest] = source
		return true, nil
	})
}

// newCopyID returns the random id that ties a copy's marker to its registry entry.
func newCopyID() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
