package app

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/testhome"
)

const testSchema = `"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", `

// writeTestPlugin writes a valid plugin folder name at dir with one skill.
func writeTestPlugin(t *testing.T, dir, name, version string) {
	t.Helper()
	testhome.WriteFile(t, filepath.Join(dir, "plugin.json"), `{`+testSchema+`"name": "`+name+`", "version": "`+version+`", "description": "d"}`)
	testhome.WriteFile(t, filepath.Join(dir, "skills", "hello", "SKILL.md"), "---\nname: hello\ndescription: Says hello.\n---\nHi.\n")
}

// pageErr returns err as the page's *Error, failing the test when it is not one with code.
func pageErr(t *testing.T, what string, err error, code, reason string) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: %v (%T), want a page error %s", what, err, err, code)
	}
	if e.Code != code || e.Reason != reason {
		t.Fatalf("%s: code %q reason %q (%s), want %q %q", what, e.Code, e.Reason, e.Message, code, reason)
	}
	t.Logf("%s: %s", what, e.Message)
	// a sentence for the page: no command line to type, no second line of detail
	if strings.Contains(e.Message, "plugboard ") || strings.Contains(e.Message, " --") || strings.ContainsAny(e.Message, "`\n") || e.Message == "" {
		t.Errorf("%s: the page's message hands out a command line or is not one sentence: %q", what, e.Message)
	}
	return e
}

// installService is a service over an empty home and Plugboard home that records the
// install:progress lines it emits.
func installService(t *testing.T) (*Service, string, func() []string) {
	t.Helper()
	pb := t.TempDir()
	var mu sync.Mutex
	var lines []string
	svc := NewService(t.TempDir(), pb, func(name string, data any) {
		if name == EventInstallProgress {
			mu.Lock()
			lines = append(lines, data.(map[string]string)["line"])
			mu.Unlock()
		}
	})
	return svc, pb, func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := slices.Clone(lines)
		lines = nil
		return out
	}
}

