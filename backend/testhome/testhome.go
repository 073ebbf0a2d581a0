// Package testhome gives tests a private copy of a sample home from testdata/homes, so
// that they may add symlinks or write files without touching the fixtures. It is used
// only by tests.
package testhome

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// Dir returns testdata/homes/<name> in the repository.
func Dir(name string) string { return Testdata(filepath.Join("homes", name)) }

// Testdata returns testdata/<rel> in the repository.
func Testdata(rel string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", rel)
}

// The Claude Code versions build/agents pins, as paths for AgentBin. Both declare the
// executable "claude", so node_modules/.bin/claude is whichever npm linked last: tests
// name the version they run.
const (
	// Claude is the Claude Code the launch tests drive (2.1.197).
	Claude = "@anthropic-ai/claude-code/bin/claude.exe"
	// ClaudeNewest is the newest pinned Claude Code (2.1.328, an npm alias).
	ClaudeNewest = "claude-code-2.1.328/bin/claude.exe"
)

// ClaudeVersions are the pinned Claude Code executables by version, oldest first, for
// the tests that run a fixture through every version.
var ClaudeVersions = []struct{ Version, Bin string }{{"2.1.197", Claude}, {"2.1.328", ClaudeNewest}}

// AgentBin returns build/agents/node_modules/<rel> in the repository (".bin/pi"):
// an agent make deps-agents installs. When it is not there the test cannot run: it
// fails under CI and is skipped elsewhere.
func AgentBin(t testing.TB, rel string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "..", "..", "build", "agents", "node_modules", filepath.FromSlash(rel))
	if _, err := os.Stat(p); err == nil {
		return filepath.Clean(p)
	}
	CannotRun(t, "%s is not installed: make test installs it (make deps-agents)", rel)
	return ""
}

// Copy copies testdata/homes/<name> into a fresh temporary folder and returns it,
// symlinks resolved so paths compare equal to what the catalog reports.
func Copy(t testing.TB, name string) string { return CopyTestdata(t, filepath.Join("homes", name)) }

// CopyTestdata copies testdata/<rel> into a fresh temporary folder and returns it.
func CopyTestdata(t testing.TB, rel string) string {
	t.Helper()
	src := Testdata(rel)
	dst, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644|info.Mode().Perm()&0o111) // keep the execute bits git keeps
	})
	if err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
	return dst
}

// WriteFile writes body to p, making its folders, for tests that build a home by hand.
func WriteFile(t testing.TB, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// WaitFile waits up to 10 s for the file p, which its writer makes whole in one step (a
// rename), and returns its content; the test fails, naming p, when it does not come.
func WaitFile(t testing.TB, p string) []byte {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(p); err == nil {
			return b
		}
	}
	t.Fatalf("%s did not appear within 10 s", p)
	return nil
}

// Symlink makes a symbolic link at at that leads to target.
func Symlink(t testing.TB, target, at string) {
	t.Helper()
	if err := os.Symlink(target, at); err != nil {
		t.Fatal(err)
	}
}

// AfterCtime returns once a file written now in dir gets a status-change time later than
// newest (ns). The file system's clock is coarse: a change within the tick of an
// earlier look-up could leave every fact of a file as that look-up found it, which is
// what a cache that trusts those facts guards against (it keeps nothing that changed
// in the last seconds). A test that changes a file a moment after caching it waits here,
// on the clock itself, so that the change is one such a cache can see.
func AfterCtime(t testing.TB, dir string, newest int64) {
	t.Helper()
	probe := filepath.Join(dir, ".tick")
	defer os.Remove(probe)
	for {
		WriteFile(t, probe, "x")
		var st syscall.Stat_t
		if err := syscall.Stat(probe, &st); err != nil {
			t.Fatal(err)
		}
		if st.Ctim.Nano() > newest {
			return
		}
		time.Sleep(time.Millisecond)
	}
}
