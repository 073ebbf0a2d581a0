package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/plugboard/plugboard/backend/assign"
	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/mcpconfig"
	"github.com/plugboard/plugboard/backend/store"
)

// Exit codes of assign and revert beyond the common ones.
const (
	ExitStale   = 3 // the target changed since --expect-hash; nothing written
	ExitNeedAck = 4 // an MCP acknowledgment is needed (--ack-mcp)
)

// homeCatalog loads the catalog for the assignment commands.
func homeCatalog(env Env, f *flags, name string) (*catalog.Catalog, string, bool) {
	home, pbHome, err := homes(env, f)
	if err != nil {
		fmt.Fprintf(env.Stderr, "plugboard %s: %v\n", name, err)
		return nil, "", false
	}
	return catalog.Load(catalog.Options{Home: home, PlugboardHome: pbHome}), pbHome, true
}

func runTargets(f *flags) body {
	return func(env Env, pos []string) int {
		cat, pbHome, ok := homeCatalog(env, f, "targets")
		if !ok {
			return ExitUsage
		}
		targets, issues := assign.Targets(pbHome, cat)
		if f.json {
			if targets == nil {
				targets = []assign.Target{}
			}
			writeJSON(env.Stdout, map[string]any{"targets": targets, "issues": issues.NonNil()})
			return ExitOK
		}
		for _, i := range issues {
			fmt.Fprintln(env.Stderr, i.String())
		}
		if len(targets) == 0 {
			fmt.Fprintln(env.Stdout, "no agents or template slots: plugboard agent new NAME makes an agent")
		}
		for _, t := range targets {
			printTarget(env.Stdout, t)
		}
		return ExitOK
	}
}

func printTarget(w io.Writer, t assign.Target) {
	flags := ""
	if t.ReadOnly {
		flags += " (read-only)"
	}
	if t.Inherits {
		flags += " (agent defaults)"
	}
	fmt.Fprintf(w, "%s%s\n  hash %s\n  effective: %s\n", t.ID, flags, t.Hash, list(t.Effective))
	if len(t.Unmanaged) > 0 {
		fmt.Fprintf(w, "  unmanaged: %s\n", list(t.Unmanaged))
	}
}

func list(l []string) string {
	if len(l) == 0 {
		return "(none)"
	}
	return strings.Join(l, ", ")
}

