package install

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/devlink"
	"github.com/plugboard/plugboard/backend/testhome"
)

// Every test here runs the real git on real repositories made in t.TempDir(), served by
// git http-backend on loopback where a URL is needed, and real archives built here.

const manifestFmt = `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": %q, "version": "1.0.0"}`

// writePlugin lays out a valid portable plugin called name in dir.
func writePlugin(t *testing.T, dir, name string) {
	t.Helper()
	testhome.WriteFile(t, filepath.Join(dir, "plugin.json"), strings.Replace(manifestFmt, "%q", `"`+name+`"`, 1))
	testhome.WriteFile(t, filepath.Join(dir, "skills", "greet", "SKILL.md"), "---\nname: greet\ndescription: Greets the user by name.\n---\nSay hello.\n")
}

func needGit(t *testing.T) string {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		testhome.CannotRun(t, "git is not on PATH: %v", err)
	}
	return git
}

// gitIn runs git in dir with a fixed identity and fails the test on error.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// commitAll makes dir a repository (if it is not one) and commits everything in it.
func commitAll(t *testing.T, dir, msg string) string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		gitIn(t, dir, "init", "--quiet")
	}
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "--quiet", "-m", msg)
	return gitIn(t, dir, "rev-parse", "HEAD")
}

// homes returns fresh HOME and PLUGBOARD_HOME folders.
func homes(t *testing.T) (string, string) {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(d, "home"), filepath.Join(d, "home", ".plugboard")
}

func opts(t *testing.T, pbHome, src string) Options {
	home := filepath.Dir(pbHome)
	return Options{Home: home, PlugboardHome: pbHome, Source: src}
}

// catalogIDs lists the managed plugins the catalog finds.
func catalogIDs(pbHome string) []string {
	c := catalog.Load(catalog.Options{Home: filepath.Dir(pbHome), PlugboardHome: pbHome})
	var ids []string
	for _, p := range c.Plugins {
		if p.Source == catalog.SourceManaged {
			ids = append(ids, p.ID)
		}
	}
	return ids
}

// leftovers lists what is in plugins/ besides the installed plugins and the lock.
// checkNoLeftovers fails the test when an install left a hidden staging or old-version
// folder in plugins/.
func checkNoLeftovers(t *testing.T, pbHome string) {
	t.Helper()
	entries, _ := os.ReadDir(pluginsDir(pbHome))
	var left []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") && e.Name() != lockName {
			left = append(left, e.Name())
		}
	}
	if len(left) != 0 {
		t.Errorf("left in plugins/: %v", left)
	}
}

// installFolder writes a valid plugin named name in a folder of that name and installs
// it into pbHome; it returns the folder.
func installFolder(t *testing.T, pbHome, name string) string {
	t.Helper()
	src := filepath.Join(t.TempDir(), name)
	writePlugin(t, src, name)
	if _, err := Install(context.Background(), opts(t, pbHome, src)); err != nil {
		t.Fatal(err)
	}
	return src
}

