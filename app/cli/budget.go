package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/plugboard/plugboard/backend/budget"
	"github.com/plugboard/plugboard/backend/mcphealth"
	"github.com/plugboard/plugboard/backend/runtime"
)

// runBudget prints what a launch of the target would put in front of the model for its
// skills (backend/budget): a dry-run plan, nothing written.
func runBudget(env Env, args []string) int {
	f := newFlags(env, "budget", true)
	backend := f.fs.String("backend", "", "claude or pi (default: the agent file's \"backend\", else claude)")
	pos, err := f.parse(args)
	if err != nil || len(pos) != 1 {
		fmt.Fprintln(env.Stderr, "usage: plugboard budget [--json] [--backend claude|pi] [--home DIR] TARGET")
		return ExitUsage
	}
	home, pbHome, err := homes(env, f)
	if err != nil {
		fmt.Fprintf(env.Stderr, "plugboard budget: %v\n", err)
		return ExitUsage
	}
	self, _ := env.Executable()
	req := runtime.Request{Home: home, PlugboardHome: pbHome, Target: pos[0], Backend: *backend, Self: self, DryRun: true}
	req.FromEnv(env.Getenv)
	plan, err := runtime.Build(req)
	if err != nil {
		fmt.Fprintf(env.Stderr, "plugboard budget: %v\n", err)
		return ExitUsage
	}
	servers, err := mcphealth.Known(context.Background(), req)
	if err != nil {
		fmt.Fprintf(env.Stderr, "plugboard budget: %v\n", err)
		return ExitUsage
	}
	ws, _ := os.Getwd() // the agent would start here and load its project skills
	rep, err := budget.Predict(plan, budget.Options{Home: home, PlugboardHome: pbHome, Workspace: ws, Getenv: env.Getenv, Servers: servers})
	if err != nil {
		fmt.Fprintf(env.Stderr, "plugboard budget: %v\n", err)
		return ExitUsage
	}
	if f.json {
		writeJSON(env.Stdout, rep)
		return ExitOK
	}
	s := rep.Skills
	fmt.Fprintf(env.Stdout, "%s: skill listing %d chars, ~%d tokens (estimate: chars/4), %d entries\n", rep.Backend, s.Chars, s.Tokens, len(s.Listed))
	if s.Budget > 0 {
		fmt.Fprintf(env.Stdout, "  budget %d chars (%s)\n", s.Budget, s.Mode)
	}
	for _, n := range s.Listed {
		fmt.Fprintf(env.Stdout, "  %s (%s)\n", n, s.Sources[n])
	}
	for _, n := range s.Cut {
		fmt.Fprintf(env.Stdout, "  cut: %s is listed by name only; the model never sees its description\n", n)
	}
	m := rep.MCP
	if len(m.Servers) == 0 {
		fmt.Fprintln(env.Stdout, "MCP: no servers")
		return ExitOK
	}
	how := map[string]string{"inline": "every tool's definition", "deferred": "tool names only (tool search)",
		"gateway": "one mcp tool and a proxy tool per server"}[m.Mode]
	if m.Tokens != nil {
		fmt.Fprintf(env.Stdout, "MCP: %s, %d chars, ~%d tokens: %s\n", plural(len(m.Servers), "server"), m.Chars, *m.Tokens, how)
	} else {
		fmt.Fprintf(env.Stdout, "MCP: %s, at least %d chars: %s\n", plural(len(m.Servers), "server"), m.Chars, how)
	}
	for _, s := range m.Servers {
		if !s.Checked {
			fmt.Fprintf(env.Stdout, "  %s: tools not known; run: plugboard mcp check %s\n", s.Name, pos[0])
			continue
		}
		fmt.Fprintf(env.Stdout, "  %s: %s, %d chars\n", s.Name, plural(s.Tools, "tool"), s.Chars)
	}
	fmt.Fprintf(env.Stdout, "total: ~%d tokens\n", rep.Total)
	return ExitOK
}
