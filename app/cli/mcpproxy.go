package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/plugboard/plugboard/backend/mcpproxy"
	"github.com/plugboard/plugboard/backend/mcptap"
	"github.com/plugboard/plugboard/backend/runtime"
)

// proxyFlushWait bounds how long mcp-proxy waits, once the bridge has ended, for the
// calls it counted to be written.
const proxyFlushWait = 2 * time.Second

// runMCPProxy is the stdio MCP server that Claude Code starts for a remote server: it
// bridges stdin/stdout to the URL in the private --config file until stdin ends. Stdout
// carries only JSON-RPC, so every word for people goes to stderr.
func runMCPProxy(f *flags) body {
	config := f.fs.String("config", "", "private JSON file (mode 0600) with the remote server's type, url and headers")
	return func(env Env, pos []string) int {
		if *config == "" || len(pos) != 0 {
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
		// With the config's activity member every tools/call is counted (backend/mcptap), for
		// the target and try run the agent's environment names.
		var calls mcptap.Sink
		if cfg.Activity != nil {
			rec := mcptap.NewRecorder(*cfg.Activity, env.Getenv(runtime.ActivityTargetEnv), env.Getenv(runtime.ActivityRunEnv),
				"plugboard mcp-proxy", env.Stderr)
			rec.Wait = mcptap.AnswerWait
			defer rec.Close(proxyFlushWait)
			calls = rec
		}
		err = mcpproxy.Run(ctx, cfg, os.Stdin, env.Stdout, env.Stderr, calls)
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
}