// serveGit serves the bare repositories under root over smart HTTP (git http-backend
// behind net/http/cgi) on 127.0.0.1; gate, when set, runs before each request.
func serveGit(t *testing.T, root string, gate func(*http.Request)) string {
	t.Helper()
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		testhome.CannotRun(t, "git --exec-path: %v", err)
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		testhome.CannotRun(t, "git-http-backend is not installed: %v", err)
	}
	h := &cgi.Handler{Path: backend, Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if gate != nil {
			gate(r)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// bareRepo makes a bare clone of work at root/name.git and returns its path.
func bareRepo(t *testing.T, work, root, name string) string {
	t.Helper()
	p := filepath.Join(root, name+".git")
	gitIn(t, root, "clone", "--quiet", "--bare", work, p)
	return p
}

func TestInstallFromGitURL(t *testing.T) {
	needGit(t)
	_, pbHome := homes(t)
	work := t.TempDir()
	writePlugin(t, work, "greeter")
	testhome.WriteFile(t, filepath.Join(work, "mcp.json"), `{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {
		"db": {"type": "stdio", "command": "./bin/db", "args": ["--x"], "env": {"DB_PASSWORD": "PLANTED-ENV-SECRET"}},
		"api": {"type": "streamable-http", "url": "https://api.example.com/mcp?token=PLANTED-QUERY", "headers": {"Authorization": "Bearer PLANTED-HEADER"}}}}`)
	commit := commitAll(t, work, "one")
	root := t.TempDir()
	bareRepo(t, work, root, "greeter")
	base := serveGit(t, root, nil)

	// The URL carries a user name and token: used for the fetch, never shown or kept.
	u := strings.Replace(base, "http://", "http://someone:PLANTED-TOKEN@", 1) + "/greeter.git"
	var progress bytes.Buffer
	o := opts(t, pbHome, u)
	o.Progress = &progress
	res, err := Install(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.ID != "greeter" || res.Commit != commit || !res.Valid || res.Kind != KindGit || !res.CredentialsStripped {
		t.Fatalf("result %+v", res)
	}
	if res.Source != base+"/greeter.git" {
		t.Errorf("source %q, want the URL without its credentials", res.Source)
	}
	if _, err := os.Stat(filepath.Join(pbHome, "plugins", "greeter", ".git")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf(".git kept in the installed folder: %v", err)
	}
	names := []string{}
	for _, s := range res.Servers {
		names = append(names, s.Name+":"+s.Executable+s.Origin)
	}
	if !slices.Equal(names, []string{"api:https://api.example.com", "db:db"}) && !slices.Equal(names, []string{"db:db", "api:https://api.example.com"}) {
		t.Errorf("servers %v", names)
	}
	if got := catalogIDs(pbHome); !slices.Equal(got, []string{"greeter"}) {
		t.Errorf("catalog lists %v", got)
	}
	lf, err := ReadLockfile(LockfilePath(pbHome))
	if err != nil {
		t.Fatal(err)
	}
	e := lf.Plugins["greeter"]
	if e.Commit != commit || e.Kind != KindGit || e.Content != res.Content || !strings.HasPrefix(e.Content, "sha256:") || e.InstalledAt == "" {
		t.Errorf("lockfile entry %+v", e)
	}
	raw, _ := os.ReadFile(LockfilePath(pbHome))
	js, _ := json.Marshal(res)
	for _, secret := range []string{"PLANTED", "someone"} {
		for what, text := range map[string]string{"lockfile": string(raw), "progress": progress.String(), "result": string(js)} {
			if strings.Contains(text, secret) {
				t.Errorf("%s carries %q:\n%s", what, secret, text)
			}
		}
	}
	for _, line := range []string{"fetching " + base + "/greeter.git", "validating greeter", "installed " + base + "/greeter.git as plugins/greeter"} {
		if !strings.Contains(progress.String(), line) {
			t.Errorf("progress lacks %q:\n%s", line, progress.String())
		}
	}
	checkNoLeftovers(t, pbHome)

	// The same id again is refused, and replaced with Force.
	if _, err := Install(context.Background(), opts(t, pbHome, u)); !errors.Is(err, ErrExists) {
		t.Errorf("second install: %v, want ErrExists", err)
	}
	o.Force = true
	if res, err := Install(context.Background(), o); err != nil || !res.Replaced {
		t.Errorf("forced reinstall: %+v %v", res, err)
	}
}

func TestInstallFromLocalRepoPathAndFileURL(t *testing.T) {
	needGit(t)
	_, pbHome := homes(t)
	work := t.TempDir()
	writePlugin(t, work, "local-one")
	commit := commitAll(t, work, "one")
	// An uncommitted change is not installed: the commit is.
	testhome.WriteFile(t, filepath.Join(work, "skills", "greet", "SKILL.md"), "dirty")
	res, err := Install(context.Background(), opts(t, pbHome, work))
	if err != nil {
		t.Fatal(err)
	}
	if res.Commit != commit || res.Source != work || res.Kind != KindGit {
		t.Errorf("result %+v", res)
	}
	if b, _ := os.ReadFile(filepath.Join(res.Path, "skills", "greet", "SKILL.md")); string(b) == "dirty" {
		t.Error("installed the working tree, not the commit")
	}
	o := opts(t, pbHome, "file://"+work)
	o.Name = "by-url"
	if res, err := Install(context.Background(), o); err != nil || res.Commit != commit || res.ID != "by-url" {
		t.Errorf("file:// install: %+v %v", res, err)
	}
}

func TestInstallRefAndPath(t *testing.T) {
	needGit(t)
	_, pbHome := homes(t)
	work := t.TempDir()
	writePlugin(t, filepath.Join(work, "plugins", "inner"), "inner")
	testhome.WriteFile(t, filepath.Join(work, "README.md"), "a monorepo\n")
	tagged := commitAll(t, work, "v1")
	gitIn(t, work, "tag", "v1.0.0")
	testhome.WriteFile(t, filepath.Join(work, "plugins", "inner", "skills", "greet", "SKILL.md"), "---\nname: greet\ndescription: Changed after the tag.\n---\nx\n")
	commitAll(t, work, "after")

	o := opts(t, pbHome, "file://"+work)
	o.Ref, o.Path = "v1.0.0", "plugins/inner"
	res, err := Install(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.ID != "inner" || res.Commit != tagged || res.Subpath != "plugins/inner" {
		t.Errorf("result %+v", res)
	}
	if _, err := os.Stat(filepath.Join(res.Path, "README.md")); err == nil {
		t.Error("--path installed the whole repository")
	}
	if b, _ := os.ReadFile(filepath.Join(res.Path, "skills", "greet", "SKILL.md")); strings.Contains(string(b), "Changed") {
		t.Error("--ref v1.0.0 installed a later commit")
	}
	// A commit id is fetched by id.
	o.Ref, o.Name = tagged, "by-commit"
	if res, err := Install(context.Background(), o); err != nil || res.Commit != tagged {
		t.Errorf("--ref <sha>: %+v %v", res, err)
	}
}

func TestInstallFromFolder(t *testing.T) {
	_, pbHome := homes(t)
	src := t.TempDir()
	writePlugin(t, src, "folder-one")
	testhome.WriteFile(t, filepath.Join(src, "vendor", "lib", ".git", "config"), "not copied") // a nested clone
	os.Symlink("skills/greet/SKILL.md", filepath.Join(src, "inside-link.md"))
	res, err := Install(context.Background(), opts(t, pbHome, src))
	if err != nil {
		t.Fatal(err)
	}
	if res.ID != "folder-one" || res.Kind != KindFolder || res.Source != src {
		t.Errorf("result %+v", res)
	}
	if _, err := os.Stat(filepath.Join(res.Path, "vendor", "lib", ".git")); err == nil {
		t.Error(".git copied")
	}
	if fi, err := os.Lstat(filepath.Join(res.Path, "inside-link.md")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("a link inside the package is copied as what it points to: %v %v", fi, err)
	}
}

// cancelOn cancels when a progress line starting with prefix is written.
type cancelOn struct {
	prefix string
	cancel context.CancelFunc
}

func (c cancelOn) Write(p []byte) (int, error) {
	if strings.HasPrefix(string(p), c.prefix) {
		c.cancel()
	}
	return len(p), nil
}

// An install whose context ends (the CLI's Ctrl-C or SIGTERM) stops at its next step:
// ErrStopped, nothing placed, no lockfile entry, no staging folder left. Before, only a
// git fetch looked at the context, and the install went on to place the plugin.
func TestInstallStopsWhenItsContextEnds(t *testing.T) {
	for _, at := range []string{"copying", "validating"} {
		_, pbHome := homes(t)
		src := t.TempDir()
		writePlugin(t, src, "stopped")
		ctx, cancel := context.WithCancel(context.Background())
		o := opts(t, pbHome, src)
		o.Progress = cancelOn{at, cancel}
		_, err := Install(ctx, o)
		cancel()
		if !errors.Is(err, ErrStopped) {
			t.Errorf("cancelled at %q: %v, want ErrStopped", at, err)
		}
		if ids := catalogIDs(pbHome); len(ids) != 0 {
			t.Errorf("cancelled at %q: installed %v", at, ids)
		}
		if _, err := os.Stat(filepath.Join(pbHome, "plugins.lock.json")); !os.IsNotExist(err) {
			t.Errorf("cancelled at %q: the lockfile was written (%v)", at, err)
		}
		ents, _ := os.ReadDir(filepath.Join(pbHome, "plugins"))
		for _, e := range ents {
			if e.Name() != ".install.lock" {
				t.Errorf("cancelled at %q: plugins/ holds %s", at, e.Name())
			}
		}
	}
}

// A folder whose folders link to one another (forward only: no loop, no link out) holds
// 2^19 paths through 20 folders; install refuses it at the walk's entry bound, naming
// the links, instead of walking it for minutes and planting it in the home.
func TestInstallRefusesFoldersLinkedManyWays(t *testing.T) {
	_, pbHome := homes(t)
	src := t.TempDir()
	writePlugin(t, src, "linked-many")
	const n = 20
	for i := 1; i <= n; i++ {
		for j := i + 1; j <= n; j++ {
			d := filepath.Join(src, "docs", "d"+strconv.Itoa(i))
			os.MkdirAll(d, 0o755)
			if err := os.Symlink("../d"+strconv.Itoa(j), filepath.Join(d, "l"+strconv.Itoa(j))); err != nil {
				t.Fatal(err)
			}
		}
	}
	os.MkdirAll(filepath.Join(src, "docs", "d"+strconv.Itoa(n)), 0o755)
	_, err := Install(context.Background(), opts(t, pbHome, src))
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "entries counted through its symbolic links") {
		t.Fatalf("err = %v", err)
	}
	if ids := catalogIDs(pbHome); len(ids) != 0 {
		t.Errorf("installed anyway: %v", ids)
	}
}

// buildTarGz writes a .tar.gz of entries (name → body; a body "->target" is a symlink)
// under one top folder.
func buildTarGz(t *testing.T, p, top string, entries map[string]string) {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: top + "/", Mode: 0o755})
	for _, name := range sortedKeys(entries) {
		body := entries[name]
		if target, ok := strings.CutPrefix(body, "->"); ok {
			tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: top + "/" + name, Linkname: target})
			continue
		}
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: top + "/" + name, Mode: 0o644, Size: int64(len(body))})
		tw.Write([]byte(body))
	}
	tw.Close()
	zw.Close()
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func buildZip(t *testing.T, p string, entries map[string]string) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range sortedKeys(entries) {
		w, _ := zw.Create(name)
		w.Write([]byte(entries[name]))
	}
	zw.Close()
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sortedKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func pluginFiles(name string) map[string]string {
	return map[string]string{
		"plugin.json":           strings.Replace(manifestFmt, "%q", `"`+name+`"`, 1),
		"skills/greet/SKILL.md": "---\nname: greet\ndescription: Greets the user by name.\n---\nSay hello.\n",
	}
}

