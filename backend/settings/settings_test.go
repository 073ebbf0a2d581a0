package settings

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestReadMissingAndBroken(t *testing.T) {
	home := t.TempDir()
	s, h, issues := Read(home)
	if len(issues) != 0 || h != Hash(nil) || s.SkillPluginPaths == nil || s.SkillsEnabled == nil {
		t.Errorf("missing file: %+v %s %v", s, h, issues)
	}
	os.WriteFile(Path(home), []byte("{\n \"skillPluginPaths\": [\n"), 0o644)
	if _, _, issues := Read(home); len(issues) != 1 || issues[0].Line != 3 || issues[0].Code != CodeInvalid {
		t.Errorf("broken file issues = %v", issues)
	}
	os.WriteFile(Path(home), []byte(`{"skillPluginPaths": [1]}`), 0o644)
	if _, _, issues := Read(home); len(issues) != 1 || !strings.Contains(issues[0].Message, "wrong type") {
		t.Errorf("wrong type issues = %v", issues)
	}
}

func TestSaveKeepsOtherFieldsOrderAndMode(t *testing.T) {
	home := t.TempDir()
	orig := "{\n  \"theme\": {\"accent\": \"teal\"},\n  \"skillsEnabled\": {\"a\": false},\n  \"zeta\": [1, 2]\n}\n"
	os.WriteFile(Path(home), []byte(orig), 0o640)
	s, h, _ := Read(home)
	s.SkillPluginPaths = append(s.SkillPluginPaths, "~/src/p")
	s.SkillsEnabled["b"] = false
	nh, err := save(home, s, h)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(Path(home))
	want := "{\n  \"theme\": {\n    \"accent\": \"teal\"\n  },\n  \"skillsEnabled\": {\n    \"a\": false,\n    \"b\": false\n  },\n  \"zeta\": [\n    1,\n    2\n  ],\n  \"skillPluginPaths\": [\n    \"~/src/p\"\n  ],\n  \"trustedWorkspaces\": []\n}\n"
	if string(got) != want {
		t.Errorf("saved file =\n%s\nwant\n%s", got, want)
	}
	if nh != Hash(got) {
		t.Errorf("returned hash does not match the file")
	}
	if st, _ := os.Stat(Path(home)); st.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want 0640", st.Mode().Perm())
	}
	if leftovers, _ := filepath.Glob(filepath.Join(home, ".settings.json.tmp-*")); len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

func TestSaveNewFileIsPrivate(t *testing.T) {
	home := filepath.Join(t.TempDir(), "pb")
	if _, err := save(home, Settings{TrustedWorkspaces: []string{"/w"}}, Hash(nil)); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(Path(home))
	if st.Mode().Perm() != 0o600 {
		t.Errorf("new settings mode = %v, want 0600", st.Mode().Perm())
	}
}

func TestSaveStale(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(Path(home), []byte(`{"skillPluginPaths": ["/a"]}`), 0o644)
	s, h, _ := Read(home)
	os.WriteFile(Path(home), []byte(`{"skillPluginPaths": ["/changed"]}`), 0o644)
	s.SkillPluginPaths = []string{"/mine"}
	_, err := save(home, s, h)
	var se *StaleError
	if !errors.As(err, &se) || !errors.Is(err, ErrStale) || se.Current.SkillPluginPaths[0] != "/changed" {
		t.Fatalf("Save on a stale hash = %v, want StaleError with the current settings", err)
	}
	if b, _ := os.ReadFile(Path(home)); string(b) != `{"skillPluginPaths": ["/changed"]}` {
		t.Errorf("a stale save wrote the file: %s", b)
	}
}

func TestSaveRefusesNonObject(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(Path(home), []byte(`[1]`), 0o644)
	_, h, _ := Read(home)
	if _, err := save(home, Settings{}, h); err == nil {
		t.Errorf("Save over a non-object file succeeded")
	}
	if b, _ := os.ReadFile(Path(home)); string(b) != `[1]` {
		t.Errorf("file changed: %s", b)
	}
}

// TestConcurrentSaves: many savers from the same hash; exactly one wins.
func TestConcurrentSaves(t *testing.T) {
	home := t.TempDir()
	_, h, _ := Read(home)
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins, stale := 0, 0
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, err := save(home, Settings{SkillPluginPaths: []string{filepath.Join("/p", string(rune('a'+i)))}}, h)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				wins++
			case errors.Is(err, ErrStale):
				stale++
			default:
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	if wins != 1 || stale != 15 {
		t.Errorf("wins=%d stale=%d, want 1 and 15", wins, stale)
	}
}

