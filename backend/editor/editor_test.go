package editor

import (
	"errors"
	"os/exec"
	"slices"
	"testing"
)

func TestFor(t *testing.T) {
	const f = "/home/u/.plugboard/plugins/alpha/mcp.json"
	has := func(names ...string) func(string) (string, error) {
		return func(n string) (string, error) {
			if slices.Contains(names, n) {
				return "/usr/bin/" + n, nil
			}
			return "", exec.ErrNotFound
		}
	}
	tests := []struct {
		name     string
		env      map[string]string
		path     []string
		line     int
		want     []string
		terminal bool
		err      error
	}{
		{"VISUAL before EDITOR", map[string]string{"VISUAL": "gedit", "EDITOR": "vim"}, nil, 19, []string{"gedit", "+19", f}, false, nil},
		{"a terminal editor runs in a terminal", map[string]string{"EDITOR": "nvim"}, nil, 4, []string{"nvim", "+4", f}, true, nil},
		{"VS Code as EDITOR, with its flags", map[string]string{"EDITOR": "code --wait"}, nil, 7, []string{"code", "--wait", "-g", f + ":7"}, false, nil},
		{"emacs -nw", map[string]string{"EDITOR": "emacs -nw"}, nil, 2, []string{"emacs", "-nw", "+2", f}, true, nil},
		{"Sublime takes FILE:LINE", map[string]string{"VISUAL": "/opt/sublime/subl"}, nil, 3, []string{"/opt/sublime/subl", f + ":3"}, false, nil},
		{"kate --line", map[string]string{"VISUAL": "kate"}, nil, 3, []string{"kate", "--line", "3", f}, false, nil},
		{"no line", map[string]string{"EDITOR": "vim"}, nil, 0, []string{"vim", f}, true, nil},
		{"no editor set: VS Code when installed", nil, []string{"code", "xdg-open"}, 12, []string{"code", "-g", f + ":12"}, false, nil},
		{"else the desktop's handler, without a line", nil, []string{"xdg-open"}, 12, []string{"xdg-open", f}, false, nil},
		{"nothing", nil, nil, 12, nil, false, ErrNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := For(func(k string) string { return tt.env[k] }, has(tt.path...), f, tt.line)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if !slices.Equal(o.Argv, tt.want) || o.Terminal != tt.terminal {
				t.Errorf("For = %q (terminal %v), want %q (terminal %v)", o.Argv, o.Terminal, tt.want, tt.terminal)
			}
		})
	}
}
