// Command startbench measures what a plugin author's pre-commit hook feels: the whole
// process of `plugboard --help` and of `plugboard inspect` on a small package, from exec
// to exit, with the page cache warm; and an unchanged launch, `plugboard launch` of an
// agent of testdata/runtime/home whose projection is already made, whose agent is a
// static C program that stamps the time it starts (buildStamp): the row gives the time
// from the command to the agent's start, what issue 16 bounds, and the whole process;
// that launch again with a database of 100,000 skill activity records, and with a skill
// of 200 reference files (4 MB). It builds the command line (as make app does: no GTK or
// WebKit linked), runs each command 51 times after 5 unmeasured runs, and prints the
// median and the 90th percentile of the wall time and the peak resident set (from the
// kernel's accounting of each child), with /bin/true as the floor of starting a process
// here and a Go "hello world" linked with cgo, as plugboard is (for SQLite), as the floor
// of starting a Go program of that kind; the report gives each command's median as a
// multiple of that floor, measured in the same run. Where build/agents has Claude Code,
// it also times `claude plugin validate` of the package inspect reads (11 runs, no
// network) and gives inspect's speed as a multiple of it.
//
// With -before PATH, every plugboard row also measures that program (an earlier build), its
// runs alternating with the other's, and gives the ratio of the medians.
//
// Usage: go run ./backend/benchhome/cmd/startbench [-runs 51] [-bin PATH] [-before PATH] [-tags T] [-ldflags F]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/plugboard/plugboard/backend/benchhome"
)