// TestUpdateRefusesAFileItCouldNotRead: with a field of the wrong type anywhere, what was
// read is the defaults; Update says why and writes nothing, so a skill the user turned off
// stays off (the data loss SetWorkspaceTrust had when it saved over such a file).
func TestUpdateRefusesAFileItCouldNotRead(t *testing.T) {
	home := t.TempDir()
	orig := `{"skillPluginPaths": "~/not-a-list", "skillsEnabled": {"noisy": false}}`
	os.WriteFile(Path(home), []byte(orig), 0o644)
	called := false
	_, _, _, err := Update(home, "", func(s *Settings) error {
		called = true
		s.TrustedWorkspaces = append(s.TrustedWorkspaces, "/w")
		return nil
	})
	var ue *UnreadableError
	if !errors.As(err, &ue) || !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), "wrong type") || !strings.Contains(err.Error(), "fix the file") {
		t.Errorf("Update over an unreadable file = %v", err)
	}
	if called {
		t.Error("the edit ran on defaults")
	}
	if b, _ := os.ReadFile(Path(home)); string(b) != orig {
		t.Errorf("the file was rewritten: %s", b)
	}
}

// TestUpdateAppliesOnWhatIsThere: an edit applies to the file as read; one that loses a
// race with another writer is applied again on what that writer saved; an edit that
// changes nothing writes nothing; with an expected hash a changed file is stale.
func TestUpdateAppliesOnWhatIsThere(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(Path(home), []byte(`{"skillsEnabled": {"noisy": false}}`), 0o644)
	raced := false
	before, bh, ah, err := Update(home, "", func(s *Settings) error {
		if !raced { // another writer saves between this read and this save
			raced = true
			os.WriteFile(Path(home), []byte(`{"skillsEnabled": {"noisy": false, "other": false}}`), 0o644)
		}
		s.TrustedWorkspaces = append(s.TrustedWorkspaces, "/w")
		return nil
	})
	if err != nil || bh == ah || before.SkillsEnabled["other"] != false {
		t.Fatalf("Update = %v (%s → %s)", err, bh, ah)
	}
	got, h, _ := Read(home)
	if !slices.Equal(got.TrustedWorkspaces, []string{"/w"}) || got.SkillsEnabled["noisy"] || got.SkillsEnabled["other"] || len(got.SkillsEnabled) != 2 || h != ah {
		t.Errorf("after the race: %+v", got)
	}
	data, _ := os.ReadFile(Path(home))
	if _, _, ah2, err := Update(home, "", func(s *Settings) error { return nil }); err != nil || ah2 != h {
		t.Errorf("a no-op edit: %v", err)
	}
	if b, _ := os.ReadFile(Path(home)); string(b) != string(data) {
		t.Error("a no-op edit rewrote the file")
	}
	if _, _, _, err := Update(home, Hash([]byte("other")), func(s *Settings) error { s.SkillPluginPaths = []string{"/x"}; return nil }); !errors.Is(err, ErrStale) {
		t.Errorf("with a stale expected hash: %v", err)
	}
}

// activityRetentionDays is read, refused below 0, written once set and kept (as 0) when
// cleared, so that a user's explicit choice stays in the file.
func TestActivityRetentionDays(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(Path(home), []byte(`{"activityRetentionDays": -3}`), 0o644)
	if _, _, issues := Read(home); len(issues) != 1 || !strings.Contains(issues[0].Message, "activityRetentionDays below 0") {
		t.Errorf("negative retention issues = %v", issues)
	}
	os.WriteFile(Path(home), []byte(`{"zeta": 1}`), 0o644)
	_, _, h, err := Update(home, "", func(s *Settings) error { s.ActivityRetentionDays = 90; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if s, _, _ := Read(home); s.ActivityRetentionDays != 90 {
		t.Errorf("after saving 90: retention %d", s.ActivityRetentionDays)
	}
	if _, _, _, err = Update(home, h, func(s *Settings) error { s.ActivityRetentionDays = 0; return nil }); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(Path(home)); !strings.Contains(string(got), `"activityRetentionDays": 0`) {
		t.Errorf("after clearing, the file is\n%s\nwant activityRetentionDays kept as 0", got)
	}
}
