package app

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// OpenFile opens a file a problem names in the editor the environment names: a window
// editor directly, a terminal editor in the terminal; a file no problem names is refused.
func TestOpenFile(t *testing.T) {
	home := t.TempDir()
	pb := filepath.Join(home, ".plugboard")
	bad := filepath.Join(pb, "plugins", "bad", "plugin.json")
	os.MkdirAll(filepath.Dir(bad), 0o755)
	os.WriteFile(bad, []byte("{\n  \"name\": \"bad\"\n}\n"), 0o644)
	svc := NewService(home, pb, nil)
	env := map[string]string{}
	svc.getenv = func(k string) string { return env[k] }

	ps, err := svc.Problems()
	if err != nil || len(ps) == 0 {
		t.Fatalf("Problems = %v, %v", ps, err)
	}
	var p = ps[0]
	if p.File != bad || p.Plugin != "bad" {
		t.Fatalf("first problem = %+v, want one of %s", p, bad)
	}

	// A window editor ($VISUAL, a recording stand-in) is started with +LINE FILE.
	editorBin, record := standInTerminal(t)
	env["VISUAL"] = editorBin
	res, err := svc.OpenFile(bad, p.Line)
	if err != nil || res.Terminal != "" {
		t.Fatalf("OpenFile = %+v, %v", res, err)
	}
	want := []string{"+" + strconv.Itoa(p.Line), bad}
	if p.Line == 0 {
		want = []string{bad}
	}
	if got := terminalArgv(t, record); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("editor argv = %q, want %q", got, want)
	}

	// A terminal editor ($EDITOR named vim) opens in the terminal.
	delete(env, "VISUAL")
	vim := filepath.Join(t.TempDir(), "vim")
	os.WriteFile(vim, []byte("#!/bin/sh\nexit 0\n"), 0o755)
	env["EDITOR"] = vim
	term, termRecord := standInTerminal(t)
	env["TERMINAL"] = term
	if res, err = svc.OpenFile(bad, 2); err != nil || res.Terminal == "" {
		t.Fatalf("OpenFile(vim) = %+v, %v", res, err)
	}
	if got := terminalArgv(t, termRecord); strings.Join(got, "|") != strings.Join([]string{"-e", vim, "+2", bad}, "|") {
		t.Errorf("terminal argv = %q", got)
	}

	// Only the files the problems name.
	var e *Error
	if _, err := svc.OpenFile("/etc/passwd", 1); !errors.As(err, &e) || e.Code != CodeInvalid {
		t.Errorf("OpenFile(/etc/passwd) = %v, want %s", err, CodeInvalid)
	}
}
