package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/plugboard/plugboard/backend/jsonfile"
)

// LockfileName is the lockfile's name in $PLUGBOARD_HOME.
const LockfileName = "plugins.lock.json"

// LockfileVersion is the version this package writes and reads.
const LockfileVersion = 1

// Lockfile is $PLUGBOARD_HOME/plugins.lock.json: one entry per installed plugin id.
// Encoded with its keys in a fixed order (struct fields in order, plugin ids sorted), so
// that the same installs give the same bytes.
type Lockfile struct {
	Version int              `json:"version"`
	Plugins map[string]Entry `json:"plugins"`
}

// Entry is how one plugin was installed.
type Entry struct {
	Source      string `json:"source"` // URL without credentials, or an absolute path
	Kind        string `json:"kind"`   // KindGit, KindFolder or KindArchive
	Ref         string `json:"ref,omitempty"`
	Path        string `json:"path,omitempty"`    // the package's folder inside the source
	Commit      string `json:"commit,omitempty"`  // git: the resolved commit
	Archive     string `json:"archive,omitempty"` // archive: "sha256:<hex>" of the file
	Content     string `json:"content"`           // "sha256:<ctree sum>" of the installed folder
	InstalledAt string `json:"installedAt"`       // RFC 3339, UTC
}

// LockfilePath is the lockfile of pbHome.
func LockfilePath(pbHome string) string { return filepath.Join(pbHome, LockfileName) }

// ReadLockfile reads a lockfile; a missing file is an empty one.
func ReadLockfile(p string) (Lockfile, error) {
	lf := Lockfile{Version: LockfileVersion, Plugins: map[string]Entry{}}
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return lf, nil
	}
	if err != nil {
		return lf, err
	}
	if err := json.Unmarshal(data, &lf); err != nil {
		return lf, fmt.Errorf("%s is not a Plugboard lockfile (%v); fix the JSON, or move the file aside and install again", p, err)
	}
	if lf.Version != LockfileVersion {
		return lf, fmt.Errorf("%s has version %d, and this Plugboard reads version %d; use the Plugboard that wrote it", p, lf.Version, LockfileVersion)
	}
	if lf.Plugins == nil {
		lf.Plugins = map[string]Entry{}
	}
	for id, e := range lf.Plugins {
		if err := checkID(id); err != nil {
			return lf, fmt.Errorf("%s: %w", p, err)
		}
		if e.Kind != KindGit && e.Kind != KindFolder && e.Kind != KindArchive || e.Source == "" || e.Content == "" {
			return lf, fmt.Errorf("%s: the entry %q needs a source, a kind (git, folder or archive) and a content hash; fix it or remove it", p, id)
		}
	}
	return lf, nil
}

// writeLockfile writes lf atomically.
func writeLockfile(p string, lf Lockfile) error {
	data, err := json.MarshalIndent(lf, "", "  ")
	if err != nil {
		return err
	}
	return jsonfile.WriteAtomic(p, append(data, '\n'), 0o644)
}

// editLockfile applies fn to the lockfile of pbHome and writes it. The caller holds the
// home's install lock.
func editLockfile(pbHome string, fn func(*Lockfile)) error {
	p := LockfilePath(pbHome)
	lf, err := ReadLockfile(p)
	if err != nil {
		return err
	}
	fn(&lf)
	if err := writeLockfile(p, lf); err != nil {
		return fmt.Errorf("writing %s: %w", p, err)
	}
	return nil
}
