// Package reload keeps a catalog current while files change (requirements U4, U6): it
// watches the catalog's roots (backend/watch), refreshes only what a batch of changes
// touched (catalog.Refresh), says what changed (catalog.Diff), stores a snapshot of every
// scan that changed anything (backend/store), and keeps the copies of local development
// links made with --copy in step with their sources (backend/devlink).
//
// It is the one loop behind the desktop app's live page and tray and behind
// `plugboard watch`. A Reloader's methods are safe for concurrent use. onReload is called
// from Run's goroutine; onState from Run's and from whichever goroutine calls Pause. Both
// must return quickly.
package reload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"sync"
	"time"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/devlink"
	"github.com/plugboard/plugboard/backend/pathsafe"
	"github.com/plugboard/plugboard/backend/snapshot"
	"github.com/plugboard/plugboard/backend/store"
	"github.com/plugboard/plugboard/backend/watch"
)

// States of the live catalog, for the tray and the page.
const (
	StateOK        = "ok"
	StateIssues    = "issues" // some plugin or skill has an error
	StateReloading = "reloading"
	StatePaused    = "paused"
	// StateStarting is what a caller shows before the watches are armed (the first scan
	// of a large home takes a second or two); a Reloader itself never reports it.
	StateStarting = "starting"
)

// Options configure a Reloader.
type Options struct {
	Catalog catalog.Options
	Watch   watch.Options
	// Snapshots stores a snapshot in $PLUGBOARD_HOME/state/plugboard.db after every scan
	// that changed anything (and after the first).
	Snapshots bool
	Log       io.Writer // nil: discard
	// Installed, when set, says which agent clients are installed now
	// (catalog.Options.Installed), asked at each batch: a client installed, removed or
	// upgraded while the catalog is watched changes the rules its verdicts follow, so a
	// batch that finds a change scans everything again under the new versions.
	Installed func() map[string]string
}

// Reload is one refresh of the catalog.
type Reload struct {
	Catalog *catalog.Catalog `json:"-"`
	Changes []catalog.Change `json:"changes"`
	Counts  catalog.Counts   `json:"counts"` // every issue of the new catalog
	Full    bool             `json:"full"`   // a full scan (a rescan, or what a batch could not place)
	Millis  float64          `json:"ms"`     // from the batch to the new catalog
	// Snapshot is the id of the snapshot stored for this scan; 0 when none was (nothing
	// changed, or snapshots are off).
	Snapshot int64     `json:"snapshot,omitempty"`
	Time     time.Time `json:"time"`
	// Invalid names the plugins that were valid and are not any more, for a notification.
	Invalid []string `json:"invalid,omitempty"`
	// Targets is set when an agent or template file changed ($PLUGBOARD_HOME/agents,
	// templates): the assignment targets are to be read again (A5: a dirty draft whose
	// target changed on disk goes stale), and after every full scan of a batch. Such files
	// are no part of the catalog, so a batch of only them refreshes nothing else.
	Targets bool `json:"targets,omitempty"`
}

// State is what the tray shows.
type State struct {
	State   string `json:"state"`
	Paused  bool   `json:"paused"`
	Limited bool   `json:"limited"` // the watch limit was hit: periodic rescans
}

// Reloader owns the live catalog.
type Reloader struct {
	o      Options
	w      *watch.Watcher
	rescan chan struct{}

	// The snapshot store and the last rows, used by Run's goroutine only (and by Prime,
	// which runs before it starts or inside it).
	db     *store.Store
	dbHome string
	noCgo  bool // this build has no SQLite (store.ErrNoCgo, said once): store no snapshot
	rowsOf *catalog.Catalog
	rows   []snapshot.Plugin
	hasher snapshot.Hasher // hashes only the rows that changed since the last snapshot

	notifyMu sync.Mutex // one state delivery at a time
	primed   bool       // the first snapshot is taken (under mu)
	mu       sync.Mutex
	onState  func(State)
	cat      *catalog.Catalog
	paused   bool
	busy     bool
}

