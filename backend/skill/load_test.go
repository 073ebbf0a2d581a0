package skill

import (
	"fmt"
	"github.com/plugboard/plugboard/backend/testhome"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/pathsafe"
)

const goodSkill = "---\nname: greet\ndescription: Greets the user\n---\nBody\n"

// loadTests cover reading SKILL.md: each case builds a plugin folder in t.TempDir() with
// setup and loads the skill folder setup returns.
var loadTests = []struct {
	name   string
	setup  func(t *testing.T, plugin, outside string) string // returns the skill folder
	noRoot bool                                              // judge as a standalone skill
	code   string                                            // "" for a valid skill
	msg    string                                            // a phrase the issue message must contain
}{
	{name: "valid", setup: func(t *testing.T, plugin, _ string) string {
		return skillDir(t, filepath.Join(plugin, "skills"), "greet", goodSkill)
	}},
	{name: "missing-skill-md", code: CodeMissing, msg: "add one", setup: func(t *testing.T, plugin, _ string) string {
		dir := filepath.Join(plugin, "skills", "greet")
		writeFile(t, filepath.Join(dir, ".gitkeep"), "")
		return dir
	}},
	{name: "lowercase-skill-md", code: CodeMissing, msg: "rename it to SKILL.md", setup: func(t *testing.T, plugin, _ string) string {
		dir := filepath.Join(plugin, "skills", "greet")
		writeFile(t, filepath.Join(dir, "skill.md"), goodSkill)
		return dir
	}},
	{name: "folder-missing", code: CodeMissing, msg: "does not exist", setup: func(t *testing.T, plugin, _ string) string {
		return filepath.Join(plugin, "skills", "greet")
	}},
	{name: "folder-is-a-file", code: CodeMissing, msg: "not a folder", setup: func(t *testing.T, plugin, _ string) string {
		p := filepath.Join(plugin, "skills", "greet")
		writeFile(t, p, "x")
		return p
	}},
	{name: "folder-is-a-fifo", code: CodeMissing, msg: "not a folder", setup: func(t *testing.T, plugin, _ string) string {
		p := filepath.Join(plugin, "skills", "greet")
		mkdirs(t, filepath.Dir(p))
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			testhome.CannotRun(t, "mkfifo: %v", err)
		}
		return p
	}},
	{name: "skill-md-is-a-folder", code: CodeNotRegular, msg: "not a regular file", setup: func(t *testing.T, plugin, _ string) string {
		dir := filepath.Join(plugin, "skills", "greet")
		mkdirs(t, filepath.Join(dir, FileName))
		return dir
	}},
	{name: "skill-md-is-a-fifo", code: CodeNotRegular, setup: func(t *testing.T, plugin, _ string) string {
		dir := filepath.Join(plugin, "skills", "greet")
		mkdirs(t, dir)
		if err := syscall.Mkfifo(filepath.Join(dir, FileName), 0o644); err != nil {
			testhome.CannotRun(t, "mkfifo: %v", err)
		}
		return dir
	}},
	{name: "skill-md-2MB", code: CodeTooLarge, msg: "shrink it", setup: func(t *testing.T, plugin, _ string) string {
		return skillDir(t, filepath.Join(plugin, "skills"), "greet", goodSkill+strings.Repeat("x", 2<<20))
	}},
	{name: "skill-md-symlink-inside-root", setup: func(t *testing.T, plugin, _ string) string {
		writeFile(t, filepath.Join(plugin, "shared", "greet.md"), goodSkill)
		dir := filepath.Join(plugin, "skills", "greet")
		mkdirs(t, dir)
		mustSymlink(t, "../../shared/greet.md", filepath.Join(dir, FileName))
		return dir
	}},
	{name: "skill-md-symlink-escapes-root", code: CodeEscapesRoot, msg: "outside the plugin folder", setup: func(t *testing.T, plugin, outside string) string {
		writeFile(t, filepath.Join(outside, "greet.md"), goodSkill)
		dir := filepath.Join(plugin, "skills", "greet")
		mkdirs(t, dir)
		mustSymlink(t, filepath.Join(outside, "greet.md"), filepath.Join(dir, FileName))
		return dir
	}},
	{name: "skill-folder-symlink-escapes-root", code: CodeEscapesRoot, setup: func(t *testing.T, plugin, outside string) string {
		skillDir(t, outside, "greet", goodSkill)
		mkdirs(t, filepath.Join(plugin, "skills"))
		mustSymlink(t, filepath.Join(outside, "greet"), filepath.Join(plugin, "skills", "greet"))
		return filepath.Join(plugin, "skills", "greet")
	}},
	{name: "standalone-folder-symlink-elsewhere", noRoot: true, setup: func(t *testing.T, plugin, outside string) string {
		skillDir(t, outside, "real-greet", goodSkill) // the folder name comes from the link, not the target
		mkdirs(t, filepath.Join(plugin, "skills"))
		mustSymlink(t, filepath.Join(outside, "real-greet"), filepath.Join(plugin, "skills", "greet"))
		return filepath.Join(plugin, "skills", "greet")
	}},
	{name: "skill-md-symlink-loop", code: CodeSymlinkLoop, msg: "loop", setup: func(t *testing.T, plugin, _ string) string {
		dir := filepath.Join(plugin, "skills", "greet")
		mkdirs(t, dir)
		mustSymlink(t, FileName, filepath.Join(dir, FileName))
		return dir
	}},
	{name: "skill-md-symlink-loop-standalone", noRoot: true, code: CodeSymlinkLoop, setup: func(t *testing.T, plugin, _ string) string {
		dir := filepath.Join(plugin, "skills", "greet")
		mkdirs(t, dir)
		mustSymlink(t, "other", filepath.Join(dir, FileName))
		mustSymlink(t, FileName, filepath.Join(dir, "other"))
		return dir
	}},
	{name: "skill-folder-symlink-loop", noRoot: true, code: CodeSymlinkLoop, setup: func(t *testing.T, plugin, _ string) string {
		mkdirs(t, filepath.Join(plugin, "skills"))
		mustSymlink(t, "greet", filepath.Join(plugin, "skills", "greet"))
		return filepath.Join(plugin, "skills", "greet")
	}},
	{name: "skill-md-dangling-symlink", code: CodeMissing, msg: "dangling", noRoot: true, setup: func(t *testing.T, plugin, _ string) string {
		dir := filepath.Join(plugin, "skills", "greet")
		mkdirs(t, dir)
		mustSymlink(t, "nowhere.md", filepath.Join(dir, FileName))
		return dir
	}},
}

