package app

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/plugboard/plugboard/backend/autostart"
	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/version"
)

// Version says which Plugboard serves the page (plugboard version --json): the window
// program's own build in the window, the command line's in plugboard serve.
func (s *Service) Version() (version.Info, error) { return version.Get(""), nil }

// Places lists the folders the catalog looks in, each with whether it is there: the
// welcome view of an empty home shows them.
func (s *Service) Places() ([]catalog.Place, error) {
	return catalog.Places(catalog.Options{Home: s.home, PlugboardHome: s.pbHome, Workspace: s.Workspace()}), nil
}

// AutostartState is whether Plugboard starts at login (in the tray), and the entry that
// does it.
type AutostartState struct {
	Enabled bool   `json:"enabled"`
	Path    string `json:"path"`
}

// Autostart says whether the XDG autostart entry is there.
func (s *Service) Autostart() (AutostartState, error) {
	p := autostart.Path(s.home, s.getenv)
	return AutostartState{Enabled: autostart.Enabled(p), Path: p}, nil
}

// SetAutostart writes (on) or removes (off) the XDG autostart entry, which starts this
// program with --hidden: in the tray, the window hidden until asked for. An entry of that
// name Plugboard did not write is refused, untouched.
func (s *Service) SetAutostart(on bool) (AutostartState, error) {
	p := autostart.Path(s.home, s.getenv)
	var err error
	if on {
		exe, e := os.Executable()
		if e != nil {
			return AutostartState{}, &Error{Code: CodeIO, Message: "cannot find this program: " + e.Error()}
		}
		err = autostart.Enable(p, exe)
	} else {
		err = autostart.Disable(p)
	}
	if errors.Is(err, autostart.ErrNotOurs) {
		return AutostartState{}, &Error{Code: CodeRefused, Message: err.Error()}
	}
	if err != nil {
		return AutostartState{}, &Error{Code: CodeIO, Message: err.Error()}
	}
	return s.Autostart()
}

// firstRunFile marks a Plugboard home whose first start has been greeted.
const firstRunFile = ".first-run-done"

// FirstRun reports whether this is the first start of the app for its Plugboard home,
// and marks it done: true exactly once per home, even for two starts at the same moment.
func FirstRun(pbHome string) bool {
	if err := os.MkdirAll(pbHome, 0o700); err != nil {
		return false
	}
	f, err := os.OpenFile(filepath.Join(pbHome, firstRunFile), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return false
	}
	f.Close()
	return true
}