func main() {
	runs := flag.Int("runs", 51, "measured runs of each command")
	bin := flag.String("bin", "", "the plugboard to measure (default: build it into a temporary folder)")
	before := flag.String("before", "", "another plugboard (an earlier build) to measure beside it, run for run")
	tags := flag.String("tags", benchhome.CLITags, "build tags of plugboard (as make app builds it)")
	ldflags := flag.String("ldflags", benchhome.CLILDFlags, "linker flags of plugboard and of the hello world (as make app builds it)")
	flag.Parse()
	if *bin == "" {
		dir, err := os.MkdirTemp("", "startbench-")
		check(err)
		defer os.RemoveAll(dir)
		*bin = filepath.Join(dir, "plugboard")
		check(benchhome.Build(*bin, ".", *tags, *ldflags))
	}
	pkg, err := filepath.Abs("testdata/runtime/home/plugins/review")
	check(err)
	home, err := os.MkdirTemp("", "startbench-home-")
	check(err)
	defer os.RemoveAll(home)
	pbHome := filepath.Join(home, ".plugboard")
	check(os.CopyFS(pbHome, os.DirFS("testdata/runtime/home")))
	stamp := buildStamp(home)
	launch := []string{*bin, "launch", "--home", pbHome, "coder", "--bin", stamp}
	run(home, launch) // makes the projection the measured launches reuse
	// The same launch with a database of 100,000 skill activity records, which it reads
	// none of (it reads the acknowledgments).
	busy := filepath.Join(home, "busy")
	check(os.CopyFS(busy, os.DirFS(pbHome)))
	filler := exec.Command("go", "run", "./backend/benchhome/cmd/fillactivity", busy, "100000")
	filler.Stdout, filler.Stderr = os.Stderr, os.Stderr
	check(filler.Run())
	launchBusy := []string{*bin, "launch", "--home", busy, "coder", "--bin", stamp}
	run(home, launchBusy)
	// And with a skill of 200 reference files of 20 KB (4 MB), which an unchanged launch
	// need not read again (ctree.Sums remembers files changed 3 s or more before).
	big := filepath.Join(home, "big")
	check(os.CopyFS(big, os.DirFS(pbHome)))
	check(benchhome.AddReferences(filepath.Join(big, "plugins", "review", "skills", "explain"), 200))
	launchBig := []string{*bin, "launch", "--home", big, "coder", "--bin", stamp}
	// Launches remember only files changed 3 s or more before they start: the runs wait
	// until the files are that old, however few runs each row makes.
	time.Sleep(3*time.Second + 100*time.Millisecond)
	hello := buildHello(home, *ldflags)
	// Every program measured is read back from disk, as an installed one is (see Uncache).
	for _, prog := range []string{*bin, *before, hello, stamp} {
		if prog != "" {
			check(benchhome.Uncache(prog))
		}
	}
	var floor float64
	stampFile := filepath.Join(home, "stamp.out")
	type row struct {
		name string
		argv []string
		goal string
		runs int // 0: -runs
	}
	rows := []row{
		{"/bin/true", []string{"/bin/true"}, "", 0},
		{"Go hello world (cgo)", []string{hello}, "", 0},
		{"plugboard --help", []string{*bin, "--help"}, "goal <= 5 ms", 0},
		{"plugboard inspect (small package)", []string{*bin, "inspect", pkg}, "goal <= 15 ms, <= 20 MiB", 0},
		{"plugboard inspect --json", []string{*bin, "inspect", "--json", pkg}, "", 0},
		{"plugboard launch (projection reused)", launch, "goal <= 20 ms (to the agent's exec)", 0},
		{"  the same, 100,000 activity records", launchBusy, "", 0},
		{"  the same, a skill of 200 files, 4 MB", launchBig, "", 0},
	}
	// Claude Code's own check of the same folder, the tool a plugin author would run
	// otherwise (build/agents; make deps-agents installs it), with no network.
	claude, _ := filepath.Abs("build/agents/node_modules/.bin/claude")
	if _, err := os.Stat(claude); err == nil && exec.Command("unshare", "-n", "true").Run() == nil {
		rows = append(rows, row{"claude plugin validate (same package)", []string{"unshare", "-n", claude, "plugin", "validate", pkg}, "", 11})
	} else {
		fmt.Fprintln(os.Stderr, "startbench: no build/agents claude, or unshare -n refused: claude plugin validate is not measured")
	}
	medians := map[string]float64{}
	for _, c := range rows {
		n := *runs
		if c.runs > 0 {
			n = c.runs
		}
		// With -before, each run measures both programs, in alternating order, so that the
		// machine's drift (±30% over minutes here) falls on both alike.
		progs := []string{c.argv[0]}
		if *before != "" && c.argv[0] == *bin {
			progs = []string{*before, *bin}
		}
		ms := make([]measured, len(progs))
		for i := 0; i < 5+n; i++ {
			for k := range progs {
				if i%2 == 1 {
					k = len(progs) - 1 - k
				}
				argv := append([]string{progs[k]}, c.argv[1:]...)
				os.Remove(stampFile)
				t0 := benchhome.Monotonic()
				d, rss := run(home, argv, "STAMP_FILE="+stampFile)
				if i < 5 {
					continue
				}
				m := &ms[k]
				m.whole = append(m.whole, d)
				m.peak = max(m.peak, rss)
				if c.argv[len(c.argv)-1] == stamp {
					t1, err := readStamp(stampFile)
					check(err)
					m.toAgent = append(m.toAgent, time.Duration(t1-t0))
				}
			}
		}
		if c.argv[0] == hello {
			floor = msOf(median(ms[0].whole))
		}
		medians[c.name] = msOf(median(ms[len(ms)-1].whole))
		for k, m := range ms {
			name, goal := c.name, c.goal
			if len(progs) > 1 {
				name, goal = "  "+[]string{"before", "after"}[k], ""
				if k == 0 {
					fmt.Println(c.name)
				} else {
					goal = fmt.Sprintf("after/before: %.2f", msOf(median(m.whole))/msOf(median(ms[0].whole)))
					if len(m.toAgent) > 0 {
						goal += fmt.Sprintf(", to the agent's start %.2f", msOf(median(m.toAgent))/msOf(median(ms[0].toAgent)))
					}
					goal += "; " + c.goal
				}
			}
			m.print(name, floor, c.argv[0] == hello, goal)
		}
	}
	if c, i := medians["claude plugin validate (same package)"], medians["plugboard inspect (small package)"]; c > 0 && i > 0 {
		fmt.Printf("inspect is %.0fx faster than claude plugin validate of the same folder (goal >= 20x)\n", c/i)
	}
}

