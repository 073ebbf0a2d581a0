package cli

import (
	"bufio"
	"context"
	"fmt"
	"path/filepath"

	"github.com/plugboard/plugboard/backend/installed"
)

// runClients prints the agent clients installed on this machine and their versions, as
// backend/installed finds them from PATH and HOME: what the verdicts about each client
// are judged against. Exit 0 whatever is installed; 2 for a usage error or an answer
// that could not be written. `clients verify` is runClientsVerify.
func runClients(f *flags) body {
	return func(env Env, pos []string) int {
		if len(pos) == 1 && pos[0] == "verify" {
			return runClientsVerify(env, f)
		}
		if f.home != "" || f.workspace != "" {
			fmt.Fprintln(env.Stderr, "plugboard clients: --home and --workspace name the catalog `plugboard clients verify` checks; the list of clients needs neither")
			return ExitUsage
		}
		if len(pos) != 0 {
			fmt.Fprintf(env.Stderr, "plugboard clients: unexpected argument %q; usage: %s\n", pos[0], f.cmd.UseLine())
			return ExitUsage
		}
		home := env.Getenv("HOME")
		cs := findClients(env, home)
		w := bufio.NewWriter(env.Stdout)
		if f.json {
			_ = writeJSON(w, struct {
				Clients []installed.Client `json:"clients"`
			}{cs})
		} else {
			if abs, err := filepath.Abs(home); home != "" && err == nil {
				home = abs
			}
			for _, c := range cs {
				fmt.Fprintln(w, clientLine(c, home))
			}
		}
		if w.Flush() != nil {
			return ExitUsage // the answer did not all get out (a full disk, a closed pipe)
		}
		return ExitOK
	}
}

// findClients looks for the installed clients with the command's PATH and home: what the
// client models are judged by (catalog, inspect, watch) and what clients lists.
func findClients(env Env, home string) []installed.Client {
	return installed.Find(context.Background(), []string{"PATH=" + env.Getenv("PATH"), "HOME=" + home})
}

// clientLine is one client for people: "claude 2.1.328  /usr/local/bin/claude (version
// from package.json)", "codex  not installed", paths under home shortened to ~.
func clientLine(c installed.Client, home string) string {
	if !c.Found {
		return c.Name + "  not installed"
	}
	name, note := c.Name, "version unknown: "+c.Problem
	if c.Version != "" {
		name, note = c.Name+" "+c.Version, "version from "+c.From
	}
	if !c.OnPath {
		note += "; not on PATH"
	}
	return fmt.Sprintf("%s  %s (%s)", name, tildify(c.Path, home), note)
}
