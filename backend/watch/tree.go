package watch

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/fsnotify/fsnotify"
)

// addWatch arms one fsnotify watch. It is a variable so that tests can stand in for the
// kernel refusing a watch (ENOSPC when fs.inotify.max_user_watches is reached).
var addWatch = func(fw *fsnotify.Watcher, path string) error { return fw.Add(path) }

// maxDepth bounds how deep a walk goes below a root. Plugin trees are a handful of levels
// (the Cursor cache is about six); a deeper tree is a link farm, not a plugin.
const maxDepth = 32

// skipDir names folders that are never watched: the catalog does not read them, and a git
// checkout or an npm install inside a linked working copy would flood the event queue and
// spend the watch limit.
func skipDir(name string) bool { return name == ".git" || name == "node_modules" }

// dir is one armed fsnotify watch on a resolved (symlink-free) folder.
type dir struct {
	aliases map[string]struct{} // the paths under roots that lead here
	anchors int                 // how many missing or file roots wait on this folder
}

// watch makes sure resolved has a watch and returns its entry, or nil when it cannot be armed.
func (w *Watcher) watch(resolved string) *dir {
	if d, ok := w.dirs[resolved]; ok {
		return d
	}
	if err := addWatch(w.fs, resolved); err != nil {
		w.watchFailed(resolved, err)
		return nil
	}
	d := &dir{aliases: map[string]struct{}{}}
	w.dirs[resolved] = d
	return d
}

// watchFailed logs why a watch could not be armed and switches to polling when the
// failure is the kernel's limit.
func (w *Watcher) watchFailed(resolved string, err error) {
	var hint string
	switch {
	case errors.Is(err, syscall.ENOSPC):
		hint = "inotify watch limit reached (fs.inotify.max_user_watches); raise it with " +
			"`sudo sysctl fs.inotify.max_user_watches=524288` (persist it in /etc/sysctl.d/)"
	case errors.Is(err, syscall.EMFILE):
		hint = "too many open files; raise the limit with `ulimit -n`"
	default:
		if !errors.Is(err, fs.ErrNotExist) { // gone before we got to it: not notable
			w.logf("cannot watch %s: %v", resolved, err)
		}
		return
	}
	w.hitLimit = true
	if !w.limited.Swap(true) {
		w.logf("%s; until then the catalog is rescanned every %s", hint, w.poll)
	}
}

// release drops the watch on resolved once nothing refers to it any more.
func (w *Watcher) release(resolved string) {
	d, ok := w.dirs[resolved]
	if !ok || len(d.aliases) > 0 || d.anchors > 0 {
		return
	}
	delete(w.dirs, resolved)
	_ = w.fs.Remove(resolved) // fails when the folder is gone, which removed the watch already
}

// anchorOn watches the folder at p (resolved through its links) as an anchor: a watch
// kept for the events of its entries (a root's, or a waiting link's, coming and going)
// whatever else refers to it. It returns the folder's real path, "" when it cannot be
// watched.
func (w *Watcher) anchorOn(p string) string {
	resolved, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	d := w.watch(resolved)
	if d == nil {
		return ""
	}
	d.anchors++
	return resolved
}

// unanchor drops one anchor on the real folder resolved ("": none), and its watch once
// nothing refers to it.
func (w *Watcher) unanchor(resolved string) {
	if d, ok := w.dirs[resolved]; ok && resolved != "" {
		d.anchors--
		w.release(resolved)
	}
}

// walk watches resolved, reached as the path logical, and every folder below it, following
// symlinked folders. anc holds the real folders above, to stop at a link that leads back
// up (a cycle). When found is not nil it collects every path seen, so that files created
// with a new folder, before its watch was armed, are still reported.
func (w *Watcher) walk(logical, resolved string, anc []string, found *[]string) {
	if slices.Contains(anc, resolved) {
		return
	}
	if len(anc) > maxDepth {
		w.logf("not watching below %s: more than %d levels deep", logical, maxDepth)
		return
	}
	d := w.watch(resolved) // armed before reading, so that nothing created meanwhile is missed
	if d == nil {
		return
	}
	d.aliases[logical] = struct{}{}
	w.logical[logical] = resolved
	entries, err := os.ReadDir(resolved)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			w.logf("cannot read %s: %v", resolved, err)
		}
		return
	}
	anc = append(anc, resolved)
	for _, e := range entries {
		name := e.Name()
		lp, rp := filepath.Join(logical, name), filepath.Join(resolved, name)
		if found != nil {
			*found = append(*found, lp)
		}
		if skipDir(name) {
			continue
		}
		if e.IsDir() {
			w.walk(lp, rp, anc, found)
		} else if e.Type()&fs.ModeSymlink != 0 {
			if target, ok := dirTarget(rp); ok {
				w.walk(lp, target, anc, found)
			} else {
				w.wait(lp, rp) // a working copy not cloned yet, or deleted to be cloned again
			}
		}
	}
}

