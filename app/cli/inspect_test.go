package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/testhome"
)

// inspect takes a standalone skill folder: the Agent Skills verdict and each client's.
func TestInspectStandaloneSkill(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "greet")
	testhome.WriteFile(t, filepath.Join(dir, "SKILL.md"), "---\nname: greet\ndescription: Says hello\n---\nHi.\n")
	env := map[string]string{"HOME": t.TempDir()}
	code, out, _ := run(t, env, "inspect", dir)
	if code != ExitOK || !strings.Contains(out, dir+": valid skill greet") || !strings.Contains(out, "\nclaude: loads 1 skill") {
		t.Errorf("inspect skill = %d\n%s", code, out)
	}
	testhome.WriteFile(t, filepath.Join(dir, "SKILL.md"), "---\nname: Greet\n---\n")
	code, out, _ = run(t, env, "inspect", "--json", dir)
	var doc struct {
		Kind  string
		Skill struct {
			Name  string
			Valid bool
		}
		Clients map[string]struct{ Loads bool }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if code != ExitInvalid || doc.Kind != "skill" || doc.Skill.Valid || doc.Clients["pi"].Loads || doc.Clients["claude"].Loads {
		t.Errorf("inspect --json invalid skill = %d %+v", code, doc)
	}
}

// inspect takes a marketplace root: each entry's source is checked and every local
// plugin inspected; a broken entry fails the check.
func TestInspectMarketplace(t *testing.T) {
	root := t.TempDir()
	testhome.WriteFile(t, filepath.Join(root, "plugins", "one", ".claude-plugin", "plugin.json"), `{"name": "one"}`)
	testhome.WriteFile(t, filepath.Join(root, "plugins", "one", "skills", "s", "SKILL.md"), "---\nname: s\ndescription: d\n---\n")
	testhome.WriteFile(t, filepath.Join(root, ".claude-plugin", "marketplace.json"), `{"name": "team", "owner": {"name": "T"}, "plugins": [
		{"name": "one", "source": "./plugins/one"},
		{"name": "remote", "source": {"source": "github", "repo": "o/r"}}]}`)
	env := map[string]string{"HOME": t.TempDir()}
	code, out, _ := run(t, env, "inspect", root)
	if code != ExitOK || !strings.Contains(out, "marketplace team; 2 plugins") || !strings.Contains(out, "remote: github source, not fetched") ||
		!strings.Contains(out, "valid legacy plugin one") || !strings.Contains(out, "    claude: loads 1 skill as one") {
		t.Errorf("inspect marketplace = %d\n%s", code, out)
	}
	testhome.WriteFile(t, filepath.Join(root, ".claude-plugin", "marketplace.json"), `{"name": "team", "plugins": [{"name": "gone", "source": "./plugins/gone"}]}`)
	code, out, _ = run(t, env, "inspect", "--json", root)
	var doc struct {
		Kind        string
		Marketplace struct {
			Plugins []struct {
				Name   string
				OK     bool
				Reason string
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if code != ExitInvalid || doc.Kind != "marketplace" || len(doc.Marketplace.Plugins) != 1 || doc.Marketplace.Plugins[0].OK {
		t.Errorf("inspect broken marketplace = %d %+v", code, doc)
	}
}

// launch-as: shows, sets and clears the choice; refused for a valid package.
func TestLaunchAsCommand(t *testing.T) {
	home := t.TempDir()
	pb := filepath.Join(home, ".plugboard")
	dir := filepath.Join(pb, "plugins", "claude-only")
	testhome.WriteFile(t, filepath.Join(dir, "plugin.json"), `{"name": "other"}`)
	testhome.WriteFile(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), `{"name": "claude-only"}`)
	testhome.WriteFile(t, filepath.Join(pb, "plugins", "good", "plugin.json"), strings.Replace(manifest, "%s", "good", 1))
	env := map[string]string{"HOME": home}
	if code, out, _ := run(t, env, "inspect", dir); code != ExitInvalid || !strings.Contains(out, "plugboard launch-as claude-only claude") {
		t.Errorf("inspect says plainly that Claude loads it: %d\n%s", code, out)
	}
	if code, out, _ := run(t, env, "launch-as", "claude-only"); code != ExitOK || !strings.Contains(out, "specification INVALID; claude: loads it; launched as the specification says") {
		t.Errorf("launch-as show = %d %s", code, out)
	}
	if code, _, _ := run(t, env, "launch-as", "claude-only", "claude"); code != ExitOK {
		t.Fatalf("launch-as set = %d", code)
	}
	if code, out, _ := run(t, env, "launch-as", "--json", "claude-only"); code != ExitOK || !strings.Contains(out, `"launchAs": "claude"`) {
		t.Errorf("launch-as --json = %d %s", code, out)
	}
	if code, out, _ := run(t, env, "history"); code != ExitOK || !strings.Contains(out, "launch-as:claude-only") {
		t.Errorf("history = %s", out)
	}
	if code, _, errOut := run(t, env, "launch-as", "good", "claude"); code != ExitInvalid || !strings.Contains(errOut, "valid") {
		t.Errorf("launch-as on a valid package = %d %s", code, errOut)
	}
	if code, _, _ := run(t, env, "launch-as", "claude-only", "off"); code != ExitOK {
		t.Errorf("launch-as off = %d", code)
	}
	if code, _, _ := run(t, env, "launch-as", "claude-only", "cursor"); code != ExitUsage {
		t.Errorf("launch-as cursor = %d, want usage", code)
	}
}
