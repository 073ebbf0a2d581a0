package reload

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/benchhome"
	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/devlink"
	"github.com/plugboard/plugboard/backend/pathsafe"
	"github.com/plugboard/plugboard/backend/store"
	"github.com/plugboard/plugboard/backend/testhome"
	"github.com/plugboard/plugboard/backend/watch"
)

const schema = `"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"`

// write writes a file of a test home (testhome.WriteFile).
func write(t testing.TB, p, body string) { t.Helper(); testhome.WriteFile(t, p, body) }

func plugin(t testing.TB, dir, name string, skills ...string) {
	write(t, filepath.Join(dir, "plugin.json"), `{`+schema+`, "name": "`+name+`"}`)
	for _, s := range skills {
		write(t, filepath.Join(dir, "skills", s, "SKILL.md"), "---\nname: "+s+"\ndescription: Use when testing "+s+".\n---\n")
	}
}

// live starts a Reloader over a fresh home and returns its reloads as a channel.
type live struct {
	r       *Reloader
	o       catalog.Options
	reloads chan Reload
	states  chan State
}

func start(t *testing.T, setup func(o catalog.Options)) *live {
	t.Helper()
	return startWith(t, setup, Options{})
}

// startWith is start with Options other than the catalog's and Snapshots.
func startWith(t *testing.T, setup func(o catalog.Options), ro Options) *live {
	t.Helper()
	home, err := pathsafe.Root(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	o := catalog.Options{Home: home, PlugboardHome: filepath.Join(home, ".plugboard"), Workers: 2}
	plugin(t, filepath.Join(o.PlugboardHome, "plugins", "alpha"), "alpha", "greet", "part")
	if setup != nil {
		setup(o)
	}
	ro.Catalog, ro.Snapshots = o, true
	r, err := New(ro, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := &live{r: r, o: o, reloads: make(chan Reload, 16), states: make(chan State, 64)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.Run(ctx, func(rl Reload) { l.reloads <- rl }, func(s State) {
			select {
			case l.states <- s:
			default:
			}
		})
	}()
	t.Cleanup(func() { cancel(); r.Close(); <-done })
	return l
}

// next waits for the next reload with a change (up to 5 s; the goal is within 1 s, and
// the latency is logged).
func (l *live) next(t *testing.T, since time.Time) Reload {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case rl := <-l.reloads:
			if len(rl.Changes) == 0 {
				continue
			}
			t.Logf("reload %v after the edit (refresh %.1f ms): %v", time.Since(since).Round(time.Millisecond), rl.Millis, rl.Changes)
			return rl
		case <-timeout:
			t.Fatal("no reload within 5 s")
		}
	}
}

func has(rl Reload, kind, what, id string) bool {
	for _, c := range rl.Changes {
		if c.Kind == kind && c.What == what && c.ID == id {
			return true
		}
	}
	return false
}

// An edit is one change. (How soon it arrives is measured by BenchmarkReloadOneChange and
// logged by next, not asserted: a timed unit test fails on a loaded machine.)
func TestSkillEditIsOneChange(t *testing.T) {
	l := start(t, nil)
	skill := filepath.Join(l.o.PlugboardHome, "plugins", "alpha", "skills", "greet", "SKILL.md")
	t0 := time.Now()
	write(t, skill, "---\nname: greet\ndescription: Use when greeting someone new.\n---\n")
	rl := l.next(t, t0)
	if len(rl.Changes) != 1 || !has(rl, catalog.Changed, catalog.WhatSkill, "alpha:greet") || rl.Full {
		t.Errorf("changes = %v (full %v)", rl.Changes, rl.Full)
	}
	// An error makes it invalid: counts go up and the state says issues.
	write(t, skill, "---\nname: Greet!\n---\n")
	rl = l.next(t, time.Now())
	if rl.Counts.Errors == 0 || l.r.State().State != StateIssues {
		t.Errorf("counts %+v state %v", rl.Counts, l.r.State())
	}
}

