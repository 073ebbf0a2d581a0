//go:build !desktop

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/plugboard/plugboard/app/cli"
)

// desktopRunner: this build has no window (built without the desktop tag).
func desktopRunner() cli.DesktopFunc { return nil }

// windowProgram is the window build (make desktop) this command line hands `plugboard`
// with no command to: $PLUGBOARD_WINDOW, else plugboard-window beside this executable or
// in ../lib/plugboard (make install). "" when there is none.
func windowProgram() string { return sibling("plugboard-window", "PLUGBOARD_WINDOW") }

// sibling is the program the environment variable env names, else the program called
// name beside this executable or in ../lib/plugboard; "" when there is none.
func sibling(name, env string) string {
	if p := os.Getenv(env); p != "" {
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
	for _, p := range []string{filepath.Join(dir, name), filepath.Join(dir, "..", "lib", "plugboard", name)} {
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
	return handTo("plugboard-window", "PLUGBOARD_WINDOW", "make desktop builds it")
}

// handTo replaces this process with the program sibling finds, with args.
func handTo(name, env, hint string) func(args []string) error {
	return func(args []string) error {
		prog := sibling(name, env)
		if prog == "" {
			self, _ := os.Executable()
			return fmt.Errorf("no %s beside %s or in ../lib/plugboard (%s; %s names another)", name, self, hint, env)
		}
		if err := syscall.Exec(prog, append([]string{prog}, args...), os.Environ()); err != nil {
			return fmt.Errorf("%s: %w", prog, err)
		}
		return nil
	}
}
