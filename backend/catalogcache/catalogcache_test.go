package catalogcache

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/issue"
)

func TestSnapshotPays(t *testing.T) {
	for _, c := range []struct {
		looks, items int
		want         bool
	}{
		{25_010, 11_000, true}, // catalogbench's home
		{9_999, 1, true},       // small, whatever the ratio
		{68_016, 2_000, false}, // 1,000 plugins and a working copy with 60,000 dependencies
		{40_000, 2_500, true},  // 16 an item
		{40_001, 2_499, false},
	} {
		if got := snapshotPays(c.looks, c.items); got != c.want {
			t.Errorf("snapshotPays(%d, %d) = %v, want %v", c.looks, c.items, got, c.want)
		}
	}
}

func TestTransient(t *testing.T) {
	for msg, want := range map[string]bool{
		"skills/x cannot be read: input/output error":    true,
		"skills/x cannot be read: too many open files":   true,
		"skills/x cannot be read: permission denied":     false,
		"skills/x/SKILL.md: name must match folder name": false,
	} {
		if got := transient(&catalog.Catalog{Issues: issue.List{{Message: msg}}}); got != want {
			t.Errorf("transient(%q) = %v, want %v", msg, got, want)
		}
	}
}

// The key holds who runs the catalog: another user, other groups or other capabilities
// (root without CAP_DAC_OVERRIDE) may read other files.
func TestKeyNamesTheUser(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".plugboard"), 0o755)
	c := Open(catalog.Options{Home: home, PlugboardHome: filepath.Join(home, ".plugboard")}, true, time.Now())
	if c == nil {
		t.Fatal("no cache for ~/.plugboard")
	}
	groups, _ := os.Getgroups()
	if want := fmt.Sprintf("\x00%d %d %v CapEff:", os.Geteuid(), os.Getegid(), groups); !strings.Contains(c.Key(), want) {
		t.Errorf("the cache key %q does not name the user, groups and capabilities %q", c.Key(), want)
	}
}