func splitIDs(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func runAssign(f *flags) body {
	set := f.fs.String("set", "", "the whole managed set, comma-separated plugin ids")
	add := f.fs.String("add", "", "plugin ids to add")
	remove := f.fs.String("remove", "", "plugin ids to remove")
	defaults := f.fs.Bool("defaults", false, "template slot: use the agent's defaults (deletes the slot's pluginDirs)")
	expect := f.fs.String("expect-hash", "", "refuse to save unless the target still has this hash")
	ack := f.fs.Bool("ack-mcp", false, "acknowledge that the added plugins' MCP servers run local code and may send data over the network")
	return func(env Env, pos []string) int {
		kinds := 0
		for _, on := range []bool{isFlagSet(f, "set"), *add != "", *remove != "", *defaults} {
			if on {
				kinds++
			}
		}
		if len(pos) != 1 || kinds != 1 {
			fmt.Fprintln(env.Stderr, "usage: plugboard assign TARGET (--set a,b | --add a | --remove a | --defaults) [--expect-hash H] [--ack-mcp] [--json]")
			return ExitUsage
		}
		ch := assign.Change{Set: splitIDs(*set), Add: splitIDs(*add), Remove: splitIDs(*remove), Defaults: *defaults}
		if isFlagSet(f, "set") && ch.Set == nil {
			ch.Set = []string{}
		}
		ctx := context.Background()
		return saveAndRecord(ctx, env, f, assign.Request{Target: pos[0], Change: ch, ExpectHash: *expect, Ack: *ack})
	}
}

func isFlagSet(f *flags, name string) bool {
	return f.fs.Changed(name)
}

// saveAndRecord runs one guarded save and its history entry (assign.SaveAndRecord,
// within ctx) and prints the outcome.
func saveAndRecord(ctx context.Context, env Env, f *flags, r assign.Request) int {
	cat, pbHome, ok := homeCatalog(env, f, "assign")
	if !ok {
		return ExitUsage
	}
	r.Actor = "cli"
	saved, err := assign.SaveAndRecord(ctx, pbHome, cat, r)
	if err != nil {
		return printFailure(env, f, r, err)
	}
	out, target := saved.Outcome, saved.Target
	for _, w := range saved.Warnings {
		fmt.Fprintln(env.Stderr, "plugboard: warning:", w)
	}
	if f.json {
		// written false: the target already had that set, nothing was saved or recorded
		// (history 0); a script re-run in CI gets the same document either way.
		writeJSON(env.Stdout, map[string]any{"target": out.Target, "before": out.Before, "after": out.After,
			"beforeHash": out.BeforeHash, "afterHash": out.AfterHash, "acknowledged": out.Acknowledged,
			"written": out.Written, "history": saved.History})
		return ExitOK
	}
	if !out.Written {
		fmt.Fprintf(env.Stdout, "%s already has that plugin set; nothing to save\n", target)
		return ExitOK
	}
	fmt.Fprintf(env.Stdout, "saved %s (history entry %d)\n  before: %s\n  after:  %s\n", target, saved.History, list(out.Before), list(out.After))
	return ExitOK
}

// printFailure prints a save that did not happen and returns its exit code. Its lines
// are prefixed with the command that ran: assign, or revert.
func printFailure(env Env, f *flags, r assign.Request, err error) int {
	cmd := "assign"
	if r.RevertOf != 0 {
		cmd = "revert"
	}
	se := &assign.SaveError{Kind: assign.FailOther, Err: err}
	errors.As(err, &se)
	switch se.Kind {
	case assign.FailStale:
		fmt.Fprintf(env.Stderr, "plugboard %s: %s changed since it was read; nothing was written. It is now:\n", cmd, se.Target)
		if f.json {
			writeJSON(env.Stdout, map[string]any{"error": "stale", "target": se.Fresh})
		} else {
			printTarget(env.Stdout, se.Fresh)
		}
		return ExitStale
	case assign.FailRefused:
		fmt.Fprintf(env.Stderr, "plugboard %s: refused: %s\n", cmd, se.Rule.Error()) // the reason, with the ids or collisions it is about
		if f.json {
			writeJSON(env.Stdout, map[string]any{"error": "refused", "reason": se.Rule.Reason, "names": se.Rule.Names})
		}
		return ExitInvalid
	case assign.FailAckNeeded:
		fmt.Fprintln(env.Stderr, "plugboard "+cmd+": these MCP servers will run local code or send data over the network (this is not a sandbox); run again with --ack-mcp to accept:")
		for _, a := range se.Servers {
			fmt.Fprintf(env.Stderr, "  %s/%s %s %s\n", a.Plugin, a.Server, a.Type, describeSummary(a.Summary.Executable, a.Summary.Origin))
		}
		if f.json {
			writeJSON(env.Stdout, map[string]any{"error": "acknowledgment-needed", "servers": se.Servers})
		}
		return ExitNeedAck
	}
	hint := ""
	if r.RevertOf != 0 && errors.Is(err, store.ErrNotFound) {
		hint = " (see plugboard history)"
	}
	fmt.Fprintf(env.Stderr, "plugboard %s: %v%s\n", cmd, err, hint)
	return ExitUsage
}

func describeSummary(exe, origin string) string {
	if exe != "" {
		return "runs " + exe
	}
	return "connects to " + origin
}

func runHistory(f *flags) body {
	return func(env Env, pos []string) int {
		if len(pos) > 1 {
			fmt.Fprintln(env.Stderr, "usage: plugboard history [--json] [TARGET]")
			return ExitUsage
		}
		st, ok := openStore(env, f, "history", store.PartHistory)
		if !ok {
			return ExitUsage
		}
		defer st.Close()
		target := ""
		if len(pos) == 1 {
			target = assign.TargetID(pos[0])
		}
		ctx := context.Background()
		entries, err := st.History(ctx, target, 0)
		if err != nil {
			fmt.Fprintf(env.Stderr, "plugboard history: %v\n", err)
			return ExitUsage
		}
		if f.json {
			if entries == nil {
				entries = []store.HistoryEntry{}
			}
			writeJSON(env.Stdout, map[string]any{"entries": entries})
			return ExitOK
		}
		if len(entries) == 0 {
			if target != "" {
				fmt.Fprintf(env.Stdout, "no history for %s\n", target)
			} else {
				fmt.Fprintln(env.Stdout, "no history yet: assignments, agents and acknowledgments made from the page or the command line appear here")
			}
			return ExitOK
		}
		for _, e := range entries {
			rev := ""
			if e.RevertOf != 0 {
				rev = fmt.Sprintf(" (revert of %d)", e.RevertOf)
			}
			when := e.Time.Local().Format("2006-01-02 15:04:05")
			switch e.Kind {
			case store.KindAck:
				fmt.Fprintf(env.Stdout, "%d  %s  %s (acknowledgment)\n", e.ID, when, e.Target)
			case store.KindFiles:
				fmt.Fprintf(env.Stdout, "%d  %s  %s%s\n", e.ID, when, e.Target, rev)
				for _, fc := range e.Files {
					what := "changed"
					switch {
					case fc.Before == nil:
						what = "created"
					case fc.After == nil:
						what = "removed"
					}
					fmt.Fprintf(env.Stdout, "  %s %s\n", what, fc.Path)
				}
			default:
				fmt.Fprintf(env.Stdout, "%d  %s  %s%s\n", e.ID, when, e.Target, rev)
				for _, d := range e.Added {
					fmt.Fprintf(env.Stdout, "  + %s\n", d)
				}
				for _, d := range e.Removed {
					fmt.Fprintf(env.Stdout, "  - %s\n", d)
				}
				if len(e.Added)+len(e.Removed) == 0 {
					fmt.Fprintf(env.Stdout, "  (the same plugins: %s)\n", list(e.After))
				}
			}
			for _, a := range e.Acks {
				fmt.Fprintf(env.Stdout, "  acknowledged %s/%s (%s, digest %s)\n", a.Plugin, a.Server, a.Type, mcpconfig.ShortDigest(a.Digest))
			}
			if len(e.Acks) == 0 && len(e.Acknowledged) > 0 {
				fmt.Fprintf(env.Stdout, "  acknowledged %s (before digests were recorded)\n", strings.Join(e.Acknowledged, ", "))
			}
		}
		return ExitOK
	}
}

func runRevert(f *flags) body {
	ack := f.fs.Bool("ack-mcp", false, "acknowledge MCP servers the revert adds back")
	return func(env Env, pos []string) int {
		if len(pos) != 1 {
			fmt.Fprintln(env.Stderr, "usage: plugboard revert [--ack-mcp] [--json] ENTRY")
			return ExitUsage
		}
		id, err := strconv.ParseInt(pos[0], 10, 64)
		if err != nil {
			fmt.Fprintf(env.Stderr, "plugboard revert: %q is not a history entry number (see plugboard history)\n", pos[0])
			return ExitUsage
		}
		ctx := context.Background()
		return saveAndRecord(ctx, env, f, assign.Request{RevertOf: id, Ack: *ack})
	}
}
