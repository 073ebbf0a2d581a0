//go:build desktop

package desktop

import (
	"bufio"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/reload"
	"github.com/plugboard/plugboard/backend/testhome"
)

// TestWindow starts the real desktop binary under Xvfb, waits for its window to be titled
// with the catalog the page rendered (the number of plugins and skills of the home), takes
// a screenshot and checks that it is not blank. PLUGBOARD_DESKTOP_BIN names the binary
// (make test-desktop builds build/bin/plugboard, which hands over to plugboard-window
// beside it); PLUGBOARD_SCREENSHOT, when set, is where to keep the
// picture. The binary gets a private session bus with no tray host, as on GNOME without
// the AppIndicator extension, and then the shell around the window is checked over it:
// see checkShell.
func TestWindow(t *testing.T) {
	bin := os.Getenv("PLUGBOARD_DESKTOP_BIN")
	if bin == "" {
		testhome.CannotRun(t, "PLUGBOARD_DESKTOP_BIN is not set; run make test-desktop")
	}
	for _, tool := range []string{"Xvfb", "xdotool", "/usr/bin/import"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is missing: make deps installs xvfb, xdotool and imagemagick", tool)
		}
	}
	display := startXvfb(t)
	t.Setenv("DISPLAY", display) // for xdotool and import
	bus := startBus(t)
	notes := serveNotifications(t, bus)
	home := filepath.Join(testhome.Copy(t, "full"), "home")
	cmd, exited, logf := startApp(t, []string{bin}, home, display, bus)

	// The page titles the window with the scan it rendered (frontend/src/title.ts): a
	// window titled so has the catalog from the backend, drawn by the page in WebKit.
	c := catalog.Load(catalog.Options{Home: home, PlugboardHome: filepath.Join(home, ".plugboard")})
	want := fmt.Sprintf("Plugboard — %d plugins · %d skills", c.Summary.Plugins, c.Summary.Skills)
	wid := waitWindowTitled(t, want, exited, logf)
	// `plugboard` (the command line, no GTK or WebKit linked) handed itself over to the
	// window program beside it: the same process now runs plugboard-window.
	if filepath.Base(bin) == "plugboard" {
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", cmd.Process.Pid))
		if want := filepath.Join(filepath.Dir(bin), "plugboard-window"); err != nil || exe != want {
			t.Errorf("the window runs %q (%v), want %s", exe, err, want)
		}
	}
	shot := os.Getenv("PLUGBOARD_SCREENSHOT")
	if shot == "" {
		shot = filepath.Join(t.TempDir(), "window.png")
	}
	// The page is drawn (its title says so); its pixels reach the X window when WebKit's
	// next composited frame does, which is not at the same instant: take pictures until
	// one is not blank.
	var colours, w, h int
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		imp := exec.Command("/usr/bin/import", "-window", wid, shot)
		imp.Env = append(os.Environ(), "DISPLAY="+display)
		if out, err := imp.CombinedOutput(); err != nil {
			t.Fatalf("import: %v\n%s", err, out)
		}
		if colours, w, h = measure(t, shot); colours >= 16 || time.Now().After(deadline) {
			break
		}
	}
	if w < 700 || h < 450 {
		t.Errorf("window is %dx%d, want at least the minimum size 720x480", w, h)
	}
	if colours < 16 {
		t.Errorf("screenshot has %d distinct colours: the window is blank", colours)
	}
	t.Logf("window %s: %dx%d, %d distinct colours, picture %s", wid, w, h, colours, shot)
	checkSecondStart(t, bin, cmd.Env, logf.Name())
	checkShell(t, dial(t, bus), cmd.Process.Pid, home, logf.Name(), notes, exited)
}