func TestInstallErrors(t *testing.T) {
	svc, pb, events := installService(t)
	src := t.TempDir()

	// No source, a relative path: invalid, before anything runs.
	_, err := svc.Install("  ", "", "", "", false)
	pageErr(t, "no source", err, CodeInvalid, "")
	_, err = svc.Install("./greeter", "", "", "", false)
	pageErr(t, "a relative path", err, CodeInvalid, "")
	// The caller's mistakes are not I/O failures (they were 500 io): a source that is not
	// there is not-found, an unusable --name, --path or id invalid.
	_, err = svc.Install(filepath.Join(src, "nowhere"), "", "", "", false)
	pageErr(t, "a missing source", err, CodeNotFound, "")
	ok := filepath.Join(src, "ok")
	writeTestPlugin(t, ok, "ok", "1.0.0")
	_, err = svc.Install(ok, "", "", "../x", false)
	pageErr(t, "a name with ..", err, CodeInvalid, "")
	_, err = svc.Install(ok, "", "../..", "", false)
	pageErr(t, "a --path out of the source", err, CodeInvalid, "")
	_, err = svc.Uninstall("../x", false)
	pageErr(t, "uninstall ../x", err, CodeInvalid, "")

	// An invalid package: refused with its issues (file, line) and the progress so far.
	bad := filepath.Join(src, "bad")
	testhome.WriteFile(t, filepath.Join(bad, "plugin.json"), `{"name": "bad", "version": "1.0.0"}`)
	testhome.WriteFile(t, filepath.Join(bad, "skills", "x", "SKILL.md"), "---\nname: x\ndescription: X.\n---\n")
	_, err = svc.Install(bad, "", "", "", false)
	e := pageErr(t, "an invalid package", err, CodeRefused, ReasonInvalidPackage)
	if len(e.Issues) == 0 || e.Issues[0].Path != "plugin.json" || e.Issues[0].Line != 1 || !strings.Contains(e.Issues[0].Message, "$schema") {
		t.Errorf("issues = %+v, want plugin.json:1 about $schema", e.Issues)
	}
	if !strings.Contains(e.Message, "Force") || !strings.Contains(e.Message, bad) {
		t.Errorf("message = %q, want the source and Force", e.Message)
	}
	if len(e.Progress) == 0 || !strings.HasPrefix(e.Progress[0], "copying ") || !slices.Equal(events(), e.Progress) {
		t.Errorf("progress = %q, want the copying line, as emitted", e.Progress)
	}
	if _, err := os.Stat(filepath.Join(pb, "plugins", "bad")); err == nil {
		t.Error("the refused package was installed")
	}
	// With force it installs.
	res, err := svc.Install(bad, "", "", "", true)
	if err != nil || !res.Forced || res.ID != "bad" {
		t.Fatalf("forced install = %+v, %v", res.Result, err)
	}
	events()

	// A valid folder: installed, its progress lines returned and emitted, the catalog rescanned.
	good := filepath.Join(src, "greeter")
	writeTestPlugin(t, good, "greeter", "1.0.0")
	res, err = svc.Install(good, "", "", "", false)
	if err != nil {
		t.Fatal(err)
	}
	if res.ID != "greeter" || res.Kind != "folder" || !res.Valid || len(res.Progress) < 2 || !slices.Equal(events(), res.Progress) {
		t.Errorf("install = %+v", res)
	}
	if c, _ := svc.Catalog(); !slices.ContainsFunc(c.Plugins, func(p catalog.Plugin) bool { return p.ID == "greeter" }) {
		t.Error("the catalog after Install has no greeter")
	}
	inst, err := svc.Installed()
	if err != nil || len(inst) != 2 || inst[0].ID != "bad" || inst[1].ID != "greeter" || inst[1].Source != good || inst[1].Kind != "folder" {
		t.Errorf("Installed = %+v, %v", inst, err)
	}

	// The same id again: exists (Force replaces it).
	_, err = svc.Install(good, "", "", "", false)
	pageErr(t, "an installed id", err, CodeRefused, ReasonExists)
	// A marketplace is not one plugin.
	market := filepath.Join(src, "market")
	testhome.WriteFile(t, filepath.Join(market, ".claude-plugin", "marketplace.json"), `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "p", "source": "./p"}]}`)
	writeTestPlugin(t, filepath.Join(market, "p"), "p", "1.0.0")
	_, err = svc.Install(market, "", "", "", false)
	pageErr(t, "a marketplace folder", err, CodeRefused, ReasonNotPlugin)
	// PLUGIN@MARKETPLACE of a marketplace not added: not found.
	_, err = svc.Install("p@nowhere", "", "", "", false)
	pageErr(t, "an unknown marketplace", err, CodeNotFound, "")
	// A fetch that fails: io, with git's message.
	_, err = svc.Install("file://"+filepath.Join(src, "no-such-repo"), "", "", "", false)
	pageErr(t, "a failed fetch", err, CodeIO, "")

	// Uninstall: unknown, in use (an agent assigns it), anyway.
	_, err = svc.Uninstall("nope", false)
	pageErr(t, "uninstall an unknown plugin", err, CodeNotFound, "")
	testhome.WriteFile(t, filepath.Join(pb, "agents", "coder.json"), `{"name": "coder", "pluginDirs": ["plugins/greeter"]}`)
	_, err = svc.Uninstall("greeter", false)
	e = pageErr(t, "uninstall an assigned plugin", err, CodeRefused, ReasonInUse)
	if !slices.Equal(e.Targets, []string{"agent:coder"}) || !strings.Contains(e.Message, "agent:coder") {
		t.Errorf("in use: targets %q, message %q", e.Targets, e.Message)
	}
	gone, err := svc.Uninstall("greeter", true)
	if err != nil || !slices.Equal(gone.Targets, []string{"agent:coder"}) {
		t.Fatalf("uninstall anyway = %+v, %v", gone, err)
	}
	if c, _ := svc.Catalog(); slices.ContainsFunc(c.Plugins, func(p catalog.Plugin) bool { return p.ID == "greeter" }) {
		t.Error("the catalog after Uninstall still has greeter")
	}
}

