//go:build !desktop || nogui

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/plugboard/plugboard/app/cli"
)

// desktopRunner: this build has no window (built without the desktop tag, or with nogui).
func desktopRunner() cli.DesktopFunc { return nil }

// windowProgram is the window build (make desktop) this command line hands `plugboard`
// with no command to: $PLUGBOARD_WINDOW, else plugboard-window beside this executable or
// in ../lib/plugboard (make install). "" when there is none.
func windowProgram() string {
	if p := os.Getenv("PLUGBOARD_WINDOW"); p != "" {
		return p
	}
	self, err := os.Executable()
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(self); err == nil {
		self = real
	}
	dir := filepath.Dir(self)
	for _, p := range []string{filepath.Join(dir, "plugboard-window"), filepath.Join(dir, "..", "lib", "plugboard", "plugboard-window")} {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// windowRunner replaces this process with the window program, which then opens the
// window as `plugboard` with no command would; it returns only on failure. The program
// is looked for only then: other commands pay nothing for it.
func windowRunner() func(args []string) error {
	return func(args []string) error {
		prog := windowProgram()
		if prog == "" {
			self, _ := os.Executable()
			return fmt.Errorf("no plugboard-window beside %s or in ../lib/plugboard (make desktop builds it; PLUGBOARD_WINDOW names another)", self)
		}
		if err := syscall.Exec(prog, append([]string{prog}, args...), os.Environ()); err != nil {
			return fmt.Errorf("%s: %w", prog, err)
		}
		return nil
	}
}
