package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/install"
)

// plugboard update --check, update, rollback and rollback again through the command
// line, on a repository served by git http-backend on 127.0.0.1 that gains a commit.
func TestUpdateAndRollbackCommands(t *testing.T) {
	root, env, pb := installServedGreeter(t)
	write(t, filepath.Join(pb, "agents", "coder.json"), `{"name": "coder", "pluginDirs": ["plugins/greeter"]}`)
	if code, out, _ := run(t, env, "update", "--check"); code != ExitOK || !strings.Contains(out, "greeter: up to date") {
		t.Errorf("check before a commit: exit %d\n%s", code, out)
	}

	// A new commit: a version, a skill and a remote server.
	work := t.TempDir()
	gitCmd(t, "", "clone", "--quiet", filepath.Join(root, "greeter.git"), work)
	write(t, filepath.Join(work, "plugin.json"), `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "greeter", "version": "2.0.0"}`)
	write(t, filepath.Join(work, "skills", "wave", "SKILL.md"), "---\nname: wave\ndescription: Wave\n---\n")
	write(t, filepath.Join(work, "mcp.json"), `{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {"db": {"type": "stdio", "command": "./bin/db", "env": {"K": "PLANTED-SECRET"}}, "api": {"type": "sse", "url": "https://api.example.com/sse?token=PLANTED-QUERY"}}}`)
	gitCmd(t, work, "add", "-A")
	gitCmd(t, work, "commit", "--quiet", "-m", "two")
	gitCmd(t, work, "push", "--quiet", "origin", "HEAD")

	lock := filepath.Join(pb, install.LockfileName)
	lockBefore, _ := os.ReadFile(lock)
	code, out, errs := run(t, env, "update", "--check", "--json", "greeter")
	if code != ExitOK {
		t.Fatalf("update --check: exit %d\n%s", code, errs)
	}
	var doc struct {
		Plugins []install.Update `json:"plugins"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err, out)
	}
	if len(doc.Plugins) != 1 || !doc.Plugins[0].Changed || doc.Plugins[0].Applied || len(doc.Plugins[0].Changes.NeedsAck) != 1 ||
		doc.Plugins[0].Changes.NeedsAck[0].Server != "api" || strings.Join(doc.Plugins[0].Changes.NeedsAck[0].Targets, ",") != "agent:coder" {
		t.Errorf("--check --json: %s", out)
	}
	for _, k := range []string{`"from"`, `"to"`, `"changed"`, `"applied"`, `"changes"`, `"skills"`, `"commands"`, `"servers"`, `"needsAck"`, `"version"`} {
		if !strings.Contains(out, k) {
			t.Errorf("JSON lacks %s: %s", k, out)
		}
	}
	if strings.Contains(out, "PLANTED") {
		t.Errorf("JSON carries a secret: %s", out)
	}
	if b, _ := os.ReadFile(lock); string(b) != string(lockBefore) {
		t.Error("--check wrote the lockfile")
	}
	code, out, errs = run(t, env, "update", "--check")
	if code != ExitOK || !strings.Contains(out, "greeter: update available (version (none) → 2.0.0") || !strings.Contains(out, "skills: added wave") ||
		!strings.Contains(out, "MCP server api (sse, connects to https://api.example.com) needs acknowledgment for agent:coder: plugboard ack agent:coder greeter/api") {
		t.Errorf("update --check: exit %d\n%s%s", code, out, errs)
	}

	code, out, errs = run(t, env, "update")
	if code != ExitOK || !strings.Contains(out, "greeter: updated") || !strings.Contains(out, "plugboard rollback greeter") {
		t.Fatalf("update: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = run(t, env, "rollback", "greeter", "--json")
	var res install.Result
	if code != ExitOK || json.Unmarshal([]byte(out), &res) != nil || !res.Replaced {
		t.Fatalf("rollback: exit %d\n%s%s", code, out, errs)
	}
	var lf install.Lockfile
	json.Unmarshal(lockBefore, &lf)
	if res.Content != lf.Plugins["greeter"].Content {
		t.Errorf("rolled back to %s, want %s", res.Content, lf.Plugins["greeter"].Content)
	}
	if code, out, _ := run(t, env, "rollback", "greeter"); code != ExitOK || !strings.Contains(out, "rollback greeter again") {
		t.Errorf("rollback again: exit %d\n%s", code, out)
	}
	if code, _, errs := run(t, env, "rollback", "nothing"); code != ExitUsage || !strings.Contains(errs, "not installed") {
		t.Errorf("rollback of nothing: exit %d\n%s", code, errs)
	}
	// A plugin with no kept version: a clear refusal, exit 1.
	src := filepath.Join(t.TempDir(), "solo")
	write(t, filepath.Join(src, "plugin.json"), strings.Replace(manifest, "%s", "solo", 1))
	write(t, filepath.Join(src, "skills", "greet", "SKILL.md"), "---\nname: greet\ndescription: Say hello\n---\n")
	if code, _, errs := run(t, env, "install", src); code != ExitOK {
		t.Fatalf("install solo: %s", errs)
	}
	if code, _, errs := run(t, env, "rollback", "solo"); code != ExitInvalid || !strings.Contains(errs, "no previous version") {
		t.Errorf("rollback without a copy: exit %d\n%s", code, errs)
	}
	if code, _, errs := run(t, env, "update", "a", "b"); code != ExitUsage || !strings.Contains(errs, "at most one") {
		t.Errorf("two names: exit %d\n%s", code, errs)
	}
}

// gitCmd runs git in dir with a fixed identity.
func gitCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=T", "-c", "user.email=t@example.com"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// A plugin edited by hand whose source has not changed: update says so in words (not only
// "modified" in --json), keeps the edit and names --restore; update --restore puts the
// source's version back and keeps the edited folder for rollback. The same for a plugin
// pinned to a commit id, which has nothing newer to fetch.
func TestUpdateOfAHandEditedPlugin(t *testing.T) {
	for _, pinned := range []bool{false, true} {
		t.Run(map[bool]string{false: "branch", true: "pinned"}[pinned], func(t *testing.T) {
			var env map[string]string
			var pb string
			if pinned {
				root := t.TempDir()
				installRepo(t, root, "greeter")
				sha, err := exec.Command("git", "--git-dir", filepath.Join(root, "greeter.git"), "rev-parse", "HEAD").Output()
				if err != nil {
					t.Fatal(err)
				}
				url := gitServer(t, root, func() {}) + "/greeter.git"
				env = map[string]string{"HOME": t.TempDir()}
				if code, _, errs := run(t, env, "install", url, "--ref", strings.TrimSpace(string(sha))); code != ExitOK {
					t.Fatalf("install: exit %d\n%s", code, errs)
				}
				pb = filepath.Join(env["HOME"], ".plugboard")
			} else {
				_, env, pb = installServedGreeter(t)
			}
			skills, _ := filepath.Glob(filepath.Join(pb, "plugins", "greeter", "skills", "*", "SKILL.md"))
			if len(skills) == 0 {
				t.Fatal("the installed plugin has no skill to edit")
			}
			orig, _ := os.ReadFile(skills[0])
			edited := string(orig) + "\nA line of my own.\n"
			write(t, skills[0], edited)
			code, out, _ := run(t, env, "update", "greeter")
			if code != ExitOK || !strings.Contains(out, "edited by hand") || !strings.Contains(out, "plugboard update --restore greeter") {
				t.Fatalf("update of an edited plugin: exit %d\n%s", code, out)
			}
			if b, _ := os.ReadFile(skills[0]); string(b) != edited {
				t.Fatalf("the edit was not kept: %q", b)
			}
			code, out, errs := run(t, env, "update", "--restore", "greeter")
			if code != ExitOK || !strings.Contains(out, "restored the source's version") {
				t.Fatalf("update --restore: exit %d\n%s%s", code, out, errs)
			}
			if b, _ := os.ReadFile(skills[0]); string(b) != string(orig) {
				t.Errorf("after --restore the skill is %q", b)
			}
			if code, out, errs := run(t, env, "rollback", "greeter"); code != ExitOK {
				t.Fatalf("rollback: exit %d\n%s%s", code, out, errs)
			}
			if b, _ := os.ReadFile(skills[0]); string(b) != edited {
				t.Errorf("rollback did not return to the edited folder: %q", b)
			}
		})
	}
}

// The text reviews of install and update --check say what Claude Code starts itself from
// a legacy package: an LSP server at the install, an .mcp.json server the update adds.
func TestReviewsSayWhatClaudeStartsItself(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home}
	src := filepath.Join(t.TempDir(), "legacy")
	write(t, filepath.Join(src, ".claude-plugin", "plugin.json"), `{"name": "legacy", "lspServers": {"gopls": {"command": "gopls", "extensionToLanguage": {".go": "go"}}}}`)
	write(t, filepath.Join(src, "skills", "s", "SKILL.md"), "---\nname: s\ndescription: A skill.\n---\n")
	code, out, errs := run(t, env, "install", src)
	if code != ExitOK || !strings.Contains(out, "Claude Code starts these itself") || !strings.Contains(out, "LSP server gopls (.claude-plugin/plugin.json, runs gopls)") {
		t.Fatalf("install: exit %d\n%s%s", code, out, errs)
	}
	write(t, filepath.Join(src, ".mcp.json"), `{"mcpServers": {"db": {"command": "node", "args": ["server.js"]}}}`)
	code, out, errs = run(t, env, "update", "--check", "legacy")
	if code != ExitOK || !strings.Contains(out, "MCP server db added (.mcp.json, runs node)") || strings.Contains(out, "server.js") {
		t.Fatalf("update --check: exit %d\n%s%s", code, out, errs)
	}
}

// installServedGreeter installs the greeter repository, served by git http-backend on
// 127.0.0.1 from root, into a new home through the command line.
func installServedGreeter(t *testing.T) (root string, env map[string]string, pb string) {
	t.Helper()
	root = t.TempDir()
	installRepo(t, root, "greeter")
	url := gitServer(t, root, func() {}) + "/greeter.git"
	home := t.TempDir()
	env = map[string]string{"HOME": home}
	if code, _, errs := run(t, env, "install", url); code != ExitOK {
		t.Fatalf("install: exit %d\n%s", code, errs)
	}
	return root, env, filepath.Join(home, ".plugboard")
}
