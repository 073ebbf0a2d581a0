package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/reload"
	"github.com/plugboard/plugboard/backend/testhome"
)

// The plugin author's loop, with the real binary: link a working copy, watch, edit a
// skill and see it re-validate, break it and see the error, unlink.
func TestAuthorLoop(t *testing.T) {
	bin := testBinary(t)
	home := t.TempDir()
	work := filepath.Join(t.TempDir(), "my-plugin")
	write(t, filepath.Join(work, "plugin.json"), strings.Replace(manifest, "%s", "my-plugin", 1))
	skill := filepath.Join(work, "skills", "hello", "SKILL.md")
	write(t, skill, "---\nname: hello\ndescription: Say hello.\n---\n")
	cmd := runAs(bin, home)

	if out, code := cmd("link", work); code != 0 || !strings.Contains(out, "linked my-plugin (link)") {
		t.Fatalf("link: %d %s", code, out)
	}
	dest := filepath.Join(home, ".plugboard", "plugins", "my-plugin")
	if target, err := os.Readlink(dest); err != nil || target != work {
		t.Fatalf("link %s → %q, %v", dest, target, err)
	}
	if out, code := cmd("links"); code != 0 || !strings.Contains(out, "my-plugin  home link") {
		t.Errorf("links: %s", out)
	}
	// A second package may not take the name, and an invalid one is refused with why.
	bad := filepath.Join(t.TempDir(), "bad")
	write(t, filepath.Join(bad, "plugin.json"), `{"name": "Bad Name"}`)
	if out, code := cmd("link", bad); code != ExitInvalid || !strings.Contains(out, "plugin.json") {
		t.Errorf("invalid link: %d %s", code, out)
	}

	w := exec.Command(bin, "watch", "--json")
	w.Env = []string{"HOME=" + home}
	stdout, _ := w.StdoutPipe()
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { w.Process.Signal(os.Interrupt); w.Wait() }()
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func() map[string]any {
		t.Helper()
		select {
		case l := <-lines:
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("watch printed %q: %v", l, err)
			}
			return m
		case <-time.After(10 * time.Second):
			t.Fatal("watch printed nothing")
		}
		return nil
	}
	if first := next(); first["plugins"] != 1.0 {
		t.Fatalf("first line = %v", first)
	}
	write(t, skill, "---\nname: hello\ndescription: Say hello warmly.\n---\n")
	got := next()
	b, _ := json.Marshal(got["changes"])
	if !strings.Contains(string(b), `"id":"my-plugin:hello"`) || !strings.Contains(string(b), `"kind":"changed"`) {
		t.Errorf("edit: %s", b)
	}
	write(t, skill, "---\nname: Hello There\n---\n")
	got = next()
	if counts, _ := got["counts"].(map[string]any); counts["errors"].(float64) < 1 {
		t.Errorf("broken skill: counts %v", got["counts"])
	}

	if out, code := cmd("snapshots"); code != 0 || strings.Count(out, "\n") < 3 {
		t.Errorf("snapshots: %s", out)
	}
	if out, code := cmd("diff", "1", "3"); code != 0 || !strings.Contains(out, "changed plugin my-plugin") {
		t.Errorf("diff: %d %s", code, out)
	}
	if out, code := cmd("unlink", "my-plugin"); code != 0 || !strings.Contains(out, "unlinked my-plugin") {
		t.Errorf("unlink: %s", out)
	}
	if _, err := os.Lstat(dest); !os.IsNotExist(err) {
		t.Error("unlink left the link")
	}
	if _, err := os.Stat(skill); err != nil {
		t.Error("unlink touched the working copy")
	}
	got = next()
	if b, _ := json.Marshal(got["changes"]); !strings.Contains(string(b), `"kind":"removed"`) {
		t.Errorf("unlink change: %s", b)
	}
}