func TestInstallFromArchives(t *testing.T) {
	_, pbHome := homes(t)
	dir := t.TempDir()
	tgz := filepath.Join(dir, "tarred-1.0.tar.gz")
	files := pluginFiles("tarred")
	files["docs/link.md"] = "->../skills/greet/SKILL.md"
	buildTarGz(t, tgz, "tarred-1.0", files)
	res, err := Install(context.Background(), opts(t, pbHome, tgz))
	if err != nil {
		t.Fatal(err)
	}
	if res.ID != "tarred" || res.Kind != KindArchive || !strings.HasPrefix(res.Archive, "sha256:") {
		t.Errorf("tar.gz result %+v", res)
	}
	if _, err := os.Stat(filepath.Join(res.Path, "plugin.json")); err != nil {
		t.Errorf("the single top folder was not unwrapped: %v", err)
	}
	zp := filepath.Join(dir, "zipped.zip")
	buildZip(t, zp, pluginFiles("zipped")) // no top folder
	res, err = Install(context.Background(), opts(t, pbHome, zp))
	if err != nil || res.ID != "zipped" {
		t.Fatalf("zip: %+v %v", res, err)
	}
	if got := catalogIDs(pbHome); !slices.Equal(got, []string{"tarred", "zipped"}) {
		t.Errorf("catalog lists %v", got)
	}
}