// New loads the catalog (or takes initial, a scan of the same options) and arms the
// watches. Call Run to start reloading.
func New(o Options, initial *catalog.Catalog) (*Reloader, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Watch.Log == nil {
		o.Watch.Log = o.Log
	}
	if initial == nil {
		initial = catalog.Load(o.Catalog)
	}
	w, err := watch.New(roots(o.Catalog), o.Watch)
	if err != nil {
		return nil, err
	}
	return &Reloader{o: o, w: w, cat: initial, rescan: make(chan struct{}, 1)}, nil
}

// roots are the catalog's roots, the folders of the assignment targets and the sources of
// copied development links.
func roots(o catalog.Options) []string {
	rs := append(catalog.Roots(o), targetDirs(o)...)
	rs = append(rs, devlink.RegistryPath(o.PlugboardHome)) // a copy made later adds its source
	links, _ := devlink.List(linkOptions(o))               // a damaged record lists nothing; links says why
	for _, l := range links {
		if l.Mode == devlink.ModeCopy && l.SourceExists {
			rs = append(rs, l.Source)
		}
	}
	return rs
}

func linkOptions(o catalog.Options) devlink.Options {
	return devlink.Options{Home: o.Home, PlugboardHome: o.PlugboardHome}
}

// Current is the latest catalog.
func (r *Reloader) Current() *catalog.Catalog {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cat
}

// State is the tray's state now.
func (r *Reloader) State() State {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stateLocked()
}

func (r *Reloader) stateLocked() State {
	s := State{State: StateOK, Paused: r.paused, Limited: r.w.Limited()}
	switch {
	case r.paused:
		s.State = StatePaused
	case r.busy:
		s.State = StateReloading
	case r.cat != nil && (r.cat.Summary.Issues.Errors > 0):
		s.State = StateIssues
	}
	return s
}

// Pause stops reloading until Pause(false); changes made meanwhile are reloaded then.
func (r *Reloader) Pause(paused bool) {
	r.mu.Lock()
	r.paused = paused
	st := r.stateLocked()
	r.mu.Unlock()
	r.w.Pause(paused)
	r.notify(st)
}

// Rescan asks for a full scan now ("Rescan now").
func (r *Reloader) Rescan() {
	select {
	case r.rescan <- struct{}{}:
	default: // one is pending already
	}
}

// Replace makes c the current catalog: a scan made elsewhere (the page's Rescan) of the
// same options. Later changes are diffed against it.
func (r *Reloader) Replace(c *catalog.Catalog) {
	r.mu.Lock()
	r.cat = c
	st := r.stateLocked()
	r.mu.Unlock()
	r.notify(st) // the issue count may have moved
}

// SetOptions changes what is watched (a workspace opened or closed) and rescans.
func (r *Reloader) SetOptions(o catalog.Options) {
	r.mu.Lock()
	r.o.Catalog = o
	r.mu.Unlock()
	r.Rescan()
}

func (r *Reloader) options() catalog.Options {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.o.Catalog
}

// Close stops watching.
func (r *Reloader) Close() error { return r.w.Close() }

// notify delivers the state as it is when delivered, one delivery at a time: callers
// on two goroutines (Run, and Pause or Replace) can then never leave an older state
// showing after a newer one. The argument is what the caller saw; it is not trusted.
func (r *Reloader) notify(State) {
	r.notifyMu.Lock()
	defer r.notifyMu.Unlock()
	r.mu.Lock()
	f := r.onState
	st := r.stateLocked()
	r.mu.Unlock()
	if f != nil {
		f(st)
	}
}

// Run reloads until ctx is done or the Reloader is closed. onReload is called after every
// scan (nil: ignored), onState whenever the state changes (nil: ignored). The first
// snapshot is stored before the first change is awaited.
// Prime stores the snapshot of the catalog the Reloader started from, once. Run does it
// when nobody has; a caller that must have the first snapshot stored before it goes on
// (the app, whose page may ask for it at once) calls Prime before starting Run.
func (r *Reloader) Prime(ctx context.Context) {
	r.mu.Lock()
	done := r.primed
	r.primed = true
	r.mu.Unlock()
	if !done && r.o.Snapshots {
		r.snapshot(ctx, r.Current())
	}
}

