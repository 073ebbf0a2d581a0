package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/plugboard/plugboard/backend/activity"
	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/clientask"
	"github.com/plugboard/plugboard/backend/devlink"
	"github.com/plugboard/plugboard/backend/reload"
	"github.com/plugboard/plugboard/backend/snapshot"
	"github.com/plugboard/plugboard/backend/store"
)

// Events of the live catalog.
const (
	EventReloaded = "catalog:reloaded" // a reload.Reload: what changed, the new counts, how long
	EventWatch    = "watch:state"      // a reload.State: ok, issues, reloading or paused
	EventTargets  = "targets:changed"  // an agent or template file changed on disk: read Targets again
)

// CodeUnsupported refuses what only the window can do (a native folder dialog).
const CodeUnsupported = "unsupported"

// Notifier shows a desktop notification; the desktop shell passes one (nil: none).
type Notifier func(title, body string)

// StartLive watches the catalog's roots until ctx ends: every change refreshes the
// catalog, reaches the page as catalog:updated and catalog:reloaded, is stored as a
// snapshot, and notify is told when a plugin that was valid turns invalid. onState, when
// set, hears every state change too (the tray). It returns once the watches are armed.
// It is a function, not a method, so that the window's bindings do not offer it to the
// page.
func StartLive(ctx context.Context, s *Service, notify Notifier, onState func(reload.State), log io.Writer) error {
	c, _ := s.Catalog()
	s.mu.Lock()
	ws := s.workspace
	s.mu.Unlock()
	o := s.catalogOptions(ws)
	r, err := reload.New(reload.Options{Catalog: o, Snapshots: true, Log: log,
		Installed: func() map[string]string { return clientask.Versions(s.findClients()) }}, c)
	if err != nil {
		return err
	}
	// The first snapshot is stored before this returns: a page that asks for snapshots
	// at once must find it (the watch goroutine would store it some time later).
	r.Prime(ctx)
	s.mu.Lock()
	s.live = r
	s.mu.Unlock()
	go func() {
		defer r.Close()
		_ = r.Run(ctx, func(rl reload.Reload) {
			s.publish(rl.Catalog, len(rl.Changes) > 0 || rl.Full, true)
			s.emit(EventReloaded, rl)
			if rl.Targets {
				s.emit(EventTargets, nil)
			}
			if len(rl.Invalid) > 0 && notify != nil {
				notify("Plugin no longer valid", strings.Join(rl.Invalid, ", ")+" failed validation after a change; open Plugboard to see why.")
			}
		}, func(st reload.State) {
			s.emit(EventWatch, st)
			if onState != nil {
				onState(st)
			}
		})
	}()
	return nil
}

func (s *Service) reloader() *reload.Reloader {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.live
}

// WatchState is the live catalog's state; "starting" until the watches are armed.
func (s *Service) WatchState() (reload.State, error) {
	if r := s.reloader(); r != nil {
		return r.State(), nil
	}
	return reload.State{State: reload.StateStarting}, nil
}

// PauseWatching pauses or resumes live reloading.
func (s *Service) PauseWatching(paused bool) (reload.State, error) {
	r := s.reloader()
	if r == nil {
		return reload.State{}, &Error{Code: CodeUnsupported, Message: "file watching has not started yet; try again in a moment"}
	}
	r.Pause(paused)
	return r.State(), nil
}

// Links lists the local development links in both places.
func (s *Service) Links() ([]devlink.Result, error) {
	l, err := devlink.List(s.linkOptions("", "", false, false))
	if l == nil {
		l = []devlink.Result{}
	}
	return l, linkError(err) // a damaged links.json: invalid, naming it
}

// Link validates dir and links it (or copies it) into into ("home" or "cursor").
func (s *Service) Link(dir, into, name string, copy, force bool) (devlink.Result, error) {
	abs, perr := s.folder("the plugin folder", dir)
	if perr != nil {
		return devlink.Result{}, perr
	}
	res, err := devlink.Link(abs, s.linkOptions(into, name, copy, force))
	return res, linkError(err)
}

// Unlink removes a link or copy made by Link.
func (s *Service) Unlink(name, into string) (devlink.Result, error) {
	res, err := devlink.Unlink(name, s.linkOptions(into, "", false, false))
	return res, linkError(err)
}

