package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/clientask"
	"github.com/plugboard/plugboard/backend/clients"
	"github.com/plugboard/plugboard/backend/issue"
)

func runInspect(f *flags) body {
	return func(env Env, pos []string) int {
		if len(pos) != 1 {
			fmt.Fprintln(env.Stderr, "usage: plugboard inspect [--json] DIR")
			return ExitUsage
		}
		dir := pos[0]
		st, err := os.Stat(dir)
		if err != nil || !st.IsDir() {
			if err == nil {
				err = fmt.Errorf("not a folder")
			}
			fmt.Fprintf(env.Stderr, "plugboard inspect: %s: %v\n", dir, unwrap(err))
			return ExitUsage
		}
		found := findClients(env, env.Getenv("HOME"))
		doc := catalog.InspectAnyAs(dir, env.Getenv("HOME"), clientask.Versions(found))
		if f.json {
			if err := writeJSON(env.Stdout, doc); err != nil {
				return ExitUsage
			}
		} else {
			printInspection(env.Stdout, &doc, dir)
		}
		// Any error anywhere in the package (a skill, a server, a marketplace entry) fails
		// the check, so a plugin author's CI catches a broken skill in a valid package.
		if doc.HasErrors() {
			return ExitInvalid
		}
		return ExitOK
	}
}

func unwrap(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// printInspection prints what inspect found, for a person: issues like a compiler, a
// verdict line, and one line per client.
func printInspection(w io.Writer, d *catalog.Inspection, shownDir string) {
	switch d.Kind {
	case catalog.KindSkill:
		for _, i := range sortedIssues(d.Skill.Issues) {
			fmt.Fprintln(w, shownIssue(i, shownDir).String())
		}
		state := "valid"
		if !d.Skill.Valid {
			state = "INVALID"
		}
		fmt.Fprintf(w, "%s: %s skill %s\n", shownDir, state, d.Skill.Name)
	case catalog.KindMarketplace:
		for _, i := range sortedIssues(d.Marketplace.Issues) {
			fmt.Fprintln(w, shownIssue(i, shownDir).String())
		}
		fmt.Fprintf(w, "%s: marketplace %s; %s\n", shownDir, d.Marketplace.Name, plural(len(d.Marketplace.Plugins), "plugin"))
		for i := range d.Marketplace.Plugins {
			e := &d.Marketplace.Plugins[i]
			switch {
			case !e.OK:
				fmt.Fprintf(w, "  %s: %s\n", e.Name, e.Reason)
			case e.Plugin == nil:
				fmt.Fprintf(w, "  %s: %s source, not fetched\n", e.Name, e.Source.Kind)
			default:
				shown := filepath.Join(shownDir, e.Source.Path)
				printPlugin(w, e.Plugin, shown)
				printClients(w, e.Plugin.Clients, "    ")
			}
		}
		return
	default:
		printPlugin(w, d.Plugin, shownDir)
		if note := claudeNote(d.Plugin, ""); note != "" {
			fmt.Fprintln(w, note)
		}
	}
	printClients(w, d.Clients, "")
}

// claudeNote says plainly when the specification rejects a package that Claude Code
// loads, and how to launch it anyway (or that the user chose to).
func claudeNote(p *catalog.Plugin, launchAs string) string {
	if p.Valid || p.Clients == nil || !p.Clients.Claude.Loads {
		return ""
	}
	if launchAs == clients.Claude {
		return "note: the specification rejects this package, but Claude Code loads it; you chose to launch it as Claude loads it"
	}
	return fmt.Sprintf("note: the specification rejects this package, but Claude Code loads it (%s); plugboard launch-as %s claude launches it as Claude loads it", p.Clients.Claude.Why, p.ID)
}

// printClients writes one line per client ("claude: loads 7 skills as demo; …").
func printClients(w io.Writer, s *clients.Set, indent string) {
	if s == nil {
		return
	}
	for _, c := range []struct {
		name string
		v    *clients.Verdict
	}{{clients.Claude, &s.Claude}, {clients.Cursor, &s.Cursor}, {clients.Codex, &s.Codex}, {clients.PI, &s.PI}} {
		fmt.Fprintf(w, "%s%s: %s\n", indent, c.name, clients.Summary(c.v))
	}
}

func shownIssue(i issue.Issue, shownDir string) issue.Issue {
	if i.Path != "" && !filepath.IsAbs(i.Path) {
		i.Path = filepath.Join(shownDir, i.Path)
	}
	return i
}

// printPlugin writes every issue as "path:line: severity: message [code]" with paths
// under shownDir, then one summary line.
func printPlugin(w io.Writer, p *catalog.Plugin, shownDir string) {
	for _, i := range sortedIssues(p.AllIssues()) {
		fmt.Fprintln(w, shownIssue(i, shownDir).String())
	}
	fmt.Fprintln(w, pluginLine(p, shownDir))
}

func sortedIssues(l issue.List) issue.List {
	l = append(issue.List{}, l...)
	l.Sort()
	return l
}

// pluginLine is the one-line verdict on a plugin.
func pluginLine(p *catalog.Plugin, shown string) string {
	state := "valid"
	if !p.Valid {
		state = "INVALID"
	}
	name := p.Name
	if name == "" {
		name = p.ID
	}
	if p.Version != "" {
		name += " " + p.Version
	}
	if p.State == catalog.StateProblems {
		name += ", with errors" // as the page's badge says: valid, but a skill or a server is not
	}
	parts := []string{fmt.Sprintf("%s: %s %s plugin %s", shown, state, p.Format, name)}
	if p.Valid {
		parts = append(parts, fmt.Sprintf("%s (%d valid)", plural(len(p.Skills), "skill"), p.ValidSkills()))
		if p.MCP != nil {
			mcp := fmt.Sprintf("%s (%d valid)", plural(len(p.MCP.Servers), "MCP server"), p.ValidServers())
			if !p.MCP.Valid {
				mcp = "MCP disabled"
			}
			parts = append(parts, mcp)
		}
	}
	parts = append(parts, fmt.Sprintf("%s, %s", plural(p.IssueCounts.Errors, "error"), plural(p.IssueCounts.Warnings, "warning")))
	return strings.Join(parts, "; ")
}
