package autostart

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Enable writes an entry that starts the program in the tray; Disable removes it; an
// entry of that name Plugboard did not write is never touched.
func TestEnableDisable(t *testing.T) {
	home := t.TempDir()
	p := Path(home, func(string) string { return "" })
	if p != filepath.Join(home, ".config", "autostart", FileName) || Enabled(p) {
		t.Fatalf("Path = %s, enabled %v", p, Enabled(p))
	}
	if err := Enable(p, "/usr/bin/plugboard"); err != nil || !Enabled(p) {
		t.Fatalf("Enable: %v, enabled %v", err, Enabled(p))
	}
	b, _ := os.ReadFile(p)
	if !strings.Contains(string(b), "\nExec=/usr/bin/plugboard --hidden\n") {
		t.Errorf("entry:\n%s", b)
	}
	if err := Disable(p); err != nil || Enabled(p) {
		t.Fatalf("Disable: %v, enabled %v", err, Enabled(p))
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("the entry is still there: %v", err)
	}
	os.WriteFile(p, []byte("[Desktop Entry]\nExec=other\n"), 0o644)
	if err := Enable(p, "/usr/bin/plugboard"); !errors.Is(err, ErrNotOurs) {
		t.Errorf("Enable over another entry: %v", err)
	}
	if err := Disable(p); !errors.Is(err, ErrNotOurs) {
		t.Errorf("Disable of another entry: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "[Desktop Entry]\nExec=other\n" {
		t.Errorf("the other entry changed: %q", b)
	}
	if got := Path(home, func(string) string { return "/x/config" }); got != "/x/config/autostart/"+FileName {
		t.Errorf("XDG_CONFIG_HOME: %s", got)
	}
	if got := execQuote("/opt/my apps/plugboard"); got != `"/opt/my apps/plugboard"` {
		t.Errorf("quoted: %s", got)
	}
}
