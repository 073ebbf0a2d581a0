package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/clientask"
	"github.com/plugboard/plugboard/backend/devlink"
	"github.com/plugboard/plugboard/backend/installed"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/reload"
	"github.com/plugboard/plugboard/backend/snapshot"
	"github.com/plugboard/plugboard/backend/store"
)

// runWatch prints one line (or one JSON object) per change until interrupted.
func runWatch(f *flags) body {
	return func(env Env, pos []string) int {
		home, pbHome, err := homes(env, f)
		if err != nil {
			fmt.Fprintf(env.Stderr, "plugboard watch: %v\n", err)
			return ExitUsage
		}
		find := func() []installed.Client { return findClients(env, home) } // cached: a few stats when nothing changed
		o := catalog.Options{Home: home, PlugboardHome: pbHome, Workspace: f.workspace, Installed: clientask.Versions(find())}
		r, err := reload.New(reload.Options{Catalog: o, Snapshots: true, Log: env.Stderr,
			Installed: func() map[string]string { return clientask.Versions(find()) }}, nil)
		if err != nil {
			fmt.Fprintf(env.Stderr, "plugboard watch: %v\n", err)
			return ExitUsage
		}
		defer r.Close()
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		// The first line says the watches are armed: a change made after it is reported.
		c := r.Current()
		out := &lockedWriter{w: env.Stdout}
		if f.json {
			writeCompactJSON(out, map[string]any{"watching": pbHome, "plugins": c.Summary.Plugins, "skills": c.Summary.Skills, "counts": c.Summary.Issues})
		} else {
			fmt.Fprintf(out, "watching %s: %s, %s; %s\n", pbHome, plural(c.Summary.Plugins, "plugin"),
				plural(c.Summary.Skills, "skill"), c.Summary.Issues)
		}
		// The installed clients are asked what they load, after the first scan and after
		// every reload that changed something, in the background.
		asker := newWatchAsker(out, f.json, pbHome, find)
		defer asker.stop()
		asker.ask(ctx, c)
		err = r.Run(ctx, func(rl reload.Reload) {
			printReload(out, rl, f.json)
			if len(rl.Changes) > 0 {
				asker.ask(ctx, rl.Catalog)
			}
		}, nil)
		if err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintf(env.Stderr, "plugboard watch: %v\n", err)
			return ExitUsage
		}
		return ExitOK
	}
}

func printReload(w io.Writer, rl reload.Reload, asJSON bool) {
	if len(rl.Changes) == 0 {
		return
	}
	if asJSON {
		writeCompactJSON(w, rl)
		return
	}
	for _, c := range rl.Changes {
		fmt.Fprintln(w, c.String())
		if c.Kind != catalog.Removed && strings.Contains(c.Detail, "new ") {
			for _, i := range issuesAt(rl.Catalog, c) {
				fmt.Fprintln(w, "    "+i.String())
			}
		}
	}
	fmt.Fprintf(w, "  now %s (reloaded in %.1f ms)\n", rl.Counts, rl.Millis)
}

// issuesAt returns the issues a change brought to an author's attention: a plugin's, or a
// plugin skill's, with paths in full, so the line names the file and the fix.
func issuesAt(c *catalog.Catalog, ch catalog.Change) issue.List {
	var out issue.List
	for i := range c.Plugins {
		p := &c.Plugins[i]
		if ch.Path != p.Path && !strings.HasPrefix(ch.Path, p.Path+"/") {
			continue
		}
		for _, is := range p.AllIssues().Prefix(p.Path) {
			if is.Severity == issue.Info || (ch.What == catalog.WhatSkill && is.Path != ch.Path) {
				continue
			}
			out = append(out, is)
		}
	}
	return out
}

// linkOpts registers the flags of link, unlink and links.
func linkOpts(f *flags, withInto, withLink bool) *devlink.Options {
	var o devlink.Options
	if withInto { // links lists both places
		f.fs.StringVar(&o.Into, "into", "", "home ($PLUGBOARD_HOME/plugins, the default for link) or cursor (~/.cursor/plugins/local)")
	}
	if withLink {
		f.fs.StringVar(&o.Name, "name", "", "the entry's name (default: the manifest name, else the folder name)")
		f.fs.BoolVar(&o.Copy, "copy", false, "keep a synced copy instead of a symlink (for agents that refuse links leaving their folder)")
		f.fs.BoolVar(&o.Force, "force", false, "link even an invalid package")
	}
	return &o
}

// linkHomes completes the options with the homes.
func linkHomes(env Env, f *flags, o *devlink.Options) bool {
	home, pbHome, err := homes(env, f)
	if err != nil {
		fmt.Fprintf(env.Stderr, "plugboard %s: %v\n", f.name(), err)
		return false
	}
	o.Home, o.PlugboardHome = home, pbHome
	return true
}

func runLink(f *flags) body {
	o := linkOpts(f, true, true)
	return func(env Env, pos []string) int {
		if len(pos) != 1 {
			fmt.Fprintln(env.Stderr, "plugboard link: give the plugin folder to link, e.g. plugboard link ~/src/my-plugin")
			return ExitUsage
		}
		if !linkHomes(env, f, o) {
			return ExitUsage
		}
		res, err := devlink.Link(pos[0], *o)
		return linkResult(env, "link", res, err, f.json)
	}
}

func runUnlink(f *flags) body {
	o := linkOpts(f, true, false)
	return func(env Env, pos []string) int {
		if len(pos) != 1 {
			fmt.Fprintln(env.Stderr, "plugboard unlink: give the linked plugin's name (see plugboard links)")
			return ExitUsage
		}
		if !linkHomes(env, f, o) {
			return ExitUsage
		}
		res, err := devlink.Unlink(pos[0], *o)
		return linkResult(env, "unlink", res, err, f.json)
	}
}

