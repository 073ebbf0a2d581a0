package version

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A build given its version, commit and date by the linker says them, with the Go
// version; without a window program, no Wails version.
func TestGetFromLinkerFlags(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "plugboard")
	pkg := "github.com/plugboard/plugboard/backend/version"
	flags := "-X " + pkg + ".Version=v1.2.3-4-gabcdef0 -X " + pkg + ".Commit=abcdef0123456789 -X " + pkg + ".BuildDate=2026-12-02T00:00:00Z"
	cmd := exec.Command("go", "build", "-ldflags", flags, "-o", bin, "github.com/plugboard/plugboard")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := "plugboard v1.2.3-4-gabcdef0 (abcdef012345), built 2026-12-02T00:00:00Z, " + runtime.Version()
	if got := strings.TrimSpace(string(out)); !strings.HasPrefix(got, want) {
		t.Errorf("--version printed %q, want it to start %q", got, want)
	}
}

// Without linker flags: "devel", or the commit Go recorded; the Wails version comes from
// the window program's build information (here: this test binary, which has none).
func TestGetDefaults(t *testing.T) {
	in := Get("")
	if in.Version == "" || in.Go != runtime.Version() {
		t.Errorf("Get = %+v", in)
	}
	self, _ := os.Executable()
	if w := Get(self); w.Window != self {
		t.Errorf("the window program's path is not reported: %+v", w)
	}
	if w := Get(filepath.Join(t.TempDir(), "none")); w.Window != "" || w.Wails != "" {
		t.Errorf("a missing window program: %+v", w)
	}
}