func (r *Reloader) Run(ctx context.Context, onReload func(Reload), onState func(State)) error {
	r.mu.Lock()
	r.onState = onState
	r.mu.Unlock()
	if onReload == nil {
		onReload = func(Reload) {}
	}
	defer func() {
		if r.db != nil {
			r.db.Close()
			r.db = nil
		}
	}()
	r.Prime(ctx)
	r.notify(r.State())
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-r.rescan:
			onReload(r.apply(ctx, watch.Batch{Rescan: true, Reason: "asked"}))
		case b, ok := <-r.w.Batches():
			if !ok {
				return nil
			}
			targets := false
			if b, targets = withoutTargets(b, r.options()); targets && len(b.Paths) == 0 && !b.Rescan {
				c := r.Current()
				onReload(Reload{Catalog: c, Changes: []catalog.Change{}, Counts: c.Summary.Issues, Targets: true, Time: time.Now().UTC()})
				continue
			}
			if synced := r.syncCopies(b); synced {
				// The copies' own changes arrive as the next batch; nothing else to do
				// unless the batch touched the catalog's roots too.
				if !touchesCatalog(b, r.options()) && !targets {
					continue
				}
			}
			rl := r.apply(ctx, b)
			rl.Targets = targets || b.Rescan // a rescan (a root appeared: templates/) may hide one
			onReload(rl)
		}
	}
}

// apply refreshes the catalog for one batch.
func (r *Reloader) apply(ctx context.Context, b watch.Batch) Reload {
	start := time.Now()
	r.mu.Lock()
	r.busy = true
	prev, o := r.cat, r.o.Catalog
	st := r.stateLocked()
	r.mu.Unlock()
	r.notify(st)

	full := b.Rescan
	if r.o.Installed != nil {
		if now := r.o.Installed(); !maps.Equal(now, o.Installed) {
			o.Installed, full = now, true
			r.mu.Lock()
			r.o.Catalog.Installed = now
			r.mu.Unlock()
		}
	}
	var next *catalog.Catalog
	if full {
		next = catalog.Load(o)
		if err := r.w.SetRoots(roots(o)); err != nil {
			fmt.Fprintf(r.o.Log, "plugboard: re-arming watches: %v\n", err)
		}
	} else {
		next = catalog.Refresh(prev, o, b.Paths)
		if touchesSettings(b, o) || anyWithin(devlink.RegistryPath(o.PlugboardHome), b.Paths) {
			_ = r.w.SetRoots(roots(o)) // skillPluginPaths, or the copies' sources, may have changed
		}
	}
	rl := Reload{Catalog: next, Changes: catalog.Diff(prev, next), Counts: next.Summary.Issues, Full: full, Time: time.Now().UTC()}
	if rl.Changes == nil {
		rl.Changes = []catalog.Change{}
	}
	rl.Invalid = newlyInvalid(prev, next)
	rl.Millis = float64(time.Since(start).Microseconds()) / 1000
	if r.o.Snapshots && len(rl.Changes) > 0 {
		rl.Snapshot = r.snapshot(ctx, next)
	}

	r.mu.Lock()
	r.cat, r.busy = next, false
	st = r.stateLocked()
	r.mu.Unlock()
	r.notify(st)
	return rl
}

// snapshot stores c's rows; it returns the id when a new snapshot was stored.
// The database stays open between snapshots, and the rows of plugins a Refresh kept are
// reused, so a snapshot costs the rows that changed plus one insert of the rest.
func (r *Reloader) snapshot(ctx context.Context, c *catalog.Catalog) int64 {
	if r.noCgo {
		return 0
	}
	if r.db == nil || r.dbHome != c.PlugboardHome {
		if r.db != nil {
			r.db.Close()
		}
		db, _, err := store.Open(ctx, c.PlugboardHome)
		if err != nil {
			r.noCgo = errors.Is(err, store.ErrNoCgo) // this binary never will: say so once
			fmt.Fprintf(r.o.Log, "plugboard: snapshot not stored: %v\n", err)
			return 0
		}
		r.db, r.dbHome = db, c.PlugboardHome
	}
	rows := catalog.SnapshotRowsSince(r.rowsOf, r.rows, c)
	r.rowsOf, r.rows = c, rows
	totals := &snapshot.Totals{Errors: c.Summary.Issues.Errors, Warnings: c.Summary.Issues.Warnings}
	id, stored, err := r.db.AddSnapshot(ctx, snapshot.Snapshot{Plugins: rows, Hash: r.hasher.Hash(rows), Totals: totals})
	if err != nil {
		fmt.Fprintf(r.o.Log, "plugboard: snapshot not stored: %v\n", err)
		return 0
	}
	if !stored {
		return 0
	}
	return id
}

