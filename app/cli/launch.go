package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/plugboard/plugboard/backend/activity"
	"github.com/plugboard/plugboard/backend/runtime"
)

// launchFlags are launch's own flags beside the common ones.
type launchFlags struct {
	*flags
	backend, plugins, mode, bin string
	dryRun, requireAck          bool
}

func runLaunch(fl *flags) body {
	f := launchFlags{flags: fl}
	f.fs.StringVar(&f.backend, "backend", "", "claude, pi, codex or copilot (default: the agent file's \"backend\", else claude)")
	f.fs.StringVar(&f.plugins, "plugins", "", "none: launch with an explicit empty set")
	f.fs.StringVar(&f.mode, "mode", "", "benchmark or subagent: no portable MCP")
	f.fs.StringVar(&f.bin, "bin", "", "the agent executable (default: $PLUGBOARD_CLAUDE_BIN / $PLUGBOARD_PI_BIN, else claude / pi on PATH)")
	f.fs.BoolVar(&f.dryRun, "dry-run", false, "print the launch as it would run (argv, fingerprint, what is left out); write nothing, start nothing")
	f.fs.BoolVar(&f.requireAck, "require-ack", false, "stop (exit 4) when an MCP server is not acknowledged for the target, instead of leaving it out")
	return func(env Env, args []string) int {
		// plugboard's own lines go through the escaper; the agent gets the terminal as it is
		raw := env
		env.Stdout, env.Stderr = newTermSafe(env.Stdout), newTermSafe(env.Stderr)
		pos, agentArgs := f.split(args)
		if len(pos) != 1 {
			fmt.Fprintln(env.Stderr, "plugboard launch: give one target (see plugboard targets), e.g. plugboard launch agent:coder")
			return ExitUsage
		}
		if f.plugins != "" && f.plugins != "none" {
			fmt.Fprintf(env.Stderr, "plugboard launch: --plugins takes only \"none\" (the target's own set is the default), not %q\n", f.plugins)
			return ExitUsage
		}
		if f.mode != "" && f.mode != runtime.ModeBenchmark && f.mode != runtime.ModeSubagent {
			fmt.Fprintf(env.Stderr, "plugboard launch: --mode is benchmark or subagent, not %q\n", f.mode)
			return ExitUsage
		}
		home, pbHome, err := homes(env, f.flags)
		if err != nil {
			fmt.Fprintf(env.Stderr, "plugboard launch: %v\n", err)
			return ExitUsage
		}
		self, _ := env.Executable()
		var st *runtime.Starter
		var rl *activity.Listener
		if !f.dryRun {
			// Readied on the other core while the plan is built (both say what they save).
			st, rl = runtime.NewStarter(), activity.Listen()
			defer st.Stop()
			defer rl.Close()
		}
		req := runtime.Request{Home: home, PlugboardHome: pbHome, Target: pos[0], Backend: f.backend,
			NoPlugins: f.plugins == "none", Mode: f.mode, Bin: f.bin, Self: self, Args: agentArgs, RequireAck: f.requireAck, DryRun: f.dryRun}
		req.FromEnv(env.Getenv)
		plan, err := runtime.Build(req)
		if f.dryRun && f.json && plan != nil {
			writeJSON(env.Stdout, plan)
		}
		if err != nil {
			var need *runtime.AckError
			if errors.As(err, &need) {
				printNeedAck(env.Stderr, need)
				return ExitNeedAck
			}
			fmt.Fprintf(env.Stderr, "plugboard launch: %v\n", err)
			if errors.Is(err, runtime.ErrCollision) {
				return ExitInvalid
			}
			return ExitUsage
		}
		printDrops(env.Stderr, plan)
		if f.dryRun {
			if !f.json {
				printPlan(env.Stdout, plan)
			}
			return ExitOK
		}
		// This process waits for the agent, so it hosts the agent's recorder: a skill use then
		// costs a POST, not a plugboard process (backend/activity, server.go). When it cannot
		// listen, the plan's own recorder (a process per use) stays.
		if rec, err := rl.Serve(plan, pbHome, home, env.Getenv(runtime.ActivityRunEnv)); err != nil {
			fmt.Fprintf(env.Stderr, "plugboard launch: %v; skill uses are recorded by a process each\n", err)
		} else {
			defer rec.Close()
			plan.UseActivityServer(rec.URL, rec.Token)
		}
		code, err := runtime.Run(context.Background(), plan, st, raw.Stdin, raw.Stdout, raw.Stderr)
		if err != nil {
			fmt.Fprintf(env.Stderr, "plugboard launch: %v\n", err)
		}
		return code
	}
}

func printDrops(w io.Writer, p *runtime.Plan) {
	for _, d := range p.Dropped {
		name := d.Plugin
		if d.Name != "" {
			name += "/" + d.Name
		}
		hint := ""
		if d.LaunchAs {
			hint = " (plugboard launch-as " + d.Plugin + " claude)"
		}
		fmt.Fprintf(w, "plugboard launch: left out %s %s: %s%s\n", d.What, name, d.Reason, hint)
	}
	for _, s := range p.Suppressed {
		fmt.Fprintf(w, "plugboard launch: no MCP server %s/%s: %s\n", s.Plugin, s.Server, s.Reason)
	}
}

func printPlan(w io.Writer, p *runtime.Plan) {
	reused := "new"
	if p.Reused {
		reused = "reused"
	} else if p.Rebuilt != "" {
		reused = "made anew: " + p.Rebuilt
	}
	fmt.Fprintf(w, "%s\n", runtime.ShellQuote(p.Command()))
	fmt.Fprintf(w, "  backend %s, target %s\n  projection %s (%s)\n  fingerprint %s\n", p.Backend, p.Target, p.Projection, reused, p.Fingerprint)
	fmt.Fprintf(w, "  skills: %s\n  MCP servers: %s\n", list(p.Skills), list(p.Servers))
	if p.GrantsUnsupported != "" {
		fmt.Fprintf(w, "  read grants: %s\n", p.GrantsUnsupported)
	}
	for _, g := range p.Grants {
		fmt.Fprintf(w, "  read grant (%s of %s): %s\n", g.Kind, g.Skill, g.Path)
	}
	for _, r := range p.Refused {
		fmt.Fprintf(w, "  refused paths entry %q of %s: %s\n", r.Entry, r.Skill, r.Reason)
	}
}

func runMCPStdio(f *flags) body {
	file := f.fs.String("config", "", "the server's private config, written by a launch")
	return func(env Env, pos []string) int {
		if *file == "" || len(pos) > 0 {
			fmt.Fprintln(env.Stderr, "plugboard mcp-stdio: usage: plugboard mcp-stdio --config FILE")
			return ExitUsage
		}
		code, err := runtime.ExecStdio(*file)
		if err != nil {
			fmt.Fprintf(env.Stderr, "plugboard mcp-stdio: %v\n", err)
		}
		return code
	}
}
