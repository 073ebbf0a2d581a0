package watch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// kind is what a root currently is on disk.
type kind int

const (
	missing kind = iota
	folder
	file
)

// root is one path the caller asked to watch and what was found there.
type root struct {
	path   string // as the caller gave it, cleaned: paths are reported under it
	kind   kind
	real   string // symlink-free path, when it exists
	anchor string // real path of the watched folder that reports the root's own changes
	// anchorPath is the anchor as an ancestor of path, to name its entries.
	anchorPath string
}

func newRoots(paths []string) ([]*root, error) {
	rs := make([]*root, 0, len(paths))
	for _, p := range paths {
		if p == "" {
			return nil, errors.New("watch: empty root path")
		}
		rs = append(rs, &root{path: filepath.Clean(p)})
	}
	return rs, nil
}

// rearm rebuilds every watch from the roots, keeping the watches that are still needed
// and dropping the others. It runs at start, when the roots change, after a lost event
// (queue overflow) and at each poll tick while the watch limit is hit.
func (w *Watcher) rearm() {
	for _, d := range w.dirs {
		clear(d.aliases)
		d.anchors = 0
	}
	clear(w.logical)
	clear(w.waiting) // their anchors were just cleared; the walks below wait again
	for _, r := range w.roots {
		*r = root{path: r.path}
		w.syncRoot(r, false)
	}
	for resolved := range w.dirs {
		w.release(resolved)
	}
}

// syncRoots brings every root up to date with the disk.
func (w *Watcher) syncRoots(report bool) {
	for _, r := range w.roots {
		w.syncRoot(r, report)
	}
}

// syncRoot looks at r on disk again: it moves r's anchor, and when r appeared, vanished or
// now leads elsewhere it re-arms r's watches and, if report is set, asks for a Rescan.
func (w *Watcher) syncRoot(r *root, report bool) {
	k, resolved := probe(r.path)
	// Moving the anchor deeper can miss a folder created meanwhile (mkdir -p), so look
	// again after each move.
	for range maxDepth {
		anchorPath := anchorFor(r.path, k)
		if anchorPath == r.anchorPath {
			break
		}
		w.moveAnchor(r, anchorPath)
		k, resolved = probe(r.path)
	}
	if k == r.kind && resolved == r.real {
		w.waitRoot(r, k)
		return
	}
	was := r.kind
	if was == folder {
		w.forget(r.path)
	}
	r.kind, r.real = k, resolved
	if k == folder {
		w.walk(r.path, resolved, nil, nil)
	}
	w.waitRoot(r, k)
	if !report {
		return
	}
	if was == folder || k == folder {
		w.pending.rescan(fmt.Sprintf("root %s %s", r.path, change(was, k)))
	} else {
		w.pending.add(r.path) // a single-file root came or went
	}
}

// waitRoot makes a root that is a link to a missing folder (a dotfiles checkout deleted
// to be made again) wait on the folder above its target too: the link's own folder sees
// no event when the target returns. Any other root waits for nothing.
func (w *Watcher) waitRoot(r *root, k kind) {
	if fi, err := os.Lstat(r.path); k == missing && err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if _, ok := w.waiting[r.path]; !ok {
			w.wait(r.path, r.path)
		}
		return
	}
	w.unwait(r.path)
}

func change(was, now kind) string {
	switch {
	case was == missing:
		return "appeared"
	case now == missing:
		return "vanished"
	default:
		return "changed"
	}
}

// moveAnchor watches the folder that reports r's own creation, removal and re-pointing.
func (w *Watcher) moveAnchor(r *root, anchorPath string) {
	w.unanchor(r.anchor)
	r.anchor, r.anchorPath = "", anchorPath
	if anchorPath != "" {
		r.anchor = w.anchorOn(anchorPath)
	}
}

// anchorEvent handles an event on the entry base of the anchor folder resolved: a file root
// changed, or a root (or a folder on the way to it) came, went or was re-pointed.
func (w *Watcher) anchorEvent(resolved, base string) {
	for _, r := range w.roots {
		if r.anchor != resolved {
			continue
		}
		entry := filepath.Join(r.anchorPath, base)
		switch {
		case entry == r.path:
			w.syncRoot(r, true)
			if r.kind != folder {
				w.pending.add(r.path) // an edit, or an atomic save, of a single-file root
			}
		case strings.HasPrefix(r.path, entry+string(filepath.Separator)):
			w.syncRoot(r, true)
		}
	}
}

// probe reports what p is, following symlinks, and its symlink-free path.
func probe(p string) (kind, string) {
	resolved, err := filepath.EvalSymlinks(p)
	if err != nil {
		return missing, ""
	}
	fi, err := os.Stat(resolved)
	switch {
	case err != nil:
		return missing, ""
	case fi.IsDir():
		return folder, resolved
	default:
		return file, resolved
	}
}

// anchorFor returns the folder to watch for changes to the root p itself: its parent, or
// while p is missing its nearest existing ancestor.
func anchorFor(p string, k kind) string {
	parent := filepath.Dir(p)
	switch {
	case parent == p:
		return "" // the filesystem root has nothing above it
	case k == missing:
		return nearestFolder(p)
	default:
		return parent
	}
}

// nearestFolder returns the closest existing folder above p, stopping at $HOME (a root
// under a missing home waits for nothing) or at the filesystem root.
func nearestFolder(p string) string {
	home := os.Getenv("HOME")
	for d := filepath.Dir(p); ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
		if d == home || filepath.Dir(d) == d {
			return ""
		}
	}
}