func TestLoad(t *testing.T) {
	for _, tt := range loadTests {
		t.Run(tt.name, func(t *testing.T) {
			base, err := pathsafe.Root(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			plugin, outside := filepath.Join(base, "plugin"), filepath.Join(base, "outside")
			mkdirs(t, plugin, outside)
			dir := tt.setup(t, plugin, outside)
			opts := Options{Root: plugin, Path: "skills/greet/SKILL.md"}
			if tt.noRoot {
				opts.Root = ""
			}
			done := make(chan Skill, 1)
			go func() { done <- Load(dir, opts) }()
			var s Skill
			select {
			case s = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("Load hangs")
			}
			checkSkill(t, s)
			if s.Folder != "greet" || s.Dir != dir || s.Path != opts.Path {
				t.Errorf("Folder, Dir, Path = %q, %q, %q; want greet, %q, %q", s.Folder, s.Dir, s.Path, dir, opts.Path)
			}
			if tt.code == "" {
				if !s.Valid || s.Name != "greet" || s.Description != "Greets the user" {
					t.Errorf("got %+v, want the valid skill greet", s)
				}
				return
			}
			i := find(t, s, tt.code)
			if s.Valid || i.Severity != issue.Error || !strings.Contains(i.Message, tt.msg) {
				t.Errorf("Valid = %v, issue %v; want an error whose message contains %q", s.Valid, i, tt.msg)
			}
		})
	}
}

// TestLoadUnreadable: a SKILL.md of mode 000 is an unreadable skill, read as a user that
// is not root (root reads it anyway).
func TestLoadUnreadable(t *testing.T) {
	base, err := pathsafe.Root(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	plugin := filepath.Join(base, "plugin")
	dir := skillDir(t, filepath.Join(plugin, "skills"), "greet", goodSkill)
	if err := os.Chmod(filepath.Join(dir, FileName), 0); err != nil {
		t.Fatal(err)
	}
	out := string(testhome.AsNonRoot(t, "TestLoadUnreadableHelper", plugin, base, plugin, filepath.Join(plugin, "skills"), dir))
	if !strings.Contains(out, "valid=false code="+CodeUnreadable+" ") || !strings.Contains(out, "permission denied") {
		t.Errorf("as a user that is not root: %s", out)
	}
}

// TestLoadUnreadableHelper is TestLoadUnreadable's non-root part.
func TestLoadUnreadableHelper(t *testing.T) {
	plugin := os.Getenv(testhome.NonRootEnv)
	if plugin == "" {
		return // run by TestLoadUnreadable
	}
	s := Load(filepath.Join(plugin, "skills", "greet"), Options{Root: plugin, Path: "skills/greet/SKILL.md"})
	for _, i := range s.Issues {
		fmt.Printf("valid=%v code=%s %s\n", s.Valid, i.Code, i.Message)
	}
}

// TestLoadFixtureCopy loads a fixture copied into a temporary folder, through a symlinked
// skill folder (as user skill folders often are), with paths resolved against the target.
func TestLoadFixtureCopy(t *testing.T) {
	src := copyFixture(t, "valid/paths-inside-folder")
	link := filepath.Join(t.TempDir(), "paths-inside-folder")
	mustSymlink(t, src, link)
	s := Load(link, Options{Trusted: true, Path: "paths-inside-folder/SKILL.md"})
	checkSkill(t, s)
	real, err := pathsafe.Root(src)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Valid || len(s.Paths) != 3 || s.Paths[0].Resolved != filepath.Join(real, "data") {
		t.Errorf("got Valid %v, Paths %+v, issues %v; want data resolved to %s", s.Valid, s.Paths, s.Issues, filepath.Join(real, "data"))
	}
	// Removing the data folder from the copy refuses the entry that names it.
	if err := os.RemoveAll(filepath.Join(src, "data")); err != nil {
		t.Fatal(err)
	}
	s = Load(link, Options{Trusted: true, Path: "paths-inside-folder/SKILL.md"})
	checkSkill(t, s)
	if s.Paths[0].Accepted || s.Paths[2].Accepted || !s.Paths[1].Accepted {
		t.Errorf("Paths = %+v, want data and data/notes.txt refused once data is gone", s.Paths)
	}
}

func TestLoadDefaultPath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "greet")
	s := Load(dir, Options{})
	checkSkill(t, s)
	want(t, "Path", s.Path, filepath.Join(dir, FileName))
}
