package catalog

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/plugboard/plugboard/backend/testhome"
)

// Nothing is silent (F10): what cannot be read, parsed or used is an issue naming the file
// and the fix, never a plugin, skill or server that quietly is not there.

// TestBrokenUserMCPIsAnIssue: ~/.cursor/mcp.json with a syntax error, an invalid server, or
// a FIFO in its place is reported; its good servers still merge.
func TestBrokenUserMCPIsAnIssue(t *testing.T) {
	for name, tc := range map[string]struct {
		write func(t *testing.T, p string)
		code  string
	}{
		"syntax": {func(t *testing.T, p string) { testhome.WriteFile(t, p, "{\n  \"mcpServers\": {\n") }, "mcp."},
		"server": {func(t *testing.T, p string) {
			testhome.WriteFile(t, p, `{"mcpServers": {"good": {"command": "ok"}, "bad": {"command": 3}}}`)
		}, "mcp."},
		"fifo": {func(t *testing.T, p string) {
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "mcp."},
	} {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			p := filepath.Join(home, ".cursor", "mcp.json")
			tc.write(t, p)
			c := Load(Options{Home: home, PlugboardHome: filepath.Join(home, ".plugboard")})
			found := false
			for _, i := range c.Issues {
				found = found || i.Path == p && strings.HasPrefix(i.Code, tc.code) && i.Message != ""
			}
			if !found {
				t.Errorf("no issue on %s: %v", p, c.Issues)
			}
			if name == "server" && (len(c.MCP) != 1 || c.MCP[0].Name != "good") {
				t.Errorf("the good server does not merge: %+v", c.MCP)
			}
		})
	}
}

// TestUnreadableFoldersAreIssues runs the catalog as a user that is not root (root reads
// anything) over a home with a skill folder, a skill root's parent and a plugin folder of
// mode 000: each is an issue naming the folder, and the plugin is not called "no manifest".
func TestUnreadableFoldersAreIssues(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	pb := filepath.Join(home, ".plugboard")
	skillMD := func(d, name string) {
		testhome.WriteFile(t, filepath.Join(d, "SKILL.md"), "---\nname: "+name+"\ndescription: A skill. Use it.\n---\nBody.\n")
	}
	skillMD(filepath.Join(home, ".claude", "skills", "fine"), "fine")
	skillMD(filepath.Join(home, ".claude", "skills", "locked"), "locked")
	skillMD(filepath.Join(home, ".agents", "skills", "hidden"), "hidden")
	testhome.WriteFile(t, filepath.Join(pb, "plugins", "locked-plugin", ".claude-plugin", "plugin.json"), `{"name": "locked-plugin"}`)
	locked := []string{filepath.Join(home, ".claude", "skills", "locked"), filepath.Join(home, ".agents"), filepath.Join(pb, "plugins", "locked-plugin")}
	t.Cleanup(func() {
		for _, d := range locked {
			os.Chmod(d, 0o755)
		}
	})
	reach := []string{dir, home, filepath.Join(home, ".claude"), filepath.Join(home, ".claude", "skills"), filepath.Join(home, ".claude", "skills", "fine"), pb, filepath.Join(pb, "plugins")}
	for _, d := range reach {
		os.Chmod(d, 0o755)
	}
	for _, d := range locked {
		if err := os.Chmod(d, 0); err != nil {
			t.Fatal(err)
		}
	}
	out := testhome.AsNonRoot(t, "TestUnreadableFoldersHelper", home, reach...)
	var got []string
	if err := json.Unmarshal(out[strings.IndexByte(string(out), '['):strings.LastIndexByte(string(out), ']')+1], &got); err != nil {
		t.Fatalf("helper output %q: %v", out, err)
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		CodeSkillUnreadable + " " + locked[0],
		CodeRootUnreadable + " " + filepath.Join(home, ".agents", "skills"),
		CodeFolderUnreadable + " " + locked[2],
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no issue %q in\n%s", want, all)
		}
	}
	if strings.Contains(all, "manifest") {
		t.Errorf("the unreadable plugin is reported as having no manifest:\n%s", all)
	}
}

// TestUnreadableFoldersHelper is TestUnreadableFoldersAreIssues's non-root part: it loads
// the catalog of the home named by testhome.NonRootEnv and prints every issue as
// "code path: message".
func TestUnreadableFoldersHelper(t *testing.T) {
	home := os.Getenv(testhome.NonRootEnv)
	if home == "" {
		return // run by TestUnreadableFoldersAreIssues
	}
	c := Load(Options{Home: home, PlugboardHome: filepath.Join(home, ".plugboard")})
	var lines []string
	add := func(code, path, msg string) { lines = append(lines, code+" "+path+": "+msg) }
	for _, i := range c.Issues {
		add(i.Code, i.Path, i.Message)
	}
	for _, p := range c.Plugins {
		for _, i := range p.AllIssues() {
			add(i.Code, filepath.Join(p.Path, i.Path), i.Message)
		}
	}
	for _, s := range c.Skills {
		for _, i := range s.Issues {
			add(i.Code, filepath.Dir(s.Path), i.Message)
		}
	}
	b, _ := json.Marshal(lines)
	fmt.Println(string(b))
}

// A file where a catalog root should be ($PLUGBOARD_HOME/plugins, a skills folder) is an
// error naming it and the fix, not an empty catalog with no word; a root under a file
// (no such folder can exist) is as quiet as a missing one.
func TestAFileWhereARootShouldBe(t *testing.T) {
	home := t.TempDir()
	pb := filepath.Join(home, ".plugboard")
	testhome.WriteFile(t, filepath.Join(pb, "plugins"), "x")
	testhome.WriteFile(t, filepath.Join(home, ".claude", "skills"), "x")
	testhome.WriteFile(t, filepath.Join(home, ".agents"), "x") // ~/.agents/skills under a file
	c := Load(Options{Home: home, PlugboardHome: pb})
	var got []string
	for _, i := range c.Issues {
		got = append(got, i.Code+" "+i.Path)
		if i.Code == CodeRootUnreadable && !strings.Contains(i.Message, "is a file, not a folder") {
			t.Errorf("%s: %s", i.Path, i.Message)
		}
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{CodeRootUnreadable + " " + filepath.Join(pb, "plugins"), CodeRootUnreadable + " " + filepath.Join(home, ".claude", "skills")} {
		if !strings.Contains(all, want) {
			t.Errorf("no issue %q in\n%s", want, all)
		}
	}
	if strings.Contains(all, ".agents") {
		t.Errorf("a root under a file is reported:\n%s", all)
	}
}
