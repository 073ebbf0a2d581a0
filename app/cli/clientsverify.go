package cli

import (
	"bufio"
	"context"
	"fmt"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/clientask"
	"github.com/plugboard/plugboard/backend/clients"
	"github.com/plugboard/plugboard/backend/installed"
)

// verifyReport is `plugboard clients verify --json`.
type verifyReport struct {
	Clients []installed.Client `json:"clients"`
	// Asked are the clients asked, each with one result per package.
	Asked []verifyClient `json:"asked"`
	// Differ counts the packages where an installed client and the model disagree.
	Differ int `json:"differ"`
	// Errors counts the packages a client could not be asked about.
	Errors int `json:"errors"`
}

type verifyClient struct {
	Client  string             `json:"client"`
	Version string             `json:"version"`
	Results []clientask.Result `json:"results"`
}

// runClientsVerify asks every installed client it can ask what it loads from each
// package of the catalog (offline, running no package code; answers are kept in the
// database by content, so an unchanged package is asked once) and prints each package
// where the client and the model disagree, with both answers, so that a user can report
// it and the model can be mended. Exit 0 when they agree everywhere, 1 when any
// disagree or a package could not be asked about, 2 when no client can be asked.
func runClientsVerify(env Env, f *flags) int {
	home, pbHome, err := homes(env, f)
	if err != nil {
		fmt.Fprintf(env.Stderr, "plugboard clients verify: %v\n", err)
		return ExitUsage
	}
	ctx := context.Background()
	found := findClients(env, home)
	askable := clientask.Askable(found)
	if len(askable) == 0 {
		fmt.Fprintln(env.Stderr, "plugboard clients verify: no installed client can be asked: no claude, codex or pi is installed with a known version; `plugboard clients` says what is found. Install Claude Code (npm install -g @anthropic-ai/claude-code) and run verify again.")
		return ExitUsage
	}
	o := catalog.Options{Home: home, PlugboardHome: pbHome, Installed: clientask.Versions(found)}
	if f.workspace != "" {
		if !isDirPath(f.workspace) {
			fmt.Fprintf(env.Stderr, "plugboard clients verify: workspace %s is not a folder\n", f.workspace)
			return ExitUsage
		}
		o.Workspace = absPath(f.workspace)
	}
	cat := catalog.Load(o)
	a, closeStore, err := clientask.Open(ctx, pbHome)
	defer closeStore()
	if err != nil {
		fmt.Fprintf(env.Stderr, "plugboard clients verify: answers are not kept (%v); every package is asked\n", err)
	}
	rep := verifyReport{Clients: found, Asked: []verifyClient{}}
	w := bufio.NewWriter(env.Stdout)
	for _, c := range askable {
		if !f.json {
			fmt.Fprintf(env.Stderr, "asking %s %s about %d packages…\n", c.Name, c.Version, len(cat.Plugins))
		}
		res, err := a.AskAll(ctx, c, cat, nil)
		if err != nil {
			fmt.Fprintf(env.Stderr, "plugboard clients verify: %v\n", err)
			return ExitUsage
		}
		rep.Asked = append(rep.Asked, verifyClient{Client: c.Name, Version: c.Version, Results: res})
		cached, differ, errs := 0, 0, 0
		for _, r := range res {
			what := r.Subject()
			switch {
			case r.Error != "":
				errs++
				if !f.json {
					fmt.Fprintf(w, "ERROR %s (%s): %s\n", what, tildify(r.Path, home), r.Error)
				}
			case len(r.Differs) > 0:
				differ++
				if !f.json {
					fmt.Fprintf(w, "DIFFERS %s (%s), %s %s against %s:\n", what, tildify(r.Path, home), c.Name, c.Version, modelOf(cat, c.Name, r.Plugin))
					for _, d := range r.Differs {
						fmt.Fprintf(w, "  %s\n", d)
					}
				}
			}
			if r.Cached {
				cached++
			}
		}
		if !f.json {
			fmt.Fprintf(w, "%s %s: %s, %d agree, %d differ, %d could not be asked (%d answers from the database)\n",
				c.Name, c.Version, clientask.Tally(res), len(res)-differ-errs, differ, errs, cached)
		}
		rep.Differ += differ
		rep.Errors += errs
	}
	if f.json {
		_ = writeJSON(w, rep)
	}
	if w.Flush() != nil {
		return ExitUsage
	}
	if rep.Differ+rep.Errors > 0 {
		return ExitInvalid
	}
	return ExitOK
}

// modelOf names the model a package's verdict for client was judged by ("the model" for
// a standalone skill).
func modelOf(cat *catalog.Catalog, client, id string) string {
	for i := range cat.Plugins {
		if p := &cat.Plugins[i]; id != "" && p.ID == id && p.Clients != nil {
			if v, ok := map[string]string{clients.Claude: p.Clients.Claude.JudgedBy, clients.Codex: p.Clients.Codex.JudgedBy, clients.PI: p.Clients.PI.JudgedBy}[client]; ok {
				return v
			}
		}
	}
	return "the model"
}
