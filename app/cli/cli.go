// Package cli is the command-line door onto the backend: it parses flags, calls backend
// functions, and prints either JSON for machines or compiler-style lines for people. It
// holds no rules. Exit codes are part of the contract: 0 ok/valid, 1 invalid or refused,
// 2 usage or I/O error.
package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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
}

// flags are a command's shared flags (--json, --home, --workspace) on its flag set.
type flags struct {
	fs        *pflag.FlagSet
	cmd       *cobra.Command
	json      bool
	home      string
	workspace string
}

func newFlags(c *cobra.Command, withHome bool) *flags {
	f := &flags{fs: c.Flags(), cmd: c}
	name := c.Name()
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

// name is the command as messages name it: "catalog", "agent new".
func (f *flags) name() string { return strings.TrimPrefix(f.cmd.CommandPath(), "plugboard ") }

// split separates the command's positional arguments from those after "--" (an agent's).
func (f *flags) split(pos []string) (ours, rest []string) {
	dash := f.cmd.ArgsLenAtDash() // cobra's, from this run's parse
	if dash < 0 || dash > len(pos) {
		return pos, nil
	}
	return pos[:dash], pos[dash:]
}

// The shared flags a command takes, so that none is registered where it does nothing:
// --workspace only where a workspace is read, --json only where JSON is printed.
var (
	readsWorkspace = map[string]bool{"catalog": true, "skills": true, "watch": true, "serve": true, "clients": true}
	noJSON         = map[string]bool{"mcp-stdio": true, "mcp-proxy": true, "serve": true, "completion": true, "man": true}
)

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
