package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/catalogcache"
	"github.com/plugboard/plugboard/backend/scancache"
	"github.com/plugboard/plugboard/backend/testhome"
)

// cacheClock makes the catalog's scans begin later than the racy window after now, so a
// test home's files, made just now, can be cached, and counts the scans.
func cacheClock(t *testing.T) *int {
	t.Helper()
	scans := new(int)
	start, load := scanStart, scanCatalog
	t.Cleanup(func() { scanStart, scanCatalog = start, load })
	scanStart = func() time.Time { return time.Now().Add(scancache.RacyWindow + time.Second) }
	scanCatalog = func(o catalog.Options) *catalog.Catalog { *scans++; return load(o) }
	return scans
}

// laterTick returns once a change made now in dir has a later status-change time than
// every file under root (testhome.AfterCtime).
func laterTick(t *testing.T, root, dir string) {
	t.Helper()
	var newest int64
	filepath.Walk(root, func(p string, _ os.FileInfo, _ error) error {
		var st syscall.Stat_t
		if syscall.Lstat(p, &st) == nil {
			newest = max(newest, st.Ctim.Nano())
		}
		return nil
	})
	testhome.AfterCtime(t, dir, newest)
}

func TestCatalogAnswersFromItsCache(t *testing.T) {
	scans := cacheClock(t)
	home, env := sample(t)
	pb := filepath.Join(home, ".plugboard")
	catalogOut := func(args ...string) string {
		t.Helper()
		code, out, errs := run(t, env, append([]string{"catalog"}, args...)...)
		if code != ExitOK {
			t.Fatalf("catalog %v = %d: %s", args, code, errs)
		}
		return out
	}
	for _, form := range [][]string{{"--json"}, nil} {
		*scans = 0
		first := catalogOut(form...)
		if _, err := os.Stat(filepath.Join(pb, "cache", "catalog-"+map[bool]string{true: "json", false: "text"}[form != nil])); err != nil {
			t.Fatalf("catalog %v made no cache: %v", form, err)
		}
		if again := catalogOut(form...); again != first || *scans != 1 {
			t.Fatalf("catalog %v again: %d scans, same output %v; want the cached answer", form, *scans, again == first)
		}
		if fresh := catalogOut(append(form, "--fresh")...); fresh != first || *scans != 2 {
			t.Fatalf("catalog %v --fresh: %d scans, same output %v; want a scan with the same answer", form, *scans, fresh == first)
		}
	}

	// Each kind of change is seen: the next catalog scans, and says what a scan says.
	good := filepath.Join(pb, "plugins", "good")
	for _, change := range []struct {
		name string
		do   func()
		want string
	}{
		{"a skill's description, same size", func() {
			write(t, filepath.Join(good, "skills", "greet", "SKILL.md"), "---\nname: greet\ndescription: Say HELLO\n---\n")
		}, "Say HELLO"},
		{"a new plugin", func() {
			write(t, filepath.Join(pb, "plugins", "newer", "plugin.json"), strings.Replace(manifest, "%s", "newer", 1))
		}, `"newer"`},
		{"a user skill removed", func() { os.RemoveAll(filepath.Join(home, ".claude", "skills", "greet")) }, ""},
		{"settings", func() { write(t, filepath.Join(pb, "settings.json"), `{"skillsEnabled": {"greet": false}}`) }, `"greet":false`},
		{"the user's MCP file", func() {
			write(t, filepath.Join(home, ".cursor", "mcp.json"), `{"mcpServers": {"u": {"command": "u-server"}}}`)
		}, "u-server"},
		{"a Codex skill root that was missing", func() {
			write(t, filepath.Join(home, ".codex", "skills", "cx", "SKILL.md"), "---\nname: cx\ndescription: Codex one\n---\n")
		}, "Codex one"},
	} {
		before := catalogOut("--json")
		catalogOut("--json") // a hit: nothing changed
		laterTick(t, home, t.TempDir())
		change.do()
		n := *scans
		after := catalogOut("--json")
		if *scans != n+1 || after == before {
			t.Fatalf("%s: %d scans, output changed %v; want a scan", change.name, *scans-n, after != before)
		}
		if change.want != "" && !strings.Contains(after, change.want) {
			t.Errorf("%s: the catalog does not show %s", change.name, change.want)
		}
		if fresh := catalogOut("--json", "--fresh"); fresh != after {
			t.Errorf("%s: the catalog after the change differs from a fresh scan", change.name)
		}
	}
}

