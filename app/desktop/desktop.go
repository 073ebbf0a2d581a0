//go:build desktop && !nogui

// Package desktop opens the Plugboard window: the page in a Wails v2 webview, bound to
// app.Service. It is compiled only with the desktop build tag (as `wails build` sets it),
// so the CLI and `plugboard serve` build with Go alone. It holds no rules.
package desktop

import (
	"context"
	"errors"
	"io/fs"
	"sync"
	"testing/fstest"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/plugboard/plugboard/app"
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

// Run opens the window and blocks until it closes.
func Run(svc *app.Service, em *Emitter, assets fs.FS, icon []byte) error {
	if _, err := fs.Stat(assets, "index.html"); err != nil {
		assets = notBuilt
	}
	return wails.Run(&options.App{
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
		},
		Bind: []interface{}{svc},
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
