package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/plugboard/plugboard/backend/assign"
	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/devlink"
	"github.com/plugboard/plugboard/backend/marketplace"
	"github.com/plugboard/plugboard/backend/version"
)

// The shell completions and the manual pages are cobra's, generated from the command
// tree, so they say what --help says. A completion asks plugboard itself (cobra's hidden
// __complete command) for the plugin and target ids of the catalog as the user types.

// runCompletion prints the completion script for a shell.
func runCompletion(f *flags) body {
	return func(env Env, pos []string) int {
		if len(pos) != 1 {
			fmt.Fprintln(env.Stderr, "usage: plugboard completion bash|zsh|fish")
			return ExitUsage
		}
		root := f.cmd.Root()
		var err error
		switch pos[0] {
		case "bash":
			err = root.GenBashCompletionV2(env.Stdout, true)
		case "zsh":
			err = root.GenZshCompletion(env.Stdout)
		case "fish":
			err = root.GenFishCompletion(env.Stdout, true)
		default:
			fmt.Fprintf(env.Stderr, "plugboard completion: no completion for %q; use bash, zsh or fish\n", pos[0])
			return ExitUsage
		}
		if err != nil {
			fmt.Fprintf(env.Stderr, "plugboard completion: %v\n", err)
			return ExitUsage
		}
		return ExitOK
	}
}

// runMan prints plugboard(1), or writes a page per command (plugboard-launch.1, ...)
// into --dir, with cobra's generator: synopsis, description, options and examples.
func runMan(f *flags) body {
	dir := f.fs.String("dir", "", "write plugboard.1 and a page for each command into this folder")
	return func(env Env, pos []string) int {
		if len(pos) != 0 {
			fmt.Fprintln(env.Stderr, "usage:", f.cmd.UseLine())
			return ExitUsage
		}
		date := time.Now().UTC()
		if d, err := time.Parse(time.RFC3339, version.BuildDate); err == nil {
			date = d // the same page for the same build
		}
		header := &doc.GenManHeader{Title: "PLUGBOARD", Section: "1", Date: &date, Source: "plugboard " + version.Get("").Version, Manual: "User Commands"}
		root := f.cmd.Root()
		root.DisableAutoGenTag = true
		if *dir == "" {
			if err := doc.GenMan(root, header, env.Stdout); err != nil {
				fmt.Fprintf(env.Stderr, "plugboard man: %v\n", err)
				return ExitUsage
			}
			return ExitOK
		}
		if err := os.MkdirAll(*dir, 0o755); err != nil {
			fmt.Fprintf(env.Stderr, "plugboard man: %v\n", err)
			return ExitUsage
		}
		header.Title = "" // each page's own: PLUGBOARD-LAUNCH
		if err := doc.GenManTree(root, header, *dir); err != nil {
			fmt.Fprintf(env.Stderr, "plugboard man: %v\n", err)
			return ExitUsage
		}
		n, _ := filepath.Glob(filepath.Join(*dir, "plugboard*.1"))
		fmt.Fprintf(env.Stdout, "wrote %d manual pages into %s\n", len(n), *dir)
		return ExitOK
	}
}

// argKind is what a positional argument names, for completion.
type argKind uint

const (
	argNone        argKind = 1 << iota // not completed
	argTarget                          // an agent name or target id
	argAgent                           // an agent name
	argSlot                            // a template slot id
	argPlugin                          // a plugin id of the catalog
	argLink                            // a local development link
	argMarketplace                     // a marketplace added
	argClaudeOff                       // launch-as's choice
	argMore                            // this kind again for every later argument
)

// argKinds are the kinds of a command's positional arguments, in order.
type argKinds []argKind

// completeArgs completes the positional arguments of a command.
func completeArgs(env *Env, kinds argKinds) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		n := len(args)
		var k argKind
		switch {
		case n < len(kinds):
			k = kinds[n]
		case len(kinds) > 0 && kinds[len(kinds)-1]&argMore != 0:
			k = kinds[len(kinds)-1]
		}
		if k == 0 || k == argNone {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return candidates(*env, cmd, k), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeFlags completes the values of the flags that take ids or a fixed word.
func completeFlags(env *Env, f *flags) {
	words := map[string][]string{"backend": {"claude", "pi", "codex", "copilot"}, "into": {"home", "cursor"}, "mode": {"benchmark", "subagent"}, "plugins": {"none"}}
	for name, ws := range words {
		if f.fs.Lookup(name) != nil {
			_ = f.cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(ws, cobra.ShellCompDirectiveNoFileComp))
		}
	}
	ids := map[string]argKind{"add": argPlugin, "remove": argPlugin, "set": argPlugin, "from": argAgent}
	for name, k := range ids {
		if f.fs.Lookup(name) == nil {
			continue
		}
		list := name != "from" // a comma-separated list: complete its last id
		_ = f.cmd.RegisterFlagCompletionFunc(name, func(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			all := candidates(*env, cmd, k)
			if i := strings.LastIndex(toComplete, ","); list && i >= 0 {
				for j, c := range all {
					all[j] = toComplete[:i+1] + c
				}
			}
			d := cobra.ShellCompDirectiveNoFileComp
			if list {
				d |= cobra.ShellCompDirectiveNoSpace // the user may go on with a comma
			}
			return all, d
		})
	}
}

// candidates are the ids of one kind in the home the command line names (--home, else
// $PLUGBOARD_HOME). A home that cannot be read completes nothing.
func candidates(env Env, cmd *cobra.Command, k argKind) []string {
	if k&argClaudeOff != 0 {
		return []string{"claude", "off"}
	}
	f := &flags{cmd: cmd}
	if h := cmd.Flags().Lookup("home"); h != nil {
		f.home = h.Value.String()
	}
	home, pbHome, err := homes(env, f)
	if err != nil {
		return nil
	}
	var out []string
	switch {
	case k&argLink != 0:
		links, _ := devlink.List(devlink.Options{Home: home, PlugboardHome: pbHome})
		for _, l := range links {
			out = append(out, l.Name)
		}
		return out
	case k&argMarketplace != 0:
		ms, _ := marketplace.List(pbHome)
		for _, m := range ms {
			out = append(out, m.Name)
		}
		return out
	}
	cat := catalog.Load(catalog.Options{Home: home, PlugboardHome: pbHome})
	if k&(argTarget|argAgent|argSlot) != 0 {
		targets, _ := assign.Targets(pbHome, cat)
		for _, t := range targets {
			switch {
			case t.Kind == assign.KindAgent && k&(argTarget|argAgent) != 0:
				out = append(out, t.Name) // launch coder: the short form people type
			case t.Kind == assign.KindSlot && k&(argTarget|argSlot) != 0:
				out = append(out, t.ID)
			}
		}
	}
	if k&argPlugin != 0 {
		for i := range cat.Plugins {
			out = append(out, cat.Plugins[i].ID)
		}
	}
	return out
}
