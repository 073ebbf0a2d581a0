// Package editor says how to open a file at a line in the editor a person uses, for the
// Problems view's "Open file": $VISUAL, else $EDITOR (a terminal editor such as vim or
// nano runs in a terminal), else VS Code when `code` is installed (`code -g FILE:LINE`),
// else the desktop's handler (`xdg-open FILE`). It chooses; the caller runs.
package editor

import (
	"errors"
	"path/filepath"
	"strconv"
	"strings"
)

// Opener is how to open one file: the argv to run and whether it must run in a terminal.
type Opener struct {
	Argv     []string `json:"argv"`
	Terminal bool     `json:"terminal"`
}

// ErrNone: there is no editor to open a file with.
var ErrNone = errors.New("no editor found: set $VISUAL or $EDITOR, or install VS Code or xdg-utils")

// vscodeLike take -g FILE:LINE.
var vscodeLike = map[string]bool{"code": true, "code-insiders": true, "codium": true, "cursor": true, "windsurf": true}

// colonLine take FILE:LINE.
var colonLine = map[string]bool{"subl": true, "sublime_text": true, "zed": true}

// terminalEditors run in a terminal; the rest of the +LINE editors open a window.
var terminalEditors = map[string]bool{"vi": true, "vim": true, "nvim": true, "nano": true, "micro": true,
	"hx": true, "helix": true, "kak": true, "joe": true, "ne": true, "mg": true}

// For returns how to open file at line (0: no line). getenv reads the environment and
// lookPath finds a program, as exec.LookPath does (tests pass their own).
func For(getenv func(string) string, lookPath func(string) (string, error), file string, line int) (Opener, error) {
	ed := strings.TrimSpace(getenv("VISUAL"))
	if ed == "" {
		ed = strings.TrimSpace(getenv("EDITOR"))
	}
	if ed != "" {
		fields := strings.Fields(ed)
		return withLine(fields, file, line), nil
	}
	if _, err := lookPath("code"); err == nil {
		return withLine([]string{"code"}, file, line), nil
	}
	if _, err := lookPath("xdg-open"); err == nil {
		return Opener{Argv: []string{"xdg-open", file}}, nil
	}
	return Opener{}, ErrNone
}

// withLine adds file (at line) to an editor's argv in the form that editor takes.
func withLine(argv []string, file string, line int) Opener {
	base := filepath.Base(argv[0])
	o := Opener{Argv: append([]string{}, argv...), Terminal: terminalEditors[base]}
	if base == "emacs" && containsAny(argv[1:], "-nw", "--no-window-system", "-t") {
		o.Terminal = true
	}
	at := strconv.Itoa(line)
	switch {
	case line <= 0:
		if vscodeLike[base] {
			o.Argv = append(o.Argv, "-g")
		}
		o.Argv = append(o.Argv, file)
	case vscodeLike[base]:
		o.Argv = append(o.Argv, "-g", file+":"+at)
	case colonLine[base]:
		o.Argv = append(o.Argv, file+":"+at)
	case base == "kate":
		o.Argv = append(o.Argv, "--line", at, file)
	default: // vi, nano, emacs, gedit, micro … take +LINE FILE
		o.Argv = append(o.Argv, "+"+at, file)
	}
	return o
}

func containsAny(list []string, want ...string) bool {
	for _, x := range list {
		for _, w := range want {
			if x == w {
				return true
			}
		}
	}
	return false
}
