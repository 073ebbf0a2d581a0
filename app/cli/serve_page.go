package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/plugboard/plugboard/app"
)

// errHandedOver is what a DesktopFunc returns when a running window took the request.
var errHandedOver = app.ErrHandedOver

func runServe(f *flags) body {
	addr := f.fs.String("addr", "127.0.0.1:0", "address to listen on (loopback unless you mean otherwise)")
	return func(env Env, pos []string) int {
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
}

// loopbackHost reports whether the host of --addr keeps the server on this machine:
// "localhost" or a loopback address. An empty host (":8080") is every interface.
func loopbackHost(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}

// serve runs the HTTP door until SIGINT or SIGTERM.
func serve(env Env, home, pbHome, workspace, addr string) int {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		fmt.Fprintf(env.Stderr, "plugboard serve: --addr %s: %v\n", addr, err)
		return ExitUsage
	}
	if !loopbackHost(host) {
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
