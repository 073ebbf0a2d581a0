// Package cli is the command-line door onto the backend: it parses flags, calls backend
// functions, and prints either JSON for machines or compiler-style lines for people. It
// holds no rules. Exit codes are part of the contract: 0 ok/valid, 1 invalid or refused,
// 2 usage or I/O error.
package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Exit codes.
const (
	ExitOK      = 0
	ExitInvalid = 1
	ExitUsage   = 2
)

// Env is what a command reads from its surroundings; tests pass their own.
type Env struct {
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Assets is the built page (frontend/dist) for serve and the window.
	Assets fs.FS
	// Desktop opens the window; nil in a build without one.
	Desktop DesktopFunc
	// Window, in a build without a window, hands `plugboard` with no command over to the
	// window program (plugboard-window, which links GTK and WebKit, so that every other
	// command starts without loading them); it returns only when that program could not
	// be started. nil: there is none.
	Window func(args []string) error
	// WindowProgram is the window program's path, for version ("" or nil: none).
	WindowProgram func() string
	// Stdin is what a launched agent reads; nil means os.Stdin.
	Stdin io.Reader
	// Executable is this program's path, which launches hand to agents as the MCP proxy
	// and stdio wrapper; nil means os.Executable.
	Executable func() (string, error)

	// helped is set when a command's flags were asked for (-h, --help): Main then exits
	// 0 after the command printed them, as Go's own flag handling does.
	helped *bool
}

type command struct {
	name, args, help string
	run              func(env Env, args []string) int
}

func commands() []command {
	return []command{
		{"inspect", "[--json] DIR", "validate one plugin package of any format", runInspect},
		{"version", "[--json]", "the version (a git tag or commit), build date, Go version and the window's Wails version", runVersion},
		{"completion", "bash|zsh|fish", "print the shell completion script (the package installs them)", runCompletion},
		{"man", "", "print the manual page, plugboard(1), in roff", runMan},
		{"catalog", "[--json] [--strict] [--home DIR] [--workspace DIR]", "every plugin, skill and MCP server on this machine (--strict: exit 1 when any error is found)", runCatalog},
		{"clients", "[verify] [--json] [--home DIR] [--workspace DIR]", "the agent clients installed here (claude, codex, pi, cursor-agent): where each is and its version, which the verdicts about it are judged against; verify asks each installed client what it loads from every package of the catalog and prints where it disagrees with the model (exit 1)", runClients},
		{"skills", "[--json] [--home DIR] [--workspace DIR]", "skills grouped by plugin, in precedence order", runSkills},
		{"targets", "[--json] [--home DIR]", "agents and template slots with their plugin sets and hashes", runTargets},
		{"agent", "(new NAME [--backend claude|pi] [--from AGENT] | copy AGENT NAME | rename AGENT NAME | rm AGENT) [--json] [--home DIR]", "make, copy, rename or remove an agent (agents/NAME.json): a rename carries its template slots, shell bindings and acknowledgments; each is a history entry revert undoes", runAgent},
		{"template", "(add-slot TEMPLATE AGENT | rm-slot SLOT) [--json] [--home DIR]", "add a slot running an agent to a template (made when there is none), or remove a slot", runTemplate},
		{"assign", "TARGET (--set a,b | --add a | --remove a | --defaults) [--expect-hash H] [--ack-mcp] [--json] [--home DIR]", "change a target's plugin set (exit 3 stale, 4 acknowledgment needed)", runAssign},
		{"launch-as", "PLUGIN [claude|off] [--json] [--home DIR]", "launch a package the specification rejects as Claude loads it (an explicit choice, in settings and history)", runLaunchAs},
		{"history", "[--json] [--home DIR] [TARGET]", "assignment history, newest first", runHistory},
		{"revert", "[--ack-mcp] [--json] [--home DIR] ENTRY", "undo one history entry (itself a guarded save)", runRevert},
		{"launch", "TARGET [--backend claude|pi] [--plugins none] [--mode benchmark|subagent] [--bin PATH] [--dry-run] [--require-ack] [--json] [--home DIR] [-- AGENT-ARGS]", "start an agent from a private projection of the target's plugins (an MCP server not acknowledged is left out; --require-ack: exit 4)", runLaunch},
		{"ack", "TARGET [PLUGIN[/SERVER] ...] [--json] [--home DIR]", "acknowledge the MCP servers of a target's launch set as they are now (all not yet acknowledged, or those named)", runAck},
		{"budget", "[--json] [--backend claude|pi] [--home DIR] TARGET", "what a launch of the target puts in front of the model: each backend's skill listing as its client renders it, in characters and estimated tokens, the skills Claude's listing budget cuts to a bare name, and the MCP tools from the servers' last mcp check", runBudget},
		{"activity", "[--json] [--since DURATION] [--home DIR] [TARGET]", "the skills launched agents invoked, per skill and target, and the assigned skills not used since they were assigned (a launched claude's hooks run activity record)", runActivity},
		{"try", "TARGET|DIR (-p PROMPT | --cases FILE) [--backend claude|pi] [--bin PATH] [--json] [--home DIR] [-- AGENT-ARGS]", "run a prompt (or each case of a file) as one turn of the agent on the launch's projection and report the skills and MCP tools the model invoked, and the answer (exit 1: a case failed)", runTry},
		{"watch", "[--json] [--home DIR] [--workspace DIR]", "re-validate as files change: one line (or JSON object) per change", runWatch},
		{"link", "DIR [--into home|cursor] [--name NAME] [--copy] [--force] [--json] [--home DIR]", "link a plugin working copy into a plugin root (validated first)", runLink},
		{"unlink", "NAME [--into home|cursor] [--json] [--home DIR]", "remove a link or copy made by plugboard link", runUnlink},
		{"links", "[--json] [--home DIR]", "the local development links and their sources", runLinks},
		{"install", "(SOURCE [--ref REF] [--path SUBDIR] [--name ID] | --locked FILE) [--force] [--json] [--home DIR]", "fetch a plugin (git URL, owner/repo, folder, .zip/.tar.gz, PLUGIN@MARKETPLACE) into $PLUGBOARD_HOME/plugins, validated first, and record it in plugins.lock.json; --locked replays a lockfile exactly", runInstall},
		{"uninstall", "NAME [--force] [--json] [--home DIR]", "remove a plugin plugboard install installed (refused while a target assigns it)", runUninstall},
		{"update", "[--check] [--restore] [--json] [--home DIR] [NAME]", "fetch each installed plugin's source again at its ref and apply what changed (--check: report it, change nothing; --restore: put the source's version back over a plugin edited by hand); the replaced version is kept for rollback", runUpdate},
		{"rollback", "NAME [--json] [--home DIR]", "put back the version plugboard update replaced (the one it replaces is kept, so rollback twice returns)", runRollback},
		{"marketplace", "(add SOURCE [--name NAME] | list | remove NAME) [--json] [--home DIR]", "add (a folder, git URL or GitHub owner/name; a git one is cloned), list or remove the Claude Code marketplaces PLUGIN@MARKETPLACE installs from", runMarketplace},
		{"snapshots", "[--json] [--home DIR]", "catalog snapshots, newest first (one per scan that changed something)", runSnapshots},
		{"diff", "A B [--json] [--home DIR]", "what changed between two catalog snapshots", runDiff},
		{"mcp", "check [--json] [--timeout D] [--home DIR] TARGET|PLUGIN[/SERVER]", "start each MCP server of a target (or of one plugin) as a launch would and report what it answers: protocol, server, tools, prompts, resources, time to ready (exit 1 a server failed, 4 acknowledgment needed)", runMCP},
		{"mcp-proxy", "--config FILE", "bridge stdio to a remote MCP server (run by launched agents)", runMCPProxy},
		{"mcp-stdio", "--config FILE", "start a stdio MCP server in its folder with its env (run by launched agents)", runMCPStdio},
		{"serve", "[--addr 127.0.0.1:0] [--home DIR] [--workspace DIR]", "serve the page over HTTP (token, loopback); first line is the URL", runServe},
	}
}

