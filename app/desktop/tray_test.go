//go:build desktop

package desktop

import (
	"bufio"
	"bytes"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/plugboard/plugboard/backend/reload"
)

const (
	sniIface  = "org.kde.StatusNotifierItem"
	menuIface = "com.canonical.dbusmenu"
)

// TestHelperProcess is not a test: it is the process startHelper runs, selected by
// PLUGBOARD_TEST_HELPER. It prints what happens on stdout, one line each, and takes
// commands on stdin.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv("PLUGBOARD_TEST_HELPER")
	if mode == "" {
		return // run by the tray tests in a process of its own
	}
	icon, err := os.ReadFile(filepath.Join("..", "..", "build", "appicon.png"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	var mu sync.Mutex
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Printf(format+"\n", args...)
	}
	switch mode {
	case "tray": // the tray with recording actions, driven from stdin
		trayc := make(chan *Tray, 1)
		tray := StartTray(icon, TrayActions{
			Open:   func() { say("open") },
			Rescan: func() { say("rescan") },
			Pause: func(paused bool) {
				say("pause %v", paused)
				// As app.Service does: the reloader reports its new state.
				tr := <-trayc
				trayc <- tr
				tr.SetState(stateOf(map[bool]string{true: reload.StatePaused, false: reload.StateOK}[paused]))
			},
			Quit: func() { say("quit") },
		}, os.Stderr)
		trayc <- tray
		say("ready")
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			cmd, arg, _ := strings.Cut(in.Text(), " ")
			switch cmd {
			case "state":
				tray.SetState(stateOf(arg))
				say("state %s", arg)
			case "lang":
				tray.SetLanguage(arg)
				say("lang %s", arg)
			case "stop":
				tray.Stop()
				say("stopped")
				os.Exit(0)
			}
		}
	case "nobus": // no session bus at all
		tray := StartTray(icon, TrayActions{}, os.Stderr)
		tray.SetState(stateOf(reload.StateIssues))
		tray.Stop()
		n := NewNotifier(os.Stderr)
		n.send("Plugin no longer valid", "demo failed validation")
		n.send("Plugin no longer valid", "demo failed validation again")
		n.Notify("Plugin no longer valid", "in the background")
		n.Close()
		// systray itself, started with no bus to talk to: it carries on, and its end
		// function panics on the connection it never made unless Stop recovers it.
		raw := newTray(icon, TrayActions{}, os.Stderr)
		raw.run()
		raw.SetState(stateOf(reload.StateOK))
		raw.Stop()
		say("survived")
	default:
		fmt.Fprintf(os.Stderr, "unknown helper %q\n", mode)
		os.Exit(2)
	}
	os.Exit(0)
}

func stateOf(s string) reload.State {
	return reload.State{State: s, Paused: s == reload.StatePaused}
}