// measured is one program's runs of one row.
type measured struct {
	whole, toAgent []time.Duration
	peak           int64
}

func (m measured) print(name string, floor float64, isFloor bool, goal string) {
	med := msOf(median(m.whole))
	rel := ""
	if floor > 0 && !isFloor {
		rel = fmt.Sprintf("%4.1fx hello", med/floor)
	}
	agent := ""
	if len(m.toAgent) > 0 {
		agent = fmt.Sprintf("to the agent's start: median %.2f ms, p90 %.2f ms; ", msOf(median(m.toAgent)), msOf(m.toAgent[len(m.toAgent)*9/10]))
	}
	fmt.Printf("%-36s median %6.2f ms  p90 %6.2f ms  peak RSS %5.1f MiB  %-11s  %s%s\n", name,
		med, msOf(m.whole[len(m.whole)*9/10]), float64(m.peak)/(1<<20), rel, agent, goal)
}

// median sorts ds and returns its middle.
func median(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(a, b int) bool { return ds[a] < ds[b] })
	return ds[len(ds)/2]
}

// buildStamp builds, in dir, the agent the launch rows start: a static C program that
// writes CLOCK_MONOTONIC in ns to $STAMP_FILE as its first act, so that a row measures
// from the command to the agent's start (its exec and a static program's few hundred
// microseconds to main) as well as the whole process. A C compiler is there wherever
// plugboard builds (cgo, for SQLite).
func buildStamp(dir string) string {
	src := filepath.Join(dir, "stamp.c")
	check(os.WriteFile(src, []byte(`#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	const char *path = getenv("STAMP_FILE");
	FILE *f = path ? fopen(path, "w") : NULL;
	if (!f)
		return 1;
	fprintf(f, "%lld\n", (long long)t.tv_sec * 1000000000LL + t.tv_nsec);
	return fclose(f) != 0;
}
`), 0o644))
	out := filepath.Join(dir, "stamp")
	cmd := exec.Command("cc", "-O2", "-static", "-o", out, src)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	check(cmd.Run())
	return out
}

func readStamp(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("the agent wrote no stamp (did the launch start it?): %w", err)
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}

// buildHello builds, in dir, a Go program that prints a line and links cgo, as plugboard
// does, with plugboard's linker flags: what starting any such program costs on this
// machine.
func buildHello(dir, ldflags string) string {
	src := filepath.Join(dir, "hello")
	check(os.MkdirAll(src, 0o755))
	check(os.WriteFile(filepath.Join(src, "go.mod"), []byte("module hello\n\ngo 1.22\n"), 0o644))
	check(os.WriteFile(filepath.Join(src, "main.go"), []byte(`package main

// int one(void) { return 1; }
import "C"

import "fmt"

func main() { fmt.Println("hello", C.one()) }
`), 0o644))
	out := filepath.Join(dir, "hello-bin")
	cmd := exec.Command("go", "build", "-ldflags", "-w -s "+ldflags, "-o", out, ".")
	cmd.Dir, cmd.Stdout, cmd.Stderr = src, os.Stderr, os.Stderr
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1", "GOFLAGS=-mod=mod")
	check(cmd.Run())
	return out
}

// run times one process with a private HOME (an exit status other than 0 still counts:
// inspect exits 1 on a package with errors).
func run(home string, argv []string, env ...string) (time.Duration, int64) {
	d, rss, err := benchhome.Time(append([]string{"HOME=" + home, "PATH=/usr/bin:/bin"}, env...), argv...)
	check(err)
	return d, rss
}

func msOf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "startbench:", err)
		os.Exit(1)
	}
}
