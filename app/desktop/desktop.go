//go:build desktop

// Package desktop opens the Plugboard window: the page in a Wails v2 webview, bound to
// app.Page (the methods of app.Service the page may call), with a tray icon (tray.go)
// and desktop notifications (notify.go) beside it, both plain D-Bus so that they need
// no system libraries beyond the window's. It is compiled only with the desktop build
// tag (as `wails build` sets it), so the CLI and `plugboard serve` build with Go alone.
// It holds no rules: the live catalog, its states and what deserves a notification are
// decided in app and backend/reload.
package desktop

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sync"
	"testing/fstest"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/plugboard/plugboard/app"
	"github.com/plugboard/plugboard/backend/reload"
)

// Available reports that this build has a window.
const Available = true

// Emitter is late-bound: the service exists before Wails hands out its context.
type Emitter struct {
	mu  sync.Mutex
	ctx context.Context
}

// Emit sends an event to the page once the window has started; earlier events are dropped.
func (e *Emitter) Emit(name string, data any) {
	e.mu.Lock()
	ctx := e.ctx
	e.mu.Unlock()
	if ctx != nil {
		runtime.EventsEmit(ctx, name, data)
	}
}

// notBuilt stands in for the page in a binary built before the page was.
var notBuilt = fstest.MapFS{"index.html": {Data: []byte(`<!doctype html><meta charset="utf-8"><title>Plugboard</title>
<body style="font-family: system-ui, sans-serif; padding: 2rem; max-width: 40rem">
<h1>Plugboard</h1><p>The page is not built into this binary. Build it with <code>make frontend</code>, then
rebuild with <code>make desktop</code>. The command line works meanwhile: <code>plugboard catalog</code>.</p>`)}}

// PreventClose decides whether closing the window waits: only with an unsaved draft, and
// only until the user chooses to discard it.
func PreventClose(dirty bool, ask func() string) bool {
	if !dirty {
		return false
	}
	return ask() != "Discard"
}

// Run opens the window and blocks until it closes; open is a folder for Local
// development to show ("" for none). Beside the window it runs the live catalog
// (app.StartLive), the tray icon and desktop notifications; closing the window quits all
// of them (see shell). When a window of the same Plugboard home is open already, open is
// handed to it instead (instance.go), it comes to the front, and Run returns
// app.ErrHandedOver.
func Run(svc *app.Service, em *Emitter, assets fs.FS, icon []byte, pbHome, open string, hidden bool) error {
	if _, err := fs.Stat(assets, "index.html"); err != nil {
		assets = notBuilt
	}
	id := instanceID(pbHome)
	var args []string
	if hidden {
		args = append(args, "--hidden")
	}
	if open != "" {
		args = append(args, open)
	}
	if handOver(id, args) {
		return app.ErrHandedOver
	}
	if open != "" {
		svc.RequestOpen(open) // the page takes it when it starts
	}
	shell := &shell{pbHome: pbHome}
	return wails.Run(&options.App{
		StartHidden: hidden, // started at login: in the tray until Open
		OnDomReady:  func(ctx context.Context) { shell.domReady(ctx, hidden) },
		SingleInstanceLock: &options.SingleInstanceLock{UniqueId: id, OnSecondInstanceLaunch: func(d options.SecondInstanceData) {
			shell.secondStart(svc, d)
		}},
		Title:     "Plugboard",
		Width:     1280,
		Height:    820,
		MinWidth:  720,
		MinHeight: 480,
		AssetServer: &assetserver.Options{
			Assets: assets,
		},
		OnStartup: func(ctx context.Context) {
			em.mu.Lock()
			em.ctx = ctx
			em.mu.Unlock()
			shell.start(ctx, svc, icon)
		},
		OnShutdown: func(context.Context) { shell.stop(); svc.Close() }, // Close: the tries' warm agents
		// The page's surface only: Wails binds every exported method of a bound struct,
		// and the Service has some the page must not call (app.Page says which it may).
		Bind: []interface{}{app.NewPage(svc)},
		// A dirty assignment draft blocks closing (A5): ask first.
		OnBeforeClose: func(ctx context.Context) bool {
			return PreventClose(svc.DraftDirty(), func() string {
				answer, err := runtime.MessageDialog(ctx, runtime.MessageDialogOptions{
					Type: runtime.QuestionDialog, Title: "Discard unsaved changes?",
					Message:       "The assignment draft has not been saved. Close Plugboard and discard it?",
					Buttons:       []string{"Discard", "Cancel"},
					DefaultButton: "Cancel", CancelButton: "Cancel",
				})
				if err != nil {
					return "Cancel"
				}
				return answer
			})
		},
		Linux: &linux.Options{Icon: icon, ProgramName: "plugboard"},
		// Typed errors reach the page as {code, message}, as over HTTP.
		ErrorFormatter: func(err error) any {
			var e *app.Error
			if errors.As(err, &e) {
				return e
			}
			return &app.Error{Code: app.CodeIO, Message: err.Error()}
		},
	})
}

// shell is what runs beside the window while it is open: the live catalog, the tray and
// the notifier. It is wired in OnStartup, where Wails first hands out the context its
// runtime calls need.
//
// Closing the window quits Plugboard, tray included, rather than hiding to the tray:
// GNOME shows no tray icons without an extension, and a window hidden to a tray that is
// not drawn leaves a process the user cannot see or reach. VS Code behaves the same way
// on Linux. The tray is a status light and a shortcut while the window is open.
type shell struct {
	pbHome   string
	mu       sync.Mutex
	ctx      context.Context // the window's, once started
	opened   bool            // the window was asked for (show)
	cancel   context.CancelFunc
	tray     *Tray
	notify   *Notifier
	watching bool // StartLive is running
}