// checkSecondStart starts the app again for the same home, as `plugboard FOLDER`: the
// second process hands the folder to the running window and exits at once with status 0,
// saying so; the running window shows the folder in Local development (its title says
// so), and there is still one window.
func checkSecondStart(t *testing.T, bin string, env []string, logName string) {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	second := exec.CommandContext(ctx, bin, dir)
	second.Env = env
	out, err := second.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "the running window shows "+dir+" in Local development") {
		t.Fatalf("the second start: %v\n%s", err, out)
	}
	title := "^" + regexp.QuoteMeta("Plugboard — Local development: "+dir) + "$"
	var wins []string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline) && len(wins) == 0; time.Sleep(200 * time.Millisecond) {
		o, _ := exec.Command("xdotool", "search", "--onlyvisible", "--name", title).Output()
		wins = strings.Fields(string(o))
	}
	if len(wins) != 1 {
		log, _ := os.ReadFile(logName)
		t.Fatalf("no window titled for the folder the second start handed over; log:\n%s", log)
	}
	if o, _ := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^Plugboard").Output(); len(strings.Fields(string(o))) != 1 {
		t.Errorf("windows named Plugboard: %q, want one", o)
	}
}

// checkShell checks what runs beside the window, over its session bus: the tray icon is
// up although no tray host is, it shows the state of the first scan, a plugin that turns
// invalid on disk brings a desktop notification (live reload through app.StartLive), and
// the tray's Quit closes the window and ends the process cleanly.
func checkShell(t *testing.T, conn *dbus.Conn, pid int, home, logName string, notes *fakeNotifications, exited chan error) {
	t.Helper()
	log := func() string { b, _ := os.ReadFile(logName); return string(b) }
	if !strings.Contains(log(), "no system tray host") {
		t.Errorf("the log does not say there is no tray host:\n%s", log())
	}
	name := fmt.Sprintf("org.kde.StatusNotifierItem-%d-1", pid)
	if !hasOwner(t, conn, name) {
		t.Fatalf("the window's tray item %s is not on the bus; log:\n%s", name, log())
	}
	item := conn.Object(name, "/StatusNotifierItem")
	waitTrayShowsIssues(t, item) // the sample home holds a broken plugin on purpose

	// The first start of a home says, once, where the app lives (app.FirstRun marks it).
	if n := notes.wait(t); n.App != "Plugboard" || n.Summary != "Plugboard is running" {
		t.Errorf("the first start's notification is %+v", n)
	}
	if _, err := os.Stat(filepath.Join(home, ".plugboard", ".first-run-done")); err != nil {
		t.Errorf("the first run is not marked: %v", err)
	}

	manifest := filepath.Join(home, ".plugboard", "plugins", "alpha", "plugin.json")
	if err := os.WriteFile(manifest, []byte(`{"name": "alpha"}`), 0o644); err != nil { // no $schema: invalid
		t.Fatal(err)
	}
	if n := notes.wait(t); n.App != "Plugboard" || n.Summary != "Plugin no longer valid" || !strings.Contains(n.Body, "alpha") {
		t.Errorf("notification %+v, want one about alpha", n)
	}

	var items []menuItem
	menu := conn.Object(name, "/StatusNotifierItem/menu")
	for _, it := range menuItems(t, menu) {
		if it.label == "Quit" {
			items = append(items, it)
		}
	}
	if len(items) != 1 {
		t.Fatal("no Quit in the tray menu")
	}
	if err := menu.Call(menuIface+".Event", 0, items[0].id, "clicked", dbus.MakeVariant(""), uint32(0)).Err; err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		exited <- err // for the cleanup
		if err != nil {
			t.Errorf("after Quit in the tray: %v; log:\n%s", err, log())
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("Quit in the tray did not end the app; log:\n%s", log())
	}
	if l := log(); strings.Contains(l, "panic") || strings.Contains(l, "tray stop failed") {
		t.Errorf("shutting down logged trouble:\n%s", l)
	}
	t.Logf("log:\n%s", log())
}

func TestPreventClose(t *testing.T) {
	asked := 0
	ask := func(answer string) func() string { return func() string { asked++; return answer } }
	tests := []struct {
		dirty  bool
		answer string
		want   bool
	}{
		{false, "Cancel", false}, {true, "Discard", false}, {true, "Cancel", true}, {true, "", true},
	}
	for _, tc := range tests {
		if got := PreventClose(tc.dirty, ask(tc.answer)); got != tc.want {
			t.Errorf("PreventClose(%v, %q) = %v, want %v", tc.dirty, tc.answer, got, tc.want)
		}
	}
	if asked != 3 {
		t.Errorf("asked %d times, want 3 (never when clean)", asked)
	}
}

