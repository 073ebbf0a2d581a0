package devlink

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/pathsafe"
	"github.com/plugboard/plugboard/backend/testhome"
)

const schemaV1 = `"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"`

// writeFile writes a file of a test home (testhome.WriteFile).
func writeFile(t testing.TB, p, body string) { t.Helper(); testhome.WriteFile(t, p, body) }

func skillOf(name string) string {
	return "---\nname: " + name + "\ndescription: Use when testing " + name + "\n---\nBody\n"
}

// setup returns options for a fresh home and a valid portable package, named
// "my-plugin" in its manifest, in the folder src/work (so the two names differ).
func setup(t *testing.T) (Options, string) {
	t.Helper()
	base, err := pathsafe.Root(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	pkg := filepath.Join(base, "src", "work")
	writeFile(t, filepath.Join(pkg, "plugin.json"), "{"+schemaV1+`, "name": "my-plugin", "version": "0.1.0"}`)
	writeFile(t, filepath.Join(pkg, "skills", "greet", "SKILL.md"), skillOf("greet"))
	return Options{Home: home, PlugboardHome: filepath.Join(home, ".plugboard")}, pkg
}

func TestLinkValid(t *testing.T) {
	o, pkg := setup(t)
	r, err := Link(pkg, o)
	if err != nil {
		t.Fatalf("Link(valid) error = %v", err)
	}
	dest := filepath.Join(o.PlugboardHome, "plugins", "my-plugin")
	want := Result{Name: "my-plugin", Into: IntoHome, Dest: dest, Source: pkg, Mode: ModeLink, SourceExists: true, Valid: true}
	if r.Name != want.Name || r.Into != want.Into || r.Dest != want.Dest || r.Source != want.Source || r.Mode != want.Mode ||
		!r.SourceExists || !r.Valid || r.Errors != 0 || r.AlreadyLinked {
		t.Errorf("Link(valid) = %+v, want %+v", r, want)
	}
	if got, err := os.Readlink(dest); err != nil || got != pkg {
		t.Errorf("Readlink(%s) = %q, %v; want %s", dest, got, err, pkg)
	}
	c := catalog.Load(catalog.Options{Home: o.Home, PlugboardHome: o.PlugboardHome})
	if len(c.Plugins) != 1 || c.Plugins[0].ID != "my-plugin" || !c.Plugins[0].Valid || c.Plugins[0].Source != catalog.SourceManaged {
		t.Errorf("catalog after Link = %+v, want the linked plugin, valid and managed", c.Plugins)
	}

	// Linking again is idempotent.
	again, err := Link(pkg, o)
	if err != nil || !again.AlreadyLinked || again.Dest != dest {
		t.Errorf("Link again = %+v, %v; want already linked", again, err)
	}
}

func TestLinkIntoCursorAndName(t *testing.T) {
	o, pkg := setup(t)
	o.Into, o.Name = IntoCursor, "renamed"
	r, err := Link(pkg, o)
	dest := filepath.Join(o.Home, ".cursor", "plugins", "local", "renamed")
	if err != nil || r.Dest != dest {
		t.Fatalf("Link(--into cursor --name renamed) = %+v, %v; want %s", r, err, dest)
	}
	if target, _ := os.Readlink(dest); target != pkg {
		t.Errorf("link target = %q, want %s", target, pkg)
	}
	for _, bad := range []string{"../escape", ".hidden", "a/b", ".."} {
		o.Name = bad
		if _, err := Link(pkg, o); err == nil {
			t.Errorf("Link(--name %q) succeeded, want refused", bad)
		}
	}
	o.Name, o.Into = "", "elsewhere"
	if _, err := Link(pkg, o); err == nil || !strings.Contains(err.Error(), "--into") {
		t.Errorf("Link(--into elsewhere) error = %v, want an --into error", err)
	}
}

func TestLinkNameDefaults(t *testing.T) {
	o, pkg := setup(t)
	// No manifest name to take (a package without a manifest, forced): the folder's name.
	os.Remove(filepath.Join(pkg, "plugin.json"))
	o.Force = true
	r, err := Link(pkg, o)
	if err != nil || r.Name != "work" || r.Valid {
		t.Errorf("Link(no manifest, --force) = %+v, %v; want name work, invalid", r, err)
	}
}

func TestLinkInvalid(t *testing.T) {
	o, pkg := setup(t)
	writeFile(t, filepath.Join(pkg, "plugin.json"), "{"+schemaV1+`, "name": "Bad Name!"}`)
	_, err := Link(pkg, o)
	var inv *InvalidError
	if !errors.Is(err, ErrInvalid) || !errors.As(err, &inv) || len(inv.Issues) == 0 {
		t.Fatalf("Link(invalid) error = %v, want an InvalidError", err)
	}
	if msg := err.Error(); !strings.Contains(msg, filepath.Join(pkg, "plugin.json")) || !strings.Contains(msg, "--force") {
		t.Errorf("Link(invalid) error = %q, want the file and the way out", msg)
	}
	if entries, _ := os.ReadDir(filepath.Join(o.PlugboardHome, "plugins")); len(entries) != 0 {
		t.Errorf("Link(invalid) left %v", entries)
	}

	o.Force = true
	r, err := Link(pkg, o)
	if err != nil || r.Valid || r.Errors == 0 || r.Name != "work" {
		t.Errorf("Link(invalid, --force) = %+v, %v; want linked as work, invalid with errors", r, err)
	}
}

// TestLinkNeverClobbers: whatever holds the destination is refused, named, and kept.
func TestLinkNeverClobbers(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(t *testing.T, dest, other string)
		what string
	}{
		{"real folder", func(t *testing.T, dest, other string) { writeFile(t, filepath.Join(dest, "plugin.json"), "{}") }, "a folder"},
		{"foreign link", func(t *testing.T, dest, other string) { os.Symlink(other, dest) }, "a link to "},
		{"file", func(t *testing.T, dest, other string) { writeFile(t, dest, "x") }, "a file"},
		{"dangling link", func(t *testing.T, dest, other string) { os.Symlink(other+"-gone", dest) }, "a link to "},
	} {
		for _, copyMode := range []bool{false, true} {
			t.Run(tc.name+map[bool]string{true: " (copy)"}[copyMode], func(t *testing.T) {
				o, pkg := setup(t)
				o.Copy = copyMode
				dest := filepath.Join(o.PlugboardHome, "plugins", "my-plugin")
				os.MkdirAll(filepath.Dir(dest), 0o755)
				other := filepath.Join(filepath.Dir(pkg), "other")
				os.MkdirAll(other, 0o755)
				tc.make(t, dest, other)
				before := snapshot(t, filepath.Dir(dest))
				_, err := Link(pkg, o)
				if !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), dest) || !strings.Contains(err.Error(), tc.what) {
					t.Errorf("Link onto a %s: error = %v, want ErrExists naming %s as %q", tc.name, err, dest, tc.what)
				}
				if after := snapshot(t, filepath.Dir(dest)); after != before {
					t.Errorf("Link onto a %s changed the folder:\n%s\nwas\n%s", tc.name, after, before)
				}
			})
		}
	}
}

