package cli

import (
	"fmt"

	"github.com/plugboard/plugboard/backend/version"
)

// runVersion prints which Plugboard this is (backend/version).
func runVersion(env Env, args []string) int {
	f := newFlags(env, "version", false)
	pos, err := f.parse(args)
	if err != nil || len(pos) > 0 {
		fmt.Fprintln(env.Stderr, "usage: plugboard version [--json]")
		return ExitUsage
	}
	window := ""
	if env.WindowProgram != nil {
		window = env.WindowProgram()
	}
	in := version.Get(window)
	if f.json {
		writeJSON(env.Stdout, in)
		return ExitOK
	}
	fmt.Fprintln(env.Stdout, in.String())
	return ExitOK
}