// rawOutput are the commands whose output is not passed through termSafe whole: launch
// (the agent gets the terminal as it is; plugboard's own lines are escaped there), the
// JSON-RPC streams of the MCP bridges, serve's URL line and the documents of completion
// and man.
var rawOutput = map[string]bool{"launch": true, "mcp-proxy": true, "mcp-stdio": true, "serve": true, "completion": true, "man": true}

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
	if len(args) == 0 {
		return runDefault(env)
	}
	if args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(env.Stdout)
		return ExitOK
	}
	if args[0] == "--version" {
		return runVersion(env, args[1:]) // --version --json as version --json
	}
	if args[0] == "--hidden" && len(args) == 1 {
		return openWindow(env, DesktopOptions{Hidden: true}) // the autostart entry: in the tray
	}
	for _, c := range commands() {
		if c.name == args[0] {
			helped := false
			env.helped = &helped
			if !rawOutput[c.name] {
				env.Stdout, env.Stderr = newTermSafe(env.Stdout), newTermSafe(env.Stderr)
			}
			if code := c.run(env, args[1:]); !helped {
				return code
			}
			return ExitOK
		}
	}
	if len(args) == 1 && !strings.HasPrefix(args[0], "-") {
		if st, err := os.Stat(args[0]); err == nil && st.IsDir() {
			return runOpen(env, args[0]) // plugboard ~/src/my-plugin: Local development for it
		}
	}
	fmt.Fprintf(env.Stderr, "plugboard: unknown command %q\n\n", args[0])
	usage(env.Stderr)
	return ExitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Plugboard: one honest catalog of the agent plugins and skills on this machine.")
	fmt.Fprintln(w, "\nUsage:")
	fmt.Fprintf(w, "  plugboard\n      %s\n", "open the desktop window (no display: serve the page)")
	fmt.Fprintf(w, "  plugboard FOLDER\n      %s\n", "open the window (or bring the running one to the front) with Local development showing FOLDER, to link it")
	fmt.Fprintf(w, "  plugboard --hidden\n      %s\n", "start in the tray with the window hidden (what the start-at-login entry runs)")
	fmt.Fprintf(w, "  plugboard --version\n      %s\n", "the version, as plugboard version prints it")
	for _, c := range commands() {
		fmt.Fprintf(w, "  plugboard %s %s\n      %s\n", c.name, c.args, c.help)
	}
	fmt.Fprintln(w, "\nEnvironment: HOME (the user's home), PLUGBOARD_HOME (default ~/.plugboard; --home overrides).")
	fmt.Fprintln(w, "Exit status: 0 ok, 1 invalid or refused by a rule, 2 usage or I/O error, 3 stale hash (nothing written), 4 MCP acknowledgment needed.")
}