// A client upgraded while the catalog is watched: the next batch asks which clients are
// installed, finds claude's version changed and scans everything again under its rules,
// and every verdict says the new version.
func TestInstalledClientsFollowed(t *testing.T) {
	var mu sync.Mutex
	versions := map[string]string{"claude": "2.1.197"}
	installed := func() map[string]string {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(versions)
	}
	l := startWith(t, func(o catalog.Options) {}, Options{Installed: installed})
	judged := func(c *catalog.Catalog) string { return c.Plugins[0].Clients.Claude.JudgedBy }
	skill := filepath.Join(l.o.PlugboardHome, "plugins", "alpha", "skills", "greet", "SKILL.md")
	write(t, skill, "---\nname: greet\ndescription: Use when greeting anyone.\n---\n")
	rl := l.next(t, time.Now())
	if got := judged(rl.Catalog); got != "model of claude 2.1.197, claude 2.1.197 installed" || !rl.Full {
		t.Errorf("first batch: judged by %q (full %v)", got, rl.Full)
	}
	mu.Lock()
	versions["claude"] = "2.1.328"
	mu.Unlock()
	write(t, skill, "---\nname: greet\ndescription: Use when greeting someone new.\n---\n")
	rl = l.next(t, time.Now())
	if got := judged(rl.Catalog); got != "model of claude 2.1.328, claude 2.1.328 installed" || !rl.Full {
		t.Errorf("after the upgrade: judged by %q (full %v)", got, rl.Full)
	}
	write(t, skill, "---\nname: greet\ndescription: Use when greeting someone.\n---\n")
	if rl = l.next(t, time.Now()); rl.Full {
		t.Errorf("nothing upgraded, yet the batch scanned everything: %v", rl.Changes)
	}
}

// An edit of a SKILL.md body alone changes no field the catalog shows; it is still a
// change ("content changed"), in a plain plugin and in one linked from a working copy.
func TestBodyEditIsAChange(t *testing.T) {
	work := filepath.Join(t.TempDir(), "work", "gamma")
	l := start(t, func(o catalog.Options) {
		plugin(t, work, "gamma", "shine")
		if _, err := devlink.Link(work, devlink.Options{Home: o.Home, PlugboardHome: o.PlugboardHome}); err != nil {
			t.Fatal(err)
		}
	})
	for _, tc := range []struct{ file, id string }{
		{filepath.Join(l.o.PlugboardHome, "plugins", "alpha", "skills", "greet", "SKILL.md"), "alpha:greet"},
		{filepath.Join(work, "skills", "shine", "SKILL.md"), "gamma:shine"},
	} {
		old, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		write(t, tc.file, string(old)+"\nA new paragraph of instructions.\n")
		rl := l.next(t, t0)
		if len(rl.Changes) != 1 || rl.Changes[0].Kind != catalog.Changed || rl.Changes[0].ID != tc.id || rl.Changes[0].Detail != "content changed" {
			t.Errorf("body edit of %s: %v", tc.id, rl.Changes)
		}
	}
}

func TestAtomicSaveAndNewPlugin(t *testing.T) {
	l := start(t, nil)
	skill := filepath.Join(l.o.PlugboardHome, "plugins", "alpha", "skills", "part", "SKILL.md")
	tmp := skill + ".swp"
	write(t, tmp, "---\nname: part\ndescription: Use when parting, saved atomically.\n---\n")
	t0 := time.Now()
	if err := os.Rename(tmp, skill); err != nil {
		t.Fatal(err)
	}
	if rl := l.next(t, t0); !has(rl, catalog.Changed, catalog.WhatSkill, "alpha:part") {
		t.Errorf("atomic save: %v", rl.Changes)
	}
	t0 = time.Now()
	plugin(t, filepath.Join(l.o.PlugboardHome, "plugins", "beta"), "beta", "wave")
	rl := l.next(t, t0)
	for !has(rl, catalog.Added, catalog.WhatSkill, "beta:wave") {
		rl = l.next(t, t0) // the folder may arrive before its files
	}
	if !has(rl, catalog.Added, catalog.WhatPlugin, "beta") && l.r.Current().Summary.Plugins != 2 {
		t.Errorf("new plugin: %v", rl.Changes)
	}
}

