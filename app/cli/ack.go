package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/plugboard/plugboard/backend/assign"
	"github.com/plugboard/plugboard/backend/mcpconfig"
	"github.com/plugboard/plugboard/backend/runtime"
)

// runAck acknowledges MCP servers of a target's launch set: all that are not
// acknowledged yet, or those named PLUGIN (every server of it) or PLUGIN/SERVER. It
// prints what it acknowledged, by names and counts; a launch then starts them (until
// what they run changes).
func runAck(f *flags) body {
	return func(env Env, pos []string) int {
		if len(pos) == 0 {
			fmt.Fprintln(env.Stderr, "usage: plugboard ack TARGET [PLUGIN[/SERVER] ...] [--json]")
			return ExitUsage
		}
		home, pbHome, err := homes(env, f)
		if err != nil {
			fmt.Fprintf(env.Stderr, "plugboard ack: %v\n", err)
			return ExitUsage
		}
		var refs []runtime.AckRef
		for _, p := range pos[1:] {
			plugin, server, _ := strings.Cut(p, "/")
			if plugin == "" || strings.Contains(server, "/") {
				fmt.Fprintf(env.Stderr, "plugboard ack: %q is not PLUGIN or PLUGIN/SERVER\n", p)
				return ExitUsage
			}
			refs = append(refs, runtime.AckRef{Plugin: plugin, Server: server})
		}
		req := runtime.Request{Home: home, PlugboardHome: pbHome, Target: pos[0]}
		target, acks, id, err := runtime.Acknowledge(req, refs, "cli")
		var rule *assign.RuleError
		switch {
		case errors.As(err, &rule):
			fmt.Fprintf(env.Stderr, "plugboard ack: %s: %s\n", rule.Reason, strings.Join(rule.Names, ", "))
			return ExitInvalid
		case err != nil:
			fmt.Fprintf(env.Stderr, "plugboard ack: %v\n", err)
			return ExitUsage
		}
		if f.json {
			writeJSON(env.Stdout, map[string]any{"target": target, "acknowledged": acks, "history": id})
			return ExitOK
		}
		if len(acks) == 0 {
			fmt.Fprintf(env.Stdout, "%s: nothing to acknowledge; every MCP server named is acknowledged as it is now\n", target)
			return ExitOK
		}
		fmt.Fprintf(env.Stdout, "acknowledged for %s (history entry %d): these run local code or send data over the network, and launches now start them:\n", target, id)
		printAcks(env.Stdout, acks)
		return ExitOK
	}
}

func printAcks(w io.Writer, acks []assign.Ack) {
	for _, a := range acks {
		fmt.Fprintf(w, "  %s/%s %s (digest %s)\n", a.Plugin, a.Server, runtime.Describe(a), mcpconfig.ShortDigest(a.Digest))
	}
}

// printNeedAck explains a launch stopped by --require-ack.
func printNeedAck(w io.Writer, e *runtime.AckError) {
	fmt.Fprintf(w, "plugboard launch: nothing was started: these MCP servers are not acknowledged for %s as they are now (they run local code or send data over the network):\n", e.Target)
	printAcks(w, e.Servers)
	fmt.Fprintf(w, "acknowledge them with: plugboard ack %s\n", e.Target)
}
