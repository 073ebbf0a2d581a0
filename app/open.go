package app

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// EventOpen tells the page that the app was asked to open something (a second start of
// the window with a folder, or the first start's own folder): it calls TakeOpen.
const EventOpen = "app:open"

// ErrHandedOver: a window of the same Plugboard home was running and took the request.
var ErrHandedOver = errors.New("handed over to the running window")

// maxOpenPath bounds a folder path handed over by another process.
const maxOpenPath = 4096

// OpenFolder checks a folder another start of the app asks to open (untrusted input: any
// process of the user can send it over the session bus) and returns it clean and
// absolute: relative paths count from wd, which must be absolute; the folder must exist.
// It never acts on it: the page shows it in Local development, and the user links it.
func OpenFolder(arg, wd string) (string, error) {
	if arg == "" || len(arg) > maxOpenPath || strings.IndexFunc(arg, unicode.IsControl) >= 0 {
		return "", errors.New("not a folder path")
	}
	if !filepath.IsAbs(arg) {
		if wd == "" || !filepath.IsAbs(wd) || len(wd) > maxOpenPath || strings.IndexFunc(wd, unicode.IsControl) >= 0 {
			return "", errors.New("a relative path without an absolute working folder")
		}
		arg = filepath.Join(wd, arg)
	}
	p := filepath.Clean(arg)
	if st, err := os.Stat(p); err != nil || !st.IsDir() {
		return "", errors.New(p + " is not a folder")
	}
	return p, nil
}

// RequestOpen records dir (checked by OpenFolder) for the page to show in Local
// development and tells it so.
func (s *Service) RequestOpen(dir string) {
	s.mu.Lock()
	s.open = dir
	s.mu.Unlock()
	s.emit(EventOpen, nil)
}

// OpenRequest is what TakeOpen returns: a folder to show in Local development, or none.
type OpenRequest struct {
	Dir string `json:"dir,omitempty"`
}

// TakeOpen returns the folder the app was last asked to open and forgets it, so that a
// page loading later does not open it again.
func (s *Service) TakeOpen() (OpenRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := OpenRequest{Dir: s.open}
	s.open = ""
	return r, nil
}