func (s *Service) linkOptions(into, name string, copy, force bool) devlink.Options {
	return devlink.Options{Home: s.home, PlugboardHome: s.pbHome, Into: into, Name: name, Copy: copy, Force: force}
}

func linkError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, devlink.ErrInvalid), errors.Is(err, devlink.ErrExists), errors.Is(err, devlink.ErrNotOurs):
		return &Error{Code: CodeRefused, Message: err.Error()}
	case errors.Is(err, devlink.ErrNotLinked), errors.Is(err, os.ErrNotExist):
		return &Error{Code: CodeNotFound, Message: err.Error()}
	}
	return &Error{Code: CodeInvalid, Message: err.Error()}
}

// Snapshots lists the stored catalog snapshots, newest first, without their rows.
func (s *Service) Snapshots() ([]snapshot.Info, error) {
	st, err := s.store()
	if err != nil {
		return nil, err
	}
	defer st.Close()
	sns, err := st.Snapshots(context.Background(), 0)
	if err != nil {
		return nil, &Error{Code: CodeIO, Message: err.Error()}
	}
	out := make([]snapshot.Info, len(sns))
	for i, sn := range sns {
		out[i] = sn.Info()
	}
	return out, nil
}

// SnapshotDiff says what changed from snapshot a to snapshot b.
func (s *Service) SnapshotDiff(a, b int64) ([]catalog.Change, error) {
	st, err := s.store()
	if err != nil {
		return nil, err
	}
	defer st.Close()
	var sns [2]snapshot.Snapshot
	for i, id := range []int64{a, b} {
		if sns[i], err = st.Snapshot(context.Background(), id); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return nil, &Error{Code: CodeNotFound, Message: err.Error()}
			}
			return nil, &Error{Code: CodeIO, Message: err.Error()}
		}
	}
	out := catalog.DiffSnapshots(sns[0], sns[1])
	if out == nil {
		out = []catalog.Change{}
	}
	return out, nil
}

func (s *Service) store() (*store.Store, error) {
	st, _, err := store.Open(context.Background(), s.pbHome, store.PartSnapshots)
	if err != nil {
		return nil, &Error{Code: CodeIO, Message: fmt.Sprintf("the Plugboard database: %v", err)}
	}
	return st, nil
}

// PickFolder asks for a folder with the window's native dialog; "" when cancelled. Over
// HTTP there is no native dialog: the page shows a path field instead.
func (s *Service) PickFolder() (string, error) {
	s.mu.Lock()
	pick := s.pick
	s.mu.Unlock()
	if pick == nil {
		return "", &Error{Code: CodeUnsupported, Message: "no native folder dialog here; type the folder's path"}
	}
	return pick()
}

// SetFolderPicker gives the service the window's folder dialog (a function, not a
// method, for the same reason as StartLive).
func SetFolderPicker(s *Service, pick func() (string, error)) {
	s.mu.Lock()
	s.pick = pick
	s.mu.Unlock()
}

// SetLanguageHook has f told the page's language (SetLanguage): the desktop shell's tray
// and notices speak it.
func SetLanguageHook(s *Service, f func(lang string)) {
	s.mu.Lock()
	s.onLang = f
	s.mu.Unlock()
}

// SetLanguage is the page telling which of its languages it shows ("en" or "zh-CN"), at
// its start and when the user switches: the window's tray and notices follow it.
func (s *Service) SetLanguage(lang string) (string, error) {
	if lang != "en" && lang != "zh-CN" {
		return "", &Error{Code: CodeInvalid, Message: fmt.Sprintf("the page speaks en or zh-CN, not %q", lang)}
	}
	s.mu.Lock()
	f := s.onLang
	s.mu.Unlock()
	if f != nil {
		f(lang)
	}
	return lang, nil
}

// Activity reports the skills launched agents invoked in the last days days (0: all
// time) and the assigned skills never used (backend/activity), over the last scan.
func (s *Service) Activity(days int) (activity.Report, error) {
	c, err := s.Catalog()
	if err != nil {
		return activity.Report{}, err
	}
	var since time.Time
	if days > 0 {
		since = time.Now().Add(-time.Duration(days) * 24 * time.Hour)
	}
	rep, _, err := activity.Load(context.Background(), s.pbHome, c, since, "")
	if err != nil {
		return activity.Report{}, &Error{Code: CodeIO, Message: err.Error()}
	}
	return rep, nil
}
