package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/plugboard/plugboard/backend/catalog"
)

func loadCatalog(env Env, name string, args []string) (*catalog.Catalog, *flags, int) {
	f := newFlags(env, name, true)
	pos, err := f.parse(args)
	if err != nil {
		return nil, nil, ExitUsage
	}
	if len(pos) != 0 {
		fmt.Fprintf(env.Stderr, "plugboard %s: unexpected argument %q\n", name, pos[0])
		return nil, nil, ExitUsage
	}
	home, pbHome, err := homes(env, f)
	if err != nil {
		fmt.Fprintf(env.Stderr, "plugboard %s: %v\n", name, err)
		return nil, nil, ExitUsage
	}
	o := catalog.Options{Home: home, PlugboardHome: pbHome}
	if f.workspace != "" {
		if !isDirPath(f.workspace) {
			fmt.Fprintf(env.Stderr, "plugboard %s: workspace %s is not a folder\n", name, f.workspace)
			return nil, nil, ExitUsage
		}
		o.Workspace = absPath(f.workspace)
	}
	return catalog.Load(o), f, ExitOK
}

func runCatalog(env Env, args []string) int {
	c, f, code := loadCatalog(env, "catalog", args)
	if c == nil {
		return code
	}
	if f.json {
		if err := c.WriteJSON(env.Stdout); err != nil {
			return ExitUsage
		}
		return ExitOK
	}
	printCatalog(env.Stdout, c)
	return ExitOK
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
