package marketplace

import (
	"errors"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/gitexec"
	"github.com/plugboard/plugboard/backend/testhome"
)

const testSHA = "0123456789abcdef0123456789abcdef01234567"

// gitEnv points git at no user or system configuration, so that the tests see git's
// defaults whatever the machine's ~/.gitconfig says; Add's clones inherit it.
func gitEnv(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		testhome.CannotRun(t, "git is not on PATH: %v", err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=Test", "-c", "user.email=test@example.com"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// marketRepo writes a marketplace named name listing a local plugin (alpha), a github
// source pinned by ref and sha (beta), a url source (gamma), a git-subdir source given
// as GitHub owner/name (delta) and an npm package (pkg), commits it in a new git
// repository, and returns the folder and its commit.
func marketRepo(t *testing.T, name string) (dir, commit string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	testhome.WriteFile(t, filepath.Join(dir, "plugins", "alpha", ".claude-plugin", "plugin.json"), `{"name": "alpha", "version": "1.0.0"}`)
	testhome.WriteFile(t, filepath.Join(dir, "plugins", "alpha", "skills", "greet", "SKILL.md"), "---\nname: greet\ndescription: Say hello\n---\n")
	testhome.WriteFile(t, filepath.Join(dir, File), `{
  "name": "`+name+`",
  "owner": {"name": "Team"},
  "plugins": [
    {"name": "alpha", "source": "./plugins/alpha", "version": "1.0.0", "description": "Says hello"},
    {"name": "beta", "source": {"source": "github", "repo": "acme/beta", "ref": "v2", "sha": "`+testSHA+`"}, "strict": false},
    {"name": "gamma", "source": {"source": "url", "url": "https://git.example.com/team/gamma.git"}},
    {"name": "delta", "source": {"source": "git-subdir", "url": "acme/mono", "path": "./tools/delta", "ref": "main"}},
    {"name": "pkg", "source": {"source": "npm", "package": "@acme/pkg", "version": "^1.0.0"}}
  ]
}`)
	git(t, dir, "init", "--quiet")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "--quiet", "-m", "marketplace")
	return dir, git(t, dir, "rev-parse", "HEAD")
}

// entries lists what is in dir, or nothing when it does not exist.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var out []string
	for _, d := range des {
		out = append(out, d.Name())
	}
	return out
}

// One marketplace added from its folder and from its git repository (file://): both
// are recorded, listed with every plugin (installable or why not), and resolve each
// source form to the folder or URL to install from.
func TestAddListResolve(t *testing.T) {
	gitEnv(t)
	pb := t.TempDir()
	dir, commit := marketRepo(t, "team")

	folder, err := Add(pb, dir, AddOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if folder.Name != "team" || folder.Kind != KindFolder || folder.Path != dir || folder.Source != dir || folder.Plugins != 5 || folder.Commit != "" {
		t.Errorf("Add(folder) = %+v", folder)
	}
	cloned, err := Add(pb, "file://"+dir, AddOptions{Name: "team-git"})
	if err != nil {
		t.Fatal(err)
	}
	clone := filepath.Join(pb, "state", "marketplaces", "team-git")
	if cloned.Name != "team-git" || cloned.Kind != KindGit || cloned.Path != clone || cloned.Source != "file://"+dir || cloned.Commit != commit {
		t.Errorf("Add(git) = %+v; want the clone %s at %s", cloned, clone, commit)
	}
	if !Exists(clone) || len(entries(t, filepath.Dir(clone))) != 1 {
		t.Errorf("the clone is not in place alone: %v", entries(t, filepath.Dir(clone)))
	}
	if depth := git(t, clone, "rev-list", "--count", "HEAD"); depth != "1" {
		t.Errorf("the clone is %s commits deep, want a shallow clone of 1", depth)
	}
	reg, err := os.ReadFile(filepath.Join(pb, RegistryFile))
	if err != nil || !strings.Contains(string(reg), `"version": 1`) || !strings.Contains(string(reg), `"addedAt"`) {
		t.Errorf("%s = %s, %v", RegistryFile, reg, err)
	}

	list, err := List(pb)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Name != "team" || list[1].Name != "team-git" {
		t.Fatalf("List = %+v", list)
	}
	for _, m := range list {
		if len(m.Plugins) != 5 || len(m.Issues) != 0 {
			t.Fatalf("%s lists %+v, issues %v", m.Name, m.Plugins, m.Issues)
		}
		for _, p := range m.Plugins {
			if p.OK != (p.Name != "pkg") {
				t.Errorf("%s@%s installable = %v (%s)", p.Name, m.Name, p.OK, p.Reason)
			}
		}
		if p := m.Plugins[0]; p.Version != "1.0.0" || p.Description != "Says hello" || p.Source.Kind != "path" {
			t.Errorf("alpha@%s = %+v", m.Name, p)
		}
		if p := m.Plugins[4]; !strings.Contains(p.Reason, "npm sources are not installed by Plugboard") {
			t.Errorf("pkg@%s reason = %q", m.Name, p.Reason)
		}
	}

	for id, want := range map[string]Resolved{
		"alpha@team":     {Source: filepath.Join(dir, "plugins", "alpha"), Local: true, Version: "1.0.0", Strict: true},
		"alpha@team-git": {Source: filepath.Join(clone, "plugins", "alpha"), Local: true, Version: "1.0.0", Strict: true},
		"beta@team":      {Source: "https://github.com/acme/beta.git", Ref: "v2", SHA: testSHA},
		"gamma@team-git": {Source: "https://git.example.com/team/gamma.git", Strict: true},
		"delta@team":     {Source: "https://github.com/acme/mono.git", Ref: "main", Path: "tools/delta", Strict: true},
	} {
		want.Plugin, want.Marketplace, _ = strings.Cut(id, "@")
		got, err := Resolve(pb, id)
		if err != nil || got != want {
			t.Errorf("Resolve(%s) = %+v, %v; want %+v", id, got, err, want)
		}
	}
	for id, want := range map[string]struct {
		err  error
		says []string
	}{
		"alpah@team":  {ErrUnknownPlugin, []string{`marketplace "team" lists no plugin "alpah"`, `did you mean "alpha"`}},
		"alpha@tema":  {ErrNotAdded, []string{`"tema" is not an added marketplace`, `did you mean "team"`, "added: team, team-git"}},
		"pkg@team":    {ErrNotInstallable, []string{"pkg@team", `marketplace "team"`, "npm sources"}},
		"alpha":       {nil, []string{"give PLUGIN@MARKETPLACE"}},
		"alpha@a@b":   {nil, []string{"give PLUGIN@MARKETPLACE"}},
		"@team":       {nil, []string{"give PLUGIN@MARKETPLACE"}},
		"alpha@team@": {nil, []string{"give PLUGIN@MARKETPLACE"}},
	} {
		_, err := Resolve(pb, id)
		if err == nil || want.err != nil && !errors.Is(err, want.err) {
			t.Errorf("Resolve(%s) = %v; want %v", id, err, want.err)
			continue
		}
		for _, s := range want.says {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("Resolve(%s) = %q; want it to say %q", id, err, s)
			}
		}
	}
}

