package cli

import (
	"bytes"
	"fmt"
	"io"
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

func loadCatalog(env Env, name string, args []string) (*catalog.Catalog, *flags, int) {
	o, f, code := catalogOptions(env, newFlags(env, name, true), args)
	if code != ExitOK {
		return nil, nil, code
	}
	return catalog.Load(o), f, ExitOK
}

// catalogOptions parses a catalog command's arguments with f into the catalog's options.
func catalogOptions(env Env, f *flags, args []string) (catalog.Options, *flags, int) {
	name := f.fs.Name()
	pos, err := f.parse(args)
	if err != nil {
		return catalog.Options{}, nil, ExitUsage
	}
	if len(pos) != 0 {
		fmt.Fprintf(env.Stderr, "plugboard %s: unexpected argument %q\n", name, pos[0])
		return catalog.Options{}, nil, ExitUsage
	}
	home, pbHome, err := homes(env, f)
	if err != nil {
		fmt.Fprintf(env.Stderr, "plugboard %s: %v\n", name, err)
		return catalog.Options{}, nil, ExitUsage
	}
	o := catalog.Options{Home: home, PlugboardHome: pbHome}
	if f.workspace != "" {
		if !isDirPath(f.workspace) {
			fmt.Fprintf(env.Stderr, "plugboard %s: workspace %s is not a folder\n", name, f.workspace)
			return catalog.Options{}, nil, ExitUsage
		}
		o.Workspace = absPath(f.workspace)
	}
	return o, f, ExitOK
}

// runCatalog prints the catalog. Without a workspace it answers from the cache of its
// last output ($PLUGBOARD_HOME/cache/catalog-json or catalog-text) while every file and
// folder that scan could have read is as it was (package scancache): one look-up per
// path instead of reading and judging every file. --fresh scans regardless.
func runCatalog(env Env, args []string) int {
	f := newFlags(env, "catalog", true)
	fresh := f.fs.Bool("fresh", false, "read every file again instead of answering from the cache of the last scan (which this refreshes)")
	o, f, code := catalogOptions(env, f, args)
	if code != ExitOK {
		return code
	}
	cache, key := catalogCache(o, f.json)
	start := scanStart()
	if cache != "" && !*fresh {
		// A home whose snapshot did not pay, lately: scan only. A record further ahead
		// than declineFor (written with a clock set ahead) is not believed.
		if until, ok := scancache.Declined(cache+declinedSuffix, key); ok && start.Before(until) && until.Sub(start) <= declineFor {
			cache = ""
		}
	}
	var snap *scancache.Snapshot
	if cache != "" {
		var prev *scancache.Snapshot // what the cache recorded, to spare listing unchanged folders
		if !*fresh {
			data, saved, ok := scancache.Load(cache, key)
			if ok {
				if _, err := env.Stdout.Write(data); err != nil {
					return ExitUsage
				}
				return ExitOK
			}
			prev = saved
		}
		// A change found within the racy window (an edit just saved) means the
		// snapshot would be racy: spare taking it.
		if prev == nil || !prev.Racy(start) {
			var err error
			snap, err = takeSnapshot(o, prev)
			if err != nil {
				decline(cache, key, start) // it cannot be taken whole: it will not be soon
			} else if snap.Racy(start) {
				snap = nil
			}
		}
	}
	c := scanCatalog(o)
	w := &keeper{to: env.Stdout, keep: snap != nil}
	if w.keep {
		if st, err := os.Stat(cache); err == nil && st.Size() < scancache.MaxFile {
			w.out.Grow(int(st.Size())) // the last answer's size and more: no copy as it grows
		}
	}
	var err error
	if f.json {
		err = c.WriteJSON(w)
	} else {
		printCatalog(w, c)
	}
	if err != nil || w.err != nil {
		return ExitUsage // the answer did not all get out: keep none
	}
	if snap == nil {
		return ExitOK
	}
	// Failing to save costs the next run a scan, so it is not reported.
	switch {
	case transient(c):
		// An error that may not happen again (too many open files, an I/O error)
		// shaped this answer: keep nothing.
	case c.ReadOutside() || !snapshotPays(snap.Len(), len(c.Plugins)+len(c.Skills)):
		// What the scan read is not all in the snapshot, or checking the snapshot
		// would cost about what the scan does (a linked working copy with its
		// dependencies): scan only, for a while.
		decline(cache, key, start)
	default:
		if scancache.Save(cache, key, snap, w.out.Bytes()) == nil {
			os.Remove(cache + declinedSuffix)
		}
	}
	return ExitOK
}

// keeper writes to to, and with keep keeps what it wrote, to be saved; err is the first
// write that failed (a full disk, a closed pipe), after which nothing more is written.
type keeper struct {
	to   io.Writer
	keep bool
	out  bytes.Buffer
	err  error
}

func (k *keeper) Write(p []byte) (int, error) {
	if k.err != nil {
		return 0, k.err
	}
	n, err := k.to.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		k.err = err
		return n, err
	}
	if k.keep {
		k.out.Write(p)
	}
	return n, nil
}

