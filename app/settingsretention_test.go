package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The page's settings save carries activityRetentionDays to settings.json and back, and
// refuses a negative number without writing.
func TestSettingsRetention(t *testing.T) {
	pb := t.TempDir()
	s := NewService(t.TempDir(), pb, nil)
	st, err := s.Settings()
	if err != nil {
		t.Fatal(err)
	}
	bad := st.Settings
	bad.ActivityRetentionDays = -1
	if _, err := s.SaveSettings(bad, st.Hash); err == nil || err.(*Error).Code != CodeInvalid {
		t.Fatalf("-1 days: %v, want invalid", err)
	}
	if _, err := os.Stat(filepath.Join(pb, "settings.json")); !os.IsNotExist(err) {
		t.Fatalf("a refused save wrote settings.json: %v", err)
	}
	good := st.Settings
	good.ActivityRetentionDays = 45
	saved, err := s.SaveSettings(good, st.Hash)
	if err != nil || saved.Settings.ActivityRetentionDays != 45 {
		t.Fatalf("45 days: %+v, %v", saved, err)
	}
	data, _ := os.ReadFile(filepath.Join(pb, "settings.json"))
	if !strings.Contains(string(data), `"activityRetentionDays": 45`) {
		t.Errorf("settings.json: %s", data)
	}
	if back, _ := s.Settings(); back.Settings.ActivityRetentionDays != 45 || back.Hash != saved.Hash {
		t.Errorf("read back: %+v, want 45 days and hash %s", back, saved.Hash)
	}
}