// syncCopies re-copies every copied development link whose source the batch touched.
// Sources live outside the catalog's roots (they are watched as roots of their own), so
// a batch entirely inside the roots — every ordinary edit — costs no look at the links.
func (r *Reloader) syncCopies(b watch.Batch) bool {
	synced := false
	co := r.options()
	if !outsideRoots(b, co) {
		return false
	}
	links, _ := devlink.List(linkOptions(co)) // a damaged record syncs nothing; links says why
	for _, l := range links {
		if l.Mode != devlink.ModeCopy || !l.SourceExists || !anyWithin(l.Source, b.Paths) {
			continue
		}
		o := linkOptions(co)
		o.Into = l.Into
		if err := devlink.Sync(l.Name, o); err != nil {
			fmt.Fprintf(r.o.Log, "plugboard: syncing the copy %s: %v\n", l.Dest, err)
			continue
		}
		synced = true
	}
	return synced
}

func anyWithin(dir string, paths []string) bool {
	for _, p := range paths {
		if pathsafe.Within(dir, p) {
			return true
		}
	}
	return false
}

// outsideRoots reports whether a batch has a path under none of the catalog's roots.
func outsideRoots(b watch.Batch, o catalog.Options) bool {
	roots := catalog.Roots(o)
	for _, p := range b.Paths {
		inside := false
		for _, root := range roots {
			inside = inside || pathsafe.Within(root, p)
		}
		if !inside {
			return true
		}
	}
	return false
}

// touchesCatalog reports whether a batch has a path under one of the catalog's roots.
func touchesCatalog(b watch.Batch, o catalog.Options) bool {
	for _, root := range catalog.Roots(o) {
		if anyWithin(root, b.Paths) {
			return true
		}
	}
	return false
}

// targetDirs hold the assignment targets' files (backend/assign): agents and templates.
func targetDirs(o catalog.Options) []string {
	return []string{filepath.Join(o.PlugboardHome, "agents"), filepath.Join(o.PlugboardHome, "templates")}
}

// withoutTargets takes the paths in the targets' folders out of a batch (the catalog
// would not know them, and a Refresh of a path it does not know is a full scan), and
// says whether there were any.
func withoutTargets(b watch.Batch, o catalog.Options) (watch.Batch, bool) {
	dirs := targetDirs(o)
	kept := b.Paths[:0:0]
	found := false
	for _, p := range b.Paths {
		if p == dirs[0] || p == dirs[1] || pathsafe.Within(dirs[0], p) || pathsafe.Within(dirs[1], p) {
			found = true
			continue
		}
		kept = append(kept, p)
	}
	b.Paths = kept
	return b, found
}

func touchesSettings(b watch.Batch, o catalog.Options) bool {
	return anyWithin(filepath.Join(o.PlugboardHome, "settings.json"), b.Paths)
}

// newlyInvalid lists the plugins (by path) valid in a and invalid in b.
func newlyInvalid(a, b *catalog.Catalog) []string {
	var was map[string]bool // by folder, made only when plugins moved
	var out []string
	for i := range b.Plugins {
		p := &b.Plugins[i]
		var valid, ok bool
		if i < len(a.Plugins) && a.Plugins[i].Path == p.Path {
			valid, ok = a.Plugins[i].Valid, true
		} else {
			if was == nil {
				was = make(map[string]bool, len(a.Plugins))
				for i := range a.Plugins {
					was[a.Plugins[i].Path] = a.Plugins[i].Valid
				}
			}
			valid, ok = was[p.Path]
		}
		if ok && valid && !p.Valid {
			out = append(out, p.ID)
		}
	}
	return out
}
