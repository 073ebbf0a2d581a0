//go:build !desktop || nogui

package main

import "github.com/plugboard/plugboard/app/cli"

// desktopRunner: this build has no window (built without the desktop tag, or with nogui).
func desktopRunner() cli.DesktopFunc { return nil }
