// Command plugboard keeps one honest catalog of the agent plugins and skills on this
// machine. With no command it opens the desktop window (or, with no display or in a
// build without one, serves the page on loopback). See README.md for the commands.
package main

import (
	"embed"
	"io/fs"
	"os"
	"runtime/debug"

	"github.com/plugboard/plugboard/app/cli"
)

// dist is the built page. frontend/dist/.gitkeep keeps the folder in a fresh clone, so
// this compiles before the page is built; the server then says how to build it.
//
//go:embed all:frontend/dist
var dist embed.FS

func main() {
	// A command runs once and exits: trade some memory for less collector work. At 400
	// (the default is 100) `catalog --json` of 10,000 skills takes 16% less CPU than at 200
	// and peaks near 110 MB resident (docs/performance.md). The soft limit makes the
	// collector work harder only as the heap nears it.
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(128 << 20)
	assets, err := fs.Sub(dist, "frontend/dist")
	if err != nil {
		panic(err) // the embed pattern above guarantees the folder
	}
	os.Exit(cli.Main(os.Args[1:], cli.Env{Stdout: os.Stdout, Stderr: os.Stderr, Assets: assets, Desktop: desktopRunner(),
		Window: windowRunner(), WindowProgram: windowProgram}))
}
