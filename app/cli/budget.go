package cli

import (
	"fmt"
	"os"

	"github.com/plugboard/plugboard/backend/budget"
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
	ws, _ := os.Getwd() // the agent would start here and load its project skills
	rep, err := budget.Predict(plan, budget.Options{Home: home, PlugboardHome: pbHome, Workspace: ws, Getenv: env.Getenv})
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
	fmt.Fprintln(env.Stdout, "  MCP tools: not measured yet")
	return ExitOK
}
