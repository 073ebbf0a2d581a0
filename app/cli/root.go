package cli

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/agnivade/levenshtein"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The command tree is github.com/spf13/cobra's: it parses flags (pflag), finds the
// command, answers help (`plugboard help CMD` and `plugboard CMD --help` print the same
// usage, flags and examples), suggests a command or flag for a typo, and generates the
// shell completions and the manual pages. Each command is a spec: its synopsis, help and
// examples, and define, which registers the command's own flags and returns its body.

// body is a command's run: the positional arguments (after the flags) in, the exit status out.
type body func(env Env, pos []string) int

type spec struct {
	use     string // the name, then the synopsis as usage prints it
	short   string // one line for lists and the manual's NAME
	long    string // more, when the line is not enough
	example string
	hidden  bool // run by launched agents, not people
	noHome  bool // takes no --home (reads no Plugboard home)
	define  func(f *flags) body
	// raw is a command that reads its own arguments, flags and all (activity record,
	// which must never fail the agent that runs it, not even on a flag it does not know).
	raw  func(env Env, args []string) int
	subs []spec
	// args completes the positional arguments (plugin ids, target ids) from the catalog.
	args argKinds
}

// exitStatus carries a command's exit status out of cobra's Execute.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// status is a command's exit status as cobra's RunE returns it: nil for 0.
func status(code int) error {
	if code == ExitOK {
		return nil
	}
	return exitStatus(code)
}

// usageError is a mistake on the command line (unknown command, subcommand or flag, a
// missing value): printed with what was probably meant and how to get the usage.
type usageError struct {
	cmd     *cobra.Command
	err     error
	suggest []string
}

func (e *usageError) Error() string { return e.err.Error() }

// newRoot builds the command tree. env is read when a command runs, so Main may still
// change its writers after the command is found.
func newRoot(env *Env) *cobra.Command {
	root := &cobra.Command{
		Use:   "plugboard [FOLDER]",
		Short: "one honest catalog of the agent plugins and skills on this machine",
		Long: `Plugboard finds Agent Plugins 1.0 packages, legacy Claude plugins, Cursor Marketplace plugins and standalone skills, validates each against its specification, says what each client really loads, assigns plugin sets to agents and launches Claude Code or PI from private projections of them.

With no command it opens the desktop window (with no display it serves the page on loopback); with a FOLDER it opens Local development showing that folder, to link it.

Environment: HOME (the user's home, where the clients' folders are), PLUGBOARD_HOME (Plugboard's own folder, default ~/.plugboard; --home overrides it).

Exit status: 0 ok, 1 invalid or refused by a rule, 2 usage or I/O error, 3 stale hash (nothing written), 4 MCP acknowledgment needed.

Issue messages are in English whatever the page's language: their codes are stable and searchable.`,
		Example: `  plugboard                      # open the window
  plugboard ~/src/my-plugin      # open Local development with this folder
  plugboard catalog --strict     # validate everything; exit 1 on an error (for CI)
  plugboard help launch          # the usage, flags and examples of one command`,
		Args:                       cobra.ArbitraryArgs,
		SilenceErrors:              true,
		SilenceUsage:               true,
		SuggestionsMinimumDistance: 2,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.Flags().Bool("version", false, "print the version, as plugboard version does (--version --json too)")
	root.Flags().Bool("hidden", false, "start in the tray with the window hidden (what the start-at-login entry runs)")
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if h, _ := cmd.Flags().GetBool("hidden"); h && len(args) == 0 {
			return status(openWindow(*env, DesktopOptions{Hidden: true}))
		}
		switch {
		case len(args) == 0:
			return status(runDefault(*env))
		case len(args) == 1 && isDirPath(args[0]):
			return status(runOpen(*env, args[0])) // plugboard ~/src/my-plugin: Local development for it
		}
		return &usageError{cmd: cmd, err: fmt.Errorf("unknown command %q", args[0]), suggest: cmd.SuggestionsFor(args[0])}
	}
	for _, s := range specs() {
		root.AddCommand(build(env, s))
	}
	root.SetFlagErrorFunc(flagError)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	return root
}

