// Command catalogbench measures `plugboard catalog --json` on a synthetic home of 1,000
// portable plugins × 10 skills + an mcp.json each, against readfloor, a program that only
// reads the same files with raw system calls. Each run is a fresh process (no warm
// in-process state). Cold: the page cache is dropped before every run when
// /proc/sys/vm/drop_caches is writable (the report says whether it was). Warm: the files
// are in the page cache (the usual case for a desktop app that rescans). It prints the
// median wall time of 11 runs of each, their ratios (measured in the same run), and the
// catalog's peak resident memory.
//
// Warm, it also times readfloor -stat, which only looks up the same files and folders:
// the least a catalog that kept its results from an earlier scan would do to know that
// none changed (a bound on that design, which Plugboard does not have).
//
// With -before PATH, each run also measures the catalog of that program (an earlier
// build) under the same conditions, and the report gives its ratio to the same floor.
//
// Usage: go run ./backend/benchhome/cmd/catalogbench [-plugins 1000] [-skills 10] [-runs 11] [-before PATH] [-tags T] [-ldflags F]
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"github.com/plugboard/plugboard/backend/benchhome"
)

func main() {
	plugins := flag.Int("plugins", 1000, "plugins in the synthetic home")
	skills := flag.Int("skills", 10, "skills per plugin")
	// Eleven: with the page cache dropped, one run varies by ±15% on a shared machine,
	// and the median of five moved by almost as much between invocations.
	runs := flag.Int("runs", 11, "runs of each program")
	tags := flag.String("tags", benchhome.CLITags, "build tags of plugboard (as make app builds it)")
	ldflags := flag.String("ldflags", benchhome.CLILDFlags, "linker flags of plugboard and readfloor (as make app builds plugboard)")
	before := flag.String("before", "", "another plugboard (an earlier build) whose catalog is measured beside, in every run")
	flag.Parse()

	work, err := os.MkdirTemp("", "plugboard-bench-")
	check(err)
	defer os.RemoveAll(work)
	home := filepath.Join(work, "home")
	pbHome := filepath.Join(home, ".plugboard")
	check(benchhome.Generate(pbHome, *plugins, *skills))
	bin := filepath.Join(work, "bin")
	check(benchhome.Build(filepath.Join(bin, "plugboard"), ".", *tags, *ldflags))
	check(benchhome.Build(filepath.Join(bin, "readfloor"), "./backend/benchhome/cmd/readfloor", *tags, *ldflags))

	cold := dropCaches()
	var cat, floor, wcat, wfloor, wstat, bcat, bwcat []time.Duration
	var maxRSS int64
	catalog := func(prog string) (time.Duration, int64) {
		return run(home, prog, "catalog", "--json", "--home", pbHome)
	}
	for i := 0; i < *runs; i++ {
		dropCaches()
		d, _ := run(home, filepath.Join(bin, "readfloor"), pbHome)
		floor = append(floor, d)
		dropCaches()
		d, rss := catalog(filepath.Join(bin, "plugboard"))
		cat = append(cat, d)
		maxRSS = max(maxRSS, rss)
		if *before != "" {
			dropCaches()
			d, _ = catalog(*before)
			bcat = append(bcat, d)
		}
	}
	catalog(filepath.Join(bin, "plugboard")) // warm the cache
	for i := 0; i < *runs; i++ {
		d, _ := run(home, filepath.Join(bin, "readfloor"), pbHome)
		wfloor = append(wfloor, d)
		d, _ = run(home, filepath.Join(bin, "readfloor"), "-stat", pbHome)
		wstat = append(wstat, d)
		d, _ = catalog(filepath.Join(bin, "plugboard"))
		wcat = append(wcat, d)
		if *before != "" {
			d, _ = catalog(*before)
			bwcat = append(bwcat, d)
		}
	}
	mc, mf := median(cat), median(floor)
	wc, wf := median(wcat), median(wfloor)
	fmt.Printf("home: %d plugins x %d skills + mcp.json each (%d skills)\n", *plugins, *skills, *plugins**skills)
	fmt.Printf("page cache dropped before each cold run: %v\n", cold)
	fmt.Printf("cold readfloor          median %8.1f ms  runs %v\n", ms(mf), msList(floor))
	fmt.Printf("cold plugboard catalog  median %8.1f ms  runs %v\n", ms(mc), msList(cat))
	fmt.Printf("cold ratio catalog/floor: %.2fx (goal <= 1.20x)\n", float64(mc)/float64(mf))
	if *before != "" {
		mb := median(bcat)
		fmt.Printf("cold before's catalog   median %8.1f ms  runs %v  ratio to floor %.2fx\n", ms(mb), msList(bcat), float64(mb)/float64(mf))
	}
	fmt.Printf("warm readfloor          median %8.1f ms  runs %v\n", ms(wf), msList(wfloor))
	fmt.Printf("warm plugboard catalog  median %8.1f ms  runs %v\n", ms(wc), msList(wcat))
	fmt.Printf("warm ratio catalog/floor: %.2fx (goal <= 1.50x)\n", float64(wc)/float64(wf))
	if *before != "" {
		mb := median(bwcat)
		fmt.Printf("warm before's catalog   median %8.1f ms  runs %v  ratio to floor %.2fx\n", ms(mb), msList(bwcat), float64(mb)/float64(wf))
	}
	ws := median(wstat)
	fmt.Printf("warm readfloor -stat    median %8.1f ms  runs %v  ratio to floor %.2fx (looks up, reads nothing)\n", ms(ws), msList(wstat), float64(ws)/float64(wf))
	fmt.Printf("catalog peak RSS: %.1f MB (goal < 150 MB)\n", float64(maxRSS)/1e6)
}

// run times one process with HOME set and returns its wall time and peak resident set.
func run(home, prog string, args ...string) (time.Duration, int64) {
	d, rss, err := benchhome.Time(append(os.Environ(), "HOME="+home), append([]string{prog}, args...)...)
	check(err)
	return d, rss
}

func dropCaches() bool {
	syscall.Sync()
	return os.WriteFile("/proc/sys/vm/drop_caches", []byte("3"), 0o200) == nil
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration{}, d...)
	sort.Slice(s, func(a, b int) bool { return s[a] < s[b] })
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func msList(ds []time.Duration) []string {
	var out []string
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%.0f", ms(d)))
	}
	return out
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "catalogbench:", err)
		os.Exit(1)
	}
}