// snapshotPays reports whether a snapshot of looks look-ups is worth checking instead
// of scanning a catalog of items plugins and skills. A look-up costs about 1.5 µs and a
// scan about 30 µs an item (catalogbench: 25,010 look-ups in 64 ms, 11,000 items in
// 330 ms), so past 16 look-ups an item the check would cost what the scan does: a linked
// working copy holding its dependencies, which the scan never opens. Under 10,000
// look-ups (15 ms) it pays whatever the ratio. Counted, not timed: a first snapshot
// taken with a cold disk would look slower than the warm scan after it. A variable for
// tests.
var snapshotPays = func(looks, items int) bool {
	return looks < 10_000 || looks < 16*(items+1)
}

// declinedSuffix names, beside a cache, the record that nothing is cached for a while.
const declinedSuffix = ".declined"

// declineFor is how long a home whose snapshot did not pay is scanned without one
// before it is tried again.
const declineFor = 10 * time.Minute

// decline drops the cached answer and records that none is kept for declineFor.
func decline(cache, key string, now time.Time) {
	os.Remove(cache)
	_ = scancache.Decline(cache+declinedSuffix, key, now.Add(declineFor))
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

// scanStart and scanCatalog are time.Now and catalog.Load, for tests: one makes a test
// home's fresh files look older than the racy window, the other counts the scans.
var (
	scanStart   = time.Now
	scanCatalog = catalog.Load
)

// catalogCache is where the output of the catalog of o is cached and the key it is
// saved under: the program (by the facts of the file running, so that another build is
// a miss), the user, groups and effective capabilities it runs as (what they may read is
// what the scan sees),
// the output's form and the homes. It is "" when that output is not cached: with a
// workspace (whose monorepo walk reaches folders no list names); when $PLUGBOARD_HOME
// is neither ~/.plugboard nor a folder Plugboard keeps state in (a folder given as
// --home only to be read gets no cache folder); when the cache folder is in a tree the
// catalog reads (the cache would be part of what it caches); or when the program
// cannot be found.
func catalogCache(o catalog.Options, json bool) (path, key string) {
	if o.Workspace != "" || !isDirPath(o.PlugboardHome) {
		return "", ""
	}
	if o.PlugboardHome != filepath.Join(o.Home, ".plugboard") && !isDirPath(filepath.Join(o.PlugboardHome, "state")) {
		return "", ""
	}
	dir := filepath.Join(o.PlugboardHome, "cache")
	real := dir
	if r, err := filepath.EvalSymlinks(o.PlugboardHome); err == nil {
		real = filepath.Join(r, "cache")
	}
	for _, root := range catalog.Roots(o) {
		r, err := filepath.EvalSymlinks(root)
		if err != nil {
			r = root
		}
		if pathsafe.Within(root, dir) || pathsafe.Within(r, real) {
			return "", ""
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return "", ""
	}
	var st syscall.Stat_t
	if syscall.Stat("/proc/self/exe", &st) != nil { // the file running, even if replaced since
		return "", ""
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
	form := "text"
	if json {
		form = "json"
	}
	key = fmt.Sprintf("catalog %s\x00%s %d %d %d %d %d\x00%d %d %v %s\x00%s\x00%s", form, exe, st.Dev, st.Ino, st.Size,
		st.Mtim.Nano(), st.Ctim.Nano(), os.Geteuid(), os.Getegid(), groups, caps, o.Home, o.PlugboardHome)
	return filepath.Join(dir, "catalog-"+form), key
}

// takeSnapshot records, before the scan, the facts of everything the catalog of o reads:
// catalog.Roots (every package, skill root and file the catalog reads), walked whole,
// and the homes' own paths (a scan resolves them: a skill's paths against the home
// folder; a link among their parents can be pointed elsewhere); the folders prev
// recorded that did not change are not listed again. Taken before the scan, it can only
// be older than what the scan read: a change in between is a miss next time. A snapshot
// in which something changed since shortly before the run began is not kept
// (scancache.Racy); the earlier answer then stays (it cannot hold again, and its
// listings spare the next snapshot).
func takeSnapshot(o catalog.Options, prev *scancache.Snapshot) (*scancache.Snapshot, error) {
	return scancache.Take(prev, scancache.Paths{Walk: catalog.Roots(o), Resolve: []string{o.Home, o.PlugboardHome}})
}

func printCatalog(w io.Writer, c *catalog.Catalog) {
	for _, i := range sortedIssues(c.Issues) {
		fmt.Fprintln(w, i.String())
	}
	fmt.Fprintf(w, "Plugins (%d, %d valid):\n", len(c.Plugins), c.Summary.ValidPlugins)
	for i := range c.Plugins {
		p := &c.Plugins[i]
		for _, is := range sortedIssues(p.AllIssues()) {
			if is.Path != "" && is.Path[0] != '/' {
				is.Path = p.Path + "/" + is.Path
			}
			fmt.Fprintln(w, "  "+tildify(is.String(), c.Home))
		}
		fmt.Fprintf(w, "  [%s] %s\n", p.Source, pluginLine(p, tildify(p.Path, c.Home)))
		if note := claudeNote(p, c.Settings.LaunchAsClient(p.ID)); note != "" {
			fmt.Fprintln(w, "    "+note)
		}
	}
	fmt.Fprintf(w, "Skills (%d, %d active, %d shadowed):\n", len(c.Skills), c.Summary.ActiveSkills, c.Summary.ShadowedSkills)
	for _, s := range c.Skills {
		if s.Plugin != "" {
			continue // plugin skills are listed by `plugboard skills`
		}
		for _, is := range s.Issues {
			fmt.Fprintln(w, "  "+tildify(is.String(), c.Home))
		}
		fmt.Fprintf(w, "  %s\n", skillLine(s, c.Home))
	}
	fmt.Fprintf(w, "MCP servers (%d):\n", len(c.MCP))
	for _, m := range c.MCP {
		fmt.Fprintf(w, "  %s: %s\n", m.Name, refLine(m.Winner, c.Home))
		for _, l := range m.Shadowed {
			fmt.Fprintf(w, "    shadowed: %s\n", refLine(l, c.Home))
		}
	}
	fmt.Fprintf(w, "%s, %s\n", plural(c.Summary.Issues.Errors, "error"), plural(c.Summary.Issues.Warnings, "warning"))
}

func skillLine(s *catalog.SkillEntry, home string) string {
	trust := "untrusted"
	if s.Trusted {
		trust = "trusted"
	}
	state := ""
	switch {
	case !s.Valid:
		state = " INVALID"
	case s.ShadowedBy != "":
		state = " shadowed by " + tildify(s.ShadowedBy, home) + " in " + strings.Join(s.ShadowedIn, ", ")
	}
	if s.Valid && !s.ModelInvocable {
		state += " (user-invocable only)"
	}
	if !s.Enabled {
		state += " (disabled)"
	}
	return fmt.Sprintf("%-28s %s, %s, %s%s", s.ID, s.Source, trust, tildify(s.Path, home), state)
}

func refLine(r catalog.ServerRef, home string) string {
	from := r.Source
	if r.Plugin != "" {
		from += " " + r.Plugin
	}
	what := r.Summary.Origin
	if r.Summary.Executable != "" {
		n := 0
		if r.Summary.Args != nil {
			n = *r.Summary.Args
		}
		what = fmt.Sprintf("%s (%s)", r.Summary.Executable, plural(n, "arg"))
	}
	return fmt.Sprintf("%s %s from %s (%s)", r.Type, what, from, tildify(r.File, home))
}