func TestLinkInsideThePackage(t *testing.T) {
	o, pkg := setup(t)
	o.PlugboardHome = filepath.Join(pkg, ".plugboard")
	o.Copy = true
	if _, err := Link(pkg, o); err == nil || !strings.Contains(err.Error(), "inside the package") {
		t.Errorf("Link into the package itself: error = %v, want refused", err)
	}
}

func TestCopyAndSync(t *testing.T) {
	o, pkg := setup(t)
	writeFile(t, filepath.Join(pkg, "bin", "server"), "#!/bin/sh\n")
	os.Chmod(filepath.Join(pkg, "bin", "server"), 0o755)
	writeFile(t, filepath.Join(pkg, "docs", "old.md"), "old")
	writeFile(t, filepath.Join(pkg, "stale", "gone.txt"), "gone")
	writeFile(t, filepath.Join(pkg, ".git", "HEAD"), "ref: refs/heads/main\n")
	os.Symlink("../docs/old.md", filepath.Join(pkg, "skills", "linked.md")) // inside: copied as a file
	o.Copy = true
	r, err := Link(pkg, o)
	if err != nil || r.Mode != ModeCopy || !r.Valid {
		t.Fatalf("Link(--copy) = %+v, %v", r, err)
	}
	dest := r.Dest
	if st, err := os.Lstat(dest); err != nil || !st.IsDir() {
		t.Fatalf("copy %s is not a real folder: %v", dest, err)
	}
	want := map[string]string{
		"plugin.json": "", "skills/greet/SKILL.md": "", "bin/server": "", "docs/old.md": "", "stale/gone.txt": "", "skills/linked.md": "old",
	}
	checkCopy(t, pkg, dest, want)
	if st, _ := os.Stat(filepath.Join(dest, "bin", "server")); st == nil || st.Mode().Perm() != 0o755 {
		t.Errorf("bin/server lost its mode: %v", st)
	}
	if hidden := hiddenTemps(t, filepath.Dir(dest)); len(hidden) != 0 {
		t.Errorf("Link(--copy) left temporary folders %v", hidden)
	}

	// Edit, add, remove a file and a folder, and turn a file into a folder; then sync.
	writeFile(t, filepath.Join(pkg, "skills", "greet", "SKILL.md"), skillOf("greet")+"edited\n")
	writeFile(t, filepath.Join(pkg, "skills", "wave", "SKILL.md"), skillOf("wave"))
	os.Remove(filepath.Join(pkg, "docs", "old.md"))
	os.Remove(filepath.Join(pkg, "skills", "linked.md"))
	os.RemoveAll(filepath.Join(pkg, "stale"))
	writeFile(t, filepath.Join(pkg, "docs", "old.md", "now-a-folder.md"), "x")
	if err := Sync("my-plugin", o); err != nil {
		t.Fatalf("Sync error = %v", err)
	}
	checkCopy(t, pkg, dest, map[string]string{
		"plugin.json": "", "skills/greet/SKILL.md": "", "skills/wave/SKILL.md": "", "bin/server": "", "docs/old.md/now-a-folder.md": "",
	})
	if _, err := os.Stat(filepath.Join(dest, "stale")); !os.IsNotExist(err) {
		t.Errorf("stale/ survived Sync: %v", err)
	}

	// Link --copy again: already linked, synced.
	writeFile(t, filepath.Join(pkg, "plugin.json"), "{"+schemaV1+`, "name": "my-plugin", "version": "0.2.0"}`)
	again, err := Link(pkg, o)
	if err != nil || !again.AlreadyLinked {
		t.Errorf("Link(--copy) again = %+v, %v; want already linked", again, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dest, "plugin.json")); !strings.Contains(string(b), "0.2.0") {
		t.Errorf("Link(--copy) again did not sync: %s", b)
	}
	c := catalog.Load(catalog.Options{Home: o.Home, PlugboardHome: o.PlugboardHome})
	if len(c.Plugins) != 1 || !c.Plugins[0].Valid || c.Plugins[0].Version != "0.2.0" || len(c.Plugins[0].Skills) != 2 {
		t.Errorf("catalog of the copy = %+v", c.Plugins)
	}
}