func TestCatalogCacheIsNotUsed(t *testing.T) {
	scans := cacheClock(t)
	home, env := sample(t)
	// With a workspace: the monorepo walk reaches folders no list names.
	ws := t.TempDir()
	for range 2 {
		run(t, env, "catalog", "--json", "--workspace", ws)
	}
	if *scans != 2 {
		t.Errorf("catalog --workspace twice: %d scans, want 2", *scans)
	}
	// Without a Plugboard home: the catalog does not make one.
	*scans = 0
	env["PLUGBOARD_HOME"] = filepath.Join(home, "none")
	for range 2 {
		run(t, env, "catalog", "--json")
	}
	if *scans != 2 {
		t.Errorf("catalog without a Plugboard home twice: %d scans, want 2", *scans)
	}
	if _, err := os.Stat(filepath.Join(home, "none")); !os.IsNotExist(err) {
		t.Errorf("the catalog made the Plugboard home: %v", err)
	}
}

// A relative HOME names a different folder from another working folder: the catalog
// takes it as the full path it names there, in its output and its cache.
func TestCatalogCacheWithARelativeHome(t *testing.T) {
	cacheClock(t)
	for _, name := range []string{"first", "second"} {
		dir := t.TempDir()
		pb := filepath.Join(dir, "h", ".plugboard")
		write(t, filepath.Join(pb, "plugins", name, "plugin.json"), strings.Replace(manifest, "%s", name, 1))
		t.Chdir(dir)
		env := map[string]string{"HOME": "h", "PLUGBOARD_HOME": filepath.Join("h", ".plugboard")}
		run(t, env, "catalog", "--json")
		_, out, _ := run(t, env, "catalog", "--json")
		_, fresh, _ := run(t, env, "catalog", "--json", "--fresh")
		if out != fresh || !strings.Contains(out, `"home":"`+filepath.Join(dir, "h")+`"`) || !strings.Contains(out, `"`+name+`"`) {
			t.Errorf("HOME=h in %s: catalog shows the other home, or a relative one:\n%.300s", dir, out)
		}
	}
}

// A Plugboard home inside a tree the catalog reads is not cached: the cache would be
// part of what the catalog reads (a skill folder named cache in a skills root that is
// the Plugboard home; a skillPluginPaths package holding it).
func TestCatalogCacheInsideATreeItReads(t *testing.T) {
	scans := cacheClock(t)
	home, env := sample(t)
	skills := filepath.Join(home, ".claude", "skills")
	for _, c := range []struct {
		name  string
		pb    string
		setup func()
	}{
		{"skillPluginPaths holds it", filepath.Join(home, ".plugboard"), func() {
			write(t, filepath.Join(home, ".plugboard", "settings.json"), `{"skillPluginPaths": ["~/.plugboard"]}`)
		}},
		{"it is a skills root", skills, func() { os.MkdirAll(filepath.Join(skills, "state"), 0o755) }},
	} {
		c.setup()
		*scans = 0
		for range 2 {
			run(t, env, "catalog", "--json", "--home", c.pb)
		}
		if _, err := os.Stat(filepath.Join(c.pb, "cache")); !os.IsNotExist(err) || *scans != 2 {
			t.Errorf("%s: two runs, %d scans, cache folder %v; want two scans and no cache", c.name, *scans, err)
		}
		write(t, filepath.Join(c.pb, "cache", "SKILL.md"), "---\nname: cache\ndescription: In the cache folder\n---\n")
		_, out, _ := run(t, env, "catalog", "--json", "--home", c.pb)
		_, fresh, _ := run(t, env, "catalog", "--json", "--home", c.pb, "--fresh")
		if out != fresh {
			t.Errorf("%s: the catalog differs from a fresh scan", c.name)
		}
		os.RemoveAll(filepath.Join(c.pb, "cache"))
	}
}

// A folder swapped for another right after the scan read it (a dotfiles switch while
// the output is still being written) is seen by the next run: the snapshot the answer
// is kept with was taken before the scan.
func TestCatalogCacheSeesASwapDuringTheScan(t *testing.T) {
	cacheClock(t)
	home, env := sample(t)
	claude := filepath.Join(home, ".claude")
	other := filepath.Join(home, ".claude-other")
	write(t, filepath.Join(other, "skills", "swapped-in", "SKILL.md"), "---\nname: swapped-in\ndescription: From the other folder\n---\n")
	load := scanCatalog
	scanCatalog = func(o catalog.Options) *catalog.Catalog {
		c := load(o)
		os.Rename(claude, claude+"-before")
		os.Rename(other, claude)
		return c
	}
	run(t, env, "catalog", "--json")
	scanCatalog = load
	_, out, _ := run(t, env, "catalog", "--json")
	_, fresh, _ := run(t, env, "catalog", "--json", "--fresh")
	if out != fresh || !strings.Contains(out, "swapped-in") {
		t.Error("the catalog after a folder was swapped during the last scan differs from a fresh scan")
	}
}

