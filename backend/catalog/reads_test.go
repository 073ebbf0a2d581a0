package catalog

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/testhome"
)

// Roots is what the watcher watches: a path the scan reads outside it would be a change
// the window and watch never see. This traces a real scan of a home with every kind of
// input (packages of each format, links out of the home, settings, Cursor's cache and
// index, the user's MCP file) with strace and checks each path it looked at or opened
// against a walk of Roots (links followed) and the homes: met by the walk, or missing
// from a folder it listed. Then a Claude component path climbs out of a package: the scan
// reads outside Roots only where the path leads.
func TestRootsHoldEveryPathTheScanReads(t *testing.T) {
	if os.Getenv("PLUGBOARD_SCAN_HOME") != "" {
		return // the helper, which TestScanHelper runs
	}
	if err := exec.Command("strace", "-f", "-qq", "-o", "/dev/null", "true").Run(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("strace cannot run (%v): the check of what the scan reads needs it (apt-get install strace)", err)
		}
		t.Skipf("strace cannot run (%v)", err)
	}
	o, dir := fullHome(t)
	outside := filepath.Join(dir, "outside")
	// A linked working copy (as `plugboard link` makes), which the scan reads by its real
	// path, with a file linked from further out, and a legacy plugin's commands, agents
	// and hooks.
	work := filepath.Join(outside, "work")
	testhome.WriteFile(t, filepath.Join(work, "plugin.json"), `{"name": "devlinked"}`)
	testhome.WriteFile(t, filepath.Join(work, "skills", "dev", "SKILL.md"), "---\nname: dev\ndescription: d\n---\nSee ref.md\n")
	testhome.WriteFile(t, filepath.Join(outside, "shared", "ref.md"), "ref")
	testhome.Symlink(t, filepath.Join(outside, "shared", "ref.md"), filepath.Join(work, "skills", "dev", "ref.md"))
	testhome.Symlink(t, work, filepath.Join(o.PlugboardHome, "plugins", "devlinked"))
	legacy := filepath.Join(o.PlugboardHome, "plugins", "legacy-one")
	testhome.WriteFile(t, filepath.Join(legacy, "commands", "hello.md"), "---\ndescription: Say hello\n---\nHello\n")
	testhome.WriteFile(t, filepath.Join(legacy, "agents", "helper.md"), "---\nname: helper\ndescription: h\n---\n")
	testhome.WriteFile(t, filepath.Join(legacy, "hooks", "hooks.json"), `{"hooks": {}}`)

	missed, seen := missedReads(t, o)
	for _, want := range []string{filepath.Join(work, "skills", "dev", "SKILL.md"), filepath.Join(legacy, "commands", "hello.md")} {
		if !seen[want] {
			t.Errorf("the trace does not show the scan reading %s: the check would not see a miss there", want)
		}
	}
	if len(missed) > 0 {
		t.Errorf("the scan read paths outside catalog.Roots (%v):\n%s", Roots(o), strings.Join(missed, "\n"))
	}

	// A Claude component path that climbs out of its package: the scan reads there,
	// outside Roots.
	shared := filepath.Join(outside, "mono", "shared")
	testhome.WriteFile(t, filepath.Join(shared, "skills", "lint", "SKILL.md"), "---\nname: lint\ndescription: l\n---\n")
	testhome.WriteFile(t, filepath.Join(legacy, ".claude-plugin", "plugin.json"), `{"name": "legacy-one", "skills": ["./../../../../outside/mono/shared/skills"]}`)
	missed, _ = missedReads(t, o)
	if len(missed) == 0 {
		t.Fatal("a component path out of the package: the check sees no read outside Roots")
	}
	for _, p := range missed {
		if !under(p, outside) {
			t.Errorf("the scan read %s, outside Roots and not where the component path leads", p)
		}
	}
}