// Refusals write nothing: a folder with no marketplace file, a file with errors (listed
// with file and line), a name already added (from a folder, and from a clone, whose
// staging folder is deleted).
func TestAddRefused(t *testing.T) {
	gitEnv(t)
	pb := t.TempDir()
	empty := t.TempDir()
	if _, err := Add(pb, empty, AddOptions{}); !errors.Is(err, ErrNoMarketplace) || !strings.Contains(err.Error(), empty) {
		t.Errorf("Add(no marketplace file) = %v", err)
	}
	if _, err := Add(pb, filepath.Join(empty, "gone"), AddOptions{}); err == nil || !strings.Contains(err.Error(), "no such folder") {
		t.Errorf("Add(missing folder) = %v", err)
	}
	broken := t.TempDir()
	testhome.WriteFile(t, filepath.Join(broken, File), "{\n  \"name\": \"broken\",\n  \"plugins\": [\n    {\"name\": \"gone\", \"source\": \"./plugins/gone\"}\n  ]\n}\n")
	_, err := Add(pb, broken, AddOptions{})
	var inv *InvalidError
	if !errors.As(err, &inv) || !errors.Is(err, ErrInvalid) || len(inv.Issues) != 1 {
		t.Fatalf("Add(broken) = %v", err)
	}
	if i := inv.Issues[0]; i.Path != filepath.Join(broken, File) || i.Line != 4 || !strings.Contains(i.Message, "does not exist") {
		t.Errorf("the issue = %+v; want the file, line 4 and the reason", i)
	}
	if got := entries(t, pb); len(got) != 0 {
		t.Errorf("a refused add wrote %v", got)
	}
	if _, err := Add(pb, broken, AddOptions{Name: "../up"}); err == nil || !strings.Contains(err.Error(), "--name") {
		t.Errorf("Add(--name ../up) = %v", err)
	}

	dir, _ := marketRepo(t, "team")
	if _, err := Add(pb, dir, AddOptions{}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(pb, RegistryFile))
	for _, source := range []string{dir, "file://" + dir} {
		_, err := Add(pb, source, AddOptions{})
		if !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "plugboard marketplace remove team") || !strings.Contains(err.Error(), "--name") {
			t.Errorf("Add(%s) again = %v; want it refused, saying how to remove the first", source, err)
		}
	}
	if _, err := Add(pb, "file://"+dir, AddOptions{Name: "team"}); !errors.Is(err, ErrExists) {
		t.Errorf("Add(--name team) = %v", err)
	}
	after, _ := os.ReadFile(filepath.Join(pb, RegistryFile))
	if string(before) != string(after) {
		t.Errorf("a refused add changed %s:\n%s", RegistryFile, after)
	}
	if got := entries(t, filepath.Join(pb, "state", "marketplaces")); len(got) != 0 {
		t.Errorf("a refused clone left %v", got)
	}
}

