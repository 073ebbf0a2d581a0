package settings

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/plugboard/plugboard/backend/pathsafe"
)

func TestExpandHomeAndTrusts(t *testing.T) {
	home, _ := pathsafe.Root(t.TempDir())
	for in, want := range map[string]string{"~": home, "~/a/b": filepath.Join(home, "a/b"), "/x//y/": "/x/y", "~user/x": "~user/x"} {
		if got := ExpandHome(in, home); got != want {
			t.Errorf("ExpandHome(%q) = %q, want %q", in, got, want)
		}
	}
	ws := filepath.Join(home, "src", "repo")
	os.MkdirAll(ws, 0o755)
	os.Symlink(ws, filepath.Join(home, "link"))
	for _, entry := range []string{"~/src/repo", ws, "~/link", ws + "/"} {
		if !(Settings{TrustedWorkspaces: []string{entry}}).Trusts(ws, home) {
			t.Errorf("trusted entry %q does not name %s", entry, ws)
		}
	}
	if (Settings{TrustedWorkspaces: []string{"~/src"}}).Trusts(ws, home) {
		t.Errorf("a parent folder must not trust the workspace")
	}
}
