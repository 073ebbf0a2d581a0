package cli

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/plugboard/plugboard/backend/version"
)

// The manual page and the shell completions are made from the command table, so they
// say what --help says and cannot drift from it (make package ships them).

// flagRe finds the long and short flags of a usage line (made when man or completion
// first asks: every other command would pay for it at start).
var flagRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|[\s\[(|])(--?[a-z][a-z-]*)`) })

// commandFlags are the flags a command's usage line names, sorted.
func commandFlags(c command) []string {
	var out []string
	for _, m := range flagRe().FindAllStringSubmatch(c.args, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	slices.Sort(out)
	return out
}

// runCompletion prints the completion script for a shell.
func runCompletion(env Env, args []string) int {
	if len(args) != 1 || isHelp(args) {
		fmt.Fprintln(env.Stderr, "usage: plugboard completion bash|zsh|fish")
		return helpOrUsage(args)
	}
	switch args[0] {
	case "bash":
		bashCompletion(env.Stdout)
	case "zsh":
		zshCompletion(env.Stdout)
	case "fish":
		fishCompletion(env.Stdout)
	default:
		fmt.Fprintf(env.Stderr, "plugboard completion: no completion for %q; use bash, zsh or fish\n", args[0])
		return ExitUsage
	}
	return ExitOK
}

func commandNames() []string {
	var out []string
	for _, c := range commands() {
		if !c.hidden() {
			out = append(out, c.name)
		}
	}
	return out
}

// hidden: commands agents and launches run, not people.
func (c command) hidden() bool {
	return c.name == "mcp-stdio" || c.name == "mcp-proxy"
}

func bashCompletion(w io.Writer) {
	fmt.Fprintln(w, "# bash completion for plugboard (plugboard completion bash)")
	fmt.Fprintln(w, "_plugboard() {")
	fmt.Fprintln(w, `  local cur=${COMP_WORDS[COMP_CWORD]}`)
	fmt.Fprintln(w, `  if [ "$COMP_CWORD" -eq 1 ]; then`)
	fmt.Fprintf(w, "    COMPREPLY=($(compgen -W %q -- \"$cur\") $(compgen -d -- \"$cur\"))\n", strings.Join(commandNames(), " ")+" --help --version")
	fmt.Fprintln(w, "    return")
	fmt.Fprintln(w, "  fi")
	fmt.Fprintln(w, `  case ${COMP_WORDS[1]} in`)
	for _, c := range commands() {
		if fl := commandFlags(c); len(fl) > 0 && !c.hidden() {
			fmt.Fprintf(w, "  %s) COMPREPLY=($(compgen -W %q -- \"$cur\") $(compgen -f -- \"$cur\")) ;;\n", c.name, strings.Join(fl, " "))
		}
	}
	fmt.Fprintln(w, `  *) COMPREPLY=($(compgen -f -- "$cur")) ;;`)
	fmt.Fprintln(w, "  esac")
	fmt.Fprintln(w, "}")
	fmt.Fprintln(w, "complete -o filenames -F _plugboard plugboard")
}

func zshCompletion(w io.Writer) {
	fmt.Fprintln(w, "#compdef plugboard")
	fmt.Fprintln(w, "# zsh completion for plugboard (plugboard completion zsh)")
	fmt.Fprintln(w, "_plugboard() {")
	fmt.Fprintln(w, "  local -a cmds")
	fmt.Fprintln(w, "  cmds=(")
	for _, c := range commands() {
		if !c.hidden() {
			fmt.Fprintf(w, "    %s\n", zshQuote(c.name+":"+c.help))
		}
	}
	fmt.Fprintln(w, "  )")
	fmt.Fprintln(w, "  if (( CURRENT == 2 )); then")
	fmt.Fprintln(w, "    _describe 'command' cmds; _files -/")
	fmt.Fprintln(w, "    return")
	fmt.Fprintln(w, "  fi")
	fmt.Fprintln(w, "  case $words[2] in")
	for _, c := range commands() {
		if fl := commandFlags(c); len(fl) > 0 && !c.hidden() {
			fmt.Fprintf(w, "    %s) compadd -- %s; _files ;;\n", c.name, strings.Join(fl, " "))
		}
	}
	fmt.Fprintln(w, "    *) _files ;;")
	fmt.Fprintln(w, "  esac")
	fmt.Fprintln(w, "}")
	fmt.Fprintln(w, `_plugboard "$@"`)
}

func zshQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func fishCompletion(w io.Writer) {
	fmt.Fprintln(w, "# fish completion for plugboard (plugboard completion fish)")
	fmt.Fprintln(w, "complete -c plugboard -f")
	for _, c := range commands() {
		if c.hidden() {
			continue
		}
		fmt.Fprintf(w, "complete -c plugboard -n __fish_use_subcommand -a %s -d %s\n", c.name, fishQuote(firstClause(c.help)))
		for _, fl := range commandFlags(c) {
			opt := "-l " + strings.TrimLeft(fl, "-")
			if !strings.HasPrefix(fl, "--") {
				opt = "-s " + strings.TrimLeft(fl, "-")
			}
			fmt.Fprintf(w, "complete -c plugboard -n '__fish_seen_subcommand_from %s' %s\n", c.name, opt)
		}
	}
	fmt.Fprintln(w, "complete -c plugboard -n __fish_use_subcommand -a '(__fish_complete_directories)'")
}

func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}

// firstClause is a help text up to its first colon or parenthesis, for one-line lists.
func firstClause(s string) string {
	if i := strings.IndexAny(s, ":("); i > 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// runMan prints the manual page, plugboard(1), in roff.
func runMan(env Env, args []string) int {
	if len(args) != 0 {
		fmt.Fprintln(env.Stderr, "usage: plugboard man")
		return helpOrUsage(args)
	}
	w := env.Stdout
	date := time.Now().UTC().Format("2006-01-02")
	if d := version.BuildDate; len(d) >= 10 {
		date = d[:10]
	}
	fmt.Fprintf(w, ".TH PLUGBOARD 1 %s %s \"User Commands\"\n", date, roff("plugboard "+version.Get("").Version))
	fmt.Fprintln(w, ".SH NAME")
	fmt.Fprintln(w, `plugboard \- one honest catalog of the agent plugins and skills on this machine`)
	fmt.Fprintln(w, ".SH SYNOPSIS")
	fmt.Fprintln(w, ".B plugboard")
	fmt.Fprintln(w, ".br")
	fmt.Fprintln(w, ".B plugboard\n.I FOLDER")
	for _, c := range commands() {
		if c.hidden() {
			continue
		}
		fmt.Fprintln(w, ".br")
		fmt.Fprintf(w, ".B plugboard %s\n", c.name)
		if c.args != "" {
			fmt.Fprintln(w, roff(c.args))
		}
	}
	fmt.Fprintln(w, ".SH DESCRIPTION")
	fmt.Fprintln(w, "Plugboard finds Agent Plugins 1.0 packages, legacy Claude plugins, Cursor Marketplace plugins and standalone skills, validates each against its specification, assigns plugin sets to agents and launches Claude Code or PI from private projections of them. With no command it opens the desktop window (with no display it serves the page on loopback).")
	fmt.Fprintln(w, ".SH COMMANDS")
	for _, c := range commands() {
		if c.hidden() {
			continue
		}
		fmt.Fprintf(w, ".TP\n.B %s %s\n%s\n", c.name, roff(c.args), roff(c.help))
	}
	fmt.Fprintln(w, ".SH ENVIRONMENT")
	fmt.Fprintln(w, ".TP\n.B HOME\nthe user's home, where the clients' folders are.\n.TP\n.B PLUGBOARD_HOME\nPlugboard's own folder (default ~/.plugboard); --home overrides it.")
	fmt.Fprintln(w, ".SH EXIT STATUS")
	fmt.Fprintln(w, "0 ok, 1 invalid or refused by a rule, 2 usage or I/O error, 3 stale hash (nothing written), 4 MCP acknowledgment needed.")
	fmt.Fprintln(w, ".SH NOTES")
	fmt.Fprintln(w, "Issue messages are in English whatever the page's language: their codes are stable and searchable.")
	return ExitOK
}

// roff escapes text for a roff line: backslashes, and a leading dot or quote.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
