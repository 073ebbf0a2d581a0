//go:build desktop

package desktop

import (
	"fmt"
	"io"
	"sync"

	"fyne.io/systray"
	"github.com/godbus/dbus/v5"

	"github.com/plugboard/plugboard/backend/reload"
)

// TrayActions are what the tray's menu does. The tray knows nothing of Wails or the
// service: desktop.Run wires these to the window and to app.Service, and the tests to
// recorders, so the tray runs (and is tested) without a window.
type TrayActions struct {
	Open   func()            // "Open Plugboard", and a left click on the icon
	Rescan func()            // "Rescan now"
	Pause  func(paused bool) // "Pause watching": the checkbox follows SetState, not the click
	Quit   func()            // "Quit"
}

// Tray is the status icon: a StatusNotifierItem with a com.canonical.dbusmenu menu, over
// the D-Bus session bus (fyne.io/systray). Its picture and tooltip show the live catalog's
// reload.State. Without a session bus it is inert: the window works without a tray.
type Tray struct {
	log   io.Writer
	act   TrayActions
	icons map[string][]byte

	mu      sync.Mutex
	state   reload.State
	kick    chan struct{} // a new state waits in state
	done    chan struct{}
	stopped sync.Once
	running sync.WaitGroup // follow, while it may still call systray
	end     func()         // systray's; nil when the tray never started
	pause   *systray.MenuItem
	items   [4]*systray.MenuItem // open, rescan, pause, quit: relabelled when the language changes
	lang    string               // the language to speak (SetLanguage), under mu
	shown   string               // the language the menu has, in follow's goroutine
}

// trayTitle is the item's Title: the application's name, as the spec asks.
const trayTitle = "Plugboard"

// StartTray shows the tray icon, in the reloading state until the first SetState (the
// first scan runs while the window opens). It never fails: with no session bus it logs one
// line and returns an inert tray; with a bus but no tray host (GNOME without the
// AppIndicator extension, a bare window manager) it logs that too and stays registered on
// the bus, so the icon appears if a host starts later. Call it once per process: systray
// keeps its state in package variables.
func StartTray(appIcon []byte, act TrayActions, log io.Writer) *Tray {
	t := newTray(appIcon, act, log)
	conn, err := dbus.SessionBus() // the shared connection systray itself uses
	if err != nil {
		fmt.Fprintf(log, "plugboard: no D-Bus session bus (%v): no tray icon\n", err)
		return t
	}
	var hosted bool
	if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.kde.StatusNotifierWatcher").Store(&hosted); err == nil && !hosted {
		fmt.Fprintln(log, "plugboard: no system tray host (org.kde.StatusNotifierWatcher) on the session bus: the tray icon will show if one starts; use the window meanwhile")
	}
	t.run()
	return t
}

func newTray(appIcon []byte, act TrayActions, log io.Writer) *Tray {
	noop := func() {}
	if act.Open == nil {
		act.Open = noop
	}
	if act.Rescan == nil {
		act.Rescan = noop
	}
	if act.Quit == nil {
		act.Quit = noop
	}
	if act.Pause == nil {
		act.Pause = func(bool) {}
	}
	return &Tray{
		log: log, act: act, icons: trayIcons(appIcon), lang: systemLang(nil),
		state: reload.State{State: reload.StateReloading},
		kick:  make(chan struct{}, 1), done: make(chan struct{}),
	}
}