func TestLinkedPluginEditedThroughItsTarget(t *testing.T) {
	work := filepath.Join(t.TempDir(), "work", "gamma")
	l := start(t, func(o catalog.Options) {
		plugin(t, work, "gamma", "shine")
		if _, err := devlink.Link(work, devlink.Options{Home: o.Home, PlugboardHome: o.PlugboardHome}); err != nil {
			t.Fatal(err)
		}
	})
	t0 := time.Now()
	write(t, filepath.Join(work, "skills", "shine", "SKILL.md"), "---\nname: shine\ndescription: Use when polishing, edited in the working copy.\n---\n")
	if rl := l.next(t, t0); !has(rl, catalog.Changed, catalog.WhatSkill, "gamma:shine") {
		t.Errorf("linked edit: %v", rl.Changes)
	}
	// Unlinking removes it.
	if _, err := devlink.Unlink("gamma", devlink.Options{Home: l.o.Home, PlugboardHome: l.o.PlugboardHome}); err != nil {
		t.Fatal(err)
	}
	if rl := l.next(t, time.Now()); !has(rl, catalog.Removed, catalog.WhatPlugin, "gamma") {
		t.Errorf("unlink: %v", rl.Changes)
	}
}

func TestCopiedLinkFollowsItsSource(t *testing.T) {
	work := filepath.Join(t.TempDir(), "delta")
	l := start(t, func(o catalog.Options) {
		plugin(t, work, "delta", "dance")
		if _, err := devlink.Link(work, devlink.Options{Home: o.Home, PlugboardHome: o.PlugboardHome, Copy: true}); err != nil {
			t.Fatal(err)
		}
	})
	t0 := time.Now()
	write(t, filepath.Join(work, "skills", "dance", "SKILL.md"), "---\nname: dance\ndescription: Use when dancing, synced into the copy.\n---\n")
	if rl := l.next(t, t0); !has(rl, catalog.Changed, catalog.WhatSkill, "delta:dance") {
		t.Errorf("copy: %v", rl.Changes)
	}
	b, _ := os.ReadFile(filepath.Join(l.o.PlugboardHome, "plugins", "delta", "skills", "dance", "SKILL.md"))
	if !strings.Contains(string(b), "synced into the copy") {
		t.Errorf("the copy was not synced: %s", b)
	}
}

// A copy made while the watcher runs is kept in step as one made before it: the copies'
// sources were watched only from the start or a full rescan, and state/links.json, which
// names them, was not watched at all.
func TestCopyMadeWhileRunningFollowsItsSource(t *testing.T) {
	work := filepath.Join(t.TempDir(), "epsilon")
	plugin(t, work, "epsilon", "leap")
	l := start(t, nil)
	if _, err := devlink.Link(work, devlink.Options{Home: l.o.Home, PlugboardHome: l.o.PlugboardHome, Copy: true}); err != nil {
		t.Fatal(err)
	}
	if rl := l.next(t, time.Now()); !has(rl, catalog.Added, catalog.WhatPlugin, "epsilon") {
		t.Errorf("copy made: %v", rl.Changes)
	}
	copied := filepath.Join(l.o.PlugboardHome, "plugins", "epsilon", "skills", "leap", "SKILL.md")
	// The registry's write and the copy's folder may come in separate batches; the sync
	// starts once the source is watched.
	deadline := time.Now().Add(5 * time.Second)
	for i := 0; ; i++ {
		write(t, filepath.Join(work, "skills", "leap", "SKILL.md"), fmt.Sprintf("---\nname: leap\ndescription: Use when leaping, edit %d.\n---\n", i))
		time.Sleep(300 * time.Millisecond)
		if b, _ := os.ReadFile(copied); strings.Contains(string(b), fmt.Sprintf("edit %d.", i)) {
			break
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(copied)
			t.Fatalf("the copy made while running was not synced: %s", b)
		}
	}
}

