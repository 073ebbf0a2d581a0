//go:build lean

package cli

import (
	"errors"
	"fmt"
)

// This build of the command line (make app builds plugboard so) leaves out the commands
// that need the MCP SDK or the page's server: their packages' initialisation and pages
// cost every other command's start about 2 ms (README, Performance). It hands them to
// plugboard-full, the same command line with everything (Env.Full).

// errHandedOver: this build opens no window itself (plugboard-window does).
var errHandedOver = errors.New("handed over to the running window")

func runMCP(env Env, args []string) int      { return handOver(env, "mcp", args) }
func runMCPProxy(env Env, args []string) int { return handOver(env, "mcp-proxy", args) }
func runBudget(env Env, args []string) int   { return handOver(env, "budget", args) }
func runServe(env Env, args []string) int    { return handOver(env, "serve", args) }

// serve serves the page, as `plugboard` with no command does when no window opens.
func serve(env Env, home, pbHome, workspace, addr string) int {
	args := []string{"--home", pbHome, "--addr", addr}
	if workspace != "" {
		args = append(args, "--workspace", workspace)
	}
	return handOver(env, "serve", args)
}

// handOver replaces this process with plugboard-full running the command; it returns
// only when that cannot be done.
func handOver(env Env, command string, args []string) int {
	err := errors.New("this build has no way to reach it")
	if env.Full != nil {
		err = env.Full(append([]string{command}, args...))
	}
	fmt.Fprintf(env.Stderr, "plugboard %s: this plugboard hands the command to plugboard-full, which could not be started: %v\n", command, err)
	return ExitUsage
}