// The tray on a private session bus with a stand-in tray host: the item registers with
// the host, shows its title, tooltip and picture, lists its four menu items, runs an
// action for a click sent the way a panel sends it, and redraws on a state change.
func TestTray(t *testing.T) {
	addr := startBus(t)
	conn := dial(t, addr)
	// The fake watcher stands in for the panel's tray host (KDE Plasma, the GNOME
	// AppIndicator extension, waybar): it records who registers.
	w := &fakeWatcher{got: make(chan [2]string, 4)}
	if err := conn.Export(w, "/StatusNotifierWatcher", "org.kde.StatusNotifierWatcher"); err != nil {
		t.Fatal(err)
	}
	own(t, conn, "org.kde.StatusNotifierWatcher")
	if err := conn.AddMatchSignal(dbus.WithMatchInterface(sniIface)); err != nil {
		t.Fatal(err)
	}
	signals := make(chan *dbus.Signal, 64)
	conn.Signal(signals)

	h := startHelper(t, "tray", "DBUS_SESSION_BUS_ADDRESS="+addr)
	h.expect(t, "ready")
	name := fmt.Sprintf("org.kde.StatusNotifierItem-%d-1", h.cmd.Process.Pid)
	if !hasOwner(t, conn, name) {
		t.Fatalf("%s is not on the bus", name)
	}
	var owner string
	conn.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, name).Store(&owner)
	select {
	case reg := <-w.got:
		if reg[0] != owner || reg[1] != "/StatusNotifierItem" {
			t.Errorf("registered %q from %s, want /StatusNotifierItem from %s", reg[1], reg[0], owner)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the item did not register with the tray host")
	}
	if strings.Contains(h.log(), "no system tray host") {
		t.Errorf("said there is no tray host while there is one:\n%s", h.log())
	}

	item := conn.Object(name, "/StatusNotifierItem")
	prop := func(p string) dbus.Variant {
		t.Helper()
		v, err := item.GetProperty(sniIface + "." + p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		return v
	}
	if got := prop("Title").Value(); got != "Plugboard" {
		t.Errorf("Title = %v, want Plugboard", got)
	}
	if got := prop("Menu").Value(); got != dbus.ObjectPath("/StatusNotifierItem/menu") {
		t.Errorf("Menu = %v", got)
	}
	if got := prop("ItemIsMenu").Value(); got != false {
		t.Errorf("ItemIsMenu = %v, want false: a left click opens the window", got)
	}
	looks := func(state, words string) func() string {
		return func() string {
			tip := tooltipTitle(prop("ToolTip"))
			if !strings.Contains(tip, words) {
				return fmt.Sprintf("tooltip %q, want it to say %q", tip, words)
			}
			w, h, argb := pixmap(t, prop("IconPixmap"))
			if w != trayIconSize || h != trayIconSize || len(argb) != int(w*h*4) {
				return fmt.Sprintf("icon %dx%d with %d bytes", w, h, len(argb))
			}
			c := int(dotCentre(trayIconSize))
			px := argb[(c*int(w)+c)*4:][:4]
			want := stateColours[state]
			if px[0] != 0xff || px[1] != want.R || px[2] != want.G || px[3] != want.B {
				return fmt.Sprintf("the dot is ARGB % x, want %s's %02x%02x%02x", px, state, want.R, want.G, want.B)
			}
			return ""
		}
	}
	eventually(t, "the first look (reloading until the first state)", looks(reload.StateReloading, "reloading"))

	menu := conn.Object(name, "/StatusNotifierItem/menu")
	items := menuItems(t, menu)
	var labels []string
	for _, it := range items {
		labels = append(labels, it.label)
	}
	if got := strings.Join(labels, "|"); got != "Open Plugboard|Rescan now|Pause watching|Quit" {
		t.Fatalf("menu = %q", got)
	}
	id := map[string]int32{}
	for _, it := range items {
		id[it.label] = it.id
	}
	if items[2].toggle != "checkmark" {
		t.Errorf("Pause watching has toggle-type %q, want a checkmark", items[2].toggle)
	}
	click := func(label string) {
		t.Helper()
		if err := menu.Call(menuIface+".Event", 0, id[label], "clicked", dbus.MakeVariant(""), uint32(0)).Err; err != nil {
			t.Fatalf("click %s: %v", label, err)
		}
	}

	click("Rescan now")
	h.expect(t, "rescan")
	click("Open Plugboard")
	h.expect(t, "open")
	if err := item.Call(sniIface+".Activate", 0, int32(0), int32(0)).Err; err != nil {
		t.Fatalf("Activate: %v", err)
	}
	h.expect(t, "open")

	drain(signals)
	h.send(t, "state issues")
	h.expect(t, "state issues")
	eventually(t, "the issues look", looks(reload.StateIssues, "errors"))
	eventually(t, "the signals that tell the host to redraw", func() string {
		seen := map[string]bool{}
		for {
			select {
			case s := <-signals:
				if s.Sender == owner {
					seen[strings.TrimPrefix(s.Name, sniIface+".")] = true
				}
				continue
			default:
			}
			break
		}
		if !seen["NewIcon"] || !seen["NewToolTip"] {
			return fmt.Sprintf("saw %v, want NewIcon and NewToolTip", seen)
		}
		return ""
	})

	click("Pause watching")
	h.expect(t, "pause true")
	eventually(t, "the paused look", looks(reload.StatePaused, "paused"))
	eventually(t, "the ticked checkbox", toggleState(menu, id["Pause watching"], 1))
	click("Pause watching")
	h.expect(t, "pause false")
	eventually(t, "the unticked checkbox", toggleState(menu, id["Pause watching"], 0))
	eventually(t, "the ok look", looks(reload.StateOK, "no errors"))

	// The page says it speaks Chinese: the menu and the tooltip follow, and clicks still work.
	h.send(t, "lang zh-CN")
	h.expect(t, "lang zh-CN")
	eventually(t, "the Chinese menu", func() string {
		var labels []string
		for _, it := range menuItems(t, menu) {
			labels = append(labels, it.label)
		}
		if got := strings.Join(labels, "|"); got != "打开 Plugboard|立即重新扫描|暂停监视|退出" {
			return fmt.Sprintf("menu = %q", got)
		}
		return ""
	})
	eventually(t, "the Chinese tooltip", looks(reload.StateOK, "没有错误"))
	click("Rescan now")
	h.expect(t, "rescan")

	click("Quit")
	h.expect(t, "quit")
	h.send(t, "stop")
	h.expect(t, "stopped")
	if err := h.wait(t); err != nil {
		t.Errorf("helper: %v\n%s", err, h.log())
	}
	if l := h.log(); strings.Contains(l, "failed") || strings.Contains(l, "panic") {
		t.Errorf("stopping with a bus logged trouble:\n%s", l)
	}
	eventually(t, "the item leaving the bus", func() string {
		if hasOwner(t, conn, name) {
			return name + " is still on the bus"
		}
		return ""
	})
}

// No session bus at all (an SSH session, a bare container): the tray and the notifier
// each log one line and carry on, and systray's end function, which panics without a
// bus, is recovered.
func TestTrayNoBus(t *testing.T) {
	empty := t.TempDir() // XDG_RUNTIME_DIR with no bus socket in it
	h := startHelper(t, "nobus", "HOME="+empty, "XDG_RUNTIME_DIR="+empty)
	h.expect(t, "survived")
	if err := h.wait(t); err != nil {
		t.Fatalf("helper: %v\n%s", err, h.log())
	}
	l := h.log()
	t.Logf("log:\n%s", l)
	for _, want := range []string{
		"plugboard: no D-Bus session bus",                            // StartTray
		"plugboard: desktop notifications off: no D-Bus session bus", // Notifier, once
		"plugboard: tray stop failed",                                // the recovered panic of systray's end
	} {
		if n := strings.Count(l, want); n != 1 {
			t.Errorf("log says %q %d times, want once", want, n)
		}
	}
	if strings.Contains(l, "goroutine ") {
		t.Errorf("a panic got through:\n%s", l)
	}
}

// The four pictures: the app icon at tray size, a dot of the state's colour, grey when
// paused. PLUGBOARD_TRAY_ICONS, when set, is a folder to keep them in for a look.
func TestTrayIcons(t *testing.T) {
	appIcon, err := os.ReadFile(filepath.Join("..", "..", "build", "appicon.png"))
	if err != nil {
		t.Fatal(err)
	}
	for _, source := range []struct {
		name string
		data []byte
	}{{"appicon", appIcon}, {"fallback", nil}} {
		icons := trayIcons(source.data)
		if len(icons) != 4 {
			t.Fatalf("%s: %d icons, want one per state", source.name, len(icons))
		}
		seen := map[string]string{}
		for state, data := range icons {
			img, err := png.Decode(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("%s %s: %v", source.name, state, err)
			}
			if b := img.Bounds(); b.Dx() != trayIconSize || b.Dy() != trayIconSize {
				t.Errorf("%s %s: %v, want %d px square", source.name, state, b, trayIconSize)
			}
			c := int(dotCentre(trayIconSize))
			r, g, b, _ := img.At(c, c).RGBA()
			if want := stateColours[state]; uint8(r>>8) != want.R || uint8(g>>8) != want.G || uint8(b>>8) != want.B {
				t.Errorf("%s %s: dot %02x%02x%02x, want %v", source.name, state, r>>8, g>>8, b>>8, want)
			}
			if _, _, _, a := img.At(0, 0).RGBA(); a != 0 {
				t.Errorf("%s %s: the corner is not transparent: the icon is not rounded", source.name, state)
			}
			r, g, b, _ = img.At(trayIconSize/5, trayIconSize/2).RGBA() // the blue, left of the plug
			if grey := r == g && g == b; grey != (state == reload.StatePaused) {
				t.Errorf("%s %s: the icon's body is %04x %04x %04x: grey only when paused", source.name, state, r, g, b)
			}
			if other, dup := seen[string(data)]; dup {
				t.Errorf("%s: %s and %s look the same", source.name, state, other)
			}
			seen[string(data)] = state
			if dir := os.Getenv("PLUGBOARD_TRAY_ICONS"); dir != "" {
				os.WriteFile(filepath.Join(dir, "tray-"+source.name+"-"+state+".png"), data, 0o644)
			}
		}
	}
}

func TestTrayTooltip(t *testing.T) {
	for _, tc := range []struct {
		st         reload.State
		lang, want string
	}{
		{reload.State{State: reload.StateOK}, "en", "Plugboard: watching, no errors"},
		{reload.State{State: reload.StateIssues, Limited: true}, "en", "Plugboard: some plugins or skills have errors (watch limit reached: rescanning periodically)"},
		{reload.State{State: reload.StateReloading}, "en", "Plugboard: reloading…"},
		{reload.State{State: reload.StatePaused, Paused: true, Limited: true}, "en", "Plugboard: watching paused"},
		{reload.State{State: reload.StateOK}, "zh-CN", "Plugboard：正在监视，没有错误"},
		{reload.State{State: reload.StateIssues, Limited: true}, "zh-CN", "Plugboard：部分插件或技能有错误（已达到监视上限：定期重新扫描）"},
		{reload.State{State: reload.StateOK}, "fr", "Plugboard: watching, no errors"},
	} {
		if got := trayTooltip(tc.st, tc.lang); got != tc.want {
			t.Errorf("trayTooltip(%+v, %s) = %q, want %q", tc.st, tc.lang, got, tc.want)
		}
	}
	// every language says everything
	for lang, txt := range trayTexts {
		v := reflect.ValueOf(txt)
		for i := range v.NumField() {
			if v.Field(i).String() == "" {
				t.Errorf("%s has no %s", lang, v.Type().Field(i).Name)
			}
		}
	}
}

// The tray's language before the page says one: the system locale's, read as the page's
// navigator.language is.
func TestTraySystemLanguage(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, "en"},
		{map[string]string{"LANG": "zh_CN.UTF-8"}, "zh-CN"},
		{map[string]string{"LANG": "zh_TW.UTF-8"}, "zh-CN"},
		{map[string]string{"LANG": "en_US.UTF-8", "LC_MESSAGES": "zh_CN.UTF-8"}, "zh-CN"},
		{map[string]string{"LANG": "zh_CN.UTF-8", "LC_ALL": "C"}, "zh-CN"},
		{map[string]string{"LANG": "zh_CN.UTF-8", "LC_ALL": "de_DE.UTF-8"}, "en"},
		{map[string]string{"LANGUAGE": "zh_CN:en", "LANG": "en_US.UTF-8"}, "zh-CN"},
	} {
		if got := systemLang(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("systemLang(%v) = %s, want %s", tc.env, got, tc.want)
		}
	}
}

