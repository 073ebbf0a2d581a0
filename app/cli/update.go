package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/plugboard/plugboard/backend/install"
)

// runUpdate fetches the installed plugins' sources again and reports (--check) or
// applies what changed (backend/install: Check, Apply).
func runUpdate(f *flags) body {
	var check, restore bool
	f.fs.BoolVar(&check, "check", false, "report what would change and change nothing")
	f.fs.BoolVar(&restore, "restore", false, "put the source's version back over a plugin edited by hand (the edited folder is kept for rollback)")
	return func(env Env, pos []string) int {
		if len(pos) > 1 {
			fmt.Fprintln(env.Stderr, "plugboard update: give at most one installed plugin's id (none: every plugin of plugins.lock.json), e.g. plugboard update greeter")
			return ExitUsage
		}
		home, pbHome, err := homes(env, f)
		if err != nil {
			fmt.Fprintf(env.Stderr, "plugboard update: %v\n", err)
			return ExitUsage
		}
		o := install.UpdateOptions{Home: home, PlugboardHome: pbHome, Progress: env.Stderr, Restore: restore}
		if len(pos) == 1 {
			o.Name = pos[0]
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		run := install.Apply
		if check {
			run = install.Check
		}
		res, err := run(ctx, o)
		if f.json {
			if res == nil {
				res = []install.Update{}
			}
			writeJSON(env.Stdout, map[string]any{"plugins": res})
		} else {
			if res != nil && len(res) == 0 {
				fmt.Fprintf(env.Stdout, "no plugins to update: %s lists none (plugboard install records each install there)\n", install.LockfilePath(pbHome))
			}
			for _, u := range res {
				printUpdate(env, u)
			}
		}
		if err != nil {
			return installFailed(env, "update", err)
		}
		return ExitOK
	}
}

// printUpdate says, for a person, what an update found or did for one plugin.
func printUpdate(env Env, u install.Update) {
	w := env.Stdout
	switch {
	case u.Error != "":
		fmt.Fprintf(w, "%s: not updated (the error follows)\n", u.ID)
		return
	case u.Pinned && u.Modified && !u.Applied:
		fmt.Fprintf(w, "%s: up to date (pinned to commit %s), but the installed folder was edited by hand after it was installed; the edit is kept. "+
			"plugboard update --restore %s puts the pinned commit back (the edited folder is kept: plugboard rollback %s returns to it)\n",
			u.ID, u.Ref[:12], u.ID, u.ID)
		return
	case u.Pinned && !u.Applied:
		fmt.Fprintf(w, "%s: up to date (pinned to commit %s)\n", u.ID, u.Ref[:12])
		return
	case !u.Changed && u.Modified && !u.Applied:
		fmt.Fprintf(w, "%s: up to date with its source%s, but the installed folder was edited by hand after it was installed; the edit is kept. "+
			"plugboard update --restore %s puts the source's version back (the edited folder is kept: plugboard rollback %s returns to it)\n",
			u.ID, versionOf(u.From), u.ID, u.ID)
		return
	case !u.Changed && u.Applied:
		fmt.Fprintf(w, "%s: restored the source's version%s over the folder edited by hand; the edited folder is kept (plugboard rollback %s)\n", u.ID, versionOf(u.From), u.ID)
		return
	case !u.Changed:
		fmt.Fprintf(w, "%s: up to date%s\n", u.ID, versionOf(u.From))
		return
	case u.Applied:
		fmt.Fprintf(w, "%s: updated %s; the previous version is kept (plugboard rollback %s)\n", u.ID, fromTo(u), u.ID)
	default:
		fmt.Fprintf(w, "%s: update available %s\n", u.ID, fromTo(u))
	}
	if u.Modified {
		fmt.Fprintf(w, "  the installed folder was edited after it was installed; the update replaces it (the rollback copy keeps it)\n")
	}
	c := u.Changes
	for _, d := range []struct {
		what string
		d    install.Delta
	}{{"skills", c.Skills}, {"commands", c.Commands}, {"MCP servers", c.Servers}} {
		var parts []string
		for _, p := range []struct {
			verb  string
			names []string
		}{{"added", d.d.Added}, {"changed", d.d.Changed}, {"removed", d.d.Removed}} {
			if len(p.names) > 0 {
				parts = append(parts, p.verb+" "+strings.Join(p.names, ", "))
			}
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "  %s: %s\n", d.what, strings.Join(parts, "; "))
		}
	}
	printNative(w, c.Native)
	for _, n := range c.NeedsAck {
		what := "connects to " + n.Summary.Origin
		if n.Summary.Executable != "" || n.Summary.Origin == "" {
			args := 0
			if n.Summary.Args != nil {
				args = *n.Summary.Args
			}
			what = fmt.Sprintf("runs %s (%s)", n.Summary.Executable, plural(args, "argument"))
		}
		fmt.Fprintf(w, "  MCP server %s (%s, %s) needs acknowledgment", n.Server, n.Type, what)
		switch len(n.Targets) {
		case 0:
			fmt.Fprintf(w, " when a target assigns %s (none does now)", u.ID)
		case 1:
			fmt.Fprintf(w, " for %s: plugboard ack %s %s/%s", n.Targets[0], n.Targets[0], u.ID, n.Server)
		default:
			fmt.Fprintf(w, " for %s: plugboard ack TARGET %s/%s", strings.Join(n.Targets, ", "), u.ID, n.Server)
		}
		if len(n.Lost) > 0 {
			fmt.Fprintf(w, " (the acknowledgment of %s no longer matches)", strings.Join(n.Lost, ", "))
		}
		fmt.Fprintln(w)
	}
}

// fromTo is "(version 1.0.0 → 1.1.0, commit a97a3755f3e8 → 0c1d2e3f4a5b)".
func fromTo(u install.Update) string { return "(" + install.Describe(u.From, u.To) + ")" }

// versionOf is " (version 1.0.0, commit a97a3755f3e8)", or what of it is known.
func versionOf(v install.Version) string {
	var parts []string
	if v.Version != "" {
		parts = append(parts, "version "+v.Version)
	}
	if v.Commit != "" {
		parts = append(parts, "commit "+install.Short(v.Commit))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// runRollback restores the version an update replaced (backend/install.Rollback).
func runRollback(f *flags) body {
	return func(env Env, pos []string) int {
		if len(pos) != 1 {
			fmt.Fprintln(env.Stderr, "plugboard rollback: give the installed plugin's id, e.g. plugboard rollback greeter")
			return ExitUsage
		}
		home, pbHome, err := homes(env, f)
		if err != nil {
			fmt.Fprintf(env.Stderr, "plugboard rollback: %v\n", err)
			return ExitUsage
		}
		res, err := install.Rollback(context.Background(), install.RollbackOptions{Home: home, PlugboardHome: pbHome, Name: pos[0]})
		if errors.Is(err, install.ErrNoRollback) {
			fmt.Fprintf(env.Stderr, "plugboard rollback: %v\n", err)
			return ExitInvalid
		}
		if err != nil {
			return installFailed(env, "rollback", err)
		}
		if f.json {
			writeJSON(env.Stdout, res)
			return ExitOK
		}
		at := ""
		if res.Commit != "" {
			at = " at commit " + install.Short(res.Commit)
		}
		fmt.Fprintf(env.Stdout, "%s: rolled back to the previous version from %s%s (content %s)\n", res.ID, res.Source, at, res.Content)
		fmt.Fprintf(env.Stdout, "  the version it replaced is kept: plugboard rollback %s again returns to it\n", res.ID)
		return ExitOK
	}
}
