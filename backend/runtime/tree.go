package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/plugboard/plugboard/backend/pathsafe"
)

// Limits of one projected skill folder. A skill is instructions and a few scripts or
// references; a folder beyond these is almost certainly a mistake (a node_modules or a
// data set under skills/), and copying it at every new fingerprint would be slow.
const (
	maxTreeFiles = 2000
	maxTreeBytes = 64 << 20
)

// file is one regular file of a skill folder, as found and hashed.
type file struct {
	rel  string // slash-separated, relative to the skill folder
	src  string // the resolved path the content is read from
	exec bool   // any execute bit: kept in the copy
	sum  string // hex sha256 of the content
}

// tree is a skill folder's content: its files in path order and one hash over them.
type tree struct {
	files []file
	sum   string
}

// hashTree reads every file under dir and hashes it. Symbolic links are followed only
// while they stay inside root (the filesystem-resolved plugin root, Agent Plugins §4.1);
// one that leaves it, a special file, or a folder beyond the limits makes the whole
// skill unusable, and the error says which file and why. dir itself must resolve inside
// root.
func hashTree(root, dir string) (tree, error) {
	resolved, err := pathsafe.ResolveAbs(dir)
	if err != nil {
		return tree{}, err
	}
	if !pathsafe.Within(root, resolved) {
		return tree{}, fmt.Errorf("%s resolves outside the plugin folder", dir)
	}
	w := walker{root: root, seen: map[string]bool{}}
	if err := w.walk(resolved, ""); err != nil {
		return tree{}, err
	}
	sort.Slice(w.files, func(a, b int) bool { return w.files[a].rel < w.files[b].rel })
	h := sha256.New()
	for _, f := range w.files {
		mode := "-"
		if f.exec {
			mode = "x"
		}
		fmt.Fprintf(h, "%s\x00%s\x00%s\n", f.rel, mode, f.sum)
	}
	return tree{files: w.files, sum: hex.EncodeToString(h.Sum(nil))}, nil
}

type walker struct {
	root  string
	files []file
	bytes int64
	seen  map[string]bool // resolved folders on the current path, against link cycles
}

func (w *walker) walk(dir, rel string) error {
	if w.seen[dir] {
		return fmt.Errorf("%s: a symbolic link loops back to a folder above it", displayRel(rel))
	}
	w.seen[dir] = true
	defer delete(w.seen, dir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		childRel := name
		if rel != "" {
			childRel = rel + "/" + name
		}
		p := filepath.Join(dir, name)
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			target, err := pathsafe.ResolveAbs(p)
			if err != nil {
				return fmt.Errorf("%s: %v", childRel, err)
			}
			if !pathsafe.Within(w.root, target) {
				return fmt.Errorf("%s is a symbolic link that leaves the plugin folder; replace it with the file itself", childRel)
			}
			if info, err = os.Stat(target); err != nil {
				return err
			}
			p = target
		}
		switch {
		case info.IsDir():
			if err := w.walk(p, childRel); err != nil {
				return err
			}
		case info.Mode().IsRegular():
			if err := w.add(p, childRel, info); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s is not a regular file or folder (%s); remove it from the skill", childRel, info.Mode().Type())
		}
	}
	return nil
}

func (w *walker) add(p, rel string, info fs.FileInfo) error {
	w.bytes += info.Size()
	if len(w.files) >= maxTreeFiles || w.bytes > maxTreeBytes {
		return fmt.Errorf("the skill folder holds more than %d files or %d MiB; move large data out of it", maxTreeFiles, maxTreeBytes>>20)
	}
	sum, err := hashFile(p)
	if err != nil {
		return err
	}
	w.files = append(w.files, file{rel: rel, src: p, exec: info.Mode()&0o111 != 0, sum: sum})
	return nil
}

// noFollow makes an open fail on a symbolic link.
const noFollow = syscall.O_NOFOLLOW

// openNoFollow opens a file that must not be a symbolic link at the moment of opening:
// the walk resolved every link already, so a link found now was put there since.
func openNoFollow(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|noFollow, 0)
}

func hashFile(p string) (string, error) {
	f, err := openNoFollow(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// copyTo writes the tree's files under dest (which must not exist yet), checking each
// file against the hash taken when the tree was read: a file edited in between fails
// the copy rather than giving a projection whose content differs from its fingerprint.
func (t tree) copyTo(dest string) error {
	if err := os.MkdirAll(dest, 0o700); err != nil {
		return err
	}
	for _, f := range t.files {
		out := filepath.Join(dest, filepath.FromSlash(f.rel))
		if err := os.MkdirAll(filepath.Dir(out), 0o700); err != nil {
			return err
		}
		if err := copyFile(f, out); err != nil {
			return err
		}
	}
	return nil
}

// errChanged says a source file changed while it was being projected.
var errChanged = errors.New("changed while it was being projected; launch again")

func copyFile(f file, out string) error {
	in, err := openNoFollow(f.src)
	if err != nil {
		return err
	}
	defer in.Close()
	mode := os.FileMode(0o600)
	if f.exec {
		mode = 0o700
	}
	o, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(o, h), in)
	if cerr := o.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if hex.EncodeToString(h.Sum(nil)) != f.sum {
		return fmt.Errorf("%s %w", f.src, errChanged)
	}
	return nil
}

func displayRel(rel string) string {
	if rel == "" {
		return "the skill folder"
	}
	return strings.TrimSuffix(rel, "/")
}
