package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/plugboard/plugboard/backend/mcpproxy"
)

// runMCPProxy is the stdio MCP server that Claude Code starts for a remote server: it
// bridges stdin/stdout to the URL in the private --config file until stdin ends. Stdout
// carries only JSON-RPC, so every word for people goes to stderr.
func runMCPProxy(env Env, args []string) int {
	fset := flag.NewFlagSet("mcp-proxy", flag.ContinueOnError)
	fset.SetOutput(env.Stderr)
	config := fset.String("config", "", "private JSON file (mode 0600) with the remote server's type, url and headers")
	if err := fset.Parse(args); err != nil {
		return ExitUsage
	}
	if *config == "" || fset.NArg() != 0 {
		fmt.Fprintln(env.Stderr, "usage: plugboard mcp-proxy --config FILE")
		return ExitUsage
	}
	cfg, err := mcpproxy.ReadConfig(*config)
	if err != nil {
		fmt.Fprintf(env.Stderr, "plugboard mcp-proxy: %v\n", err)
		if errors.Is(err, mcpproxy.ErrBadConfig) {
			return ExitInvalid
		}
		return ExitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = mcpproxy.Run(ctx, cfg, os.Stdin, env.Stdout, env.Stderr)
	switch {
	case err == nil || ctx.Err() != nil: // stdin ended, or we were asked to stop
		return ExitOK
	case errors.Is(err, mcpproxy.ErrRefused):
		fmt.Fprintf(env.Stderr, "plugboard mcp-proxy: %v\n", err)
		return ExitInvalid
	default:
		fmt.Fprintf(env.Stderr, "plugboard mcp-proxy: %v\n", err)
		return ExitUsage
	}
}
