package app

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/plugboard/plugboard/backend/settings"
)

// TestCatalogWaitsForRunningScan: a Catalog call during a scan gets that scan, and no
// second scan starts.
func TestCatalogWaitsForRunningScan(t *testing.T) {
	home, pb, _ := fixtureHome(t)
	var updates atomic.Int32
	inScan := make(chan struct{})
	var once sync.Once
	svc := NewService(home, pb, func(name string, _ any) {
		switch name {
		case EventProgress:
			once.Do(func() { close(inScan) }) // the scan holds the scan lock now
		case EventUpdated:
			updates.Add(1)
		}
	})
	done := make(chan struct{})
	go func() { svc.Rescan(); close(done) }()
	<-inScan
	c, _ := svc.Catalog()
	<-done
	if c == nil || len(c.Plugins) == 0 {
		t.Fatal("Catalog returned nothing")
	}
	if n := updates.Load(); n != 1 {
		t.Errorf("%d scans ran, want 1", n)
	}
}

// Every announced scan has the next number, in its document and in its event, so a page
// can tell the event of a scan it already shows.
func TestScansAreNumbered(t *testing.T) {
	home, pb, _ := fixtureHome(t)
	var seqs []int64
	svc := NewService(home, pb, func(name string, data any) {
		if name == EventUpdated {
			seqs = append(seqs, data.(map[string]any)["seq"].(int64))
		}
	})
	a, _ := svc.Rescan()
	b, _ := svc.Rescan()
	if c, _ := svc.Catalog(); c.Seq != b.Seq {
		t.Errorf("Catalog seq %d, want the last scan's %d", c.Seq, b.Seq)
	}
	if a.Seq != 1 || b.Seq != 2 || len(seqs) != 2 || seqs[0] != 1 || seqs[1] != 2 {
		t.Errorf("docs %d, %d; events %v", a.Seq, b.Seq, seqs)
	}
}

// A settings.json with any problem is not written over: trusting a workspace, or saving
// the settings, is refused with the reason, and a skill the user turned off stays off.
func TestSettingsWritesRefuseAFileTheyCouldNotRead(t *testing.T) {
	home, pb, _ := fixtureHome(t)
	svc := NewService(home, pb, nil)
	ws := t.TempDir()
	if _, err := svc.OpenWorkspace(ws); err != nil {
		t.Fatal(err)
	}
	orig := `{"skillPluginPaths": "~/src/not-a-list", "skillsEnabled": {"noisy": false}}`
	if err := os.WriteFile(settings.Path(pb), []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := svc.SetWorkspaceTrust(true)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeInvalid || !strings.Contains(e.Message, "not rewritten") {
		t.Errorf("SetWorkspaceTrust over an unreadable settings.json = %v", err)
	}
	_, hash, _ := settings.Read(pb)
	if _, err := svc.SaveSettings(settings.Settings{}.Normalised(), hash); !errors.As(err, &e) || e.Code != CodeInvalid {
		t.Errorf("SaveSettings over an unreadable settings.json = %v", err)
	}
	if b, _ := os.ReadFile(settings.Path(pb)); string(b) != orig {
		t.Errorf("settings.json was rewritten:\n%s", b)
	}
}

// A folder a page call names must be a full path (or ~/…): a relative one would be
// resolved against wherever this process started (serve linked <its cwd>/victim/plug and
// opened / as the workspace for "../../.."); one that is not a folder is not-found (a
// budget of a missing plugin folder answered with the client's built-in skills alone).
func TestPageFoldersAreFullPaths(t *testing.T) {
	home := t.TempDir()
	svc := NewService(home, filepath.Join(home, ".plugboard"), nil)
	os.MkdirAll(filepath.Join(home, "ws"), 0o755)
	_, err := svc.Link("victim/plug", "home", "rel", false, false)
	pageErr(t, "Link of a relative folder", err, CodeInvalid, "")
	_, err = svc.OpenWorkspace("../../..")
	pageErr(t, "OpenWorkspace of a relative folder", err, CodeInvalid, "")
	_, err = svc.Budget("", "victim/plug", "")
	pageErr(t, "Budget of a relative folder", err, CodeInvalid, "")
	_, err = svc.Budget("", filepath.Join(home, "nonexistent"), "")
	pageErr(t, "Budget of a missing folder", err, CodeNotFound, "")
	_, err = svc.Link(filepath.Join(home, "nonexistent"), "home", "", false, false)
	pageErr(t, "Link of a missing folder", err, CodeNotFound, "")
	// A backend the caller names that no launch knows is the caller's mistake.
	_, err = svc.Budget("", "~/ws", "gemini")
	pageErr(t, "Budget with an unknown backend", err, CodeInvalid, "")
	_, err = svc.Budget("agent:nobody", "", "")
	pageErr(t, "Budget of an unknown target", err, CodeNotFound, "")
	if _, err := svc.OpenWorkspace("~/ws"); err != nil {
		t.Errorf("OpenWorkspace(~/ws): %v", err)
	}
	if ws := svc.Workspace(); ws != filepath.Join(home, "ws") {
		t.Errorf("workspace = %q", ws)
	}
	if ents, _ := os.ReadDir(filepath.Join(home, ".plugboard", "plugins")); len(ents) != 0 {
		t.Errorf("something was linked: %v", ents)
	}
}
