// Command startbench measures what a plugin author's pre-commit hook feels: the whole
// process of `plugboard --help` and of `plugboard inspect` on a small package, from exec
// to exit, with the page cache warm; and an unchanged launch, `plugboard launch` of an
// agent of testdata/runtime/home whose projection is already made, with /bin/true as
// the agent: its whole process bounds the time from the command to the agent's exec
// from above; that launch again with a database of 100,000 skill activity records, and
// with a skill of 200 reference files (4 MB). It builds the command line (as make app does: no
// GTK or WebKit linked), runs each command 51 times after 5 unmeasured runs, and prints
// the median and the 90th percentile of the wall time and the peak resident set (from
// the kernel's accounting of each child), with /bin/true as the floor of starting a
// process here and a Go "hello world" linked with cgo, as plugboard is (for SQLite), as
// the floor of starting a Go program of that kind; the report gives each command's
// median as a multiple of that floor, measured in the same run.
//
// Usage: go run ./backend/benchhome/cmd/startbench [-runs 51] [-bin PATH]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"time"

	"github.com/plugboard/plugboard/backend/benchhome"
)

func main() {
	runs := flag.Int("runs", 51, "measured runs of each command")
	bin := flag.String("bin", "", "the plugboard to measure (default: build it into a temporary folder)")
	flag.Parse()
	if *bin == "" {
		dir, err := os.MkdirTemp("", "startbench-")
		check(err)
		defer os.RemoveAll(dir)
		*bin = filepath.Join(dir, "plugboard")
		cmd := exec.Command("go", "build", "-ldflags", "-w -s", "-o", *bin, ".")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		check(cmd.Run())
	}
	pkg, err := filepath.Abs("testdata/runtime/home/plugins/review")
	check(err)
	home, err := os.MkdirTemp("", "startbench-home-")
	check(err)
	defer os.RemoveAll(home)
	pbHome := filepath.Join(home, ".plugboard")
	check(os.CopyFS(pbHome, os.DirFS("testdata/runtime/home")))
	launch := []string{*bin, "launch", "--home", pbHome, "coder", "--bin", "/bin/true"}
	run(home, launch) // makes the projection the measured launches reuse
	// The same launch with a database of 100,000 skill activity records, which it reads
	// none of (it reads the acknowledgments).
	busy := filepath.Join(home, "busy")
	check(os.CopyFS(busy, os.DirFS(pbHome)))
	filler := exec.Command("go", "run", "./backend/benchhome/cmd/fillactivity", busy, "100000")
	filler.Stdout, filler.Stderr = os.Stderr, os.Stderr
	check(filler.Run())
	launchBusy := []string{*bin, "launch", "--home", busy, "coder", "--bin", "/bin/true"}
	run(home, launchBusy)
	// And with a skill of 200 reference files of 20 KB (4 MB), which an unchanged launch
	// need not read again (ctree.Sums remembers files changed 3 s or more before).
	big := filepath.Join(home, "big")
	check(os.CopyFS(big, os.DirFS(pbHome)))
	check(benchhome.AddReferences(filepath.Join(big, "plugins", "review", "skills", "explain"), 200))
	launchBig := []string{*bin, "launch", "--home", big, "coder", "--bin", "/bin/true"}
	// Launches remember only files changed 3 s or more before they start: the runs wait
	// until the files are that old, however few runs each row makes.
	time.Sleep(3*time.Second + 100*time.Millisecond)
	hello := buildHello(home)
	var floor float64
	for _, c := range []struct {
		name string
		argv []string
		goal string
	}{
		{"/bin/true", []string{"/bin/true"}, ""},
		{"Go hello world (cgo)", []string{hello}, ""},
		{"plugboard --help", []string{*bin, "--help"}, "goal <= 5 ms"},
		{"plugboard inspect (small package)", []string{*bin, "inspect", pkg}, "goal <= 8 ms, <= 15 MiB"},
		{"plugboard inspect --json", []string{*bin, "inspect", "--json", pkg}, ""},
		{"plugboard launch (projection reused)", launch, "goal <= 20 ms (to the agent's exec)"},
		{"  the same, 100,000 activity records", launchBusy, ""},
		{"  the same, a skill of 200 files, 4 MB", launchBig, ""},
	} {
		var ds []time.Duration
		var peak int64
		for i := 0; i < 5+*runs; i++ {
			d, rss := run(home, c.argv)
			if i >= 5 {
				ds = append(ds, d)
				peak = max(peak, rss)
			}
		}
		sort.Slice(ds, func(a, b int) bool { return ds[a] < ds[b] })
		med := ms(ds[len(ds)/2])
		if c.argv[0] == hello {
			floor = med
		}
		rel := ""
		if floor > 0 && c.argv[0] != hello {
			rel = fmt.Sprintf("%4.1fx hello", med/floor)
		}
		fmt.Printf("%-36s median %6.2f ms  p90 %6.2f ms  peak RSS %5.1f MiB  %-11s  %s\n", c.name,
			med, ms(ds[len(ds)*9/10]), float64(peak)/(1<<20), rel, c.goal)
	}
}

// buildHello builds, in dir, a Go program that prints a line and links cgo, as plugboard
// does: what starting any such program costs on this machine.
func buildHello(dir string) string {
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
	cmd := exec.Command("go", "build", "-ldflags", "-w -s", "-o", out, ".")
	cmd.Dir, cmd.Stdout, cmd.Stderr = src, os.Stderr, os.Stderr
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1", "GOFLAGS=-mod=mod")
	check(cmd.Run())
	return out
}

// run times one process with a private HOME (an exit status other than 0 still counts:
// inspect exits 1 on a package with errors).
func run(home string, argv []string) (time.Duration, int64) {
	d, rss, err := benchhome.Time([]string{"HOME=" + home, "PATH=/usr/bin:/bin"}, argv...)
	check(err)
	return d, rss
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "startbench:", err)
		os.Exit(1)
	}
}