// missedReads traces a scan of o and returns the paths it looked at or opened that a
// walk of Roots and the homes does not cover (covered), and every path it met.
func missedReads(t *testing.T, o Options) (missed []string, seen map[string]bool) {
	t.Helper()
	trace := filepath.Join(t.TempDir(), "trace")
	cmd := exec.Command("strace", "-f", "-qq", "-y", "-s", "4096", "-e", "trace=%file,%desc", "-o", trace,
		os.Args[0], "-test.run=^TestScanHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), "PLUGBOARD_SCAN_HOME="+o.Home, "PLUGBOARD_SCAN_PBHOME="+o.PlugboardHome)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "scanned") {
		t.Fatalf("the traced scan: %v\n%s", err, out)
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	paths, folders := walkRoots(Roots(o), []string{o.Home, o.PlugboardHome})
	// A path is covered when the walk met it, by its own path or by a path that leads
	// to it through links; or when it, or a missing folder on its way, is missing from a
	// folder the walk listed (its arrival moves that folder's times).
	recorded, listed := withRealPaths(paths), withRealPaths(folders)
	seen = map[string]bool{}
	for _, p := range tracedPaths(string(data)) {
		if seen[p] || systemPath(p) {
			continue
		}
		seen[p] = true
		if !covered(p, recorded, listed) {
			missed = append(missed, p)
		}
	}
	return missed, seen
}

// walkRoots lists every path under roots, following links to folders (each folder
// once), and the folders it listed; resolve adds each of those paths and every folder on
// the way to it, as a watcher of them looks them up.
func walkRoots(roots, resolve []string) (paths, folders []string) {
	seen := map[string]bool{}
	var walk func(p string)
	walk = func(p string) {
		paths = append(paths, p)
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			if real, err := filepath.EvalSymlinks(p); err == nil {
				for q := real; q != filepath.Dir(q); q = filepath.Dir(q) {
					paths = append(paths, q) // the folders a look-up through the link meets
				}
			}
		}
		st, err := os.Stat(p) // through a link
		if err != nil || !st.IsDir() {
			return
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil || seen[real] {
			return
		}
		seen[real] = true
		folders = append(folders, p)
		names, _ := os.ReadDir(p)
		for _, n := range names {
			walk(filepath.Join(p, n.Name()))
		}
	}
	for _, r := range roots {
		for q := filepath.Dir(r); q != filepath.Dir(q); q = filepath.Dir(q) {
			paths = append(paths, q)
		}
		walk(r)
	}
	for _, r := range resolve {
		for q := r; q != filepath.Dir(q); q = filepath.Dir(q) {
			paths = append(paths, q)
		}
	}
	return paths, folders
}

// withRealPaths is the set of paths, each also by where its links lead.
func withRealPaths(paths []string) map[string]bool {
	set := make(map[string]bool, 2*len(paths))
	for _, p := range paths {
		set[p] = true
		if real, err := filepath.EvalSymlinks(p); err == nil {
			set[real] = true
		}
	}
	return set
}

func covered(p string, recorded, listed map[string]bool) bool {
	if recorded[p] {
		return true
	}
	for q := p; ; {
		parent := filepath.Dir(q)
		switch {
		case listed[parent]:
			return true // q is missing from a listed folder
		case recorded[parent] || parent == q:
			return false // q's folder is there, and was not listed
		}
		q = parent // missing too
	}
}

// TestScanHelper is the traced scan of TestRootsHoldEveryPathTheScanReads.
func TestScanHelper(t *testing.T) {
	home := os.Getenv("PLUGBOARD_SCAN_HOME")
	if home == "" {
		return
	}
	c := Load(Options{Home: home, PlugboardHome: os.Getenv("PLUGBOARD_SCAN_PBHOME")})
	if err := c.WriteJSON(os.Stdout); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("\nscanned\n")
}

var (
	// A system call's path argument: "path" first, or after a folder's descriptor
	// (AT_FDCWD or N<path> with strace -y).
	tracedAt   = regexp.MustCompile(`^\d+\s+(?:open|openat|openat2|creat|stat|lstat|newfstatat|statx|access|faccessat|faccessat2|readlink|readlinkat|getxattr|lgetxattr|statfs|chdir|inotify_add_watch)\((?:(?:AT_FDCWD|-?\d+)(?:<([^>]*)>)?, )?"([^"]*)"`)
	tracedFd   = regexp.MustCompile(`^\d+\s+\w+\(\d+<([^>]*)>`)
	tracedExec = regexp.MustCompile(`^\d+\s+execve\(`)
)

// tracedPaths lists the absolute paths a trace's system calls name, by argument or by
// descriptor.
func tracedPaths(trace string) []string {
	var out []string
	for _, line := range strings.Split(trace, "\n") {
		if tracedExec.MatchString(line) {
			continue // the helper's own start
		}
		if m := tracedAt.FindStringSubmatch(line); m != nil {
			p := m[2]
			if !filepath.IsAbs(p) {
				if m[1] == "" {
					continue // relative to the working folder: the test binary's own
				}
				p = filepath.Join(m[1], p)
			}
			out = append(out, filepath.Clean(p))
		}
		if m := tracedFd.FindStringSubmatch(line); m != nil && filepath.IsAbs(m[1]) {
			out = append(out, filepath.Clean(m[1]))
		}
	}
	return out
}

// systemPath: the system's files and the test binary's, which the Go runtime and the
// helper read and no catalog depends on.
func systemPath(p string) bool {
	for _, d := range []string{"/proc", "/sys", "/dev", "/etc", "/usr", "/lib", "/lib64", os.Args[0]} {
		if under(p, d) {
			return true
		}
	}
	return false
}

// under reports whether p is dir or inside it.
func under(p, dir string) bool { return p == dir || within(p, dir) }