// Remove deletes a clone but never a folder added in place; an unknown name is refused
// with the names that are added.
func TestRemove(t *testing.T) {
	gitEnv(t)
	pb := t.TempDir()
	dir, _ := marketRepo(t, "team")
	for _, o := range []struct{ source, name string }{{dir, ""}, {"file://" + dir, "team-git"}} {
		if _, err := Add(pb, o.source, AddOptions{Name: o.name}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Remove(pb, "tem"); !errors.Is(err, ErrNotAdded) || !strings.Contains(err.Error(), `did you mean "team"`) {
		t.Errorf("Remove(tem) = %v", err)
	}
	gone, err := Remove(pb, "team")
	if err != nil || gone.Kind != KindFolder || gone.Path != dir {
		t.Fatalf("Remove(team) = %+v, %v", gone, err)
	}
	if !Exists(dir) {
		t.Errorf("Remove deleted the folder %s it only referenced", dir)
	}
	clone := filepath.Join(pb, "state", "marketplaces", "team-git")
	if gone, err = Remove(pb, "team-git"); err != nil || gone.Path != clone {
		t.Fatalf("Remove(team-git) = %+v, %v", gone, err)
	}
	if _, err := os.Stat(clone); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the clone %s is still there: %v", clone, err)
	}
	if list, err := List(pb); err != nil || len(list) != 0 {
		t.Errorf("List after removing both = %+v, %v", list, err)
	}
	if _, err := Resolve(pb, "alpha@team"); !errors.Is(err, ErrNotAdded) || !strings.Contains(err.Error(), "no marketplace is added") {
		t.Errorf("Resolve after remove = %v", err)
	}
}

// A clone that fails leaves nothing behind and names the URL, without its password.
func TestAddFailingClone(t *testing.T) {
	gitEnv(t)
	pb := t.TempDir()
	missing := filepath.Join(t.TempDir(), "no-such-repo")
	for _, source := range []string{"file://" + missing, "https://someone:s3cret@127.0.0.1:1/team.git"} {
		_, err := Add(pb, source, AddOptions{})
		shown, _ := gitexec.StripUserinfo(source)
		if err == nil || !strings.Contains(err.Error(), "git clone "+shown) || !strings.Contains(err.Error(), "nothing was added") {
			t.Errorf("Add(%s) = %v; want a clone error naming %s", source, err, shown)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("the error shows the password: %v", err)
		}
	}
	if got := entries(t, filepath.Join(pb, "state", "marketplaces")); len(got) != 0 {
		t.Errorf("a failed clone left %v", got)
	}
	if _, err := os.Stat(filepath.Join(pb, RegistryFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed clone wrote %s: %v", RegistryFile, err)
	}
	if _, err := Add(pb, "ext::sh -c touch% /tmp/x", AddOptions{}); err == nil {
		t.Errorf("Add(ext::) was accepted")
	}
}

// A marketplace served over smart HTTP (git http-backend behind net/http/cgi on
// 127.0.0.1) is cloned at a branch given as #REF; the user name and password in the URL
// are stripped, said so, and stored nowhere.
func TestAddOverHTTP(t *testing.T) {
	gitEnv(t)
	dir, _ := marketRepo(t, "served")
	git(t, dir, "checkout", "--quiet", "-b", "release")
	testhome.WriteFile(t, filepath.Join(dir, "plugins", "alpha", "NOTES"), "release only\n")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "--quiet", "-m", "release")
	release := git(t, dir, "rev-parse", "HEAD")
	git(t, dir, "checkout", "--quiet", "-")
	served := t.TempDir()
	git(t, served, "clone", "--quiet", "--bare", dir, filepath.Join(served, "market.git"))

	execPath := git(t, served, "--exec-path")
	backend := filepath.Join(execPath, "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		testhome.CannotRun(t, "git-http-backend is not installed: %v", err)
	}
	srv := httptest.NewServer(&cgi.Handler{Path: backend, Env: []string{"GIT_PROJECT_ROOT=" + served, "GIT_HTTP_EXPORT_ALL=1"}})
	defer srv.Close()
	url := strings.Replace(srv.URL, "http://", "http://someone:s3cret@", 1) + "/market.git"

	pb := t.TempDir()
	res, err := Add(pb, url+"#release", AddOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Name != "served" || res.Source != srv.URL+"/market.git" || res.Ref != "release" || res.Commit != release {
		t.Errorf("Add(http) = %+v; want %s/market.git at release %s", res, srv.URL, release)
	}
	if len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "stripped") {
		t.Errorf("the warnings do not say the password was stripped: %v", res.Warnings)
	}
	if _, err := os.Stat(filepath.Join(res.Path, "plugins", "alpha", "NOTES")); err != nil {
		t.Errorf("the clone is not of the release branch: %v", err)
	}
	for _, p := range []string{filepath.Join(pb, RegistryFile), filepath.Join(res.Path, ".git", "config")} {
		if b, err := os.ReadFile(p); err != nil || strings.Contains(string(b), "s3cret") || strings.Contains(string(b), "someone") {
			t.Errorf("%s holds the user name or password (or cannot be read: %v)", p, err)
		}
	}
}
