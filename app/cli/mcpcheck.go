package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/plugboard/plugboard/backend/mcphealth"
	"github.com/plugboard/plugboard/backend/runtime"
)

// exitMCPAck is the exit status when a server needs acknowledgment first.
const exitMCPAck = 4

// runMCPCheck is "plugboard mcp check": start each MCP server of a target (or of one plugin)
// as a launch would and report what it answers (backend/mcphealth). Exit 0 when every
// server is ok, 1 when one failed, 4 when none failed but one needs acknowledgment, 2 on
// usage.
func runMCPCheck(f *flags) body {
	timeout := f.fs.Duration("timeout", mcphealth.DefaultTimeout, "how long each server has to answer")
	return func(env Env, pos []string) int {
		if len(pos) != 1 {
			fmt.Fprintln(env.Stderr, "usage:", f.cmd.UseLine())
			return ExitUsage
		}
		home, pbHome, err := homes(env, f)
		if err != nil {
			fmt.Fprintf(env.Stderr, "plugboard mcp check: %v\n", err)
			return ExitUsage
		}
		self, _ := env.Executable()
		o := mcphealth.Options{Home: home, PlugboardHome: pbHome, Self: self, Timeout: *timeout}
		req := runtime.Request{}
		req.FromEnv(env.Getenv)
		o.Bins, o.PIMCPAdapter = req.Bins, req.PIMCPAdapter
		arg := pos[0]
		switch {
		case strings.Contains(arg, ":"):
			o.Target = arg
		case strings.Contains(arg, "/"):
			o.Plugin, o.Server, _ = strings.Cut(arg, "/")
		default:
			_, agentErr := os.Stat(filepath.Join(pbHome, "agents", arg+".json"))
			if st, err := os.Stat(filepath.Join(pbHome, "plugins", arg)); err == nil && st.IsDir() && agentErr != nil {
				o.Plugin = arg
			} else {
				o.Target = arg
			}
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		rs, err := mcphealth.Check(ctx, o)
		if err != nil {
			fmt.Fprintf(env.Stderr, "plugboard mcp check: %v\n", err)
			var ce *runtime.CollisionError
			if errors.As(err, &ce) {
				return ExitInvalid
			}
			return ExitUsage
		}
		if rs == nil {
			rs = []mcphealth.Result{}
		}
		code := ExitOK
		for _, r := range rs {
			switch {
			case r.NotAcknowledged && code == ExitOK:
				code = exitMCPAck
			case !r.OK && !r.NotAcknowledged:
				code = ExitInvalid
			}
		}
		if f.json {
			if err := writeJSON(env.Stdout, map[string]any{"servers": rs}); err != nil {
				return ExitUsage
			}
			return code
		}
		if len(rs) == 0 {
			fmt.Fprintln(env.Stdout, "no MCP servers in this launch")
		}
		for _, r := range rs {
			name := r.Plugin + "/" + r.Name
			switch {
			case r.NotAcknowledged:
				fmt.Fprintf(env.Stdout, "%s: not acknowledged, not started; acknowledge it with: %s\n", name, r.Ack)
			case r.OK:
				info := ""
				if r.ServerInfo != nil {
					info = fmt.Sprintf(", %s %s", r.ServerInfo.Name, r.ServerInfo.Version)
				}
				tools := make([]string, len(r.Tools))
				for i, t := range r.Tools {
					tools[i] = t.Name
				}
				fmt.Fprintf(env.Stdout, "%s: ok (protocol %s%s), %s (%s), %s, %s, ready in %d ms, listed in %d ms\n", name, r.ProtocolVersion, info,
					plural(len(r.Tools), "tool"), strings.Join(tools, ", "), plural(r.Prompts, "prompt"), plural(r.Resources, "resource"), r.ReadyMs, r.Ms)
				if len(r.Truncated) > 0 {
					fmt.Fprintf(env.Stdout, "    it offers more %s than a check keeps (%d of each); only the first are counted\n", strings.Join(r.Truncated, " and "), mcphealth.MaxListed)
				}
			default:
				fmt.Fprintf(env.Stdout, "%s: failed: %s\n", name, r.Error)
				for _, l := range strings.Split(strings.TrimRight(r.Stderr, "\n"), "\n") {
					if l != "" {
						fmt.Fprintf(env.Stdout, "    stderr: %s\n", l)
					}
				}
			}
		}
		return code
	}
}
