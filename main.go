// Command plugboard keeps one honest catalog of the agent plugins and skills on this
// machine. See README.md for the commands.
package main

import (
	"os"
	"runtime/debug"

	"github.com/plugboard/plugboard/app/cli"
)

func main() {
	// A command runs once and exits: trade some memory for less collector work (a catalog
	// of 10,000 skills stays near 100 MB resident; see README, Performance). The soft limit
	// makes the collector work harder only as the heap nears it.
	debug.SetGCPercent(200)
	debug.SetMemoryLimit(128 << 20)
	os.Exit(cli.Main(os.Args[1:], cli.Env{Stdout: os.Stdout, Stderr: os.Stderr}))
}