func TestInstallRefusesHostileArchives(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]func(p string){
		"dotdot.zip": func(p string) {
			f := pluginFiles("x")
			f["../evil.txt"] = "x"
			buildZip(t, p, f)
		},
		"absolute.zip": func(p string) {
			f := pluginFiles("x")
			f["/tmp/evil.txt"] = "x"
			buildZip(t, p, f)
		},
		"escaping-link.tar.gz": func(p string) {
			f := pluginFiles("x")
			f["out"] = "->../../etc"
			buildTarGz(t, p, "top", f)
		},
		"absolute-link.tar.gz": func(p string) {
			f := pluginFiles("x")
			f["out"] = "->/etc/passwd"
			buildTarGz(t, p, "top", f)
		},
		"device.tar.gz": func(p string) {
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			tw := tar.NewWriter(zw)
			tw.WriteHeader(&tar.Header{Typeflag: tar.TypeChar, Name: "null", Devmajor: 1, Devminor: 3, Mode: 0o644})
			tw.Close()
			zw.Close()
			os.WriteFile(p, buf.Bytes(), 0o644)
		},
		"through-link.tar.gz": func(p string) {
			f := pluginFiles("x")
			f["l"] = "->missing/.."
			f["l/y"] = "x"
			buildTarGz(t, p, "top", f)
		},
		"hardlink-out.tar.gz": func(p string) {
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			tw := tar.NewWriter(zw)
			tw.WriteHeader(&tar.Header{Typeflag: tar.TypeLink, Name: "passwd", Linkname: "/etc/passwd"})
			tw.Close()
			zw.Close()
			os.WriteFile(p, buf.Bytes(), 0o644)
		},
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			_, pbHome := homes(t)
			p := filepath.Join(dir, name)
			build(p)
			_, err := Install(context.Background(), opts(t, pbHome, p))
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), p) {
				t.Fatalf("err = %v, want a refusal naming %s", err, p)
			}
			// a sentence that says what to do, never a system call's words alone
			if !strings.Contains(err.Error(), "; ") || strings.Contains(err.Error(), "statat") {
				t.Errorf("err = %v, want a sentence with the fix", err)
			}
			if ids := catalogIDs(pbHome); len(ids) != 0 {
				t.Errorf("catalog lists %v", ids)
			}
			checkNoLeftovers(t, pbHome)
			if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "evil.txt")); err == nil {
				t.Error("an entry was written outside the staging folder")
			}
		})
	}
}

