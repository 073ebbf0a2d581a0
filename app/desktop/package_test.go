//go:build desktop

package desktop

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/testhome"
)

// TestDebPackage installs the package make package built (PLUGBOARD_DEB) into this
// machine with dpkg, as a user would: the installed plugboard prints its version, says
// where its manual and completions are, and the window starts from the desktop entry's
// Exec line under Xvfb and renders the catalog; then the package is removed and none of
// its files is left. It changes the machine, so it runs only when asked (make
// test-package) and as root; a plugboard package installed before is refused rather
// than replaced.
func TestDebPackage(t *testing.T) {
	deb := os.Getenv("PLUGBOARD_DEB")
	if deb == "" {
		testhome.CannotRun(t, "PLUGBOARD_DEB is not set; run make test-package")
	}
	if os.Geteuid() != 0 {
		testhome.CannotRun(t, "installing a package needs root")
	}
	if exec.Command("dpkg-query", "-W", "-f=${Status}", "plugboard").Run() == nil {
		out, _ := exec.Command("dpkg-query", "-W", "-f=${Status}", "plugboard").Output()
		if strings.Contains(string(out), "installed") && !strings.Contains(string(out), "not-installed") {
			t.Fatalf("a plugboard package is installed already (%s); remove it first", out)
		}
	}
	files := packageFiles(t, deb)
	if out, err := exec.Command("dpkg", "-i", deb).CombinedOutput(); err != nil {
		t.Fatalf("dpkg -i %s: %v\n%s", deb, err, out)
	}
	removed := false
	remove := func() {
		if removed {
			return
		}
		removed = true
		if out, err := exec.Command("dpkg", "--purge", "plugboard").CombinedOutput(); err != nil {
			t.Errorf("dpkg --purge plugboard: %v\n%s", err, out)
		}
	}
	t.Cleanup(remove)

	out, err := exec.Command("/usr/bin/plugboard", "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "plugboard ") || !strings.Contains(string(out), "Wails v2.") {
		t.Errorf("the installed plugboard --version: %v: %q (want the window's Wails version too)", err, out)
	}
	for _, f := range []string{"/usr/share/man/man1/plugboard.1.gz", "/usr/share/bash-completion/completions/plugboard",
		"/usr/share/zsh/vendor-completions/_plugboard", "/usr/share/fish/vendor_completions.d/plugboard.fish",
		"/usr/share/icons/hicolor/16x16/apps/plugboard.png", "/usr/share/icons/hicolor/512x512/apps/plugboard.png",
		"/usr/share/metainfo/org.plugboard.Plugboard.metainfo.xml", "/usr/lib/plugboard/plugboard-window"} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("the package did not install %s: %v", f, err)
		}
	}
	// plugboard has every command itself: mcp-proxy (and mcp check, budget, serve) answer
	// with their own usage.
	proxy := exec.Command("/usr/bin/plugboard", "mcp-proxy")
	out, _ = proxy.CombinedOutput()
	if code := proxy.ProcessState.ExitCode(); code != 2 || !strings.HasPrefix(string(out), "usage: plugboard mcp-proxy --config FILE") {
		t.Errorf("the installed plugboard mcp-proxy: exit %d, %q (want its usage, exit 2)", code, out)
	}
	if out, err := exec.Command("zcat", "/usr/share/man/man1/plugboard.1.gz").Output(); err != nil || !strings.Contains(string(out), `.TH "PLUGBOARD" "1"`) ||
		!strings.Contains(string(out), "plugboard-inspect(1)") {
		t.Errorf("the manual page: %v\n%.300s", err, out)
	}
	if out, err := exec.Command("zcat", "/usr/share/man/man1/plugboard-launch.1.gz").Output(); err != nil || !strings.Contains(string(out), ".SH EXAMPLE") {
		t.Errorf("the manual page of launch: %v\n%.300s", err, out)
	}

	// The window, started as the menu starts it: the desktop entry's Exec line.
	exe := desktopExec(t, "/usr/share/applications/org.plugboard.Plugboard.desktop")
	display := startXvfb(t)
	t.Setenv("DISPLAY", display)
	bus := startBus(t)
	home := filepath.Join(testhome.Copy(t, "full"), "home")
	cmd, exited, logf := startApp(t, exe, home, display, bus, "PLUGBOARD_WINDOW=")
	c := catalog.Load(catalog.Options{Home: home, PlugboardHome: filepath.Join(home, ".plugboard")})
	want := fmt.Sprintf("Plugboard — %d plugins · %d skills", c.Summary.Plugins, c.Summary.Skills)
	found := false
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline) && !found && !exitedEarly(exited); time.Sleep(200 * time.Millisecond) {
		o, _ := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^"+regexp.QuoteMeta(want)).Output()
		found = strings.TrimSpace(string(o)) != ""
	}
	if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", cmd.Process.Pid)); found && (err != nil || exe != "/usr/lib/plugboard/plugboard-window") {
		t.Errorf("the window runs %q (%v), want /usr/lib/plugboard/plugboard-window", exe, err)
	}
	stopApp(t, cmd, exited) // remove() must not meet a running window
	if !found {
		log, _ := os.ReadFile(logf.Name())
		t.Fatalf("the installed window showed no window titled %q within 60 s; log:\n%s", want, log)
	}

	remove()
	for _, f := range files {
		if _, err := os.Lstat(f); !os.IsNotExist(err) {
			t.Errorf("%s is left after the package was removed (%v)", f, err)
		}
	}
	if out, _ := exec.Command("dpkg-query", "-W", "-f=${Status}", "plugboard").Output(); strings.Contains(string(out), " installed") {
		t.Errorf("dpkg still lists plugboard: %s", out)
	}
}

// packageFiles lists the regular files and links a package holds (its folders are
// shared with other packages).
func packageFiles(t *testing.T, deb string) []string {
	t.Helper()
	out, err := exec.Command("dpkg-deb", "--contents", deb).Output()
	if err != nil {
		t.Fatalf("dpkg-deb --contents %s: %v", deb, err)
	}
	var files []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || strings.HasPrefix(fields[0], "d") {
			continue
		}
		files = append(files, strings.TrimPrefix(fields[5], "."))
	}
	if len(files) < 10 {
		t.Fatalf("the package holds only %v", files)
	}
	return files
}

// desktopExec is the Exec line of a desktop entry, split into words (no field codes or
// quoting are used in Plugboard's).
func desktopExec(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Exec="); ok {
			return strings.Fields(rest)
		}
	}
	t.Fatalf("%s has no Exec line", file)
	return nil
}