// A home whose answer the snapshot cannot hold, or whose snapshot would not pay, is
// scanned without one for a while: a Claude component path that climbs out of the
// package, a path behind more links than a look-up follows, a snapshot as slow as the
// scan. Each answer is still what a fresh scan prints.
func TestCatalogCacheDeclines(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, home, pb string)
	}{
		{"a component path out of the package", func(t *testing.T, home, pb string) {
			tool := filepath.Join(home, "src", "mono", "plugins", "tool")
			write(t, filepath.Join(tool, ".claude-plugin", "plugin.json"), `{"name": "tool", "skills": ["./../../shared/skills"]}`)
			write(t, filepath.Join(home, "src", "mono", "shared", "skills", "lint", "SKILL.md"), "---\nname: lint\ndescription: Lint\n---\n")
			testhome.Symlink(t, tool, filepath.Join(pb, "plugins", "tool"))
		}},
		{"an MCP command out of the package", func(t *testing.T, home, pb string) {
			write(t, filepath.Join(pb, "plugins", "good", "mcp.json"), mcpOut)
		}},
		{"a path behind 45 links", func(t *testing.T, home, pb string) {
			prev := filepath.Join(pb, "plugins", "good")
			for i := range 45 {
				next := filepath.Join(home, "l", fmt.Sprint(i))
				os.MkdirAll(filepath.Dir(next), 0o755)
				testhome.Symlink(t, prev, next)
				prev = next
			}
			write(t, filepath.Join(pb, "settings.json"), `{"skillPluginPaths": ["`+prev+`"]}`)
		}},
		{"a working copy holding its dependencies", func(t *testing.T, home, pb string) {
			// 10,050 files the scan never opens, for one plugin and a few skills: checking
			// them would cost more than the scan.
			deps := filepath.Join(pb, "plugins", "good", "node_modules")
			for i := range 201 {
				d := filepath.Join(deps, fmt.Sprint("pkg", i))
				os.MkdirAll(d, 0o755)
				for j := range 49 {
					if err := os.WriteFile(filepath.Join(d, fmt.Sprint(j, ".js")), nil, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			scans := cacheClock(t)
			home, env := sample(t)
			pb := filepath.Join(home, ".plugboard")
			c.setup(t, home, pb)
			for range 2 {
				run(t, env, "catalog", "--json")
			}
			declined := filepath.Join(pb, "cache", "catalog-json.declined")
			if _, err := os.Stat(declined); err != nil || *scans != 2 {
				t.Fatalf("two runs: %d scans, declined record %v; want two scans and the record", *scans, err)
			}
			if _, err := os.Stat(filepath.Join(pb, "cache", "catalog-json")); !os.IsNotExist(err) {
				t.Errorf("an answer was kept: %v", err)
			}
			_, out, _ := run(t, env, "catalog", "--json")
			_, fresh, _ := run(t, env, "catalog", "--json", "--fresh")
			if out != fresh {
				t.Error("the catalog differs from a fresh scan")
			}
		})
	}
}

// Judging a package whose Claude component path climbs out of it says so; the packages
// of the full fixture home do not.
func TestReadOutside(t *testing.T) {
	home, _ := sample(t)
	pb := filepath.Join(home, ".plugboard")
	c := catalog.Load(catalog.Options{Home: home, PlugboardHome: pb})
	if c.ReadOutside() {
		t.Fatal("the sample home's catalog says it read outside its packages")
	}
	full := testhome.Copy(t, "full")
	c = catalog.Load(catalog.Options{Home: filepath.Join(full, "home"), PlugboardHome: filepath.Join(full, "home", ".plugboard")})
	if c.ReadOutside() {
		t.Fatal("the full fixture home's catalog says it read outside its packages")
	}
	write(t, filepath.Join(pb, "plugins", "good", "mcp.json"), mcpOut)
	c = catalog.Load(catalog.Options{Home: home, PlugboardHome: pb})
	if !c.ReadOutside() {
		t.Error("an MCP command path out of the package is not reported")
	}
	os.Remove(filepath.Join(pb, "plugins", "good", "mcp.json"))
	write(t, filepath.Join(pb, "plugins", "good", ".claude-plugin", "plugin.json"), `{"name": "good", "commands": ["./../../shared/cmd.md"]}`)
	c = catalog.Load(catalog.Options{Home: home, PlugboardHome: pb})
	if !c.ReadOutside() {
		t.Error("a command path out of the package is not reported")
	}
}

// mcpOut is a portable mcp.json whose server's command climbs out of the package: the
// catalog refuses it, but looks up the folders on the way.
const mcpOut = `{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {"a": {"type": "stdio", "command": "./../tools/srv"}}}`

// An answer shaped by an error of the moment is not kept: one that names it, or a scan
// with too few open files allowed to be sure none went unreported.
func TestCatalogCacheKeepsNoTransientAnswer(t *testing.T) {
	if os.Getenv("PLUGBOARD_TEST_CATALOG_HOME") != "" {
		return // the helper below
	}
	cacheClock(t)
	home, _ := sample(t)
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		testhome.CannotRun(t, "prlimit (util-linux) is needed: %v", err)
	}
	cmd := exec.Command(prlimit, "--nofile=200:200", os.Args[0], "-test.run=^TestCatalogHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), "PLUGBOARD_TEST_CATALOG_HOME="+home)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), `"plugins"`) {
		t.Fatalf("catalog with 200 open files: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(home, ".plugboard", "cache", "catalog-json")); !os.IsNotExist(err) {
		t.Errorf("with 200 open files allowed, an answer was kept: %v", err)
	}
}

// TestCatalogHelper runs catalog --json in the home PLUGBOARD_TEST_CATALOG_HOME names,
// with files that look old enough to cache.
func TestCatalogHelper(t *testing.T) {
	home := os.Getenv("PLUGBOARD_TEST_CATALOG_HOME")
	if home == "" {
		return
	}
	cacheClock(t)
	code, out, errs := run(t, map[string]string{"HOME": home}, "catalog", "--json")
	if code != ExitOK {
		t.Fatalf("catalog = %d: %s", code, errs)
	}
	os.Stdout.WriteString(out)
}

// A folder given as --home only to be read (not ~/.plugboard, no state of Plugboard's
// in it) gets no cache folder.
func TestCatalogCacheOnlyInAPlugboardHome(t *testing.T) {
	cacheClock(t)
	home, env := sample(t)
	proj := t.TempDir()
	write(t, filepath.Join(proj, "plugins", "p", "plugin.json"), strings.Replace(manifest, "%s", "p", 1))
	for range 2 {
		run(t, env, "catalog", "--json", "--home", proj)
	}
	if _, err := os.Stat(filepath.Join(proj, "cache")); !os.IsNotExist(err) {
		t.Errorf("catalog --home of a project made %s/cache: %v", proj, err)
	}
	os.MkdirAll(filepath.Join(proj, "state"), 0o755)
	run(t, env, "catalog", "--json", "--home", proj)
	if _, err := os.Stat(filepath.Join(proj, "cache", "catalog-json")); err != nil {
		t.Errorf("a Plugboard home with state has no cache: %v", err)
	}
	_ = home
}

// An answer that did not all get out (a full disk, a closed pipe) is not kept, and the
// run fails as a cached answer's would.
func TestCatalogKeepsNoAnswerThatDidNotGetOut(t *testing.T) {
	cacheClock(t)
	home, env := sample(t)
	for _, form := range [][]string{{"--json"}, nil} {
		var errb bytes.Buffer
		code := Main(append([]string{"catalog"}, form...), Env{Stdout: failingWriter{}, Stderr: &errb, Getenv: func(k string) string { return env[k] }})
		if code != ExitUsage {
			t.Errorf("catalog %v to a writer that fails = %d, want %d", form, code, ExitUsage)
		}
		if names, _ := os.ReadDir(filepath.Join(home, ".plugboard", "cache")); len(names) != 0 {
			t.Errorf("catalog %v to a writer that fails kept %v", form, names)
		}
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// A record of declining that runs out, or lies further ahead than a decline lasts (a
// clock set ahead when it was written), stops nothing.
func TestCatalogCacheDeclineRunsOut(t *testing.T) {
	scans := cacheClock(t)
	home, env := sample(t)
	pb := filepath.Join(home, ".plugboard")
	cache := catalogcache.Open(catalog.Options{Home: home, PlugboardHome: pb}, true, time.Now())
	for _, until := range []time.Time{time.Now().Add(-time.Second), time.Now().Add(catalogcache.DeclineFor + time.Hour)} {
		os.RemoveAll(filepath.Join(pb, "cache"))
		if err := cache.Decline(until); err != nil {
			t.Fatal(err)
		}
		*scans = 0
		for range 2 {
			run(t, env, "catalog", "--json")
		}
		if *scans != 1 {
			t.Errorf("a record until %v: two runs, %d scans; want the second answered from the cache", until, *scans)
		}
	}
	// One within its time stops the cache.
	os.RemoveAll(filepath.Join(pb, "cache"))
	cache.Decline(time.Now().Add(catalogcache.DeclineFor / 2))
	*scans = 0
	for range 2 {
		run(t, env, "catalog", "--json")
	}
	if *scans != 2 {
		t.Errorf("a record within its time: two runs, %d scans, want 2", *scans)
	}
}
