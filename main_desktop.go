//go:build desktop

package main

import (
	_ "embed"
	"io/fs"

	"github.com/plugboard/plugboard/app"
	"github.com/plugboard/plugboard/app/cli"
	"github.com/plugboard/plugboard/app/desktop"
)

//go:embed build/appicon.png
var icon []byte

// windowRunner: this build is the window itself.
func windowRunner() func(args []string) error { return nil }

// windowProgram: this build is the window; its own build information has Wails.
func windowProgram() string { return "" }

// desktopRunner opens the window over a service whose events go to the page.
func desktopRunner() cli.DesktopFunc {
	return func(home, pbHome string, o cli.DesktopOptions, assets fs.FS) error {
		em := &desktop.Emitter{}
		return desktop.Run(app.NewService(home, pbHome, em.Emit), em, assets, icon, pbHome, o.Open, o.Hidden)
	}
}
