package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/plugboard/plugboard/backend/install"
)

// runInstall fetches a plugin into $PLUGBOARD_HOME/plugins (backend/install), or replays
// a lockfile with --locked.
func runInstall(f *flags) body {
	var o install.Options
	var locked string
	f.fs.StringVar(&o.Ref, "ref", "", "git: the branch, tag or full commit to install (default: the remote's HEAD)")
	f.fs.StringVar(&o.Path, "path", "", "the plugin's folder inside the source (default: its root)")
	f.fs.StringVar(&o.Name, "name", "", "the plugin id (default: the manifest name, else the folder or repository name)")
	f.fs.StringVar(&locked, "locked", "", "install every plugin of this lockfile exactly (same commits, refused if the content differs)")
	f.fs.BoolVar(&o.Force, "force", false, "install an invalid package; replace an installed plugin of the same id")
	return func(env Env, pos []string) int {
		home, pbHome, err := homes(env, f)
		if err != nil {
			fmt.Fprintf(env.Stderr, "plugboard install: %v\n", err)
			return ExitUsage
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		context.AfterFunc(ctx, stop) // the first Ctrl-C stops the install at its next step; a second one kills
		if locked != "" {
			if len(pos) != 0 || o.Ref != "" || o.Path != "" || o.Name != "" {
				fmt.Fprintln(env.Stderr, "plugboard install: --locked FILE installs what the file records; give no SOURCE, --ref, --path or --name with it")
				return ExitUsage
			}
			res, err := install.InstallLocked(ctx, install.LockedOptions{Home: home, PlugboardHome: pbHome, Lockfile: locked, Force: o.Force, Progress: env.Stderr})
			if f.json {
				if res == nil {
					res = []install.Result{}
				}
				writeJSON(env.Stdout, map[string]any{"plugins": res})
			} else {
				for _, r := range res {
					printInstalled(env, r, home)
				}
			}
			if err != nil {
				return installFailed(env, "install", err)
			}
			return ExitOK
		}
		if len(pos) != 1 {
			fmt.Fprintln(env.Stderr, "plugboard install: give one source: a git URL, owner/repo, a plugin folder or a .zip/.tar.gz file, e.g. plugboard install https://github.com/acme/greeter.git")
			return ExitUsage
		}
		o.Home, o.PlugboardHome, o.Source, o.Progress = home, pbHome, pos[0], env.Stderr
		res, err := install.Install(ctx, o)
		if err != nil {
			return installFailed(env, "install", err)
		}
		if f.json {
			writeJSON(env.Stdout, res)
			return ExitOK
		}
		printInstalled(env, res, home)
		return ExitOK
	}
}

// installFailed prints err and returns its exit status: 1 for a refusal by a rule, 2
// for a fetch or I/O error.
func installFailed(env Env, verb string, err error) int {
	fmt.Fprintf(env.Stderr, "plugboard %s: %v\n", verb, err)
	for _, rule := range []error{install.ErrInvalid, install.ErrNotPlugin, install.ErrExists, install.ErrRefused,
		install.ErrTampered, install.ErrInUse, install.ErrNotOurs} {
		if errors.Is(err, rule) {
			return ExitInvalid
		}
	}
	return ExitUsage
}

// printInstalled says what was installed, for a person: the verdict, each issue, and
// the MCP servers the user is to review.
func printInstalled(env Env, r install.Result, home string) {
	w := env.Stdout
	state := "valid"
	switch {
	case r.Unchanged:
		state = "already installed with the locked content"
	case r.Forced:
		state = "INVALID (installed with --force)"
	case !r.Valid:
		state = "invalid by the specification (a client loads it)"
	}
	at := ""
	switch {
	case r.Commit != "":
		at = " at " + r.Commit[:12]
	case r.Archive != "":
		at = " (" + r.Archive[:19] + ")"
	}
	errs, warns := r.Issues.Count()
	fmt.Fprintf(w, "%s: %s from %s%s; %s, %s\n", r.ID, state, r.Source, at, plural(errs, "error"), plural(warns, "warning"))
	fmt.Fprintf(w, "  %s  content %s\n", tildify(r.Path, home), r.Content)
	for _, i := range r.Issues {
		fmt.Fprintf(w, "  %s\n", i.String())
	}
	if len(r.Servers) > 0 {
		fmt.Fprintf(w, "  %s, not acknowledged (a launch leaves them out until plugboard ack TARGET):\n", plural(len(r.Servers), "MCP server"))
		for _, s := range r.Servers {
			what := "connects to " + s.Origin
			if s.Executable != "" || s.Origin == "" {
				what = fmt.Sprintf("runs %s (%s)", s.Executable, plural(s.Args, "argument"))
			}
			fmt.Fprintf(w, "    %s: %s, %s\n", s.Name, s.Type, what)
		}
	}
	printNative(w, r.Native)
}

// printNative lists what Claude Code starts itself from a package (install: present;
// update: added, changed, removed), which Plugboard neither inventories nor gates.
func printNative(w io.Writer, l []install.NativeChange) {
	if len(l) == 0 {
		return
	}
	fmt.Fprintf(w, "  Claude Code starts these itself (Plugboard does not manage or acknowledge them):\n")
	kinds := map[string]string{"mcp": "MCP server", "hook": "hook", "lsp": "LSP server"}
	for _, n := range l {
		runs := ""
		if len(n.Runs) > 0 {
			runs = ", runs " + strings.Join(n.Runs, ", ")
		}
		change := ""
		if n.Change != "present" {
			change = " " + n.Change
		}
		fmt.Fprintf(w, "    %s %s%s (%s%s)\n", kinds[n.Kind], n.Name, change, n.File, runs)
	}
}

// runUninstall removes a plugin install made (backend/install).
func runUninstall(f *flags) body {
	var o install.UninstallOptions
	f.fs.BoolVar(&o.Force, "force", false, "uninstall even a plugin targets assign, or a folder install did not make")
	return func(env Env, pos []string) int {
		if len(pos) != 1 {
			fmt.Fprintln(env.Stderr, "plugboard uninstall: give the installed plugin's id (see plugboard catalog), e.g. plugboard uninstall greeter")
			return ExitUsage
		}
		home, pbHome, err := homes(env, f)
		if err != nil {
			fmt.Fprintf(env.Stderr, "plugboard uninstall: %v\n", err)
			return ExitUsage
		}
		o.Home, o.PlugboardHome, o.Name = home, pbHome, pos[0]
		res, err := install.Uninstall(context.Background(), o)
		if err != nil {
			return installFailed(env, "uninstall", err)
		}
		if f.json {
			writeJSON(env.Stdout, res)
			return ExitOK
		}
		fmt.Fprintf(env.Stdout, "uninstalled %s (%s)\n", res.ID, tildify(res.Path, home))
		if len(res.Targets) > 0 {
			fmt.Fprintf(env.Stdout, "  still named by %v (--force): remove it there with plugboard assign TARGET --remove %s\n", res.Targets, res.ID)
		}
		return ExitOK
	}
}
