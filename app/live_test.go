package app

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/reload"
)

// The page's local development loop over the service: link, see the change arrive live,
// unlink; snapshots and their diff; pause.
func TestLiveServiceLoop(t *testing.T) {
	home := t.TempDir()
	pb := filepath.Join(home, ".plugboard")
	var mu sync.Mutex
	var events []Event
	svc := NewService(home, pb, func(name string, data any) {
		mu.Lock()
		events = append(events, Event{name, data})
		mu.Unlock()
	})
	var notes []string
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := StartLive(ctx, svc, func(title, body string) { mu.Lock(); notes = append(notes, title+": "+body); mu.Unlock() }, nil, io.Discard); err != nil {
		t.Fatal(err)
	}
	waitFor := func(what string, ok func(reload.Reload) bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			mu.Lock()
			for _, e := range events {
				if rl, is := e.Data.(reload.Reload); is && e.Name == EventReloaded && ok(rl) {
					events = nil
					mu.Unlock()
					return
				}
			}
			mu.Unlock()
		}
		t.Fatalf("no reload: %s", what)
	}
	changed := func(kind, id string) func(reload.Reload) bool {
		return func(rl reload.Reload) bool {
			for _, c := range rl.Changes {
				if c.Kind == kind && c.ID == id {
					return true
				}
			}
			return false
		}
	}

	work := filepath.Join(t.TempDir(), "demo")
	os.MkdirAll(filepath.Join(work, "skills", "hi"), 0o755)
	os.WriteFile(filepath.Join(work, "plugin.json"), []byte(`{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "demo"}`), 0o644)
	skill := filepath.Join(work, "skills", "hi", "SKILL.md")
	os.WriteFile(skill, []byte("---\nname: hi\ndescription: Say hi.\n---\n"), 0o644)

	res, err := svc.Link(work, "", "", false, false)
	if err != nil || res.Name != "demo" || !res.Valid {
		t.Fatalf("Link = %+v, %v", res, err)
	}
	waitFor("link", changed("added", "demo"))
	if links, _ := svc.Links(); len(links) != 1 || links[0].Source != work {
		t.Errorf("Links = %+v", links)
	}
	os.WriteFile(skill, []byte("---\nname: hi\ndescription: Say hi.\n---\nBody\n"), 0o644)
	os.WriteFile(filepath.Join(work, "plugin.json"), []byte(`{"name": "demo"}`), 0o644) // now invalid
	waitFor("invalid", changed("changed", "demo"))
	mu.Lock()
	if len(notes) != 1 || !strings.Contains(notes[0], "demo") {
		t.Errorf("notifications = %q", notes)
	}
	mu.Unlock()
	if st, _ := svc.WatchState(); st.State != reload.StateIssues {
		t.Errorf("state = %+v", st)
	}

	sns, err := svc.Snapshots()
	if err != nil || len(sns) < 3 {
		t.Fatalf("snapshots = %+v, %v", sns, err)
	}
	diff, err := svc.SnapshotDiff(sns[len(sns)-1].ID, sns[0].ID)
	if err != nil || len(diff) != 1 || diff[0].ID != "demo" || diff[0].Kind != "added" {
		t.Errorf("diff = %+v, %v", diff, err)
	}
	var e *Error
	if _, err := svc.SnapshotDiff(1, 999); !errors.As(err, &e) || e.Code != CodeNotFound {
		t.Errorf("unknown snapshot: %v", err)
	}

	// A foreign folder is never clobbered, and the reason says so.
	os.MkdirAll(filepath.Join(pb, "plugins", "taken"), 0o755)
	if _, err := svc.Link(work, "", "taken", false, false); !errors.As(err, &e) || e.Code != CodeRefused {
		t.Errorf("clobber: %v", err)
	}
	if _, err := svc.Unlink("taken", ""); !errors.As(err, &e) || e.Code != CodeRefused {
		t.Errorf("unlink a real folder: %v", err)
	}
	if _, err := svc.Unlink("demo", ""); err != nil {
		t.Fatal(err)
	}
	waitFor("unlink", changed("removed", "demo"))

	if st, _ := svc.PauseWatching(true); !st.Paused {
		t.Errorf("pause: %+v", st)
	}
	if _, err := svc.PickFolder(); !errors.As(err, &e) || e.Code != CodeUnsupported {
		t.Errorf("PickFolder over HTTP: %v", err)
	}
}

// The page tells its language: the desktop shell's hook hears it; another language is
// refused with a sentence and the code invalid, and the hook hears nothing.
func TestSetLanguage(t *testing.T) {
	home := t.TempDir()
	svc := NewService(home, filepath.Join(home, ".plugboard"), func(string, any) {})
	if got, err := svc.SetLanguage("zh-CN"); err != nil || got != "zh-CN" {
		t.Fatalf("SetLanguage with no hook = %q, %v", got, err)
	}
	var heard []string
	SetLanguageHook(svc, func(lang string) { heard = append(heard, lang) })
	for _, l := range []string{"zh-CN", "en"} {
		if _, err := svc.SetLanguage(l); err != nil {
			t.Fatal(err)
		}
	}
	_, err := svc.SetLanguage("fr")
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeInvalid || !strings.Contains(e.Message, `not "fr"`) {
		t.Errorf("SetLanguage(fr) = %v", err)
	}
	if strings.Join(heard, ",") != "zh-CN,en" {
		t.Errorf("the hook heard %v", heard)
	}
}
