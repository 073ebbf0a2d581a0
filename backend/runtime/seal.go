package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/backend/ctree"
	"github.com/plugboard/plugboard/backend/jsonfile"
	"github.com/plugboard/plugboard/backend/pathsafe"
)

// sealFile lists, in a projection, every file it holds with its size, mode, status-change
// time and content hash, as the projection was made. Reuse checks the cheap facts (sizes,
// modes, ctimes: one listing, no content read); any file missing, added or different
// makes the launch build the projection anew instead of reusing it.
const sealFile = ".seal.json"

type seal struct {
	V     int        `json:"v"`
	Files []sealItem `json:"files"`
}

type sealItem struct {
	Path   string      `json:"path"`
	Size   int64       `json:"size"`
	Mode   fs.FileMode `json:"mode"`
	CTime  int64       `json:"ctime"`
	SHA256 string      `json:"sha256"`
}

func skipSeal(rel string) bool { return rel == sealFile }

// writeSeal seals the projection that l was just written into at dir. The hashes are
// those of what was written (each skill file was hashed as it was copied, the other files
// are in l); the listing adds each file's size, mode and ctime, and a file the layout did
// not write fails the seal.
func writeSeal(dir string, l layout) error {
	root, err := pathsafe.Root(dir)
	if err != nil {
		return err
	}
	sums := map[string]string{}
	for rel, t := range l.trees {
		for _, f := range t.Files {
			sums[rel+"/"+f.Rel] = f.Sum
		}
	}
	for rel, data := range l.files {
		sum := sha256.Sum256(data)
		sums[rel] = hex.EncodeToString(sum[:])
	}
	t, err := ctree.Walk(root, root, ctree.Options{Skip: skipSeal, NoHash: true})
	if err != nil {
		return err
	}
	s := seal{V: 1, Files: make([]sealItem, len(t.Files))}
	for i, f := range t.Files {
		sum, ok := sums[f.Rel]
		if !ok {
			return fmt.Errorf("%s is in the projection but not in its layout", f.Rel)
		}
		s.Files[i] = sealItem{Path: f.Rel, Size: f.Size, Mode: f.Mode, CTime: f.CTime, SHA256: sum}
	}
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return jsonfile.WriteAtomic(filepath.Join(root, sealFile), data, 0o600)
}

// wouldReuse says whether the projection at dir can be reused as it is: it exists and
// every file still matches its seal. When it exists but cannot, why says what differs.
func wouldReuse(dir string) (ok bool, why string) {
	if _, err := os.Lstat(dir); err != nil {
		return false, ""
	}
	if why := checkSeal(dir); why != "" {
		return false, why
	}
	return true, ""
}

func checkSeal(dir string) string {
	data, err := capread.ReadNoFollow(filepath.Join(dir, sealFile), 64<<20)
	if err != nil {
		return "it has no seal (" + sealFile + ")"
	}
	var s seal
	if json.Unmarshal(data, &s) != nil || s.V != 1 {
		return "its seal cannot be read"
	}
	root, err := pathsafe.Root(dir)
	if err != nil {
		return err.Error()
	}
	t, err := ctree.Walk(root, root, ctree.Options{Skip: skipSeal, NoHash: true})
	if err != nil {
		return err.Error()
	}
	have := make(map[string]ctree.File, len(t.Files))
	for _, f := range t.Files {
		have[f.Rel] = f
	}
	for _, w := range s.Files {
		f, ok := have[w.Path]
		switch {
		case !ok:
			return w.Path + " is missing"
		case f.Size != w.Size || f.Mode != w.Mode || f.CTime != w.CTime:
			return w.Path + " changed since it was projected"
		}
		delete(have, w.Path)
	}
	for rel := range have {
		return fmt.Sprintf("%s was added since it was projected", rel)
	}
	return ""
}
