package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/plugboard/plugboard/backend/assign"
)

// agentCmd makes, copies, renames or removes an agent ($PLUGBOARD_HOME/agents/NAME.json),
// as one history entry that revert undoes: sub is the subcommand, want its arguments.
func agentCmd(sub string, want int) func(f *flags) body {
	return func(f *flags) body {
		backend, from := "", ""
		if sub == "new" {
			f.fs.StringVar(&backend, "backend", "", "the agent launches claude (the default) or pi")
			f.fs.StringVar(&from, "from", "", "start with this agent's plugin set")
		}
		return func(env Env, pos []string) int {
			if len(pos) != want {
				fmt.Fprintln(env.Stderr, "usage:", f.cmd.UseLine())
				return ExitUsage
			}
			cat, pbHome, ok := homeCatalog(env, f, "agent")
			if !ok {
				return ExitUsage
			}
			ctx := context.Background()
			var saved assign.FilesSaved
			var err error
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
	}
}

// templateCmd adds a slot running an agent to a template (making the template) or
// removes one.
func templateCmd(sub string, want int) func(f *flags) body {
	return func(f *flags) body {
		return func(env Env, pos []string) int {
			if len(pos) != want {
				fmt.Fprintln(env.Stderr, "usage:", f.cmd.UseLine())
				return ExitUsage
			}
			cat, pbHome, ok := homeCatalog(env, f, "template")
			if !ok {
				return ExitUsage
			}
			ctx := context.Background()
			var saved assign.FilesSaved
			var err error
			if sub == "add-slot" {
				saved, err = assign.AddSlot(ctx, pbHome, cat, strings.TrimPrefix(pos[0], "template:"), agentName(pos[1]), "cli")
			} else {
				saved, err = assign.RemoveSlot(ctx, pbHome, cat, pos[0], "cli")
			}
			return printFiles(env, f, "template "+sub, saved, err)
		}
	}
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
