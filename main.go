// Command plugboard keeps one honest catalog of the agent plugins and skills on this
// machine. See README.md for the commands.
package main

import (
	"os"

	"github.com/plugboard/plugboard/app/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.Env{Stdout: os.Stdout, Stderr: os.Stderr}))
}
