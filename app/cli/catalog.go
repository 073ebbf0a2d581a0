package cli

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/clientask"
)

func loadCatalog(env Env, f *flags, pos []string) (*catalog.Catalog, int) {
	o, code := catalogOptions(env, f, pos)
	if code != ExitOK {
		return nil, code
	}
	return catalog.Load(o), ExitOK
}

// catalogOptions reads a catalog command's flags and arguments into the catalog's options.
func catalogOptions(env Env, f *flags, pos []string) (catalog.Options, int) {
	name := f.name()
	if len(pos) != 0 {
		fmt.Fprintf(env.Stderr, "plugboard %s: unexpected argument %q\n", name, pos[0])
		return catalog.Options{}, ExitUsage
	}
	home, pbHome, err := homes(env, f)
	if err != nil {
		fmt.Fprintf(env.Stderr, "plugboard %s: %v\n", name, err)
		return catalog.Options{}, ExitUsage
	}
	// The clients installed here pick the rules of each client model (a few stats).
	found := findClients(env, home)
	o := catalog.Options{Home: home, PlugboardHome: pbHome, Installed: clientask.Versions(found)}
	if f.workspace != "" {
		if !isDirPath(f.workspace) {
			fmt.Fprintf(env.Stderr, "plugboard %s: workspace %s is not a folder\n", name, f.workspace)
			return catalog.Options{}, ExitUsage
		}
		o.Workspace = absPath(f.workspace)
	}
	return o, ExitOK
}

// runCatalog prints the catalog: every run scans the homes again.
func runCatalog(f *flags) body {
	strict := f.fs.Bool("strict", false, "exit 1 when the catalog holds any error (for CI)")
	return func(env Env, pos []string) int {
		o, code := catalogOptions(env, f, pos)
		if code != ExitOK {
			return code
		}
		c := catalog.Load(o)
		w := bufio.NewWriterSize(env.Stdout, 64<<10) // keeps the first failed write, which Flush returns
		if f.json {
			_ = c.WriteJSON(w)
		} else {
			printCatalog(w, c)
		}
		if w.Flush() != nil {
			return ExitUsage // the answer did not all get out (a full disk, a closed pipe)
		}
		if *strict && c.Summary.Issues.Errors > 0 {
			fmt.Fprintf(env.Stderr, "plugboard catalog: %d errors (--strict)\n", c.Summary.Issues.Errors)
			return ExitInvalid
		}
		return ExitOK
	}
}

func printCatalog(w io.Writer, c *catalog.Catalog) {
	for _, i := range sortedIssues(c.Issues) {
		fmt.Fprintln(w, i.String())
	}
	fmt.Fprintf(w, "Plugins (%d, %d valid):\n", len(c.Plugins), c.Summary.ValidPlugins)
	for i := range c.Plugins {
		p := &c.Plugins[i]
		for _, is := range sortedIssues(p.AllIssues()) {
			if is.Path != "" && is.Path[0] != '/' {
				is.Path = p.Path + "/" + is.Path
			}
			fmt.Fprintln(w, "  "+tildify(is.String(), c.Home))
		}
		fmt.Fprintf(w, "  [%s] %s\n", p.Source, pluginLine(p, tildify(p.Path, c.Home)))
		if note := claudeNote(p, c.Settings.LaunchAsClient(p.ID)); note != "" {
			fmt.Fprintln(w, "    "+note)
		}
	}
	fmt.Fprintf(w, "Skills (%d, %d active, %d shadowed):\n", len(c.Skills), c.Summary.ActiveSkills, c.Summary.ShadowedSkills)
	for _, s := range c.Skills {
		if s.Plugin != "" {
			continue // plugin skills are listed by `plugboard skills`
		}
		for _, is := range s.Issues {
			fmt.Fprintln(w, "  "+tildify(is.String(), c.Home))
		}
		fmt.Fprintf(w, "  %s\n", skillLine(s, c.Home))
	}
	fmt.Fprintf(w, "MCP servers (%d):\n", len(c.MCP))
	for _, m := range c.MCP {
		fmt.Fprintf(w, "  %s: %s\n", m.Name, refLine(m.Winner, c.Home))
		for _, l := range m.Shadowed {
			fmt.Fprintf(w, "    shadowed: %s\n", refLine(l, c.Home))
		}
	}
	fmt.Fprintf(w, "%s, %s\n", plural(c.Summary.Issues.Errors, "error"), plural(c.Summary.Issues.Warnings, "warning"))
}

func skillLine(s *catalog.SkillEntry, home string) string {
	trust := "untrusted"
	if s.Trusted {
		trust = "trusted"
	}
	state := ""
	switch {
	case !s.Valid:
		state = " INVALID"
	case s.ShadowedBy != "":
		state = " shadowed by " + tildify(s.ShadowedBy, home) + " in " + strings.Join(s.ShadowedIn, ", ")
	}
	if s.Valid && !s.ModelInvocable {
		state += " (user-invocable only)"
	}
	if !s.Enabled {
		state += " (disabled)"
	}
	return fmt.Sprintf("%-28s %s, %s, %s%s", s.ID, s.Source, trust, tildify(s.Path, home), state)
}

func refLine(r catalog.ServerRef, home string) string {
	from := r.Source
	if r.Plugin != "" {
		from += " " + r.Plugin
	}
	what := r.Summary.Origin
	if r.Summary.Executable != "" {
		n := 0
		if r.Summary.Args != nil {
			n = *r.Summary.Args
		}
		what = fmt.Sprintf("%s (%s)", r.Summary.Executable, plural(n, "arg"))
	}
	return fmt.Sprintf("%s %s from %s (%s)", r.Type, what, from, tildify(r.File, home))
}