// run starts systray beside the window's own main loop (RunWithExternalLoop: GTK keeps
// the main thread, systray only talks D-Bus from goroutines). Whatever systray panics
// with is logged: a tray is never worth the window.
func (t *Tray) run() {
	ready := make(chan struct{})
	systray.SetOnTapped(func() { go t.act.Open() }) // a left click opens the window
	start, end := systray.RunWithExternalLoop(func() {
		systray.SetTitle(trayTitle)
		lang := t.language()
		m := textFor(lang).menu()
		open := systray.AddMenuItem(m[0][0], m[0][1])
		rescan := systray.AddMenuItem(m[1][0], m[1][1])
		t.pause = systray.AddMenuItemCheckbox(m[2][0], m[2][1], false)
		systray.AddSeparator()
		quit := systray.AddMenuItem(m[3][0], m[3][1])
		t.items, t.shown = [4]*systray.MenuItem{open, rescan, t.pause, quit}, lang
		close(ready)
		go t.clicks(open, rescan, quit)
	}, nil)
	t.end = end
	if !t.guard("start", start) {
		return
	}
	<-ready // onReady runs in its own goroutine; the menu exists once it returns
	// The picture and tooltip are set only now: systray reads them when it exports its
	// properties, which races with onReady, so setting them afterwards is what sticks.
	t.apply(t.current())
	t.running.Add(1)
	go t.follow()
}

// clicks turns menu clicks into actions. systray drops a click that finds nobody
// listening, so nothing here blocks: a rescan takes seconds and runs on its own.
func (t *Tray) clicks(open, rescan, quit *systray.MenuItem) {
	for {
		select {
		case <-open.ClickedCh:
			go t.act.Open()
		case <-rescan.ClickedCh:
			go t.act.Rescan()
		case <-t.pause.ClickedCh:
			go t.act.Pause(!t.current().Paused)
		case <-quit.ClickedCh:
			go t.act.Quit()
		case <-t.done:
			return
		}
	}
}

// SetLanguage has the tray speak lang ("en" or "zh-CN"), the page's language: its menu and
// tooltip are relabelled by the tray's own goroutine, as a state is applied.
func (t *Tray) SetLanguage(lang string) {
	t.mu.Lock()
	t.lang = lang
	t.mu.Unlock()
	select {
	case t.kick <- struct{}{}:
	default:
	}
}

// language is the language the tray speaks.
func (t *Tray) language() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lang
}

// SetState shows st. It returns at once (reload calls it from its loop): the newest
// state is applied by the tray's own goroutine, and states it had no time for are
// skipped.
func (t *Tray) SetState(st reload.State) {
	t.mu.Lock()
	t.state = st
	t.mu.Unlock()
	select {
	case t.kick <- struct{}{}:
	default: // a kick is pending; it will read this state
	}
}

func (t *Tray) current() reload.State {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.state
}

func (t *Tray) follow() {
	defer t.running.Done()
	for {
		select {
		case <-t.kick:
			t.apply(t.current())
		case <-t.done:
			return
		}
	}
}

// apply sets the picture, the tooltip and the checkbox.
func (t *Tray) apply(st reload.State) {
	icon, ok := t.icons[st.State]
	if !ok {
		icon = t.icons[reload.StateOK]
	}
	systray.SetIcon(icon)
	lang := t.language()
	systray.SetTooltip(trayTooltip(st, lang))
	if lang != t.shown && t.items[0] != nil {
		for i, l := range textFor(lang).menu() {
			t.items[i].SetTitle(l[0])
			t.items[i].SetTooltip(l[1])
		}
		t.shown = lang
	}
	if st.Paused != t.pause.Checked() {
		if st.Paused {
			t.pause.Check()
		} else {
			t.pause.Uncheck()
		}
	}
}

// Stop removes the icon. It waits for a state being applied to finish first: systray's
// end function closes the session bus connection, and an icon or menu update still on its
// way would fail on it ("failed to emit layout updated signal: dbus: connection closed by
// user"). The end function panics when it has no connection (the export failed); the
// panic is logged.
func (t *Tray) Stop() {
	t.stopped.Do(func() {
		close(t.done)
		t.running.Wait()
		if t.end != nil {
			t.guard("stop", t.end)
		}
	})
}

// guard runs f and logs a panic instead of passing it on; it reports whether f returned.
func (t *Tray) guard(what string, f func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(t.log, "plugboard: tray %s failed: %v\n", what, r)
			ok = false
		}
	}()
	f()
	return true
}