func (sh *shell) start(ctx context.Context, svc *app.Service, icon []byte) {
	log := os.Stderr
	show := func() { sh.show(ctx) }
	tray := StartTray(icon, TrayActions{
		Open: show,
		Rescan: func() {
			svc.Rescan()
			// A scan made outside the reloader replaces its catalog without telling the
			// tray: show what the new scan found.
			if sh.isWatching() {
				st, _ := svc.WatchState()
				sh.setState(st)
			}
		},
		Pause: func(paused bool) {
			// On success the reloader reports the new state, which ticks the checkbox.
			if _, err := svc.PauseWatching(paused); err != nil {
				fmt.Fprintf(log, "plugboard: pause watching: %v\n", err)
			}
		},
		Quit: func() {
			if svc.DraftDirty() {
				show() // OnBeforeClose asks about the draft: let the question be seen
			}
			runtime.Quit(ctx)
		},
	}, log)
	live, cancel := context.WithCancel(ctx)
	notify := NewNotifier(log)
	if app.FirstRun(sh.pbHome) {
		// Once per Plugboard home: where the app lives while its window is open. The page
		// has not said its language yet: the system's is the page's unless chosen.
		txt := textFor(tray.language())
		notify.Notify(txt.running, txt.runningBody)
	}
	app.SetLanguageHook(svc, tray.SetLanguage)
	sh.mu.Lock()
	sh.ctx, sh.cancel, sh.tray, sh.notify = ctx, cancel, tray, notify
	sh.mu.Unlock()

	app.SetFolderPicker(svc, func() (string, error) {
		return runtime.OpenDirectoryDialog(ctx, runtime.OpenDialogOptions{Title: textFor(tray.language()).pickFolder})
	})
	// The Activity tab's CSV export. Wails v2's Linux window handles no WebKitGTK download (it
	// connects neither download-started nor decide-destination), so a download the page makes
	// (a Blob behind <a download>) would at best land in ~/Downloads unasked and unreported:
	// the window asks where with its own dialog instead.
	app.SetFileSaver(svc, func(name string) (string, error) {
		return runtime.SaveFileDialog(ctx, runtime.SaveDialogOptions{Title: "Export activity as CSV", DefaultFilename: name,
			CanCreateDirectories: true, Filters: []runtime.FileFilter{{DisplayName: "CSV files (*.csv)", Pattern: "*.csv"}}})
	})
	// StartLive waits for the first scan; OnStartup already runs beside the window.
	if err := app.StartLive(live, svc, notify.Notify, sh.setState, log); err != nil {
		fmt.Fprintf(log, "plugboard: not watching files: %v\n", err)
		sh.setState(reload.State{State: reload.StatePaused, Paused: true})
		return
	}
	sh.mu.Lock()
	sh.watching = true
	sh.mu.Unlock()
}

// secondStart is another start of the window for this home: it comes to the front
// (unless that start was --hidden, the login entry's), and a folder it names (untrusted:
// app.OpenFolder checks it) is shown in Local development.
func (sh *shell) secondStart(svc *app.Service, d options.SecondInstanceData) {
	if slices.Contains(d.Args, "--hidden") {
		return
	}
	sh.mu.Lock()
	ctx := sh.ctx
	sh.mu.Unlock()
	if ctx != nil {
		sh.show(ctx)
	}
	if len(d.Args) == 1 {
		if dir, err := app.OpenFolder(d.Args[0], d.WorkingDirectory); err == nil {
			svc.RequestOpen(dir)
		}
	}
}

// show brings the window up (the tray's Open, another start) and remembers that it was
// asked for, so that a --hidden start's own hiding (domReady) does not undo it.
func (sh *shell) show(ctx context.Context) {
	sh.mu.Lock()
	sh.opened = true
	sh.mu.Unlock()
	runtime.WindowUnminimise(ctx)
	runtime.WindowShow(ctx)
}

// domReady hides the window of a --hidden start once the page is loaded, unless it was
// asked for meanwhile. Wails v2.16's StartHidden queues its hide on the GTK main loop
// (g_idle_add) and then shows the window with gtk_widget_show_all, so the hidden start
// rests on the order the two are carried out in; TestHiddenStart found its window
// visible in 3 of about 20 runs before this hide was added.
func (sh *shell) domReady(ctx context.Context, hidden bool) {
	sh.mu.Lock()
	opened := sh.opened
	sh.mu.Unlock()
	if hidden && !opened {
		runtime.WindowHide(ctx)
	}
}

func (sh *shell) setState(st reload.State) {
	sh.mu.Lock()
	tray := sh.tray
	sh.mu.Unlock()
	if tray != nil {
		tray.SetState(st)
	}
}

func (sh *shell) isWatching() bool {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.watching
}

// stop ends watching and removes the tray icon as the window closes.
func (sh *shell) stop() {
	sh.mu.Lock()
	cancel, tray, notify := sh.cancel, sh.tray, sh.notify
	sh.mu.Unlock()
	if cancel != nil {
		cancel()
		tray.Stop()
		notify.Close()
	}
}
