package cli

import (
	"fmt"

	"github.com/plugboard/plugboard/backend/version"
)

// runVersion prints which Plugboard this is (backend/version).
func runVersion(f *flags) body {
	return func(env Env, pos []string) int {
		if len(pos) > 0 {
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
}
