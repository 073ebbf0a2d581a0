package catalog

import (
	"os"
	"path/filepath"
	"testing"
)

// Places names every folder the catalog looks in, with a kind the page words in its own
// language and the English of it, and whether the folder is there.
func TestPlaces(t *testing.T) {
	home := t.TempDir()
	pb := filepath.Join(home, ".plugboard")
	for _, d := range []string{".plugboard/plugins", ".claude/skills", "extra"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(pb, "settings.json"), []byte(`{"skillPluginPaths": ["`+filepath.Join(home, "extra")+`"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	got := Places(Options{Home: home, PlugboardHome: pb})
	want := []Place{
		{filepath.Join(pb, "plugins"), "plugins", "Plugboard's plugins (installed, linked)", true},
		{filepath.Join(home, ".cursor/plugins/local"), "cursor-local", "Cursor's local plugins", false},
		{filepath.Join(home, ".cursor/plugins/cache"), "cursor-cache", "Cursor Marketplace plugins", false},
		{filepath.Join(home, "extra"), "plugin-path", "a skillPluginPaths package", true},
		{filepath.Join(home, ".cursor/skills"), "cursor-skills", "Cursor's skills", false},
		{filepath.Join(home, ".agents/skills"), "agents-skills", "Agent Skills (~/.agents)", false},
		{filepath.Join(home, ".claude/skills"), "claude-skills", "Claude Code's skills", true},
		{filepath.Join(home, ".codex/skills"), "codex-skills", "Codex's skills", false},
		{filepath.Join(pb, ".claude/skills"), "plugboard-skills", "Plugboard's own skills", false},
	}
	if len(got) != len(want) {
		t.Fatalf("Places = %+v\nwant %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("place %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	for kind, what := range placeKinds {
		if what == "" {
			t.Errorf("kind %q has no English", kind)
		}
	}
}