// measure counts distinct colours (on a coarse grid) of a PNG.
func measure(t *testing.T, path string) (colours, w, h int) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	seen := map[uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[(r>>11)<<10|(g>>11)<<5|bl>>11] = true
		}
	}
	return len(seen), b.Dx(), b.Dy()
}

var _ image.Image // image/png registers the decoder through image

// startXvfb starts a private X server and returns its display name.
func startXvfb(t *testing.T) string {
	t.Helper()
	r, w, _ := os.Pipe()
	x := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp")
	x.ExtraFiles = []*os.File{w}
	if err := x.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { x.Process.Kill(); x.Wait() })
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("Xvfb did not report its display: %v", err)
	}
	return ":" + strings.TrimSpace(line)
}

// startApp starts argv as the app under display with its own session bus and home (no
// accessibility bus to start), its output in a log file; stopApp ends it when the test
// ends, before the test's folders are removed. The app leads a process group of its own,
// which the WebKit processes it starts join.
func startApp(t *testing.T, argv []string, home, display, bus string, env ...string) (*exec.Cmd, chan error, *os.File) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(append(os.Environ(), "DISPLAY="+display, "HOME="+home, "PLUGBOARD_HOME="+filepath.Join(home, ".plugboard"),
		"DBUS_SESSION_BUS_ADDRESS="+bus, "NO_AT_BRIDGE=1"), env...)
	logf, err := os.Create(filepath.Join(t.TempDir(), "window.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	testhome.OwnGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { stopApp(t, cmd, exited) })
	return cmd, exited, logf
}

// stopApp kills the app started by startApp together with WebKit's network and web
// processes (its process group) and returns once none of them can write anything more
// into the test's home. Calling it twice is harmless.
func stopApp(t *testing.T, cmd *exec.Cmd, exited chan error) {
	t.Helper()
	testhome.StopGroup(t, cmd.Process.Pid)
	err := <-exited
	exited <- err // for a later call
}

// waitTrayShowsIssues waits for the tray item to show the first scan of the full home,
// which has issues, in English (or in the language given).
func waitTrayShowsIssues(t *testing.T, item dbus.BusObject, lang ...string) {
	t.Helper()
	eventually(t, "the tray showing the first scan", func() string {
		v, err := item.GetProperty(sniIface + ".ToolTip")
		if err != nil {
			return err.Error()
		}
		if tip := tooltipTitle(v); tip != trayTooltip(reload.State{State: reload.StateIssues}, append(lang, "en")[0]) {
			return fmt.Sprintf("tooltip %q", tip)
		}
		return ""
	})
}

// exitedEarly reports whether the process behind exited has ended, without waiting; the
// value is put back for the test's cleanup.
func exitedEarly(exited chan error) bool {
	select {
	case err := <-exited:
		exited <- err
		return true
	default:
		return false
	}
}

// TestHiddenStart: `plugboard --hidden`, what the start-at-login entry runs, starts in the
// tray: its tray item is on the session bus, and no window is shown.
func TestHiddenStart(t *testing.T) {
	bin := os.Getenv("PLUGBOARD_DESKTOP_BIN")
	if bin == "" {
		testhome.CannotRun(t, "PLUGBOARD_DESKTOP_BIN is not set; run make test-desktop")
	}
	display := startXvfb(t)
	t.Setenv("DISPLAY", display)
	bus := startBus(t)
	home := filepath.Join(testhome.Copy(t, "full"), "home")
	cmd, exited, logf := startApp(t, []string{bin, "--hidden"}, home, display, bus)
	conn := dial(t, bus)
	name := fmt.Sprintf("org.kde.StatusNotifierItem-%d-1", cmd.Process.Pid)
	eventually(t, "the tray item of the hidden start", func() string {
		if exitedEarly(exited) {
			log, _ := os.ReadFile(logf.Name())
			t.Fatalf("the hidden start exited; log:\n%s", log)
		}
		if !hasOwner(t, conn, name) {
			return name + " is not on the bus"
		}
		return ""
	})
	// The app runs behind the hidden window: the tray shows the first scan's state.
	item := conn.Object(name, "/StatusNotifierItem")
	waitTrayShowsIssues(t, item) // the sample home holds a broken plugin on purpose
	// Started at all, the window can only go from shown to hidden now (the hide the app
	// makes once the page is loaded, whichever way Wails' own StartHidden raced): wait for
	// that end, which must come.
	eventually(t, "no visible window after --hidden", func() string {
		if o, _ := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^Plugboard").Output(); strings.TrimSpace(string(o)) != "" {
			return "visible: " + strings.TrimSpace(string(o))
		}
		return ""
	})
}

