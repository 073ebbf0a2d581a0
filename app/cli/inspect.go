package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/issue"
)

func runInspect(env Env, args []string) int {
	f := newFlags(env, "inspect", false)
	pos, err := f.parse(args)
	if err != nil {
		return ExitUsage
	}
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
	p := catalog.Inspect(dir, env.Getenv("HOME"))
	if f.json {
		if err := writeJSON(env.Stdout, p); err != nil {
			return ExitUsage
		}
	} else {
		printPlugin(env.Stdout, &p, dir)
	}
	if !p.Valid {
		return ExitInvalid
	}
	return ExitOK
}

func unwrap(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// printPlugin writes every issue as "path:line: severity: message [code]" with paths
// under shownDir, then one summary line.
func printPlugin(w io.Writer, p *catalog.Plugin, shownDir string) {
	for _, i := range sortedIssues(p.AllIssues()) {
		if i.Path != "" && !filepath.IsAbs(i.Path) {
			i.Path = filepath.Join(shownDir, i.Path)
		}
		fmt.Fprintln(w, i.String())
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
