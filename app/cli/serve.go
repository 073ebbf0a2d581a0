package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/plugboard/plugboard/app"
)

// DesktopFunc opens the desktop window and blocks until it closes. When a window of the
// same Plugboard home is open already, it hands the request to that window (which comes
// to the front unless Hidden) and returns app.ErrHandedOver.
type DesktopFunc func(home, pbHome string, o DesktopOptions, assets fs.FS) error

// DesktopOptions are how the window starts.
type DesktopOptions struct {
	Open   string // a folder for Local development to show ("" for none)
	Hidden bool   // start in the tray, the window hidden (--hidden: the autostart entry)
}

func runServe(env Env, args []string) int {
	f := newFlags(env, "serve", true)
	addr := f.fs.String("addr", "127.0.0.1:0", "address to listen on (loopback unless you mean otherwise)")
	pos, err := f.parse(args)
	if err != nil {
		return ExitUsage
	}
	if len(pos) != 0 {
		fmt.Fprintf(env.Stderr, "plugboard serve: unexpected argument %q\n", pos[0])
		return ExitUsage
	}
	home, pbHome, err := homes(env, f)
	if err != nil {
		fmt.Fprintf(env.Stderr, "plugboard serve: %v\n", err)
		return ExitUsage
	}
	return serve(env, home, pbHome, f.workspace, *addr)
}

// serve runs the HTTP door until SIGINT or SIGTERM.
func serve(env Env, home, pbHome, workspace, addr string) int {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		fmt.Fprintf(env.Stderr, "plugboard serve: --addr %s: %v\n", addr, err)
		return ExitUsage
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		fmt.Fprintf(env.Stderr, "plugboard serve: warning: listening on %s, not loopback: anyone who can reach it and has the token can read this catalog\n", addr)
	}
	broker := app.NewBroker()
	svc := app.NewService(home, pbHome, broker.Emit)
	svc.SetActor("http")
	if workspace != "" {
		if _, err := svc.OpenWorkspace(absPath(workspace)); err != nil {
			fmt.Fprintf(env.Stderr, "plugboard serve: %v\n", err)
			return ExitUsage
		}
	}
	if workspace == "" {
		go svc.Rescan() // the first scan starts now; the page's first Catalog call waits for it
	}
	srv, err := app.NewServer(svc, broker, env.Assets)
	if err != nil {
		fmt.Fprintf(env.Stderr, "plugboard serve: %v\n", err)
		return ExitUsage
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(env.Stderr, "plugboard serve: %v\n", err)
		return ExitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	defer svc.Close() // the page's warm agents (its tries) stop with it
	go func() {       // live reload (U4), once the first scan is in
		if err := app.StartLive(ctx, svc, nil, nil, env.Stderr); err != nil {
			fmt.Fprintf(env.Stderr, "plugboard serve: not watching files: %v\n", err)
		}
	}()
	if err := srv.Serve(ctx, l, env.Stdout); err != nil {
		fmt.Fprintf(env.Stderr, "plugboard serve: %v\n", err)
		return ExitUsage
	}
	return ExitOK
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
	home, pbHome, err := homes(env, newFlags(env, "plugboard", true))
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
		case errors.Is(err, app.ErrHandedOver):
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