// flags is the common flag set: --json, --home, --workspace.
type flags struct {
	fs        *flag.FlagSet
	json      bool
	home      string
	workspace string
	helped    *bool // Env.helped
}

func newFlags(env Env, name string, withHome bool) *flags {
	f := &flags{fs: flag.NewFlagSet(name, flag.ContinueOnError), helped: env.helped}
	f.fs.SetOutput(env.Stderr)
	if !noJSON[name] {
		f.fs.BoolVar(&f.json, "json", false, "print one JSON document")
	}
	if withHome {
		f.fs.StringVar(&f.home, "home", "", "Plugboard home (overrides $PLUGBOARD_HOME)")
	}
	if readsWorkspace[name] {
		f.fs.StringVar(&f.workspace, "workspace", "", "open workspace folder (project skills and MCP)")
	}
	return f
}

// The shared flags a command takes, so that none is registered where it does nothing:
// --workspace only where a workspace is read, --json only where JSON is printed.
var (
	readsWorkspace = map[string]bool{"catalog": true, "skills": true, "watch": true, "serve": true, "clients": true}
	noJSON         = map[string]bool{"mcp-stdio": true, "serve": true, "plugboard": true}
)

// parse accepts flags before and after positional arguments. -h or --help prints the
// flags and fails like any other flag error, but the command then exits 0 (Env.helped).
func (f *flags) parse(args []string) ([]string, error) {
	var pos []string
	for {
		if err := f.fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) && f.helped != nil {
				*f.helped = true
			}
			return nil, err
		}
		args = f.fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// isHelp reports whether args is only a request for help, for a command without flags.
func isHelp(args []string) bool {
	return len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help")
}

// helpOrUsage is the exit status of a command without flags that printed its usage:
// 0 when it was asked for, else 2.
func helpOrUsage(args []string) int {
	if isHelp(args) {
		return ExitOK
	}
	return ExitUsage
}

// homes resolves HOME and PLUGBOARD_HOME for a command.
func homes(env Env, f *flags) (home, pbHome string, err error) {
	home = env.Getenv("HOME")
	if home == "" {
		return "", "", errors.New("HOME is not set")
	}
	// A relative HOME is taken from the working folder once, here, so that every path
	// made from it names the same folder.
	if home, err = filepath.Abs(home); err != nil {
		return "", "", err
	}
	pbHome = f.home
	if pbHome == "" {
		pbHome = env.Getenv("PLUGBOARD_HOME")
	}
	if pbHome == "" {
		pbHome = filepath.Join(home, ".plugboard")
	}
	if pbHome, err = filepath.Abs(pbHome); err != nil {
		return "", "", err
	}
	if fi, serr := os.Stat(pbHome); serr == nil && !fi.IsDir() {
		return "", "", fmt.Errorf("the Plugboard home %s is a file, not a folder; give --home (or PLUGBOARD_HOME) a folder", pbHome)
	}
	return home, pbHome, nil
}

// writeJSON prints v indented, for documents a person may read (inspect).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// writeCompactJSON prints v on one line: the catalog of a large home is megabytes, and
// indenting it doubles the cost of printing it (pipe it through jq to read it).
func writeCompactJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// plural formats "1 skill" / "2 skills".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// tildify shortens paths under home for people.
func tildify(p, home string) string {
	if home != "" && (p == home || strings.HasPrefix(p, home+"/")) {
		return "~" + p[len(home):]
	}
	return p
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// noPage is the page of a caller that has none: serve then says how to build it.
type noPage struct{}

func (noPage) Open(string) (fs.File, error) { return nil, fs.ErrNotExist }

// commandArgs is the synopsis of a command after its name, as the usage lists it.
func commandArgs(name string) string {
	for _, c := range commands() {
		if c.name == name {
			return c.args
		}
	}
	return ""
}
