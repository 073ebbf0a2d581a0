// Command claudeoracle compares Plugboard's Claude load model with the real claude on
// every plugin folder you point it at, and prints each difference:
//
//	go run ./backend/clients/cmd/claudeoracle [-claude PATH] [-list FILE] [DIR...]
//
// Each DIR is one plugin folder; -list reads more, one per line (a corpus you collected:
// it stays outside the repository). The exit status is 1 when any folder differs.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/plugboard/plugboard/backend/clients"
	"github.com/plugboard/plugboard/backend/clients/oracle"
)

func main() {
	bin := flag.String("claude", "build/agents/node_modules/.bin/claude", "the claude executable")
	list := flag.String("list", "", "a file of plugin folders, one per line")
	cacheFile := flag.String("cache", "", "a JSON file of the real claude's answers: read first, written as it goes (a model change needs no new runs)")
	flag.Parse()
	dirs := flag.Args()
	if *list != "" {
		f, err := os.Open(*list)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if s := strings.TrimSpace(sc.Text()); s != "" {
				dirs = append(dirs, s)
			}
		}
		f.Close()
	}
	differ := 0
	version := ""
	cache := map[string]oracle.Init{}
	if *cacheFile != "" {
		if b, err := os.ReadFile(*cacheFile); err == nil {
			_ = json.Unmarshal(b, &cache)
		}
	}
	for _, d := range dirs {
		got, ok := cache[d]
		var err error
		if !ok {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			got, err = oracle.Claude(ctx, *bin, d)
			cancel()
			if err == nil && *cacheFile != "" {
				cache[d] = got
				b, _ := json.Marshal(cache)
				_ = os.WriteFile(*cacheFile, b, 0o644)
			}
		}
		if err != nil {
			fmt.Printf("ERROR %s: %v\n", d, err)
			differ++
			continue
		}
		version = got.Version
		v := clients.JudgeClaude(d)
		var why []string
		if v.Loads != got.Loads {
			why = append(why, fmt.Sprintf("loads: model %v, claude %v (%s)", v.Loads, got.Loads, v.Why))
		}
		if got.Loads && v.Plugin != got.Plugin {
			why = append(why, fmt.Sprintf("plugin: model %q, claude %q", v.Plugin, got.Plugin))
		}
		if !slices.Equal(v.Skills, got.Skills) {
			why = append(why, fmt.Sprintf("skills: model %v, claude %v", v.Skills, got.Skills))
		}
		if len(why) > 0 {
			differ++
			fmt.Printf("DIFF %s\n  %s\n", d, strings.Join(why, "\n  "))
		}
	}
	fmt.Printf("%d folders, %d agree, %d differ (claude %s)\n", len(dirs), len(dirs)-differ, differ, version)
	if differ > 0 {
		os.Exit(1)
	}
}
