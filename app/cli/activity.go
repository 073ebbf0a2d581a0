package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/plugboard/plugboard/backend/activity"
	"github.com/plugboard/plugboard/backend/catalog"
)

// recordTimeout bounds one "activity record": the store never waits long on a busy
// database (it spools instead), so this only stops a recorder that is stuck somewhere
// else from holding the agent until the hook's own timeout.
const recordTimeout = 5 * time.Second

func runActivity(f *flags) body {
	since := f.fs.String("since", "", "count only the uses in this past duration (90m, 36h, 7d)")
	return func(env Env, pos []string) int {
		if len(pos) > 1 {
			fmt.Fprintln(env.Stderr, "usage: plugboard activity [--json] [--since DURATION] [--home DIR] [TARGET]")
			return ExitUsage
		}
		var from time.Time
		if *since != "" {
			d, err := parseSince(*since)
			if err != nil {
				fmt.Fprintf(env.Stderr, "plugboard activity: --since %v\n", err)
				return ExitUsage
			}
			from = time.Now().Add(-d)
		}
		target := ""
		if len(pos) == 1 {
			if target = pos[0]; !strings.Contains(target, ":") {
				target = "agent:" + target
			}
		}
		home, pbHome, err := homes(env, f)
		if err != nil {
			fmt.Fprintf(env.Stderr, "plugboard activity: %v\n", err)
			return ExitUsage
		}
		cat := catalog.Load(catalog.Options{Home: home, PlugboardHome: pbHome})
		rep, warnings, err := activity.Load(context.Background(), pbHome, cat, from, target) // imports what hooks spooled
		for _, w := range warnings {
			fmt.Fprintln(env.Stderr, "plugboard: warning:", w)
		}
		if err != nil {
			fmt.Fprintf(env.Stderr, "plugboard activity: %v\n", err)
			return ExitUsage
		}
		if f.json {
			writeJSON(env.Stdout, rep)
		} else {
			printActivity(env.Stdout, rep, *since)
		}
		return ExitOK
	}
}

// runActivityRecord is the hook a launched claude runs (backend/runtime, activity.go):
// "plugboard activity record INDEX" with the hook's JSON on stdin; and, with --pi, what a
// launched pi's activity extension runs (backend/runtime, piactivity.go) with its event's
// JSON; with --codex, a launched codex's PreToolUse hook (codexhooks.go). It never fails
// the agent: it exits 0 whatever happens and prints nothing on
// stdout, which Claude may hand to the model; a record it could neither write nor spool
// is said on stderr only.
func runActivityRecord(env Env, args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(env.Stderr, "plugboard activity record: unexpected failure: %v\n", r)
			code = ExitOK
		}
	}()
	record := activity.Record
	if len(args) == 2 && args[0] == "--pi" {
		record, args = activity.RecordPI, args[1:]
	} else if len(args) == 2 && args[0] == "--codex" {
		record, args = activity.RecordCodex, args[1:]
	}
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(env.Stderr, "usage: plugboard activity record INDEX (run by a launched agent's hook, with the hook's JSON on stdin), plugboard activity record --pi INDEX (run by a launched pi's activity extension, with its event's JSON on stdin), or plugboard activity record --codex INDEX (run by a launched codex's hook)")
		return ExitOK
	}
	ctx, cancel := context.WithTimeout(context.Background(), recordTimeout)
	defer cancel()
	if _, err := record(ctx, args[0], env.Stdin, env.Getenv); err != nil {
		fmt.Fprintf(env.Stderr, "plugboard activity record: %v\n", err)
	}
	return ExitOK
}

// parseSince reads a duration as Go writes them (90m, 36h), or a number of days (7d).
func parseSince(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.ParseFloat(n, 64)
		if err != nil || days <= 0 {
			return 0, fmt.Errorf("%q is not a number of days", s)
		}
		return time.Duration(days * 24 * float64(time.Hour)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a duration (90m, 36h, 7d)", s)
	}
	return d, nil
}

func printActivity(w io.Writer, rep activity.Report, since string) {
	if len(rep.Skills) == 0 {
		if since != "" {
			fmt.Fprintf(w, "no skill use recorded in the last %s\n", since)
		} else {
			fmt.Fprintln(w, "no skill use recorded")
		}
	} else {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "SKILL\tPLUGIN\tUSES\tLAST\tBY TARGET")
		for _, s := range rep.Skills {
			var by []string
			for _, t := range sortedKeys(s.ByTarget) {
				by = append(by, fmt.Sprintf("%s %d", t, s.ByTarget[t]))
			}
			plugin := s.Plugin
			if plugin == "" {
				plugin = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", s.ID, plugin, s.Uses, s.Last.Local().Format(time.DateTime), strings.Join(by, ", "))
		}
		tw.Flush()
	}
	if len(rep.Unused) == 0 {
		return
	}
	fmt.Fprintln(w, "\nnot used since they were assigned:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SKILL\tTARGET\tASSIGNED")
	for _, u := range rep.Unused {
		when := "before the recorded history"
		if u.AssignedSince != nil {
			when = u.AssignedSince.Local().Format(time.DateTime)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", u.ID, u.Target, when)
	}
	tw.Flush()
}
