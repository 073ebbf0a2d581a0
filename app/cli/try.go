package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/try"
)

// runTry is "plugboard try": one prompt, or every case of a cases file, as turns of the
// agent on the launch's projection, reporting the skills and MCP tools each turn invoked.
// The cases share one warm process (runtime.Pool). Exit 0 when the turn ran or every case
// passed, 1 when a case failed (or the set has a collision), 2 on usage or when the turn
// could not run. An MCP server not acknowledged for the target is left out, and said.
func runTry(f *flags) body {
	prompt := f.fs.StringP("prompt", "p", "", "the prompt, as the user would type it")
	casesFile := f.fs.String("cases", "", `a JSON file of cases: [{"prompt": "...", "expect": "plugin:skill" | [...] | []}]`)
	backend := f.fs.String("backend", "", "claude, pi, codex or copilot (default: the agent file's \"backend\", else claude)")
	bin := f.fs.String("bin", "", "the agent executable (default: $PLUGBOARD_CLAUDE_BIN / $PLUGBOARD_PI_BIN, else claude / pi on PATH)")
	return func(env Env, args []string) int {
		pos, agentArgs := f.split(args)
		if len(pos) != 1 || (*prompt == "") == (*casesFile == "") {
			fmt.Fprintln(env.Stderr, "usage:", f.cmd.UseLine())
			fmt.Fprintln(env.Stderr, "  give one target (an agent name or target id) or a plugin folder (a path: ./my-plugin), and either -p or --cases")
			return ExitUsage
		}
		home, pbHome, err := homes(env, f)
		if err != nil {
			fmt.Fprintf(env.Stderr, "plugboard try: %v\n", err)
			return ExitUsage
		}
		self, _ := env.Executable()
		req := runtime.Request{Home: home, PlugboardHome: pbHome, Backend: *backend, Bin: *bin, Self: self, Args: agentArgs}
		if isPath(pos[0]) {
			req.Dirs = []string{pos[0]}
		} else {
			req.Target = pos[0]
		}
		req.FromEnv(env.Getenv)
		var cases []try.Case
		if *casesFile != "" {
			if cases, err = try.ReadCases(*casesFile); err != nil {
				fmt.Fprintf(env.Stderr, "plugboard try: %v\n", err)
				return ExitUsage
			}
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		pool := &runtime.Pool{Max: 1}
		defer pool.Close()
		r := try.New(try.Options{Request: req, Pool: pool})

		if cases == nil {
			res, err := r.Try(ctx, *prompt)
			if res != nil {
				printTryDrops(env.Stderr, res.Dropped)
			}
			if err != nil {
				return tryFailed(env, err)
			}
			if f.json {
				writeJSON(env.Stdout, res)
			} else {
				printTry(env.Stdout, res)
			}
			return ExitOK
		}
		results := r.RunCases(ctx, cases, func(i int, cr try.CaseResult) {
			if i == 0 && cr.Result != nil {
				printTryDrops(env.Stderr, cr.Result.Dropped)
			}
			verdict := "pass"
			if !cr.Pass {
				verdict = "FAIL"
			}
			fmt.Fprintf(env.Stderr, "plugboard try: case %d of %d (%s): %s\n", i+1, len(cases), cr.Name, verdict)
		})
		failed := 0
		for _, cr := range results {
			if !cr.Pass {
				failed++
			}
		}
		if f.json {
			writeJSON(env.Stdout, map[string]any{"cases": results, "passed": len(results) - failed, "failed": failed})
		} else {
			printCases(env.Stdout, results, failed)
		}
		if failed > 0 {
			return ExitInvalid
		}
		return ExitOK
	}
}

// isPath tells a plugin folder from a target: a folder is written as a path (with a
// slash, or . / ~).
func isPath(arg string) bool {
	return strings.ContainsRune(arg, filepath.Separator) || arg == "." || arg == ".." || strings.HasPrefix(arg, "~")
}

func tryFailed(env Env, err error) int {
	var need *runtime.AckError
	if errors.As(err, &need) {
		printNeedAck(env.Stderr, need)
		return ExitNeedAck
	}
	fmt.Fprintf(env.Stderr, "plugboard try: %v\n", err)
	if errors.Is(err, runtime.ErrCollision) {
		return ExitInvalid
	}
	return ExitUsage
}

func printTryDrops(w io.Writer, drops []runtime.Drop) {
	printDrops(w, &runtime.Plan{Dropped: drops})
}

func printTry(w io.Writer, r *try.Result) {
	fmt.Fprintln(w, strings.TrimRight(r.Answer, "\n"))
	fmt.Fprintln(w)
	fmt.Fprintf(w, "skills invoked: %s\n", invokedSkills(r))
	fmt.Fprintf(w, "MCP tools called: %s\n", calledTools(r))
	process := "a new process"
	if r.Warm {
		process = "a warm process"
	}
	fmt.Fprintf(w, "(%s, %s, %s, %d ms, fingerprint %s)\n", r.Target, r.Backend, process, r.MS, r.Fingerprint)
}

func invokedSkills(r *try.Result) string {
	if r == nil || len(r.Skills) == 0 {
		return "none"
	}
	parts := make([]string, len(r.Skills))
	for i, s := range r.Skills {
		parts[i] = s.Skill
		if s.How == "user" {
			parts[i] += " (slash command)"
		}
	}
	return strings.Join(parts, ", ")
}

func calledTools(r *try.Result) string {
	if r == nil || len(r.Tools) == 0 {
		return "none"
	}
	parts := make([]string, len(r.Tools))
	for i, c := range r.Tools {
		parts[i] = fmt.Sprintf("%s/%s %d ms", c.Server, c.Tool, c.MS)
		if c.Failed {
			parts[i] += " (failed)"
		}
	}
	return strings.Join(parts, ", ")
}

func printCases(w io.Writer, results []try.CaseResult, failed int) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tEXPECT\tINVOKED\tRESULT")
	for _, cr := range results {
		expect := strings.Join(cr.Expect, ", ")
		if len(cr.Expect) == 0 {
			expect = "no skill"
		}
		verdict := "pass"
		if !cr.Pass {
			verdict = "FAIL: " + cr.Why
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", cr.Name, expect, invokedSkills(cr.Result), verdict)
	}
	tw.Flush()
	fmt.Fprintf(w, "%d passed, %d failed\n", len(results)-failed, failed)
}