// Text mode names the file and the fix of each new error under the change.
func TestWatchLinesNameTheFix(t *testing.T) {
	home, _ := sample(t)
	pb := filepath.Join(home, ".plugboard")
	c := catalog.Load(catalog.Options{Home: home, PlugboardHome: pb})
	bad := filepath.Join(pb, "plugins", "good", "skills", "Bad", "SKILL.md")
	var out strings.Builder
	printReload(&out, reload.Reload{Catalog: c, Counts: c.Summary.Issues, Changes: []catalog.Change{
		{Kind: catalog.Changed, What: catalog.WhatSkill, ID: "good:Bad", Path: bad, Detail: "valid → invalid, 1 new error"}}}, false)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "changed skill good:Bad") || !strings.HasPrefix(strings.TrimSpace(lines[1]), bad+":2: error:") {
		t.Errorf("watch lines:\n%s", out.String())
	}
}

// A copy made by link --copy is recorded in links.json, listed by links, kept in step by
// watch and unlinked; a real folder in $PLUGBOARD_HOME/plugins that ships its own
// .plugboard-link.json naming the same source is none of those: watch leaves it as it
// is (nothing copied in, nothing removed), links does not list it, and unlink refuses it
// naming the folder and the fix, deleting nothing.
func TestCopyRecordedAndShippedMarkerLeftAlone(t *testing.T) {
	bin := testBinary(t)
	home := t.TempDir()
	work := filepath.Join(t.TempDir(), "my-plugin")
	write(t, filepath.Join(work, "plugin.json"), strings.Replace(manifest, "%s", "my-plugin", 1))
	write(t, filepath.Join(work, "skills", "hello", "SKILL.md"), "---\nname: hello\ndescription: Say hello.\n---\n")
	cmd := runAs(bin, home)
	pb := filepath.Join(home, ".plugboard")
	copies := func() map[string]map[string]string {
		var r struct {
			Copies map[string]map[string]string `json:"copies"`
		}
		data, _ := os.ReadFile(filepath.Join(pb, "state", "links.json"))
		json.Unmarshal(data, &r)
		return r.Copies
	}

	if out, code := cmd("link", "--copy", work); code != 0 || !strings.Contains(out, "linked my-plugin (copy)") {
		t.Fatalf("link --copy: %d %s", code, out)
	}
	dest := filepath.Join(pb, "plugins", "my-plugin")
	if e := copies()[dest]; e["source"] != work || e["id"] == "" {
		t.Errorf("links.json records %v for %s, want its source %s and an id", e, dest, work)
	}
	shipped := filepath.Join(pb, "plugins", "shipped")
	write(t, filepath.Join(shipped, "plugin.json"), strings.Replace(manifest, "%s", "shipped", 1))
	write(t, filepath.Join(shipped, "skills", "own", "SKILL.md"), "---\nname: own\ndescription: Its own skill.\n---\n")
	write(t, filepath.Join(shipped, ".plugboard-link.json"), `{"tool": "plugboard link", "source": "`+work+`", "mode": "copy"}`)
	before := tree(t, shipped)
	if out, code := cmd("links"); code != 0 || !strings.Contains(out, "my-plugin  home copy") || strings.Contains(out, "shipped") {
		t.Errorf("links: %d %s", code, out)
	}

	w := exec.Command(bin, "watch", "--json")
	w.Env = []string{"HOME=" + home}
	stdout, _ := w.StdoutPipe()
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	waitFor := func(what string) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("watch ended before %s", what)
				}
				if strings.Contains(l, what) {
					return
				}
			case <-deadline:
				t.Fatalf("watch printed no %s", what)
			}
		}
	}
	waitFor(`"watching"`)
	// A new skill in the source: watch syncs the copy, whose new skill it then reports.
	// Every copy is synced before that report, so the shipped folder's turn is past too.
	write(t, filepath.Join(work, "skills", "wave", "SKILL.md"), "---\nname: wave\ndescription: Wave.\n---\n")
	waitFor(`"id":"my-plugin:wave"`)
	w.Process.Signal(os.Interrupt)
	w.Wait()
	if _, err := os.Stat(filepath.Join(dest, "skills", "wave", "SKILL.md")); err != nil {
		t.Errorf("watch did not sync the copy: %v", err)
	}
	if after := tree(t, shipped); after != before {
		t.Errorf("watch synced the shipped folder:\n%s\nwas\n%s", after, before)
	}

	out, code := cmd("unlink", "shipped")
	if code != ExitInvalid || !strings.Contains(out, shipped) || !strings.Contains(out, "plugboard link --copy "+work+" --name shipped") {
		t.Errorf("unlink shipped: %d %s; want refused naming %s and the fix", code, out, shipped)
	}
	if after := tree(t, shipped); after != before {
		t.Errorf("unlink changed the shipped folder:\n%s\nwas\n%s", after, before)
	}

	if out, code := cmd("unlink", "my-plugin"); code != 0 || !strings.Contains(out, "unlinked my-plugin") {
		t.Errorf("unlink my-plugin: %d %s", code, out)
	}
	if _, err := os.Lstat(dest); !os.IsNotExist(err) {
		t.Errorf("unlink left the copy: %v", err)
	}
	if _, ok := copies()[dest]; ok {
		t.Errorf("links.json still records %s", dest)
	}
	if _, err := os.Stat(filepath.Join(work, "plugin.json")); err != nil {
		t.Errorf("unlink touched the source: %v", err)
	}
}