func linkResult(env Env, verb string, res devlink.Result, err error, asJSON bool) int {
	if err != nil {
		fmt.Fprintf(env.Stderr, "plugboard %s: %v\n", verb, err)
		if errors.Is(err, devlink.ErrInvalid) || errors.Is(err, devlink.ErrExists) || errors.Is(err, devlink.ErrNotOurs) {
			return ExitInvalid
		}
		return ExitUsage
	}
	if asJSON {
		writeJSON(env.Stdout, res)
		return ExitOK
	}
	switch {
	case verb == "unlink":
		fmt.Fprintf(env.Stdout, "unlinked %s (%s)\n", res.Name, res.Dest)
	case res.AlreadyLinked:
		fmt.Fprintf(env.Stdout, "%s is already linked: %s → %s\n", res.Name, res.Dest, res.Source)
	default:
		fmt.Fprintf(env.Stdout, "linked %s (%s): %s → %s\n", res.Name, res.Mode, res.Dest, res.Source)
	}
	if verb == "link" {
		state := "valid"
		if !res.Valid {
			state = "INVALID (linked with --force)"
		}
		fmt.Fprintf(env.Stdout, "  %s, %s, %s; run plugboard watch to see it re-validate as you edit\n", state, plural(res.Errors, "error"), plural(res.Warnings, "warning"))
	}
	return ExitOK
}

// runLinks lists the local development links in both places.
func runLinks(f *flags) body {
	o := linkOpts(f, false, false)
	return func(env Env, pos []string) int {
		if len(pos) != 0 {
			fmt.Fprintf(env.Stderr, "plugboard links: unexpected argument %q\n", pos[0])
			return ExitUsage
		}
		if !linkHomes(env, f, o) {
			return ExitUsage
		}
		list, err := devlink.List(*o)
		if err != nil {
			fmt.Fprintf(env.Stderr, "plugboard links: %v\n", err)
			return ExitUsage
		}
		if f.json {
			if list == nil {
				list = []devlink.Result{}
			}
			writeJSON(env.Stdout, list)
			return ExitOK
		}
		if len(list) == 0 {
			fmt.Fprintln(env.Stdout, "no links: plugboard link DIR links a plugin working copy in")
		}
		for _, l := range list {
			gone := ""
			if !l.SourceExists {
				gone = " (source missing)"
			}
			fmt.Fprintf(env.Stdout, "%s  %s %s  %s → %s%s\n", l.Name, l.Into, l.Mode, l.Dest, l.Source, gone)
		}
		return ExitOK
	}
}

// runSnapshots lists the stored catalog snapshots, newest first.
func runSnapshots(f *flags) body {
	return func(env Env, pos []string) int {
		st, ok := openStore(env, f, "snapshots", store.PartSnapshots)
		if !ok {
			return ExitUsage
		}
		defer st.Close()
		sns, err := st.Snapshots(context.Background(), 0)
		if err != nil {
			fmt.Fprintf(env.Stderr, "plugboard snapshots: %v\n", err)
			return ExitUsage
		}
		list := make([]snapshot.Info, len(sns))
		for i, sn := range sns {
			list[i] = sn.Info()
		}
		if f.json {
			writeJSON(env.Stdout, list)
			return ExitOK
		}
		for _, s := range list {
			fmt.Fprintf(env.Stdout, "%4d  %s  %s, %s\n", s.ID, s.Time.Local().Format(time.DateTime), plural(s.Plugins, "plugin"), catalog.Counts{Errors: s.Errors, Warnings: s.Warnings})
		}
		return ExitOK
	}
}

// runDiff says what changed from snapshot A to snapshot B.
func runDiff(f *flags) body {
	return func(env Env, pos []string) int {
		if len(pos) != 2 {
			fmt.Fprintln(env.Stderr, "plugboard diff: give two snapshot ids (see plugboard snapshots), e.g. plugboard diff 3 7")
			return ExitUsage
		}
		var ids [2]int64
		var err error
		for i, p := range pos {
			if ids[i], err = strconv.ParseInt(p, 10, 64); err != nil {
				fmt.Fprintf(env.Stderr, "plugboard diff: %q is not a snapshot id\n", p)
				return ExitUsage
			}
		}
		st, ok := openStore(env, f, "diff", store.PartSnapshots)
		if !ok {
			return ExitUsage
		}
		defer st.Close()
		var sns [2]snapshot.Snapshot
		for i, id := range ids {
			if sns[i], err = st.Snapshot(context.Background(), id); err != nil {
				fmt.Fprintf(env.Stderr, "plugboard diff: %v\n", err)
				return ExitUsage
			}
		}
		changes := catalog.DiffSnapshots(sns[0], sns[1])
		if f.json {
			if changes == nil {
				changes = []catalog.Change{}
			}
			writeJSON(env.Stdout, changes)
			return ExitOK
		}
		if len(changes) == 0 {
			fmt.Fprintf(env.Stdout, "no change between %d and %d\n", ids[0], ids[1])
		}
		for _, c := range changes {
			fmt.Fprintln(env.Stdout, c.String())
		}
		return ExitOK
	}
}

// openStore opens the database of the command's home, checking the tables of part (see
// store.Part), and prints its warnings.
func openStore(env Env, f *flags, name string, part store.Part) (*store.Store, bool) {
	_, pbHome, err := homes(env, f)
	if err == nil {
		var st *store.Store
		var warnings []string
		st, warnings, err = store.Open(context.Background(), pbHome, part)
		for _, w := range warnings {
			fmt.Fprintln(env.Stderr, "plugboard: warning:", w)
		}
		if err == nil {
			return st, true
		}
	}
	fmt.Fprintf(env.Stderr, "plugboard %s: %v\n", name, err)
	return nil, false
}
