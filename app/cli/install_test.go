package cli

import (
	"encoding/json"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/install"
	"github.com/plugboard/plugboard/backend/testhome"
)

// installRepo commits a valid plugin called name in a new repository and returns a bare
// clone of it under root (root/name.git).
func installRepo(t *testing.T, root, name string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		testhome.CannotRun(t, "git is not on PATH: %v", err)
	}
	work := t.TempDir()
	write(t, filepath.Join(work, "plugin.json"), strings.Replace(manifest, "%s", name, 1))
	write(t, filepath.Join(work, "skills", "greet", "SKILL.md"), "---\nname: greet\ndescription: Say hello\n---\n")
	write(t, filepath.Join(work, "mcp.json"), `{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {"db": {"type": "stdio", "command": "./bin/db", "env": {"K": "PLANTED-SECRET"}}}}`)
	for _, args := range [][]string{{"init", "--quiet"}, {"add", "-A"}, {"commit", "--quiet", "-m", "one"}, {"clone", "--quiet", "--bare", work, filepath.Join(root, name+".git")}} {
		cmd := exec.Command("git", append([]string{"-c", "user.name=T", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = work
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// gitServer serves root over smart HTTP with git http-backend on 127.0.0.1. gate runs
// first in every request.
func gitServer(t *testing.T, root string, gate func()) string {
	t.Helper()
	out, err := exec.Command("git", "--exec-path").Output()
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, serr := os.Stat(backend); err != nil || serr != nil {
		testhome.CannotRun(t, "git-http-backend is not installed: %v %v", err, serr)
	}
	h := &cgi.Handler{Path: backend, Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gate()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestInstallCommandJSONAndUninstall(t *testing.T) {
	root := t.TempDir()
	installRepo(t, root, "greeter")
	url := gitServer(t, root, func() {}) + "/greeter.git"
	home := t.TempDir()
	env := map[string]string{"HOME": home}
	code, out, errs := run(t, env, "install", url, "--json")
	if code != ExitOK {
		t.Fatalf("install: exit %d\n%s", code, errs)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err, out)
	}
	for _, k := range []string{"id", "path", "source", "commit", "content", "valid", "issues", "servers"} {
		if _, ok := res[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, out)
		}
	}
	if res["id"] != "greeter" || res["valid"] != true || strings.Contains(out, "PLANTED") {
		t.Errorf("JSON %s", out)
	}
	if !strings.Contains(errs, "installed "+url+" as plugins/greeter") {
		t.Errorf("stderr lacks the progress lines:\n%s", errs)
	}
	if code, _, errs := run(t, env, "install", url); code != ExitInvalid || !strings.Contains(errs, "--force") {
		t.Errorf("again: exit %d\n%s", code, errs)
	}
	// A person's output names the server to review.
	code, out, _ = run(t, env, "install", url, "--force", "--name", "second")
	if code != ExitOK || !strings.Contains(out, "db: stdio, runs db") || !strings.Contains(out, "not acknowledged") {
		t.Errorf("install --name second: exit %d\n%s", code, out)
	}
	write(t, filepath.Join(home, ".plugboard", "agents", "coder.json"), `{"name": "coder", "pluginDirs": ["plugins/greeter"]}`)
	if code, _, errs := run(t, env, "uninstall", "greeter"); code != ExitInvalid || !strings.Contains(errs, "agent:coder") {
		t.Errorf("uninstall while assigned: exit %d\n%s", code, errs)
	}
	if code, out, errs := run(t, env, "uninstall", "greeter", "--force", "--json"); code != ExitOK || !strings.Contains(out, `"agent:coder"`) {
		t.Errorf("uninstall --force: exit %d\n%s%s", code, out, errs)
	}
	// Replayed into a second home.
	other := t.TempDir()
	lock := filepath.Join(home, ".plugboard", install.LockfileName)
	if code, out, errs := run(t, map[string]string{"HOME": other}, "install", "--locked", lock, "--json"); code != ExitOK || !strings.Contains(out, `"second"`) {
		t.Errorf("--locked: exit %d\n%s%s", code, out, errs)
	}
}

// A plugboard install killed while git fetches leaves nothing in the catalog, and the
// next install removes what it left. The git server blocks the fetch until the test has
// killed the process, so the kill lands mid-install.
func TestInstallKilledMidFetch(t *testing.T) {
	bin := testBinary(t)
	root := t.TempDir()
	installRepo(t, root, "slow")
	reached, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	blocking := true
	var mu sync.Mutex
	url := gitServer(t, root, func() {
		mu.Lock()
		b := blocking
		mu.Unlock()
		if b {
			once.Do(func() { close(reached) })
			<-release
		}
	}) + "/slow.git"
	home := t.TempDir()
	pb := filepath.Join(home, ".plugboard")
	cmd := exec.Command(bin, "install", url, "--home", pb)
	cmd.Env = append(os.Environ(), "HOME="+home)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	<-reached // git is fetching: the staging folder exists
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	mu.Lock()
	blocking = false
	mu.Unlock()
	close(release)

	staged, _ := filepath.Glob(filepath.Join(pb, "plugins", ".install-*"))
	if len(staged) == 0 {
		t.Fatal("no staging folder: the kill did not land during the install")
	}
	c := catalog.Load(catalog.Options{Home: home, PlugboardHome: pb})
	if len(c.Plugins) != 0 {
		t.Errorf("after the kill the catalog lists %d plugins", len(c.Plugins))
	}
	if _, err := os.Stat(filepath.Join(pb, install.LockfileName)); err == nil {
		t.Error("after the kill a lockfile exists")
	}
	code, _, errs := run(t, map[string]string{"HOME": home}, "install", url)
	if code != ExitOK {
		t.Fatalf("the next install: exit %d\n%s", code, errs)
	}
	for _, s := range staged {
		if _, err := os.Stat(s); err == nil {
			t.Errorf("the next install left %s", s)
		}
	}
	if c := catalog.Load(catalog.Options{Home: home, PlugboardHome: pb}); len(c.Plugins) != 1 || c.Plugins[0].ID != "slow" {
		t.Errorf("after the next install: %d plugins", len(c.Plugins))
	}
}
