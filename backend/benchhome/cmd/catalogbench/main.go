// Command catalogbench measures `plugboard catalog --json` on a synthetic home of 1,000
// portable plugins × 10 skills + an mcp.json each, against readfloor, a program that only
// reads the same files with raw system calls. Each run is a fresh process (no warm
// in-process state). Cold: the page cache is dropped before every run when
// /proc/sys/vm/drop_caches is writable (the report says whether it was). Warm: the files
// are in the page cache (the usual case for a desktop app that rescans). It prints the
// median wall time of 11 runs of each, their ratios (measured in the same run), and the
// catalog's peak resident memory.
//
// The catalog is measured twice in every run: as it runs (answered from its cache, which
// holds since nothing in the home changes; package scancache) and with --fresh, which
// reads and judges every file again and then refreshes the cache. Warm, it also times
// readfloor -stat, which only looks up the files and folders readfloor reads, and the
// catalog right after one SKILL.md changed: a scan, and the snapshot of what it read
// taken from the cache's (folders that did not change are not listed again).
//
// With -before PATH, each run also measures the catalog of that program (an earlier
// build) under the same conditions, and the report gives its ratio to the same floor.
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
	"github.com/plugboard/plugboard/backend/scancache"
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
	var cat, fresh, floor, wcat, wfresh, wedit, wfloor, wstat, bcat, bwcat []time.Duration
	var maxRSS int64
	catalog := func(prog string, more ...string) (time.Duration, int64) {
		return run(home, prog, append([]string{"catalog", "--json", "--home", pbHome}, more...)...)
	}
	plugboard := filepath.Join(bin, "plugboard")
	// A scan of files changed less than the racy window ago is not cached: wait it out,
	// then make the cache.
	time.Sleep(scancache.RacyWindow)
	catalog(plugboard)
	if _, err := os.Stat(filepath.Join(pbHome, "cache", "catalog-json")); err != nil {
		check(fmt.Errorf("the catalog made no cache: %w", err))
	}
	for i := 0; i < *runs; i++ {
		dropCaches()
		d, _ := run(home, filepath.Join(bin, "readfloor"), pbHome)
		floor = append(floor, d)
		dropCaches()
		d, rss := catalog(plugboard)
		cat = append(cat, d)
		maxRSS = max(maxRSS, rss)
		dropCaches()
		d, rss = catalog(plugboard, "--fresh")
		fresh = append(fresh, d)
		maxRSS = max(maxRSS, rss)
		if *before != "" {
			dropCaches()
			d, _ = catalog(*before)
			bcat = append(bcat, d)
		}
	}
	for i := 0; i < *runs; i++ {
		d, _ := run(home, filepath.Join(bin, "readfloor"), pbHome)
		wfloor = append(wfloor, d)
		d, _ = run(home, filepath.Join(bin, "readfloor"), "-stat", pbHome)
		wstat = append(wstat, d)
		d, _ = catalog(plugboard)
		wcat = append(wcat, d)
		d, _ = catalog(plugboard, "--fresh")
		wfresh = append(wfresh, d)
		if *before != "" {
			d, _ = catalog(*before)
			bwcat = append(bwcat, d)
		}
	}
	// After an edit: a scan, and a snapshot taken from the last one (not kept: the edit
	// is within the racy window).
	skillFiles, err := filepath.Glob(filepath.Join(pbHome, "plugins", "*", "skills", "*", "SKILL.md"))
	check(err)
	if len(skillFiles) == 0 {
		check(fmt.Errorf("no SKILL.md in %s", pbHome))
	}
	edited := skillFiles[0]
	original, err := os.ReadFile(edited)
	check(err)
	for i := 0; i < *runs; i++ {
		check(os.WriteFile(edited, append(original, fmt.Sprintf("\nedit %d\n", i)...), 0o644))
		d, _ := catalog(plugboard)
		wedit = append(wedit, d)
	}
	check(os.WriteFile(edited, original, 0o644))
	mf, wf := median(floor), median(wfloor)
	fmt.Printf("home: %d plugins x %d skills + mcp.json each (%d skills)\n", *plugins, *skills, *plugins**skills)
	fmt.Printf("page cache dropped before each cold run: %v\n", cold)
	report := func(label string, ds []time.Duration, floor time.Duration) time.Duration {
		m := median(ds)
		fmt.Printf("%-32s median %8.1f ms  ratio to floor %.2fx  runs %v\n", label, ms(m), float64(m)/float64(floor), msList(ds))
		return m
	}
	report("cold readfloor", floor, mf)
	mc := report("cold catalog (cache holds)", cat, mf)
	report("cold catalog --fresh", fresh, mf)
	if *before != "" {
		report("cold before's catalog", bcat, mf)
	}
	fmt.Printf("cold ratio catalog/floor: %.2fx (goal <= 1.20x)\n", float64(mc)/float64(mf))
	report("warm readfloor", wfloor, wf)
	report("warm readfloor -stat", wstat, wf)
	wc := report("warm catalog (cache holds)", wcat, wf)
	report("warm catalog --fresh", wfresh, wf)
	report("warm catalog after an edit", wedit, wf)
	if *before != "" {
		report("warm before's catalog", bwcat, wf)
	}
	fmt.Printf("warm ratio catalog/floor: %.2fx (goal <= 1.50x)\n", float64(wc)/float64(wf))
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
