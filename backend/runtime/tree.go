package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/plugboard/plugboard/backend/ctree"
	"github.com/plugboard/plugboard/backend/skill"
)

// tree is a skill folder's content, walked and hashed through descriptors beneath the
// plugin root (backend/ctree): a folder swapped for a link while it is read fails the walk
// or the copy, never puts a byte from outside into the projection.
type tree = *ctree.Tree

// hashTree walks and hashes dir, which must resolve inside root (the filesystem-resolved
// plugin root, Agent Plugins §4.1), with the catalog's rules (skill.TreeOptions): symbolic
// links are followed only inside root; one that leaves it, a special file, a dangling
// link or an unreadable file is left out (Tree.Skipped says why, and the catalog warned
// of it with the same code); a folder beyond the limits makes the whole skill unusable.
// sums (nil: none) gives the hashes of files that did not change since a launch hashed
// them, so an unchanged launch reads no skill file (ctree.Sums).
func hashTree(root, dir string, sums *ctree.Sums) (tree, error) {
	o := skill.TreeOptions(false)
	o.Sums = sums
	return ctree.Walk(root, dir, o)
}

// sumsFile is where the launches of target with backend keep the hashes of the files
// they read: $PLUGBOARD_HOME/runtime/sums/<hash of the two>, private like the projections
// beside it. One file a launch set, holding that set's files only (ctree.Sums.Save), so
// a launch reads no more than its own.
func sumsFile(pbHome, backend, target string) string {
	h := sha256.Sum256([]byte(backend + "\x00" + target))
	return filepath.Join(RuntimeDir(pbHome), "sums", hex.EncodeToString(h[:8]))
}

// saveSums writes sums to path, making its folder first (a cache: the caller ignores a
// failure, which costs the next launch a reading).
func saveSums(sums *ctree.Sums, path string) error {
	if !sums.Changed() {
		// In use: prune keeps it. (A launch refused before it hashed anything
		// touches nothing and makes no folder.)
		now := time.Now()
		_ = os.Chtimes(path, now, now)
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return sums.Save(path)
}

// hash is hashTree of dir in u's root, with the launch's sums.
func (u *unit) hash(dir string) (tree, error) { return hashTree(u.root, dir, u.sums) }

// copyTree writes t under dest (which must not exist yet), executable files 0700 and the
// rest 0600, each checked against the hash the walk took: a file edited in between fails
// with ctree.ErrChanged rather than give a projection whose content differs from its
// fingerprint.
func copyTree(t tree, dest string) error {
	return t.CopyTo(dest, 0o700, func(f ctree.File) fs.FileMode {
		if f.Mode&0o111 != 0 {
			return 0o700
		}
		return 0o600
	})
}