// dirTarget resolves a symlink and reports whether it leads to a folder.
func dirTarget(link string) (string, bool) {
	target, err := filepath.EvalSymlinks(link) // fails on dangling links and loops
	if err != nil {
		return "", false
	}
	fi, err := os.Stat(target)
	return target, err == nil && fi.IsDir()
}

// waitLink is a symlink under a root (at logical, on disk at onDisk) that leads to no
// folder yet: its target is missing. The nearest existing folder above the target is
// watched (anchor, counted in its dir's anchors), so that the target's return — a working
// copy cloned again, a folder moved back — is seen and walked.
type waitLink struct {
	logical, onDisk string
	target          string // the link's target, absolute, as written
	anchor          string // real path of the watched folder above target ("" when none)
}

// wait records the link at onDisk (reported as logical) whose target is missing, and
// watches the nearest existing folder above the target.
func (w *Watcher) wait(logical, onDisk string) {
	w.unwait(logical)
	t, err := os.Readlink(onDisk)
	if err != nil {
		return
	}
	if !filepath.IsAbs(t) {
		t = filepath.Join(filepath.Dir(onDisk), t)
	}
	l := &waitLink{logical: logical, onDisk: onDisk, target: filepath.Clean(t)}
	w.waiting[logical] = l
	w.anchorWait(l)
}

// anchorWait watches the nearest existing folder above l's target, when that is not the
// folder it watches already; the new watch is armed before the old one is released.
func (w *Watcher) anchorWait(l *waitLink) {
	resolved := ""
	if above := nearestFolder(l.target); above != "" {
		if r, err := filepath.EvalSymlinks(above); err == nil {
			resolved = r
		}
	}
	if resolved == l.anchor {
		return
	}
	old := l.anchor
	l.anchor = ""
	if resolved != "" {
		l.anchor = w.anchorOn(resolved)
	}
	w.unanchor(old)
}

// unwait drops the waiting link at logical and its anchor.
func (w *Watcher) unwait(logical string) {
	l, ok := w.waiting[logical]
	if !ok {
		return
	}
	delete(w.waiting, logical)
	w.unanchor(l.anchor)
}

// waitEvent looks again at the links waiting on the anchor folder resolved: a target
// that is a folder now is walked and reported under its link; one still missing waits on
// the folder nearest to it (mkdir -p, a clone made level by level).
func (w *Watcher) waitEvent(resolved string) {
	for _, logical := range sortedKeys(waitingOn(w.waiting, resolved)) {
		l := w.waiting[logical]
		// Moving the anchor deeper can miss what was made meanwhile (the clone went on
		// while this ran), so look again after each move, as syncRoot does.
		for range maxDepth {
			if r := w.rootAt(logical); r != nil {
				if _, ok := dirTarget(l.onDisk); ok {
					w.unwait(logical)
					w.syncRoot(r, true) // the root's target is back: its watches and a rescan
					break
				}
			} else if target, ok := dirTarget(l.onDisk); ok {
				w.unwait(logical)
				var found []string
				w.walk(logical, target, w.ancestors(logical), &found)
				w.pending.add(logical)
				for _, p := range found {
					w.pending.add(p)
				}
				break
			}
			was := l.anchor
			w.anchorWait(l)
			if l.anchor == was {
				break
			}
		}
	}
}

// rootAt returns the root whose path is p, or nil.
func (w *Watcher) rootAt(p string) *root {
	for _, r := range w.roots {
		if r.path == p {
			return r
		}
	}
	return nil
}

// waitingOn returns the logical paths of the links whose anchor is resolved.
func waitingOn(waiting map[string]*waitLink, resolved string) map[string]struct{} {
	out := map[string]struct{}{}
	for lp, l := range waiting {
		if l.anchor == resolved {
			out[lp] = struct{}{}
		}
	}
	return out
}