// TestWindowLanguage: the window started in a Simplified Chinese locale shows the page in
// Chinese, as a person whose system is in Chinese double-clicks it. WebKitGTK gives the page
// the language of the process's LC_CTYPE locale, which must exist: the test compiles
// zh_CN.UTF-8 with localedef into a folder of its own (LOCPATH) rather than depend on the
// machine's generated locales. The page titles the window with its summary in Chinese.
func TestWindowLanguage(t *testing.T) {
	bin := os.Getenv("PLUGBOARD_DESKTOP_BIN")
	if bin == "" {
		testhome.CannotRun(t, "PLUGBOARD_DESKTOP_BIN is not set; run make test-desktop")
	}
	if _, err := exec.LookPath("localedef"); err != nil {
		t.Fatal("localedef is missing: make deps installs locales")
	}
	locales := t.TempDir()
	if out, err := exec.Command("localedef", "-i", "zh_CN", "-f", "UTF-8", filepath.Join(locales, "zh_CN.UTF-8")).CombinedOutput(); err != nil {
		t.Fatalf("localedef zh_CN.UTF-8: %v\n%s", err, out)
	}
	display := startXvfb(t)
	t.Setenv("DISPLAY", display)
	bus := startBus(t)
	home := filepath.Join(testhome.Copy(t, "full"), "home")
	cmd, exited, logf := startApp(t, []string{bin}, home, display, bus,
		"LOCPATH="+locales, "LANG=zh_CN.UTF-8", "LC_ALL=", "LC_CTYPE=", "LC_MESSAGES=", "LANGUAGE=")

	c := catalog.Load(catalog.Options{Home: home, PlugboardHome: filepath.Join(home, ".plugboard")})
	want := fmt.Sprintf("Plugboard — %d 个插件 · %d 个技能", c.Summary.Plugins, c.Summary.Skills)
	waitWindowTitled(t, want, exited, logf)
	// and the tray speaks as the page does
	conn := dial(t, bus)
	item := conn.Object(fmt.Sprintf("org.kde.StatusNotifierItem-%d-1", cmd.Process.Pid), "/StatusNotifierItem")
	waitTrayShowsIssues(t, item, "zh-CN")
}

// waitWindowTitled waits up to 60 s (the first start of WebKit under Xvfb on a loaded
// machine can take long) for a visible window whose title starts with want, and returns
// its id; it fails with the visible Plugboard windows' titles and the app's log.
func waitWindowTitled(t *testing.T, want string, exited chan error, logf *os.File) string {
	t.Helper()
	var last string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if exitedEarly(exited) {
			break
		}
		out, _ := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^"+regexp.QuoteMeta(want)).Output()
		if wid := strings.TrimSpace(strings.Split(string(out), "\n")[0]); wid != "" {
			return wid
		}
		titles, _ := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^Plugboard", "getwindowname", "%@").Output()
		last = strings.TrimSpace(string(titles))
	}
	log, _ := os.ReadFile(logf.Name())
	t.Fatalf("no visible window titled %q within 60 s; visible: %q; log:\n%s", want, last, log)
	return ""
}
