// Package catalogcache is `plugboard catalog`'s cache of its last output: where it is
// kept and under what key, when an answer may be kept at all, and when the cache
// declines for a while. What makes an answer hold is package scancache: a snapshot of
// the facts of every path the scan could have read, taken before the scan.
package catalogcache

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/pathsafe"
	"github.com/plugboard/plugboard/backend/scancache"
)

// DeclineFor is how long a home whose snapshot did not pay is scanned without one before
// it is tried again.
const DeclineFor = 10 * time.Minute

// declinedSuffix names, beside a cache, the record that nothing is cached for a while.
const declinedSuffix = ".declined"

// Cache is the cache of one form (JSON or text) of the catalog of one set of options.
type Cache struct {
	o         catalog.Options
	roots     []string // catalog.Roots(o), read once (it reads settings.json)
	path, key string
	start     time.Time
	snap      *scancache.Snapshot // taken for the scan about to be made; nil: keep nothing
}

// Open returns the cache of the catalog of o in the form json or text, for a run that
// began at start; nil when that output is not cached: with a workspace (whose monorepo
// walk reaches folders no list names); when $PLUGBOARD_HOME is neither ~/.plugboard nor
// a folder Plugboard keeps state in (a folder given as --home only to be read gets no
// cache folder); when the cache folder is in a tree the catalog reads (the cache would
// be part of what it caches); or when the program cannot be found.
func Open(o catalog.Options, json bool, start time.Time) *Cache {
	if o.Workspace != "" || !isDir(o.PlugboardHome) {
		return nil
	}
	if o.PlugboardHome != filepath.Join(o.Home, ".plugboard") && !isDir(filepath.Join(o.PlugboardHome, "state")) {
		return nil
	}
	dir := filepath.Join(o.PlugboardHome, "cache")
	real := dir
	if r, err := filepath.EvalSymlinks(o.PlugboardHome); err == nil {
		real = filepath.Join(r, "cache")
	}
	roots := catalog.Roots(o)
	for _, root := range roots {
		r, err := filepath.EvalSymlinks(root)
		if err != nil {
			r = root
		}
		if pathsafe.Within(root, dir) || pathsafe.Within(r, real) {
			return nil
		}
	}
	form := "text"
	if json {
		form = "json"
	}
	key, ok := keyOf(o, form)
	if !ok {
		return nil
	}
	return &Cache{o: o, roots: roots, path: filepath.Join(dir, "catalog-"+form), key: key, start: start}
}

// keyOf is the key an answer is kept under: the program (by the facts of the file
// running, so that another build is a miss), the user, groups and effective
// capabilities it runs as (what they may read is what the scan sees), the form and the
// homes.
func keyOf(o catalog.Options, form string) (string, bool) {
	exe, err := os.Executable()
	if err != nil {
		return "", false
	}
	var st syscall.Stat_t
	if syscall.Stat("/proc/self/exe", &st) != nil { // the file running, even if replaced since
		return "", false
	}
	groups, _ := os.Getgroups()
	caps := "CapEff unknown"
	if status, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(line, "CapEff:") {
				caps = strings.Join(strings.Fields(line), " ")
			}
		}
	}
	return fmt.Sprintf("catalog %s\x00%s %d %d %d %d %d\x00%d %d %v %s\x00%s\x00%s", form, exe, st.Dev, st.Ino, st.Size,
		st.Mtim.Nano(), st.Ctim.Nano(), os.Geteuid(), os.Getegid(), groups, caps, o.Home, o.PlugboardHome), true
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// Key is what the answer is kept under.
func (c *Cache) Key() string { return c.key }

// Answer returns the kept answer when it holds. Otherwise (and always with fresh) it
// takes, before the scan, the snapshot that a new answer will be kept with, unless the
// cache declines lately or the snapshot would be racy.
func (c *Cache) Answer(fresh bool) ([]byte, bool) {
	if !fresh {
		// A home whose snapshot did not pay, lately: scan only. A record further ahead
		// than DeclineFor (written with a clock set ahead) is not believed.
		if until, ok := scancache.Declined(c.path+declinedSuffix, c.key); ok && c.start.Before(until) && until.Sub(c.start) <= DeclineFor {
			return nil, false
		}
	}
	var prev *scancache.Snapshot // what the cache recorded, to spare listing unchanged folders
	if !fresh {
		data, saved, ok := scancache.Load(c.path, c.key)
		if ok {
			return data, true
		}
		prev = saved
	}
	// A change found within the racy window (an edit just saved) means the snapshot
	// would be racy: spare taking it.
	if prev != nil && prev.Racy(c.start) {
		return nil, false
	}
	snap, err := c.take(prev)
	switch {
	case err != nil:
		c.decline() // it cannot be taken whole: it will not be soon
	case !snap.Racy(c.start):
		c.snap = snap
	}
	return nil, false
}