// Every entry of an archive counts against MaxFiles, whatever its name: "./" repeated
// (two million of them once took 6 s, none counted) is refused at the cap.
func TestInstallCountsEveryArchiveEntry(t *testing.T) {
	_, pbHome := homes(t)
	p := filepath.Join(t.TempDir(), "dots.tar.gz")
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for range 200 {
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: "./", Mode: 0o755})
	}
	tw.Close()
	zw.Close()
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	o := opts(t, pbHome, p)
	o.MaxFiles = 100
	if _, err := Install(context.Background(), o); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "more than 100 entries") {
		t.Fatalf("err = %v, want the entry cap", err)
	}
	checkNoLeftovers(t, pbHome)
}

func TestInstallRefusesArchiveOverSizeCap(t *testing.T) {
	_, pbHome := homes(t)
	p := filepath.Join(t.TempDir(), "big.zip")
	f := pluginFiles("big")
	f["data.bin"] = strings.Repeat("x", 4096)
	buildZip(t, p, f)
	o := opts(t, pbHome, p)
	o.MaxBytes = 1024
	if _, err := Install(context.Background(), o); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "not a data set") {
		t.Fatalf("err = %v", err)
	}
}

func TestInstallNotAPlugin(t *testing.T) {
	needGit(t)
	_, pbHome := homes(t)
	work := t.TempDir()
	testhome.WriteFile(t, filepath.Join(work, "README.md"), "just a repository\n")
	commitAll(t, work, "one")
	for _, force := range []bool{false, true} {
		o := opts(t, pbHome, work)
		o.Force = force
		_, err := Install(context.Background(), o)
		if !errors.Is(err, ErrNotPlugin) || !strings.Contains(err.Error(), "no plugin.json") {
			t.Fatalf("force=%v: err = %v, want ErrNotPlugin", force, err)
		}
	}
	if ids := catalogIDs(pbHome); len(ids) != 0 {
		t.Errorf("catalog lists %v", ids)
	}
	checkNoLeftovers(t, pbHome)
	if _, err := os.Stat(LockfilePath(pbHome)); err == nil {
		t.Error("a lockfile was written for nothing installed")
	}
}

