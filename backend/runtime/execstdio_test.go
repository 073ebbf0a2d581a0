package runtime

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/jsonfile"
)

// TestExecStdioRefusesASharedOrLinkedConfig: mcp-stdio reads its config as a private file
// (it holds the server's env): a file group or others may read or write, a symlink or a
// folder is refused with the file and the fix named, before the working folder changes.
// The config names a command that does not exist, so a check that let the file through
// fails at the exec instead of replacing the test binary.
func TestExecStdioRefusesASharedOrLinkedConfig(t *testing.T) {
	start := t.TempDir()
	t.Chdir(start)
	cwd := t.TempDir()
	body := `{"command": "/nonexistent/plugboard-test-server", "args": [], "cwd": "` + cwd + `", "env": {"TOKEN": "s3cret"}}`
	write := func(t *testing.T, mode os.FileMode) string {
		t.Helper()
		p := filepath.Join(t.TempDir(), "0.json")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // WriteFile's mode is subject to umask
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name  string
		place func(t *testing.T) string
		want  string
	}{
		{"world-readable", func(t *testing.T) string { return write(t, 0o644) }, "chmod 600"},
		{"group-readable", func(t *testing.T) string { return write(t, 0o640) }, "chmod 600"},
		{"others-writable", func(t *testing.T) string { return write(t, 0o602) }, "chmod 600"},
		{"symlink-to-a-private-file", func(t *testing.T) string {
			link := filepath.Join(t.TempDir(), "link.json")
			if err := os.Symlink(write(t, 0o600), link); err != nil {
				t.Fatal(err)
			}
			return link
		}, "symlink"},
		{"folder", func(t *testing.T) string { return t.TempDir() }, "folder"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := c.place(t)
			err := ExecStdio(p)
			if err == nil || !errors.Is(err, jsonfile.ErrNotPrivate) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("ExecStdio = %v; want a refusal naming %s and %q", err, p, c.want)
			}
			if c.want == "chmod 600" && !strings.Contains(err.Error(), "chmod 600 "+p) {
				t.Errorf("ExecStdio = %v; want the fix to name the file", err)
			}
			if err != nil && strings.Contains(err.Error(), "s3cret") {
				t.Errorf("ExecStdio = %v shows an env value", err)
			}
			if wd, _ := os.Getwd(); wd != start {
				t.Errorf("working folder = %s after a refused config; want it unchanged (%s)", wd, start)
				os.Chdir(start)
			}
		})
	}
	// A private file gets as far as the exec, which fails on the missing command.
	p := write(t, 0o600)
	if err := ExecStdio(p); err == nil || errors.Is(err, jsonfile.ErrNotPrivate) {
		t.Errorf("ExecStdio of a private config = %v; want the exec's error", err)
	}
}