// take records, before the scan, the facts of everything the catalog reads:
// catalog.Roots (every package, skill root and file the catalog reads), walked whole,
// and the homes' own paths (a scan resolves them: a skill's paths against the home
// folder; a link among their parents can be pointed elsewhere); the folders prev
// recorded that did not change are not listed again. Taken before the scan, it can only
// be older than what the scan read: a change in between is a miss next time. A snapshot
// in which something changed since shortly before the run began is not kept
// (scancache.Racy); the earlier answer then stays (it cannot hold again, and its
// listings spare the next snapshot).
func (c *Cache) take(prev *scancache.Snapshot) (*scancache.Snapshot, error) {
	return scancache.Take(prev, scancache.Paths{Walk: c.roots, Resolve: []string{c.o.Home, c.o.PlugboardHome}})
}

// Keeping reports whether the answer about to be printed may be kept (Keep): a snapshot
// was taken for it.
func (c *Cache) Keeping() bool { return c != nil && c.snap != nil }

// SizeHint is the size of the last answer kept, to make room for the next; 0 if none.
func (c *Cache) SizeHint() int {
	if st, err := os.Stat(c.path); err == nil && st.Size() < scancache.MaxFile {
		return int(st.Size())
	}
	return 0
}

// Keep keeps out, the whole answer printed for cat, with the snapshot taken before its
// scan; or keeps nothing when an error of the moment may have shaped it; or declines for
// a while when the snapshot does not hold all the scan read (it looked outside the
// packages) or would cost about what the scan does to check. Failing to save costs the
// next run a scan, so it is not reported.
func (c *Cache) Keep(cat *catalog.Catalog, out []byte) {
	if !c.Keeping() {
		return
	}
	switch {
	case transient(cat):
	case cat.ReadOutside() || !snapshotPays(c.snap.Len(), len(cat.Plugins)+len(cat.Skills)):
		c.decline()
	default:
		if scancache.Save(c.path, c.key, c.snap, out) == nil {
			os.Remove(c.path + declinedSuffix)
		}
	}
}

// decline drops the kept answer and records that none is kept for DeclineFor.
func (c *Cache) decline() {
	os.Remove(c.path)
	_ = scancache.Decline(c.path+declinedSuffix, c.key, c.start.Add(DeclineFor))
}

// Decline records that no answer is kept until until (for tests and tools).
func (c *Cache) Decline(until time.Time) error {
	return scancache.Decline(c.path+declinedSuffix, c.key, until)
}

// snapshotPays reports whether a snapshot of looks look-ups is worth checking instead
// of scanning a catalog of items plugins and skills. A look-up costs about 1.5 µs and a
// scan about 30 µs an item (catalogbench: 25,010 look-ups in 64 ms, 11,000 items in
// 330 ms), so past 16 look-ups an item the check would cost what the scan does: a linked
// working copy holding its dependencies, which the scan never opens. Under 10,000
// look-ups (15 ms) it pays whatever the ratio. Counted, not timed: a first snapshot
// taken with a cold disk would look slower than the warm scan after it.
func snapshotPays(looks, items int) bool {
	return looks < 10_000 || looks < 16*(items+1)
}

// transientErrors are the errors that say more of the moment than of the files: an
// answer whose issues name one is not kept. minOpenFiles is the fewest open files that
// let a scan open what it needs at once (Go raises the soft limit to the hard one at
// start); under it, an error the scan did not report could have shaped a reading.
var transientErrors = []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOMEM, syscall.EIO,
	syscall.EINTR, syscall.EAGAIN, syscall.ESTALE, syscall.ETIMEDOUT, syscall.ENOBUFS}

const minOpenFiles = 1024

// transient reports whether c's scan may have met an error of the moment.
func transient(c *catalog.Catalog) bool {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil && lim.Cur < minOpenFiles {
		return true
	}
	named := func(l issue.List) bool {
		for _, i := range l {
			for _, e := range transientErrors {
				if strings.Contains(i.Message, e.Error()) {
					return true
				}
			}
		}
		return false
	}
	if named(c.Issues) {
		return true
	}
	for i := range c.Plugins {
		p := &c.Plugins[i]
		if named(p.AllIssues()) {
			return true
		}
		if v := p.Clients; v != nil && (named(v.Claude.Issues) || named(v.Cursor.Issues) || named(v.Codex.Issues) || named(v.PI.Issues)) {
			return true
		}
	}
	for _, e := range c.Skills {
		if named(e.Issues) {
			return true
		}
	}
	return false
}