func TestSnapshotsArePerChange(t *testing.T) {
	l := start(t, nil)
	skill := filepath.Join(l.o.PlugboardHome, "plugins", "alpha", "skills", "greet", "SKILL.md")
	write(t, skill, "---\nname: greet\ndescription: Use when greeting, version two.\n---\n")
	rl := l.next(t, time.Now())
	if rl.Snapshot == 0 {
		t.Fatal("a scan that changed something stored no snapshot")
	}
	st, _, err := store.Open(context.Background(), l.o.PlugboardHome)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sns, _ := st.Snapshots(context.Background(), 0)
	if len(sns) != 2 { // the first scan, and this one
		t.Fatalf("%d snapshots", len(sns))
	}
	if d := catalog.DiffSnapshots(sns[1], sns[0]); len(d) != 1 || d[0].ID != "alpha" {
		t.Errorf("diff of the two snapshots = %v", d)
	}
	// A rescan that finds nothing new stores nothing.
	l.r.Rescan()
	rl = <-l.reloads
	if !rl.Full || len(rl.Changes) != 0 || rl.Snapshot != 0 {
		t.Errorf("idle rescan: %+v", rl)
	}
}

// The newest snapshot counts what the header counts (the catalog's Summary), not only its
// plugin rows: a standalone skill's error, which changes no plugin row, changes its totals.
func TestSnapshotTotalsAreTheCatalogs(t *testing.T) {
	l := start(t, nil)
	skill := filepath.Join(l.o.Home, ".claude", "skills", "broken", "SKILL.md")
	write(t, skill, "---\nname: not-the-folder-name\n---\nno description\n")
	rl := l.next(t, time.Now())
	for rl.Catalog.Summary.Issues.Errors == 0 {
		rl = l.next(t, time.Now())
	}
	st, _, err := store.Open(context.Background(), l.o.PlugboardHome)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sns, err := st.Snapshots(context.Background(), 1)
	if err != nil || len(sns) != 1 {
		t.Fatalf("snapshots: %v %v", sns, err)
	}
	info, sum := sns[0].Info(), rl.Catalog.Summary.Issues
	if info.Errors != sum.Errors || info.Warnings != sum.Warnings {
		t.Errorf("the newest snapshot counts %d errors, %d warnings; the catalog %d, %d", info.Errors, info.Warnings, sum.Errors, sum.Warnings)
	}
	rows := 0
	for _, p := range sns[0].Plugins {
		rows += p.Errors
	}
	if rows >= sum.Errors {
		t.Errorf("the rows alone count %d errors of %d: the test does not tell totals from rows", rows, sum.Errors)
	}
}

func TestPause(t *testing.T) {
	l := start(t, nil)
	l.r.Pause(true)
	if s := l.r.State(); s.State != StatePaused || !s.Paused {
		t.Errorf("state = %+v", s)
	}
	skill := filepath.Join(l.o.PlugboardHome, "plugins", "alpha", "skills", "greet", "SKILL.md")
	write(t, skill, "---\nname: greet\ndescription: Use when greeting, edited while paused.\n---\n")
	select {
	case rl := <-l.reloads:
		t.Fatalf("reloaded while paused: %v", rl.Changes)
	case <-time.After(600 * time.Millisecond):
	}
	l.r.Pause(false)
	if rl := l.next(t, time.Now()); !has(rl, catalog.Changed, catalog.WhatSkill, "alpha:greet") {
		t.Errorf("after resume: %v", rl.Changes)
	}
}

// One change among 1,000 watched plugins is one change, of that plugin only. How fast is
// measured by BenchmarkReloadOneChange and BenchmarkReloadEndToEnd, not here: a time
// bound in a test fails on a loaded machine and proves nothing on an idle one.
func TestThousandPlugins(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 1,000 plugins")
	}
	l := start(t, func(o catalog.Options) {
		if err := benchhome.Generate(o.PlugboardHome, 1000, 2); err != nil {
			t.Fatal(err)
		}
	})
	skill := skillOf(t, l.o, 500)
	write(t, skill, "---\nname: changed\ndescription: Use when the 500th plugin changes.\n---\n")
	rl := l.next(t, time.Now())
	if rl.Full || len(rl.Changes) == 0 {
		t.Errorf("changes = %v full = %v", rl.Changes, rl.Full)
	}
	for _, c := range rl.Changes {
		if !strings.HasPrefix(c.ID, "plugin-0500") {
			t.Errorf("unexpected change %v", c)
		}
	}
}

// skillOf is the first SKILL.md of benchmark plugin i.
func skillOf(t testing.TB, o catalog.Options, i int) string {
	t.Helper()
	dir := filepath.Join(o.PlugboardHome, "plugins", fmt.Sprintf("plugin-%04d", i), "skills")
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		t.Fatalf("%s: %v", dir, err)
	}
	return filepath.Join(dir, entries[0].Name(), "SKILL.md")
}