// forget drops the watches of the folder reported as logical and of everything below it
// (it was removed, renamed away, or a link was re-pointed).
func (w *Watcher) forget(logical string) {
	prefix := logical + string(filepath.Separator)
	for lp := range w.waiting {
		if lp == logical || strings.HasPrefix(lp, prefix) {
			w.unwait(lp)
		}
	}
	if _, ok := w.logical[logical]; !ok {
		return
	}
	for lp, resolved := range w.logical {
		if lp != logical && !strings.HasPrefix(lp, prefix) {
			continue
		}
		delete(w.logical, lp)
		if d, ok := w.dirs[resolved]; ok {
			delete(d.aliases, lp)
			w.release(resolved)
		}
	}
}

// ancestors returns the real folders above logical, for walk's cycle check.
func (w *Watcher) ancestors(logical string) []string {
	var anc []string
	for p := filepath.Dir(logical); ; p = filepath.Dir(p) {
		resolved, ok := w.logical[p]
		if !ok {
			return anc
		}
		anc = append(anc, resolved)
		if filepath.Dir(p) == p {
			return anc
		}
	}
}

// handle turns one fsnotify event into pending paths and re-arms watches as folders and
// links come and go.
func (w *Watcher) handle(ev fsnotify.Event) {
	gone := ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)
	// A watched folder whose parent is not watched (a link target, a root) reports its own
	// removal; the kernel has already dropped its watch.
	if d, ok := w.dirs[ev.Name]; ok && gone {
		for _, alias := range sortedKeys(d.aliases) {
			w.pending.add(alias)
			w.forget(alias)
			w.waitAgain(alias)
		}
		w.syncRoots(true)
	}
	parent, base := filepath.Split(ev.Name)
	parent = filepath.Clean(parent)
	d, ok := w.dirs[parent]
	if !ok {
		return
	}
	for _, alias := range sortedKeys(d.aliases) {
		lp := filepath.Join(alias, base)
		// A folder that could not be watched (unreadable when it was made or walked)
		// is walked again when its mode changes: chmod u+r makes it watchable.
		created := ev.Has(fsnotify.Create) || ev.Has(fsnotify.Chmod) && w.unwatchedFolder(lp, ev.Name)
		w.changed(lp, ev.Name, gone, created)
	}
	if d.anchors > 0 {
		w.anchorEvent(parent, base)
		w.waitEvent(parent)
	}
}

// unwatchedFolder reports whether onDisk (reported as logical) is a folder, or a link to
// one, that has no watch.
func (w *Watcher) unwatchedFolder(logical, onDisk string) bool {
	if _, ok := w.logical[logical]; ok || skipDir(filepath.Base(logical)) {
		return false
	}
	fi, err := os.Stat(onDisk)
	return err == nil && fi.IsDir()
}

// waitAgain makes the link that led to a folder just removed wait for it to return: the
// folder was a link's target (reported under alias) when the entry alias is a symlink.
func (w *Watcher) waitAgain(alias string) {
	parent, ok := w.logical[filepath.Dir(alias)]
	if !ok {
		return
	}
	onDisk := filepath.Join(parent, filepath.Base(alias))
	if fi, err := os.Lstat(onDisk); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		w.wait(alias, onDisk)
	}
}

// changed records a change to logical, found on disk at onDisk, and re-arms watches below.
func (w *Watcher) changed(logical, onDisk string, gone, created bool) {
	w.pending.add(logical)
	if gone || created {
		w.forget(logical) // a re-pointed link or a replaced folder starts afresh
	}
	if !created || skipDir(filepath.Base(logical)) {
		return
	}
	fi, err := os.Lstat(onDisk)
	if err != nil {
		return
	}
	target := onDisk
	if fi.Mode()&fs.ModeSymlink != 0 {
		t, ok := dirTarget(onDisk)
		if !ok {
			w.wait(logical, onDisk) // ln -s to a working copy not cloned yet
			return
		}
		target = t
	} else if !fi.IsDir() {
		return
	}
	var found []string
	w.walk(logical, target, w.ancestors(logical), &found)
	for _, p := range found {
		w.pending.add(p)
	}
}

func sortedKeys(m map[string]struct{}) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
