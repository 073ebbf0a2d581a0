// Command fillactivity records skill activity in a Plugboard home's database, as a year
// of heavy use would leave it, for benchmarks (startbench runs it).
//
// Usage: go run ./backend/benchhome/cmd/fillactivity PLUGBOARD_HOME [RECORDS]
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/plugboard/plugboard/backend/benchhome/benchdb"
)

func main() {
	if len(os.Args) < 2 || len(os.Args) > 3 {
		fmt.Fprintln(os.Stderr, "usage: fillactivity PLUGBOARD_HOME [RECORDS]")
		os.Exit(2)
	}
	n := 100_000
	if len(os.Args) == 3 {
		var err error
		if n, err = strconv.Atoi(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "fillactivity: RECORDS is a number:", err)
			os.Exit(2)
		}
	}
	if err := benchdb.AddActivity(os.Args[1], n); err != nil {
		fmt.Fprintln(os.Stderr, "fillactivity:", err)
		os.Exit(1)
	}
}
