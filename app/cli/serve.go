package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// DesktopFunc opens the desktop window and blocks until it closes. When a window of the
// same Plugboard home is open already, it hands the request to that window (which comes
// to the front unless Hidden) and returns app.ErrHandedOver (errHandedOver here).
type DesktopFunc func(home, pbHome string, o DesktopOptions, assets fs.FS) error

// DesktopOptions are how the window starts.
type DesktopOptions struct {
	Open   string // a folder for Local development to show ("" for none)
	Hidden bool   // start in the tray, the window hidden (--hidden: the autostart entry)
}

// runDefault is what `plugboard` with no command does: the window when there is one to
// open, else the page on loopback.
func runDefault(env Env) int { return openWindow(env, DesktopOptions{}) }

// runOpen is `plugboard FOLDER`: the window, with Local development showing FOLDER.
func runOpen(env Env, folder string) int {
	abs, err := filepath.Abs(folder)
	if err != nil {
		fmt.Fprintf(env.Stderr, "plugboard: %v\n", err)
		return ExitUsage
	}
	return openWindow(env, DesktopOptions{Open: abs})
}

func openWindow(env Env, o DesktopOptions) int {
	folder := o.Open
	home, pbHome, err := homes(env, &flags{})
	if err != nil {
		fmt.Fprintf(env.Stderr, "plugboard: %v\n", err)
		return ExitUsage
	}
	switch {
	case env.Getenv("DISPLAY") == "" && env.Getenv("WAYLAND_DISPLAY") == "":
		fmt.Fprintln(env.Stderr, "plugboard: no display (DISPLAY and WAYLAND_DISPLAY are unset); serving the page instead — open the URL below")
	case env.Desktop == nil && env.Window != nil:
		var args []string
		if o.Hidden {
			args = append(args, "--hidden")
		}
		if folder != "" {
			args = append(args, folder)
		}
		err := env.Window(args)
		fmt.Fprintf(env.Stderr, "plugboard: the window could not open (%v); serving the page instead — open the URL below\n", err)
	case env.Desktop == nil:
		fmt.Fprintln(env.Stderr, "plugboard: this build has no desktop window (built without the desktop tag, and no plugboard-window beside it); serving the page instead — open the URL below")
	default:
		err := env.Desktop(home, pbHome, o, env.Assets)
		switch {
		case errors.Is(err, errHandedOver):
			if folder != "" {
				fmt.Fprintf(env.Stdout, "plugboard: the running window shows %s in Local development\n", folder)
			} else {
				fmt.Fprintln(env.Stdout, "plugboard: the running window was brought to the front")
			}
			return ExitOK
		case err != nil:
			fmt.Fprintf(env.Stderr, "plugboard: the window could not open (%v); serving the page instead\n", err)
		default:
			return ExitOK
		}
	}
	if folder != "" {
		fmt.Fprintf(env.Stderr, "plugboard: link %s from the page's Local development view\n", folder)
	}
	return serve(env, home, pbHome, "", "127.0.0.1:0")
}
