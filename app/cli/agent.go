package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/plugboard/plugboard/backend/assign"
)

const agentUsage = `usage: plugboard agent new NAME [--backend claude|pi] [--from AGENT] [--json] [--home DIR]
       plugboard agent copy AGENT NAME [--json] [--home DIR]
       plugboard agent rename AGENT NAME [--json] [--home DIR]
       plugboard agent rm AGENT [--json] [--home DIR]`

const templateUsage = `usage: plugboard template add-slot TEMPLATE AGENT [--json] [--home DIR]
       plugboard template rm-slot SLOT [--json] [--home DIR]`

// runAgent makes, copies, renames or removes an agent ($PLUGBOARD_HOME/agents/NAME.json),
// as one history entry that revert undoes.
func runAgent(env Env, args []string) int {
	sub := ""
	if len(args) > 0 {
		sub, args = args[0], args[1:]
	}
	want := map[string]int{"new": 1, "copy": 2, "rename": 2, "rm": 1}[sub]
	f := newFlags(env, "agent "+sub, true)
	backend, from := "", ""
	if sub == "new" || want == 0 { // -h of agent itself lists every subcommand's flags
		f.fs.StringVar(&backend, "backend", "", "new: the agent launches claude (the default) or pi")
		f.fs.StringVar(&from, "from", "", "new: start with this agent's plugin set")
	}
	if want == 0 {
		return subUsage(env, f, "agent", sub, agentUsage)
	}
	pos, err := f.parse(args)
	if err != nil {
		return ExitUsage
	}
	if len(pos) != want {
		fmt.Fprintln(env.Stderr, agentUsage)
		return ExitUsage
	}
	cat, pbHome, ok := homeCatalog(env, f, "agent")
	if !ok {
		return ExitUsage
	}
	ctx := context.Background()
	var saved assign.FilesSaved
	switch sub {
	case "new":
		saved, err = assign.NewAgent(ctx, pbHome, cat, pos[0], backend, agentName(from), "cli")
	case "copy":
		saved, err = assign.CopyAgent(ctx, pbHome, cat, agentName(pos[0]), pos[1], "cli")
	case "rename":
		saved, err = assign.RenameAgent(ctx, pbHome, cat, agentName(pos[0]), pos[1], "cli")
	case "rm":
		saved, err = assign.RemoveAgent(ctx, pbHome, cat, agentName(pos[0]), "cli")
	}
	return printFiles(env, f, "agent "+sub, saved, err)
}

// runTemplate adds a slot running an agent to a template (making the template) or
// removes one.
func runTemplate(env Env, args []string) int {
	sub := ""
	if len(args) > 0 {
		sub, args = args[0], args[1:]
	}
	f := newFlags(env, "template "+sub, true)
	want := map[string]int{"add-slot": 2, "rm-slot": 1}[sub]
	if want == 0 {
		return subUsage(env, f, "template", sub, templateUsage)
	}
	pos, err := f.parse(args)
	if err != nil {
		return ExitUsage
	}
	if len(pos) != want {
		fmt.Fprintln(env.Stderr, templateUsage)
		return ExitUsage
	}
	cat, pbHome, ok := homeCatalog(env, f, "template")
	if !ok {
		return ExitUsage
	}
	ctx := context.Background()
	var saved assign.FilesSaved
	if sub == "add-slot" {
		saved, err = assign.AddSlot(ctx, pbHome, cat, strings.TrimPrefix(pos[0], "template:"), agentName(pos[1]), "cli")
	} else {
		saved, err = assign.RemoveSlot(ctx, pbHome, cat, pos[0], "cli")
	}
	return printFiles(env, f, "template "+sub, saved, err)
}

// subUsage answers a command of subcommands called without a known one: -h prints the
// flags and the usage (Main then exits 0); no or an unknown subcommand is a usage error.
func subUsage(env Env, f *flags, cmd, sub, usage string) int {
	if isHelp([]string{sub}) {
		f.parse([]string{"-h"})
	} else if sub != "" {
		fmt.Fprintf(env.Stderr, "plugboard %s: unknown subcommand %q\n", cmd, sub)
	}
	fmt.Fprintln(env.Stderr, usage)
	return ExitUsage
}

// agentName accepts an agent as NAME or as its target id agent:NAME.
func agentName(s string) string { return strings.TrimPrefix(s, "agent:") }

// printFiles prints what an agent or template operation wrote, or why it did not.
func printFiles(env Env, f *flags, cmd string, saved assign.FilesSaved, err error) int {
	if err != nil {
		fmt.Fprintf(env.Stderr, "plugboard %s: %v\n", cmd, err)
		if f.json {
			doc := map[string]any{"error": "failed", "reason": err.Error()}
			if rule := asRule(err); rule != nil {
				doc = map[string]any{"error": "refused", "code": rule.Code, "reason": rule.Reason, "names": rule.Names}
			}
			writeJSON(env.Stdout, doc)
		}
		if asRule(err) != nil {
			return ExitInvalid
		}
		if isStale(err) {
			return ExitStale
		}
		return ExitUsage
	}
	for _, w := range saved.Warnings {
		fmt.Fprintln(env.Stderr, "plugboard: warning:", w)
	}
	if f.json {
		writeJSON(env.Stdout, saved)
		return ExitOK
	}
	if len(saved.Files) == 0 {
		fmt.Fprintf(env.Stdout, "%s: nothing to change\n", saved.Target)
		return ExitOK
	}
	fmt.Fprintf(env.Stdout, "%s (history entry %d; plugboard revert %d undoes it)\n", saved.Target, saved.History, saved.History)
	for _, fw := range saved.Files {
		fmt.Fprintf(env.Stdout, "  %s %s\n", fw.Change, fw.Path)
	}
	return ExitOK
}

func asRule(err error) *assign.RuleError {
	var r *assign.RuleError
	if errors.As(err, &r) {
		return r
	}
	return nil
}

func isStale(err error) bool { return errors.Is(err, assign.ErrStale) }