func TestCopyRefusesEscapingLink(t *testing.T) {
	o, pkg := setup(t)
	outside := filepath.Join(filepath.Dir(pkg), "secret.txt")
	writeFile(t, outside, "secret")
	os.Symlink(outside, filepath.Join(pkg, "skills", "greet", "notes.md"))
	o.Copy = true
	_, err := Link(pkg, o)
	if err == nil || !strings.Contains(err.Error(), "outside the package") || !strings.Contains(err.Error(), "skills/greet/notes.md") {
		t.Errorf("Link(--copy) with a link out: error = %v, want refused naming it", err)
	}
	parent := filepath.Join(o.PlugboardHome, "plugins")
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("a refused copy left %v", entries)
	}
}

func TestUnlink(t *testing.T) {
	o, pkg := setup(t)
	if _, err := Link(pkg, o); err != nil {
		t.Fatal(err)
	}
	r, err := Unlink("my-plugin", Options{Home: o.Home, PlugboardHome: o.PlugboardHome})
	if err != nil || r.Mode != ModeLink || r.Source != pkg {
		t.Errorf("Unlink(link) = %+v, %v", r, err)
	}
	if _, err := os.Lstat(r.Dest); !os.IsNotExist(err) {
		t.Errorf("link still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(pkg, "plugin.json")); err != nil {
		t.Errorf("Unlink touched the source: %v", err)
	}

	o.Copy, o.Into = true, IntoCursor
	if _, err := Link(pkg, o); err != nil {
		t.Fatal(err)
	}
	r, err = Unlink("my-plugin", Options{Home: o.Home, PlugboardHome: o.PlugboardHome})
	if err != nil || r.Mode != ModeCopy || r.Into != IntoCursor {
		t.Errorf("Unlink(copy) = %+v, %v", r, err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(r.Dest)); len(entries) != 0 {
		t.Errorf("Unlink(copy) left %v", entries)
	}

	if _, err := Unlink("my-plugin", o); !errors.Is(err, ErrNotLinked) {
		t.Errorf("Unlink(nothing) error = %v, want ErrNotLinked", err)
	}
}

func TestUnlinkRefusesWhatIsNotOurs(t *testing.T) {
	o, _ := setup(t)
	real := filepath.Join(o.PlugboardHome, "plugins", "installed")
	writeFile(t, filepath.Join(real, "plugin.json"), "{"+schemaV1+`, "name": "installed"}`)
	forged := filepath.Join(o.PlugboardHome, "plugins", "forged")
	writeFile(t, filepath.Join(forged, MarkerFile), `{"source": "relative", "mode": "copy"}`)
	// A symlink someone else made (Cursor, or the user by hand) is not ours either.
	foreign := filepath.Join(o.PlugboardHome, "plugins", "foreign")
	if err := os.Symlink(real, foreign); err != nil {
		t.Fatal(err)
	}
	for _, l := range list(t, o) {
		if l.Name == "foreign" {
			t.Error("List shows a symlink plugboard link did not make")
		}
	}
	for _, name := range []string{"installed", "forged", "foreign"} {
		if _, err := Unlink(name, o); !errors.Is(err, ErrNotOurs) {
			t.Errorf("Unlink(%s) error = %v, want ErrNotOurs", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(real, "plugin.json")); err != nil {
		t.Errorf("Unlink removed a real folder: %v", err)
	}
	if _, err := os.Lstat(foreign); err != nil {
		t.Errorf("Unlink removed a foreign symlink: %v", err)
	}
	if err := Sync("installed", o); !errors.Is(err, ErrNotOurs) {
		t.Errorf("Sync(real folder) error = %v, want ErrNotOurs", err)
	}
}

func TestUnlinkBothPlaces(t *testing.T) {
	o, pkg := setup(t)
	Link(pkg, o)
	o.Into = IntoCursor
	Link(pkg, o)
	if _, err := Unlink("my-plugin", Options{Home: o.Home, PlugboardHome: o.PlugboardHome}); err == nil || !strings.Contains(err.Error(), "--into") {
		t.Errorf("Unlink of a name in both places: error = %v, want asked for --into", err)
	}
	if r, err := Unlink("my-plugin", o); err != nil || r.Into != IntoCursor {
		t.Errorf("Unlink(--into cursor) = %+v, %v", r, err)
	}
}

func TestList(t *testing.T) {
	o, pkg := setup(t)
	Link(pkg, o)
	gone := filepath.Join(filepath.Dir(pkg), "gone")
	os.MkdirAll(gone, 0o755)
	Link(gone, Options{Home: o.Home, PlugboardHome: o.PlugboardHome, Force: true})
	os.RemoveAll(gone)
	Link(pkg, Options{Home: o.Home, PlugboardHome: o.PlugboardHome, Into: IntoCursor, Copy: true})
	writeFile(t, filepath.Join(o.PlugboardHome, "plugins", "installed", "plugin.json"), "{}") // not listed

	var got []string
	for _, r := range list(t, o) {
		got = append(got, strings.Join([]string{r.Into, r.Name, r.Mode, map[bool]string{true: "source", false: "no-source"}[r.SourceExists],
			map[bool]string{true: "valid", false: "invalid"}[r.Valid]}, " "))
	}
	want := []string{"home gone link no-source invalid", "home my-plugin link source valid", "cursor my-plugin copy source valid"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("List() =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// checkCopy: dest holds exactly the files of want (plus the marker), each equal to the
// source's or to the content given.
func checkCopy(t *testing.T, src, dest string, want map[string]string) {
	t.Helper()
	var got []string
	filepath.WalkDir(dest, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dest, p)
			got = append(got, filepath.ToSlash(rel))
			if d.Type()&os.ModeSymlink != 0 {
				t.Errorf("copy holds a symlink: %s", rel)
			}
		}
		return nil
	})
	var names []string
	for n := range want {
		names = append(names, n)
	}
	names = append(names, MarkerFile)
	sort.Strings(names)
	sort.Strings(got)
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("copy files = %v, want %v", got, names)
	}
	for rel, content := range want {
		b, _ := os.ReadFile(filepath.Join(dest, rel))
		if content == "" {
			s, _ := os.ReadFile(filepath.Join(src, rel))
			content = string(s)
		}
		if string(b) != content {
			t.Errorf("copy of %s = %q, want %q", rel, b, content)
		}
	}
}

// snapshot describes a folder's tree: names, kinds, link targets and file contents.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		b.WriteString(p + " " + d.Type().String())
		if target, err := os.Readlink(p); err == nil {
			b.WriteString(" → " + target)
		} else if d.Type().IsRegular() {
			c, _ := os.ReadFile(p)
			b.WriteString(" " + string(c))
		}
		b.WriteString("\n")
		return nil
	})
	return b.String()
}