func TestInstallInvalidRefusedThenForced(t *testing.T) {
	_, pbHome := homes(t)
	src := filepath.Join(t.TempDir(), "bad-plugin")
	writePlugin(t, src, "Bad_Name") // the specification's names are lowercase, no underscore
	_, err := Install(context.Background(), opts(t, pbHome, src))
	var inv *InvalidError
	if !errors.As(err, &inv) || len(inv.Issues) == 0 {
		t.Fatalf("err = %v, want an InvalidError", err)
	}
	if !strings.Contains(err.Error(), "plugin.json") || !strings.Contains(err.Error(), "--force") {
		t.Errorf("the refusal names neither the file nor the fix:\n%v", err)
	}
	if ids := catalogIDs(pbHome); len(ids) != 0 {
		t.Errorf("catalog lists %v after a refusal", ids)
	}
	o := opts(t, pbHome, src)
	o.Force = true
	res, err := Install(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.ID != "bad-plugin" || res.Valid || !res.Forced {
		t.Errorf("forced: %+v (the id of a rejected manifest is the folder's name)", res)
	}
	if ids := catalogIDs(pbHome); !slices.Equal(ids, []string{"bad-plugin"}) {
		t.Errorf("catalog lists %v", ids)
	}
}

func TestInstallFailingFetch(t *testing.T) {
	needGit(t)
	_, pbHome := homes(t)
	base := serveGit(t, t.TempDir(), nil)
	u := base + "/missing.git"
	_, err := Install(context.Background(), opts(t, pbHome, u))
	if err == nil || !strings.Contains(err.Error(), u) || !strings.Contains(err.Error(), "git ls-remote") {
		t.Fatalf("err = %v, want one naming %s and what to try", err, u)
	}
	if _, err := Install(context.Background(), opts(t, pbHome, "no-such-thing")); err == nil || !strings.Contains(err.Error(), "owner/repo") {
		t.Errorf("a bare word: %v", err)
	}
	checkNoLeftovers(t, pbHome)
}

func TestInstallRefusesSubmodulesAndEscapingLinks(t *testing.T) {
	needGit(t)
	_, pbHome := homes(t)
	sub := t.TempDir()
	testhome.WriteFile(t, filepath.Join(sub, "x.txt"), "x")
	commitAll(t, sub, "sub")
	work := t.TempDir()
	writePlugin(t, work, "with-sub")
	commitAll(t, work, "one")
	gitIn(t, work, "submodule", "--quiet", "add", sub, "vendor/sub")
	gitIn(t, work, "commit", "--quiet", "-m", "sub")
	_, err := Install(context.Background(), opts(t, pbHome, work))
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "submodules") {
		t.Fatalf("submodules: err = %v", err)
	}

	work2 := t.TempDir()
	writePlugin(t, work2, "escaper")
	os.Symlink("../../outside", filepath.Join(work2, "skills", "out"))
	commitAll(t, work2, "one")
	_, err = Install(context.Background(), opts(t, pbHome, work2))
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "symbolic link that leaves the plugin folder") {
		t.Fatalf("escaping link: err = %v", err)
	}
	// The same rule for a link out of the --path folder into the rest of the repository.
	work3 := t.TempDir()
	writePlugin(t, filepath.Join(work3, "pkg"), "pkg")
	testhome.WriteFile(t, filepath.Join(work3, "shared.md"), "shared")
	os.Symlink("../shared.md", filepath.Join(work3, "pkg", "shared.md"))
	commitAll(t, work3, "one")
	o := opts(t, pbHome, work3)
	o.Path = "pkg"
	if _, err := Install(context.Background(), o); !errors.Is(err, ErrRefused) {
		t.Fatalf("a link out of --path: err = %v", err)
	}
	if ids := catalogIDs(pbHome); len(ids) != 0 {
		t.Errorf("catalog lists %v", ids)
	}
	checkNoLeftovers(t, pbHome)
}

