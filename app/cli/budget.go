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
func runBudget(f *flags) body {
	backend := f.fs.String("backend", "", "claude, pi, codex or copilot (default: the agent file's \"backend\", else claude)")
	return func(env Env, pos []string) int {
		if len(pos) != 1 {
			fmt.Fprintln(env.Stderr, "usage: plugboard budget [--json] [--backend claude|pi|codex|copilot] [--home DIR] TARGET")
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
		unit, cut := "chars", "is listed by name only; the model never sees its description"
		if rep.Backend == runtime.Codex {
			unit, cut = "tokens, 2% of the context window", "has its description shortened; the model sees only its start"
			if s.Mode == "omitted" {
				cut = "is left out (or, if listed, by name only); past the budget the model sees names only"
			}
		}
		if s.Budget > 0 {
			fmt.Fprintf(env.Stdout, "  budget %d %s (%s)\n", s.Budget, unit, s.Mode)
		}
		for _, n := range s.Listed {
			fmt.Fprintf(env.Stdout, "  %s (%s)\n", n, s.Sources[n])
		}
		for _, n := range s.Cut {
			fmt.Fprintf(env.Stdout, "  cut: %s %s\n", n, cut)
		}
		m := rep.MCP
		for _, d := range plan.Dropped {
			if d.What == "server" {
				fmt.Fprintf(env.Stdout, "MCP: %s/%s is left out of the launch: %s\n", d.Plugin, d.Name, d.Reason)
			}
		}
		if len(m.Servers) == 0 {
			fmt.Fprintln(env.Stdout, "MCP: no servers in the launch")
		} else {
			how := map[string]string{"inline": "every tool's definition", "deferred": "tool names only (Claude's tool search)",
				"gateway": "one mcp tool and a proxy tool per server"}[m.Mode]
			size := fmt.Sprintf("%d chars, ~%d tokens", m.Chars, m.Chars/4)
			if m.Tokens == nil {
				size = fmt.Sprintf("at least %d chars (%d not checked)", m.Chars, len(m.Unchecked))
			}
			fmt.Fprintf(env.Stdout, "MCP: %s, %s: %s\n", plural(len(m.Servers), "server"), size, how)
			for _, s := range m.Servers {
				switch {
				case !s.Checked:
					fmt.Fprintf(env.Stdout, "  %s: tools not known; run: plugboard mcp check %s\n", s.Name, pos[0])
				case !s.OK:
					fmt.Fprintf(env.Stdout, "  %s: failed its last check, no tools\n", s.Name)
				default:
					fmt.Fprintf(env.Stdout, "  %s: %s, %d chars\n", s.Name, plural(s.Tools, "tool"), s.Chars)
				}
			}
		}
		if m.Tokens == nil {
			fmt.Fprintf(env.Stdout, "total: at least ~%d tokens\n", rep.Total)
		} else {
			fmt.Fprintf(env.Stdout, "total: ~%d tokens\n", rep.Total)
		}
		return ExitOK
	}
}