// tree describes a folder: each file's path, relative, and content.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			b.WriteString(p + ": " + err.Error() + "\n")
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		b.WriteString(rel + " " + d.Type().String())
		if d.Type().IsRegular() {
			c, _ := os.ReadFile(p)
			b.WriteString(" " + string(c))
		}
		b.WriteString("\n")
		return nil
	})
	return b.String()
}

// runAs runs the plugboard binary bin with HOME=home and returns its combined output and
// exit status.
func runAs(bin, home string) func(args ...string) (string, int) {
	return func(args ...string) (string, int) {
		c := exec.Command(bin, args...)
		c.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
		out, err := c.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return string(out), ee.ExitCode()
		}
		return string(out), 0
	}
}

// With claude on PATH, watch asks it what each package loads after the first scan and
// after every change, in the background: {"asking": …} lines, then {"answers": …} with
// the counts; a change is asked about again, the unchanged packages from the database.
func TestWatchAsksInstalledClients(t *testing.T) {
	bin := testBinary(t)
	home := t.TempDir()
	pb := filepath.Join(home, ".plugboard", "plugins")
	write(t, filepath.Join(pb, "greeter", ".claude-plugin", "plugin.json"), `{"name": "greeter"}`)
	write(t, filepath.Join(pb, "greeter", "skills", "hello", "SKILL.md"), "---\nname: hello\ndescription: Says hello.\n---\n")
	write(t, filepath.Join(pb, "other", ".claude-plugin", "plugin.json"), `{"name": "other"}`)
	pathDir := t.TempDir()
	if err := os.Symlink(testhome.AgentBin(t, testhome.ClaudeNewest), filepath.Join(pathDir, "claude")); err != nil {
		t.Fatal(err)
	}
	w := exec.Command(bin, "watch", "--json")
	w.Env = []string{"HOME=" + home, "PATH=" + pathDir}
	stdout, _ := w.StdoutPipe()
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { w.Process.Signal(os.Interrupt); w.Wait() }()
	lines := make(chan map[string]any, 64)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				lines <- m
			}
		}
		close(lines)
	}()
	// until returns the first line with key, failing after a minute.
	until := func(key string) map[string]any {
		t.Helper()
		timeout := time.After(time.Minute)
		for {
			select {
			case m, ok := <-lines:
				if !ok {
					t.Fatalf("watch ended before a %q line", key)
				}
				if v, ok := m[key]; ok {
					obj, _ := v.(map[string]any)
					return obj
				}
			case <-timeout:
				t.Fatalf("no %q line in a minute", key)
			}
		}
	}
	if a := until("asking"); a["client"] != "claude" || a["version"] != "2.1.328" || a["total"] != 2.0 {
		t.Errorf("asking: %v", a)
	}
	if a := until("answers"); a["packages"] != 2.0 || a["differ"] != 0.0 || a["errors"] != 0.0 {
		t.Errorf("answers: %v", a)
	}
	write(t, filepath.Join(pb, "other", "skills", "more", "SKILL.md"), "---\nname: more\ndescription: More.\n---\n")
	until("changes")
	if a := until("answers"); a["packages"] != 2.0 || a["differ"] != 0.0 {
		t.Errorf("answers after a change: %v", a)
	}
}