// fakeWatcher is a stand-in for a tray host's org.kde.StatusNotifierWatcher.
type fakeWatcher struct{ got chan [2]string }

func (w *fakeWatcher) RegisterStatusNotifierItem(sender dbus.Sender, service string) *dbus.Error {
	w.got <- [2]string{string(sender), service}
	return nil
}

type menuItem struct {
	id            int32
	label, toggle string
}

// menuItems reads the top level of the menu with GetLayout, as a panel does, separators
// left out.
func menuItems(t *testing.T, menu dbus.BusObject) []menuItem {
	t.Helper()
	var rev uint32
	var root struct {
		ID       int32
		Props    map[string]dbus.Variant
		Children []dbus.Variant
	}
	if err := menu.Call(menuIface+".GetLayout", 0, int32(0), int32(-1), []string{}).Store(&rev, &root); err != nil {
		t.Fatalf("GetLayout: %v", err)
	}
	var out []menuItem
	for _, c := range root.Children {
		f, ok := c.Value().([]any)
		if !ok || len(f) != 3 {
			t.Fatalf("menu child %v", c)
		}
		props := f[1].(map[string]dbus.Variant)
		if props["type"].Value() == "separator" {
			continue
		}
		it := menuItem{id: f[0].(int32)}
		it.label, _ = props["label"].Value().(string)
		it.toggle, _ = props["toggle-type"].Value().(string)
		out = append(out, it)
	}
	return out
}

