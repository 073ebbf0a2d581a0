package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/testhome"
)

// plugboard marketplace add (a folder, and its git repository by file://), list (people
// and --json) and remove, with the exit codes of the refusals.
func TestMarketplaceCommand(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		testhome.CannotRun(t, "git is not on PATH: %v", err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "plugins", "alpha", ".claude-plugin", "plugin.json"), `{"name": "alpha"}`)
	write(t, filepath.Join(dir, ".claude-plugin", "marketplace.json"), `{"name": "team", "owner": {"name": "T"}, "plugins": [
		{"name": "alpha", "source": "./plugins/alpha", "version": "1.0.0", "description": "Says hello"},
		{"name": "beta", "source": {"source": "github", "repo": "acme/beta"}},
		{"name": "pkg", "source": {"source": "npm", "package": "p"}}]}`)
	for _, args := range [][]string{{"init", "--quiet"}, {"add", "."}, {"-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "m"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	home := t.TempDir()
	env := map[string]string{"HOME": home}

	code, out, errOut := run(t, env, "marketplace", "add", dir)
	if code != ExitOK || !strings.Contains(out, "added marketplace team (folder "+dir+"): 3 plugins") {
		t.Fatalf("marketplace add DIR = %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = run(t, env, "marketplace", "add", "--json", "file://"+dir, "--name", "team-git")
	var added struct{ Name, Kind, Path, Commit string }
	if code != ExitOK || json.Unmarshal([]byte(out), &added) != nil || added.Name != "team-git" || added.Kind != "git" || len(added.Commit) != 40 {
		t.Fatalf("marketplace add --json URL = %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut = run(t, env, "marketplace", "add", dir); code != ExitInvalid || !strings.Contains(errOut, "plugboard marketplace remove team") {
		t.Errorf("a second add of team = %d\n%s", code, errOut)
	}
	if code, _, errOut = run(t, env, "marketplace", "add", t.TempDir()); code != ExitInvalid || !strings.Contains(errOut, "holds no .claude-plugin/marketplace.json") {
		t.Errorf("add of an empty folder = %d\n%s", code, errOut)
	}
	if code, _, errOut = run(t, env, "marketplace", "add", "file://"+filepath.Join(dir, "nope")); code != ExitUsage || !strings.Contains(errOut, "git clone file://") {
		t.Errorf("add of a bad URL = %d\n%s", code, errOut)
	}

	code, out, _ = run(t, env, "marketplace", "list")
	for _, want := range []string{"team  folder " + dir + ": 3 plugins", "  alpha@team 1.0.0  ./plugins/alpha; installable — Says hello",
		"  beta@team  github acme/beta; installable", "  pkg@team  npm p; not installable: npm sources", "team-git  git file://" + dir + " at "} {
		if !strings.Contains(out, want) {
			t.Errorf("marketplace list lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = run(t, env, "marketplace", "list", "--json")
	var doc struct {
		Marketplaces []struct {
			Name, Source, Kind, Path, Commit string
			Plugins                          []struct {
				Name, Version, Description string
				Source                     struct{ Kind, Path, Repo string }
				OK                         bool
				Reason                     string
			}
		}
	}
	if code != ExitOK || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Marketplaces) != 2 || len(doc.Marketplaces[1].Plugins) != 3 {
		t.Fatalf("marketplace list --json = %d\n%s", code, out)
	}
	if p := doc.Marketplaces[0].Plugins[1]; p.Name != "beta" || p.Source.Kind != "github" || p.Source.Repo != "acme/beta" || !p.OK {
		t.Errorf("beta in --json = %+v", p)
	}
	if m := doc.Marketplaces[1]; m.Kind != "git" || m.Path != added.Path || m.Commit != added.Commit || doc.Marketplaces[0].Plugins[2].OK {
		t.Errorf("--json = %+v", doc)
	}

	if code, _, errOut = run(t, env, "marketplace", "remove", "nope"); code != ExitInvalid || !strings.Contains(errOut, "added: team, team-git") {
		t.Errorf("remove of an unknown name = %d\n%s", code, errOut)
	}
	if code, out, _ = run(t, env, "marketplace", "remove", "team-git"); code != ExitOK || !strings.Contains(out, "its clone "+added.Path+" is deleted") {
		t.Errorf("remove team-git = %d\n%s", code, out)
	}
	if code, out, _ = run(t, env, "marketplace", "remove", "--json", "team"); code != ExitOK || !strings.Contains(out, `"deleted": false`) {
		t.Errorf("remove --json team = %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, ".claude-plugin", "marketplace.json")); err != nil {
		t.Errorf("remove touched the folder: %v", err)
	}
	if code, out, _ = run(t, env, "marketplace", "list"); code != ExitOK || !strings.Contains(out, "no marketplace is added") {
		t.Errorf("list after remove = %d\n%s", code, out)
	}
	if code, _, errOut = run(t, env, "marketplace", "update"); code != ExitUsage || !strings.Contains(errOut, `unknown subcommand "update"`) {
		t.Errorf("marketplace update = %d\n%s", code, errOut)
	}
}