func TestInstallLockedReplaysIntoSecondHome(t *testing.T) {
	needGit(t)
	_, pbHome := homes(t)
	root := t.TempDir()
	work := t.TempDir()
	writePlugin(t, filepath.Join(work, "plugins", "mono"), "mono")
	first := commitAll(t, work, "one")
	gitIn(t, work, "tag", "v1")
	bare := bareRepo(t, work, root, "mono")
	base := serveGit(t, root, nil)
	o := opts(t, pbHome, base+"/mono.git")
	o.Ref, o.Path = "v1", "plugins/mono"
	if _, err := Install(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	arch := filepath.Join(t.TempDir(), "arch.tar.gz")
	buildTarGz(t, arch, "arch", pluginFiles("arch"))
	if _, err := Install(context.Background(), opts(t, pbHome, arch)); err != nil {
		t.Fatal(err)
	}
	// The tag moves on in the origin: the replay still installs the locked commit.
	testhome.WriteFile(t, filepath.Join(work, "plugins", "mono", "skills", "greet", "SKILL.md"), "---\nname: greet\ndescription: Moved.\n---\nx\n")
	commitAll(t, work, "two")
	gitIn(t, work, "tag", "-f", "v1")
	gitIn(t, work, "push", "--quiet", "--force", "--tags", bare)

	_, second := homes(t)
	lock := LockfilePath(pbHome)
	res, err := InstallLocked(context.Background(), LockedOptions{Home: filepath.Dir(second), PlugboardHome: second, Lockfile: lock})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := ReadLockfile(lock)
	b, _ := ReadLockfile(LockfilePath(second))
	if len(res) != 2 || len(b.Plugins) != 2 {
		t.Fatalf("replayed %d, second lockfile has %d", len(res), len(b.Plugins))
	}
	for id, e := range a.Plugins {
		f := b.Plugins[id]
		if f.Content != e.Content || f.Commit != e.Commit || f.Path != e.Path || f.Source != e.Source {
			t.Errorf("%s: %+v, want %+v", id, f, e)
		}
	}
	if b.Plugins["mono"].Commit != first {
		t.Errorf("mono at %s, want the locked %s", b.Plugins["mono"].Commit, first)
	}
	if got := catalogIDs(second); !slices.Equal(got, []string{"arch", "mono"}) {
		t.Errorf("second home lists %v", got)
	}
	// Replayed again: nothing to do.
	res, err = InstallLocked(context.Background(), LockedOptions{Home: filepath.Dir(second), PlugboardHome: second, Lockfile: lock})
	if err != nil || !res[0].Unchanged || !res[1].Unchanged {
		t.Errorf("second replay: %+v %v", res, err)
	}
}

func TestInstallLockedRefusesTamperedContent(t *testing.T) {
	_, pbHome := homes(t)
	src := installFolder(t, pbHome, "tamper")
	// The source changes after it was locked.
	testhome.WriteFile(t, filepath.Join(src, "skills", "greet", "SKILL.md"), "---\nname: greet\ndescription: Now it does something else.\n---\nrm -rf\n")
	_, second := homes(t)
	_, err := InstallLocked(context.Background(), LockedOptions{Home: filepath.Dir(second), PlugboardHome: second, Lockfile: LockfilePath(pbHome)})
	if !errors.Is(err, ErrTampered) || !strings.Contains(err.Error(), "tampered or changed") {
		t.Fatalf("err = %v, want ErrTampered", err)
	}
	if ids := catalogIDs(second); len(ids) != 0 {
		t.Errorf("second home lists %v", ids)
	}
	// So is a lockfile whose hash was edited.
	raw, _ := os.ReadFile(LockfilePath(pbHome))
	var lf Lockfile
	json.Unmarshal(raw, &lf)
	e := lf.Plugins["tamper"]
	testhome.WriteFile(t, filepath.Join(src, "skills", "greet", "SKILL.md"), "---\nname: greet\ndescription: Greets the user by name.\n---\nSay hello.\n")
	e.Content = "sha256:" + strings.Repeat("0", 64)
	lf.Plugins["tamper"] = e
	edited := filepath.Join(t.TempDir(), "edited.lock.json")
	writeLockfile(edited, lf)
	if _, err := InstallLocked(context.Background(), LockedOptions{Home: filepath.Dir(second), PlugboardHome: second, Lockfile: edited}); !errors.Is(err, ErrTampered) {
		t.Errorf("edited hash: %v", err)
	}
}

func TestUninstallRefusedWhileAssigned(t *testing.T) {
	_, pbHome := homes(t)
	installFolder(t, pbHome, "used")
	testhome.WriteFile(t, filepath.Join(pbHome, "agents", "coder.json"), `{"name": "coder", "pluginDirs": ["plugins/used"]}`)
	uo := UninstallOptions{Home: filepath.Dir(pbHome), PlugboardHome: pbHome, Name: "used"}
	_, err := Uninstall(context.Background(), uo)
	var inUse *InUseError
	if !errors.As(err, &inUse) || !slices.Equal(inUse.Targets, []string{"agent:coder"}) {
		t.Fatalf("err = %v, want it to name agent:coder", err)
	}
	if ids := catalogIDs(pbHome); !slices.Equal(ids, []string{"used"}) {
		t.Errorf("refused, yet the catalog lists %v", ids)
	}
	uo.Force = true
	res, err := Uninstall(context.Background(), uo)
	if err != nil || !res.Locked || !slices.Equal(res.Targets, []string{"agent:coder"}) {
		t.Fatalf("forced: %+v %v", res, err)
	}
	if ids := catalogIDs(pbHome); len(ids) != 0 {
		t.Errorf("catalog lists %v", ids)
	}
	lf, _ := ReadLockfile(LockfilePath(pbHome))
	if _, ok := lf.Plugins["used"]; ok {
		t.Error("the lockfile entry is left")
	}
	checkNoLeftovers(t, pbHome)
	if _, err := Uninstall(context.Background(), uo); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("again: %v", err)
	}
}