// BenchmarkReloadOneChange measures the reload after one SKILL.md edit (refresh, diff,
// the snapshot stored; no debounce) at 10, 100 and 1,000 plugins of 10 skills: the goal
// is flat.
func BenchmarkReloadOneChange(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("plugins=%d", n), func(b *testing.B) {
			r, skill := benchReloader(b, n)
			defer r.Close()
			b.ReportAllocs()
			b.ResetTimer()
			i := 0
			for b.Loop() {
				i++
				write(b, skill, fmt.Sprintf("---\nname: edited\ndescription: Use when edit %d happens.\n---\n", i))
				rl := r.apply(context.Background(), batchOf(skill))
				if len(rl.Changes) == 0 {
					b.Fatal("no change")
				}
			}
		})
	}
}

func batchOf(paths ...string) watch.Batch { return watch.Batch{Paths: paths} }

// benchReloader makes a home of n benchmark plugins of 10 skills and a Reloader over it
// that stores snapshots, as the app runs; skill is the middle plugin's first SKILL.md.
func benchReloader(b *testing.B, n int) (r *Reloader, skill string) {
	b.Helper()
	home, _ := pathsafe.Root(b.TempDir())
	o := catalog.Options{Home: home, PlugboardHome: filepath.Join(home, ".plugboard")}
	if err := benchhome.Generate(o.PlugboardHome, n, 10); err != nil {
		b.Fatal(err)
	}
	r, err := New(Options{Catalog: o, Snapshots: true}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return r, skillOf(b, o, n/2)
}

// BenchmarkReloadEndToEnd measures what a user waits for: from the write of one SKILL.md
// to the reload that reports it, through fsnotify, the debounce (watch.DebounceDelay) and
// the snapshot, at 10, 100 and 1,000 plugins of 10 skills.
func BenchmarkReloadEndToEnd(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("plugins=%d", n), func(b *testing.B) {
			r, skill := benchReloader(b, n)
			reloads := make(chan Reload, 4)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { defer close(done); r.Run(ctx, func(rl Reload) { reloads <- rl }, nil) }()
			defer func() { cancel(); r.Close(); <-done }()
			b.ResetTimer()
			i := 0
			for b.Loop() {
				i++
				write(b, skill, fmt.Sprintf("---\nname: edited\ndescription: Use when edit %d happens.\n---\n", i))
				select {
				case rl := <-reloads:
					if len(rl.Changes) == 0 {
						b.Fatal("a reload without the change")
					}
				case <-time.After(5 * time.Second):
					b.Fatal("no reload within 5 s")
				}
			}
		})
	}
}

// An agent or template file edited on disk is a reload that says so (the page reads its
// targets again, A5), and, being no part of the catalog, refreshes nothing else: no full
// scan, no change.
func TestTargetFilesAreWatched(t *testing.T) {
	l := start(t, func(o catalog.Options) {
		write(t, filepath.Join(o.PlugboardHome, "agents", "coder.json"), `{"name": "coder", "pluginDirs": []}`)
	})
	team := filepath.Join(l.o.PlugboardHome, "templates", "team.json")
	for i, file := range []string{
		filepath.Join(l.o.PlugboardHome, "agents", "coder.json"),
		team, // in a folder that appears now: the watcher's rescan of a new root says so too
		team, // edited again, in a watched folder
	} {
		t0 := time.Now()
		write(t, file, fmt.Sprintf(`{"name": "x", "pluginDirs": ["plugins/alpha"], "edit": %d}`, i))
		var rl Reload
		for deadline := time.After(5 * time.Second); !rl.Targets; {
			select {
			case rl = <-l.reloads:
			case <-deadline:
				t.Fatalf("no reload for %s", file)
			}
		}
		t.Logf("targets reload %v after the edit of %s", time.Since(t0).Round(time.Millisecond), file)
		if rl.Full && i != 1 || len(rl.Changes) != 0 {
			t.Errorf("edit %d of %s: full %v, changes %v", i, file, rl.Full, rl.Changes)
		}
	}
}
