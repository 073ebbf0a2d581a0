// Command readfloor is the floor the catalog benchmark compares against: it lists and
// reads exactly the files `plugboard catalog` reads in a benchmark home (plugin.json,
// mcp.json, each skills/*/SKILL.md) with the same number of goroutines, and does nothing
// with them. A catalog cannot be faster than this.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: readfloor PLUGBOARD_HOME")
		os.Exit(2)
	}
	plugins := filepath.Join(os.Args[1], "plugins")
	entries, err := os.ReadDir(plugins)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	next := make(chan string)
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for w := 0; w < 4*runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 0
			for dir := range next {
				for _, f := range []string{"plugin.json", "mcp.json"} {
					b, _ := os.ReadFile(filepath.Join(dir, f))
					n += len(b)
				}
				skills, _ := os.ReadDir(filepath.Join(dir, "skills"))
				for _, s := range skills {
					b, _ := os.ReadFile(filepath.Join(dir, "skills", s.Name(), "SKILL.md"))
					n += len(b)
				}
			}
			mu.Lock()
			total += n
			mu.Unlock()
		}()
	}
	for _, e := range entries {
		next <- filepath.Join(plugins, e.Name())
	}
	close(next)
	wg.Wait()
	fmt.Println(total)
}
