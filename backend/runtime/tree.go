package runtime

import (
	"errors"
	"io/fs"

	"github.com/plugboard/plugboard/backend/ctree"
)

// Limits of one projected skill folder. A skill is instructions and a few scripts or
// references; a folder beyond these is almost certainly a mistake (a node_modules or a
// data set under skills/), and copying it at every new fingerprint would be slow. The
// catalog checks skill folders with the same limits (catalog.SkillTreeLimits), so what a
// launch drops is an issue in inspect and catalog first.
const (
	maxTreeFiles = 2000
	maxTreeBytes = 64 << 20
)

// tree is a skill folder's content, walked and hashed through descriptors beneath the
// plugin root (backend/ctree): a folder swapped for a link while it is read fails the walk
// or the copy, never puts a byte from outside into the projection.
type tree = *ctree.Tree

// hashTree walks and hashes dir, which must resolve inside root (the filesystem-resolved
// plugin root, Agent Plugins §4.1). Symbolic links are followed only inside root; one that
// leaves it, a special file, or a folder beyond the limits makes the whole skill unusable,
// and the error says which file and why (a *ctree.Error, whose Kind names the rule).
func hashTree(root, dir string) (tree, error) {
	return ctree.Walk(root, dir, ctree.Options{MaxFiles: maxTreeFiles, MaxBytes: maxTreeBytes})
}

// copyTree writes t under dest (which must not exist yet), executable files 0700 and the
// rest 0600, each checked against the hash the walk took: a file edited in between fails
// with errChanged rather than give a projection whose content differs from its
// fingerprint.
func copyTree(t tree, dest string) error {
	return t.CopyTo(dest, 0o700, func(f ctree.File) fs.FileMode {
		if f.Mode&0o111 != 0 {
			return 0o700
		}
		return 0o600
	})
}

// errChanged says a source file changed while it was being projected.
var errChanged = ctree.ErrChanged

// dropCode is the issue code a skill dropped for err carries: the catalog reports the
// same code for the same folder ("skill.tree-<kind>").
func dropCode(err error) string {
	var e *ctree.Error
	if errors.As(err, &e) {
		return "skill.tree-" + e.Kind
	}
	return ""
}