func TestMarketplaceErrors(t *testing.T) {
	svc, _, _ := installService(t)
	src := t.TempDir()
	_, err := svc.AddMarketplace(src, "")
	pageErr(t, "a folder with no marketplace file", err, CodeRefused, ReasonMarketplace)
	// The caller's mistakes are answered as such, not as a failure to read or write.
	_, err = svc.AddMarketplace(filepath.Join(src, "gone"), "")
	pageErr(t, "a folder that does not exist", err, CodeNotFound, "")
	_, err = svc.AddMarketplace(src, "-team")
	pageErr(t, "a name that breaks the rule", err, CodeInvalid, "")
	testhome.WriteFile(t, filepath.Join(src, "notes.txt"), "x")
	_, err = svc.AddMarketplace(filepath.Join(src, "notes.txt"), "")
	pageErr(t, "a file that is not a marketplace file", err, CodeInvalid, "")
	_, err = svc.AddMarketplace("ftp://example.com/m.git", "")
	pageErr(t, "a URL Plugboard does not clone", err, CodeInvalid, "")
	bad := filepath.Join(src, "bad")
	testhome.WriteFile(t, filepath.Join(bad, ".claude-plugin", "marketplace.json"), `{"name": "bad", "plugins": [{"name": "x"}]}`)
	_, err = svc.AddMarketplace(bad, "")
	e := pageErr(t, "a marketplace file with errors", err, CodeRefused, ReasonMarketplace)
	if len(e.Issues) == 0 || !strings.HasSuffix(e.Issues[0].Path, "marketplace.json") {
		t.Errorf("issues = %+v, want the marketplace file's", e.Issues)
	}
	good := filepath.Join(src, "good")
	testhome.WriteFile(t, filepath.Join(good, ".claude-plugin", "marketplace.json"), `{"name": "team", "owner": {"name": "o"}, "plugins": [{"name": "p", "source": "./p", "description": "the p"}]}`)
	writeTestPlugin(t, filepath.Join(good, "p"), "p", "1.0.0")
	if r, err := svc.AddMarketplace(good, ""); err != nil || r.Name != "team" || r.Plugins != 1 {
		t.Fatalf("AddMarketplace = %+v, %v", r, err)
	}
	_, err = svc.AddMarketplace(good, "")
	pageErr(t, "a name added already", err, CodeRefused, ReasonMarketplace)
	l, err := svc.Marketplaces()
	if err != nil || len(l) != 1 || l[0].Name != "team" || len(l[0].Plugins) != 1 || !l[0].Plugins[0].OK {
		t.Fatalf("Marketplaces = %+v, %v", l, err)
	}
	_, err = svc.Install("q@team", "", "", "", false)
	pageErr(t, "a plugin the marketplace does not list", err, CodeNotFound, "")
	if res, err := svc.Install("p@team", "", "", "", false); err != nil || res.Marketplace != "p@team" {
		t.Fatalf("install p@team = %+v, %v", res.Result, err)
	}
	_, err = svc.RemoveMarketplace("other")
	pageErr(t, "remove a marketplace not added", err, CodeNotFound, "")
	if r, err := svc.RemoveMarketplace("team"); err != nil || r.Deleted || r.Path != good {
		t.Fatalf("RemoveMarketplace = %+v, %v", r, err)
	}
}

func TestUpdateErrors(t *testing.T) {
	svc, _, events := installService(t)
	_, err := svc.CheckUpdates("nope")
	pageErr(t, "check a plugin not installed", err, CodeNotFound, "")
	_, err = svc.Update("")
	pageErr(t, "update with no name", err, CodeInvalid, "")

	src := filepath.Join(t.TempDir(), "greeter")
	writeTestPlugin(t, src, "greeter", "1.0.0")
	if _, err := svc.Install(src, "", "", "", false); err != nil {
		t.Fatal(err)
	}
	events()
	_, err = svc.Rollback("greeter")
	pageErr(t, "roll back with nothing kept", err, CodeNotFound, "")
	if ups, err := svc.CheckUpdates(""); err != nil || len(ups) != 1 || ups[0].Changed {
		t.Fatalf("check of an unchanged folder = %+v, %v", ups, err)
	}

	// The source turns invalid: the check carries the error, the update is refused with it.
	testhome.WriteFile(t, filepath.Join(src, "plugin.json"), `{"name": "greeter", "version": "2.0.0"}`)
	ups, err := svc.CheckUpdates("greeter")
	if err != nil || len(ups) != 1 || ups[0].Error == "" {
		t.Fatalf("check of an invalid new version = %+v, %v", ups, err)
	}
	_, err = svc.Update("greeter")
	e := pageErr(t, "update to an invalid version", err, CodeRefused, ReasonInvalidPackage)
	if len(e.Issues) == 0 || e.Issues[0].Path != "plugin.json" || strings.Contains(e.Message, "\n") || len(e.Progress) == 0 {
		t.Errorf("refusal = %+v", e)
	}
	events()

	// Valid again at 2.0.0: updated, then rolled back.
	writeTestPlugin(t, src, "greeter", "2.0.0")
	res, err := svc.Update("greeter")
	if err != nil || len(res.Updates) != 1 || !res.Updates[0].Applied || res.Updates[0].To.Version != "2.0.0" || !slices.Equal(events(), res.Progress) {
		t.Fatalf("update = %+v, %v", res, err)
	}
	back, err := svc.Rollback("greeter")
	if err != nil || !back.Replaced {
		t.Fatalf("rollback = %+v, %v", back, err)
	}
	c, _ := svc.Catalog()
	for _, p := range c.Plugins {
		if p.ID == "greeter" && p.Version != "1.0.0" {
			t.Errorf("after the rollback the catalog has greeter %s, want 1.0.0", p.Version)
		}
	}
}