func hiddenTemps(t *testing.T, dir string) []string {
	var out []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out
}

// Two folders that link to each other are a loop: the copy is refused with the reason,
// in bounded time and memory.
func TestCopyRefusesLinkLoop(t *testing.T) {
	o, pkg := setup(t)
	os.MkdirAll(filepath.Join(pkg, "a"), 0o755)
	os.MkdirAll(filepath.Join(pkg, "b"), 0o755)
	os.Symlink("../b", filepath.Join(pkg, "a", "l"))
	os.Symlink("../a", filepath.Join(pkg, "b", "m"))
	o.Copy = true
	_, err := Link(pkg, o)
	if err == nil || !strings.Contains(err.Error(), "loop") {
		t.Fatalf("Link --copy of a link loop: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(o.PlugboardHome, "plugins", "my-plugin")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a refused copy left something behind")
	}
}

// A new link's name must stay one word where plugin ids are listed and parsed: a comma
// split it in assign --set, a newline broke every line of output. A folder name that
// fails says to give --name; dots and underscores are fine.
func TestLinkNameStaysOneWord(t *testing.T) {
	for _, name := range []string{"x,y", "a\nb", "two words", "tool@acme", "ns:skill", "tab\there", "revie\u200bw", "x\u202etxt.exe"} {
		o, pkg := setup(t)
		o.Name = name
		if _, err := Link(pkg, o); err == nil || !strings.Contains(err.Error(), "one word") {
			t.Errorf("--name %q: %v", name, err)
		}
		if ents, _ := os.ReadDir(filepath.Join(o.PlugboardHome, "plugins")); len(ents) != 0 {
			t.Errorf("--name %q: plugins/ holds %d entries", name, len(ents))
		}
	}
	o, pkg := setup(t)
	o.Name = "my_plugin.v2"
	if r, err := Link(pkg, o); err != nil || r.Name != "my_plugin.v2" {
		t.Errorf("--name my_plugin.v2: %+v %v", r, err)
	}
	o, pkg = setup(t)
	spaced := filepath.Join(filepath.Dir(pkg), "My Plugin")
	os.Rename(pkg, spaced)
	writeFile(t, filepath.Join(spaced, "plugin.json"), `{"name": "My Plugin"}`) // not the specification's: the folder names it
	o.Force = true
	if _, err := Link(spaced, o); err == nil || !strings.Contains(err.Error(), "--name") {
		t.Errorf("a folder name with a space and no --name: %v", err)
	}
}