func toggleState(menu dbus.BusObject, id int32, want int32) func() string {
	return func() string {
		var v dbus.Variant
		if err := menu.Call(menuIface+".GetProperty", 0, id, "toggle-state").Store(&v); err != nil {
			return err.Error()
		}
		if got, _ := v.Value().(int32); got != want {
			return fmt.Sprintf("toggle-state %v, want %d", v, want)
		}
		return ""
	}
}

// tooltipTitle is the title of a StatusNotifierItem ToolTip, (sa(iiay)ss).
func tooltipTitle(v dbus.Variant) string {
	f, ok := v.Value().([]any)
	if !ok || len(f) != 4 {
		return fmt.Sprintf("<%v>", v)
	}
	s, _ := f[2].(string)
	return s
}

// pixmap is the first picture of an IconPixmap, a(iiay): width, height, ARGB bytes.
func pixmap(t *testing.T, v dbus.Variant) (w, h int32, argb []byte) {
	t.Helper()
	px, ok := v.Value().([][]any)
	if !ok || len(px) == 0 || len(px[0]) != 3 {
		t.Fatalf("IconPixmap %v", v.Signature())
	}
	return px[0][0].(int32), px[0][1].(int32), px[0][2].([]byte)
}

func drain(c chan *dbus.Signal) {
	for {
		select {
		case <-c:
		default:
			return
		}
	}
}