// build makes one command (and its subcommands) from its spec.
func build(env *Env, s spec) *cobra.Command {
	c := &cobra.Command{
		Use: s.use, Short: s.short, Long: s.long, Example: s.example, Hidden: s.hidden,
		SilenceErrors: true, SilenceUsage: true, DisableFlagsInUseLine: true, SuggestionsMinimumDistance: 2,
	}
	if s.long == "" {
		c.Long = s.short
	}
	switch {
	case s.raw != nil:
		c.DisableFlagParsing = true
		c.RunE = func(cmd *cobra.Command, args []string) error { return status(s.raw(*env, args)) }
	case s.define != nil:
		f := newFlags(c, !s.noHome)
		run := s.define(f)
		c.RunE = func(cmd *cobra.Command, args []string) error { return status(run(*env, args)) }
		completeFlags(env, f)
	default:
		// A command of subcommands run without a known one: a usage error that names them.
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &usageError{cmd: cmd, err: fmt.Errorf("name a subcommand: %s", strings.Join(subNames(cmd), ", "))}
			}
			return &usageError{cmd: cmd, err: fmt.Errorf("unknown subcommand %q", args[0]), suggest: cmd.SuggestionsFor(args[0])}
		}
	}
	if len(s.args) > 0 {
		c.ValidArgsFunction = completeArgs(env, s.args)
	}
	for _, sub := range s.subs {
		c.AddCommand(build(env, sub))
	}
	return c
}

func subNames(c *cobra.Command) []string {
	var out []string
	for _, s := range c.Commands() {
		if s.IsAvailableCommand() {
			out = append(out, s.Name())
		}
	}
	return out
}

// flagError turns pflag's error for an unknown flag into one that suggests the flag
// meant (the nearest of the command's flags by edit distance).
func flagError(c *cobra.Command, err error) error {
	var missing *pflag.NotExistError
	if !errors.As(err, &missing) || missing.GetSpecifiedName() == "" {
		return &usageError{cmd: c, err: err}
	}
	typed := missing.GetSpecifiedName()
	var names []string
	c.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	best, bestD := "", 3 // at most two edits, or the typed name starts one (--dry for --dry-run)
	for _, n := range names {
		d := levenshtein.ComputeDistance(typed, n)
		if strings.HasPrefix(n, typed) {
			d = 1
		}
		if d < bestD {
			best, bestD = n, d
		}
	}
	var suggest []string
	if best != "" {
		suggest = []string{"--" + best}
	}
	return &usageError{cmd: c, err: err, suggest: suggest}
}

// goStyleFlag is a long flag written with one dash, as Go's flag package took them
// (-json); pflag reads one dash as letters, so Main writes them with two. Compiled when
// first needed, not at every start.
var goStyleFlag = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^-([a-z][a-z0-9]*(?:-[a-z0-9]+)*)(=.*)?$`)
})

// twoDashes rewrites -name to --name when the command has a long flag of that name (or
// it is -help), up to a "--".
func twoDashes(c *cobra.Command, args []string) []string {
	out := slices.Clone(args)
	for i, a := range out {
		if a == "--" {
			break
		}
		m := goStyleFlag().FindStringSubmatch(a)
		if m == nil || len(m[1]) < 2 {
			continue
		}
		if m[1] == "help" || c.Flags().Lookup(m[1]) != nil {
			out[i] = "-" + a
		}
	}
	return out
}

// rawOutput are the commands whose output is not passed through termSafe whole: launch
// (the agent gets the terminal as it is; plugboard's own lines are escaped there), the
// JSON-RPC streams of the MCP bridges, serve's URL line, the documents of completion and
// man, and cobra's completion requests.
var rawOutput = map[string]bool{"launch": true, "mcp-proxy": true, "mcp-stdio": true, "serve": true, "completion": true, "man": true,
	cobra.ShellCompRequestCmd: true, cobra.ShellCompNoDescRequestCmd: true}

// Main runs one command line and returns the exit status.
func Main(args []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	if env.Assets == nil {
		env.Assets = noPage{}
	}
	if env.Stdin == nil {
		env.Stdin = os.Stdin
	}
	if env.Executable == nil {
		env.Executable = os.Executable
	}
	if len(args) > 0 && args[0] == "--version" {
		args = append([]string{"version"}, args[1:]...) // --version --json as version --json
	}
	run := env
	root := newRoot(&run)
	if c, _, err := root.Find(args); err == nil && c != root {
		args = twoDashes(c, args)
		top := c
		for top.HasParent() && top.Parent() != root {
			top = top.Parent()
		}
		if !rawOutput[top.Name()] {
			run.Stdout, run.Stderr = newTermSafe(env.Stdout), newTermSafe(env.Stderr)
			root.SetOut(run.Stdout)
			root.SetErr(run.Stderr)
		}
	}
	root.SetArgs(args)
	c, err := root.ExecuteC()
	var code exitStatus
	var usage *usageError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &code):
		return int(code)
	case errors.As(err, &usage):
		c = usage.cmd
	}
	w := newTermSafe(env.Stderr) // the error names what was typed: escaped, whatever the command
	fmt.Fprintf(w, "%s: %v\n", c.CommandPath(), err)
	if usage != nil && len(usage.suggest) > 0 {
		fmt.Fprintf(w, "Did you mean %s?\n", strings.Join(usage.suggest, " or "))
	}
	fmt.Fprintf(w, "Run '%s --help' for usage.\n", c.CommandPath())
	return ExitUsage
}