func TestUninstallRefusesLinksAndForeignFolders(t *testing.T) {
	_, pbHome := homes(t)
	mine := filepath.Join(pbHome, "plugins", "by-hand")
	writePlugin(t, mine, "by-hand")
	uo := UninstallOptions{Home: filepath.Dir(pbHome), PlugboardHome: pbHome, Name: "by-hand"}
	if _, err := Uninstall(context.Background(), uo); !errors.Is(err, ErrNotOurs) || !strings.Contains(err.Error(), "--force") {
		t.Errorf("a folder install did not make: %v", err)
	}
	src := filepath.Join(t.TempDir(), "linked")
	writePlugin(t, src, "linked")
	if _, err := devlink.Link(src, devlink.Options{Home: filepath.Dir(pbHome), PlugboardHome: pbHome}); err != nil {
		t.Fatal(err)
	}
	uo.Name = "linked"
	if _, err := Uninstall(context.Background(), uo); !errors.Is(err, ErrNotOurs) || !strings.Contains(err.Error(), "plugboard unlink linked") {
		t.Errorf("a link: %v", err)
	}
}

// A staging folder a killed install left is never catalogued and the next install
// removes it; one a live install holds is left alone.
func TestStaleStagingRemovedLiveKept(t *testing.T) {
	_, pbHome := homes(t)
	dir := pluginsDir(pbHome)
	stale := filepath.Join(dir, ".install-stale")
	writePlugin(t, filepath.Join(stale, "ready", "ghost"), "ghost")
	testhome.WriteFile(t, filepath.Join(stale, stagingLock), "")
	live, err := newStaging(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer live.remove()
	if ids := catalogIDs(pbHome); len(ids) != 0 {
		t.Errorf("catalog lists staging folders: %v", ids)
	}
	installFolder(t, pbHome, "next")
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale staging folder is still there: %v", err)
	}
	if _, err := os.Stat(live.dir); err != nil {
		t.Errorf("a live staging folder was removed: %v", err)
	}
}

// --name must stay one word where plugin ids are listed and parsed (a comma split it in
// assign --set; a newline broke every line of output): refused before anything is fetched.
func TestInstallNameStaysOneWord(t *testing.T) {
	for _, name := range []string{"x,y", "a\nb", "two words", "tool@acme"} {
		_, pbHome := homes(t)
		src := t.TempDir()
		writePlugin(t, src, "fine")
		o := opts(t, pbHome, src)
		o.Name = name
		if _, err := Install(context.Background(), o); err == nil || !strings.Contains(err.Error(), "one word") {
			t.Errorf("--name %q: %v", name, err)
		}
		if ids := catalogIDs(pbHome); len(ids) != 0 {
			t.Errorf("--name %q: installed %v", name, ids)
		}
	}
}
