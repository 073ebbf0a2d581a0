// Package app is the thin shell around the backend for the two graphical doors: the
// desktop window (Wails bindings) and `plugboard serve` (HTTP and server-sent events).
// Service holds the one piece of state the page needs — the last catalog scan, the open
// workspace — and forwards every decision to backend packages. Its methods are safe for
// concurrent use; scans run one at a time.
package app

import (
	"errors"
	"github.com/plugboard/plugboard/backend/activity"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plugboard/plugboard/backend/assign"
	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/devlink"
	"github.com/plugboard/plugboard/backend/install"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/marketplace"
	"github.com/plugboard/plugboard/backend/mcphealth"
	"github.com/plugboard/plugboard/backend/pathsafe"
	"github.com/plugboard/plugboard/backend/reload"
	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/settings"
	"github.com/plugboard/plugboard/backend/snapshot"
	"github.com/plugboard/plugboard/backend/store"
	"github.com/plugboard/plugboard/backend/try"
	"github.com/plugboard/plugboard/backend/version"
)

// Events the service emits.
const (
	EventProgress = "catalog:progress"
	EventUpdated  = "catalog:updated"
)

// progressEvery throttles progress events: a scan of a large home reports a thousand
// plugins in a second or two, and a page needs a handful of updates a second, not one per
// plugin.
const progressEvery = 100 * time.Millisecond

// Emitter delivers an event to whoever shows the page. The backend never imports Wails:
// the desktop shell and the HTTP server each pass their own.
type Emitter func(event string, data any)

// Error is what a method returns for the page: a code it can branch on and a message.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Current carries fresh state with a "stale" error (the settings or target now on disk).
	Current any `json:"current,omitempty"`
	// Names are what a refusing rule names (colliding names, invalid plugins).
	Names []string `json:"names,omitempty"`
	// Collisions say, for a refused name collision, which plugins share which name.
	Collisions []assign.Collision `json:"collisions,omitempty"`
	// Servers are the MCP servers an "ack-needed" error asks about, sanitised.
	Servers []assign.Ack `json:"servers,omitempty"`
	// Reason says, for a "refused" error of the install methods, which rule refused
	// (install.go: invalid-package, exists, in-use, …).
	Reason string `json:"reason,omitempty"`
	// Issues are the errors of a refused package or marketplace file, each with its file
	// and line.
	Issues issue.List `json:"issues,omitempty"`
	// Targets are the targets that assign a plugin an uninstall was refused for.
	Targets []string `json:"targets,omitempty"`
	// Progress are the progress lines an install or update wrote before it failed.
	Progress []string `json:"progress,omitempty"`
	// Hint is a command a person may copy to fix what the error says (install a missing
	// client, run a launch in a terminal of their own): shown apart from the sentence,
	// never as the only way.
	Hint string `json:"hint,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// Error codes.
const (
	CodeStale    = "stale"
	CodeInvalid  = "invalid"
	CodeNotFound = "not-found"
	CodeIO       = "io"
)

// Service holds the state behind the page. Its exported methods are what the page calls
// (Page lists them for both doors) and a few the Go shells use and the page must not:
// SetActor, DraftDirty, Workspace and Close.
type Service struct {
	home, pbHome string
	emit         Emitter
	getenv       func(string) string // os.Getenv; tests pass their own
	actor        string              // who saves, for the history: "desktop" or "http"

	draftDirty atomic.Bool // the page holds an unsaved assignment draft

	scanMu    sync.Mutex // one scan at a time
	mu        sync.Mutex // guards the fields below
	workspace string
	last      *catalog.Catalog
	seq       int64                        // the number of the last announced scan
	live      *reload.Reloader             // set by StartLive
	pick      func() (string, error)       // the window's folder dialog; nil over HTTP
	onLang    func(lang string)            // the desktop shell's tray and notices; nil over HTTP
	saveAs    func(string) (string, error) // the window's save dialog; nil over HTTP
	open      string                       // a folder the app was asked to open (open.go)

	tries   tries        // the page's tries and their warm agents (try.go)
	clients clientsState // what the installed clients say they load (clients.go)
}

// NewService makes a service over one home. emit may be nil.
func NewService(home, pbHome string, emit Emitter) *Service {
	if emit == nil {
		emit = func(string, any) {}
	}
	s := &Service{home: home, pbHome: pbHome, emit: emit, getenv: os.Getenv, actor: "desktop"}
	s.clients.bg.PlugboardHome = pbHome
	return s
}

// Page is the page's surface: the methods of Service it may call and nothing else. The
// desktop window binds a Page, not the Service: Wails binds every exported method of a
// bound struct (the page reaches them as window.go.app.Page.<Method>), and the Service
// also has methods for the Go shells that the page must not call. The HTTP door
// dispatches to the same methods (pageMethods in server.go). TestAPISurface keeps Page,
// pageMethods, the Service, frontend/src/bridge.ts and docs/api.md in step.
type Page struct{ pageSurface }

// pageSurface lists the methods of Page; each is the Service method of the same name.
type pageSurface interface {
	Catalog() (*catalog.Catalog, error)
	CatalogList() (catalog.List, error)
	Rescan() (*catalog.Catalog, error)
	Settings() (SettingsState, error)
	SaveSettings(st settings.Settings, hash string) (SettingsState, error)
	OpenWorkspace(path string) (*catalog.Catalog, error)
	SetWorkspaceTrust(trusted bool) (*catalog.Catalog, error)
	SetDraftDirty(dirty bool) error
	Targets() (TargetsState, error)
	Assign(target string, change assign.Change, hash string, ack bool) (SaveResult, error)
	SetLaunchAs(id, client string) (*catalog.Catalog, error)
	History(target string) ([]store.HistoryEntry, error)
	Revert(id int64, ack bool) (SaveResult, error)
	NewAgent(name, backend, from string) (FilesResult, error)
	CopyAgent(from, name string) (FilesResult, error)
	RenameAgent(from, name string) (FilesResult, error)
	RemoveAgent(name string) (FilesResult, error)
	AddSlot(template, agent string) (FilesResult, error)
	RemoveSlot(id string) (FilesResult, error)
	Problems() ([]catalog.Problem, error)
	OpenFile(file string, line int) (OpenedFile, error)
	Launch(target, backend string, requireAck bool) (LaunchResult, error)
	Backends() ([]Backend, error)
	Acknowledge(target string, servers []runtime.AckRef) (AckResult, error)
	WatchState() (reload.State, error)
	ClientAnswers() (ClientsState, error)
	PauseWatching(paused bool) (reload.State, error)
	SetLanguage(lang string) (string, error)
	Links() ([]devlink.Result, error)
	Link(dir, into, name string, copy, force bool) (devlink.Result, error)
	Unlink(name, into string) (devlink.Result, error)
	PickFolder() (string, error)
	Snapshots() ([]snapshot.Info, error)
	SnapshotDiff(a, b int64) ([]catalog.Change, error)
	Activity(days int) (activity.Report, error)
	ActivityCSV(days int) (string, error)
	SaveActivityCSV(days int) (string, error)
	Try(target, dir, backend, prompt string) (*try.Result, error)
	Install(source, ref, path, name string, force bool) (InstallResult, error)
	Uninstall(name string, force bool) (install.Uninstalled, error)
	Installed() ([]InstalledPlugin, error)
	Marketplaces() ([]marketplace.Listed, error)
	AddMarketplace(source, name string) (marketplace.AddResult, error)
	RemoveMarketplace(name string) (RemovedMarketplace, error)
	CheckUpdates(name string) ([]install.Update, error)
	Update(name string) (UpdateResult, error)
	Rollback(name string) (install.Result, error)
	Budget(target, dir, backend string) (BudgetState, error)
	CheckMCP(target, dir string) ([]mcphealth.Result, error)
	Version() (version.Info, error)
	TakeOpen() (OpenRequest, error)
	Places() ([]catalog.Place, error)
	Autostart() (AutostartState, error)
	SetAutostart(on bool) (AutostartState, error)
}

// NewPage makes the page's surface over s.
func NewPage(s *Service) *Page { return &Page{s} }

// SettingsState is the settings with the hash a save must name.
type SettingsState struct {
	Settings settings.Settings `json:"settings"`
	Hash     string            `json:"hash"`
}

// Catalog returns the last scan. While a scan runs it waits for it (a page that opens
// during the first scan of a large home gets that scan, not a second one); with no scan
// yet it scans.
func (s *Service) Catalog() (*catalog.Catalog, error) {
	s.scanMu.Lock()
	defer s.scanMu.Unlock()
	s.mu.Lock()
	c := s.last
	s.mu.Unlock()
	if c != nil {
		return c, nil
	}
	return s.scan(), nil
}

// CatalogList is the part of Catalog's document the Plugins list draws (catalog.List):
// the page asks for it first, so its first rows are on screen before the whole document
// has travelled.
func (s *Service) CatalogList() (catalog.List, error) {
	c, err := s.Catalog()
	if err != nil {
		return catalog.List{}, err
	}
	return c.List(), nil
}

// Rescan scans now, reporting progress, and returns the new catalog.
func (s *Service) Rescan() (*catalog.Catalog, error) {
	s.scanMu.Lock()
	defer s.scanMu.Unlock()
	return s.scan(), nil
}

// scan runs one scan; the caller holds scanMu.
func (s *Service) scan() *catalog.Catalog {
	s.mu.Lock()
	ws := s.workspace
	s.mu.Unlock()
	var lastEmit time.Time
	o := s.catalogOptions(ws)
	o.Progress = func(done, total int) {
		if done == total || time.Since(lastEmit) >= progressEvery {
			lastEmit = time.Now()
			s.emit(EventProgress, map[string]int{"done": done, "total": total})
		}
	}
	c := catalog.Load(o)
	if live := s.publish(c, true, false); live != nil {
		live.Replace(c) // later changes are diffed against this scan
	}
	return c
}

// publish makes c the last scan and returns the live reloader, if any. Announced, c gets
// the next scan number and a catalog:updated event carries it, so a page that already
// shows c (it asked for this scan) can tell the event is about what it has, whichever of
// the answer and the event reaches it first. A live reload that changed nothing is not
// announced and keeps the number of the scan it replaces, whose content it has.
func (s *Service) publish(c *catalog.Catalog, announce, reloaded bool) *reload.Reloader {
	s.mu.Lock()
	if announce {
		s.seq++
		c.Seq = s.seq
	} else if s.last != nil {
		c.Seq = s.last.Seq
	}
	s.last = c
	live := s.live
	s.mu.Unlock()
	if announce {
		ev := map[string]any{"summary": c.Summary, "seq": c.Seq}
		if reloaded {
			ev["reloaded"] = true
		}
		s.emit(EventUpdated, ev)
		s.askClients(c)
	}
	return live
}

// Settings returns the settings and their hash.
func (s *Service) Settings() (SettingsState, error) {
	st, hash, issues := settings.Read(s.pbHome)
	if len(issues) > 0 && hash == "" {
		return SettingsState{}, &Error{Code: CodeIO, Message: issues[0].Message}
	}
	return SettingsState{Settings: st, Hash: hash}, nil
}

// SaveSettings saves when the file still has hash, then rescans.
func (s *Service) SaveSettings(st settings.Settings, hash string) (SettingsState, error) {
	if hash == "" { // as Assign: never an unguarded save from the page
		return SettingsState{}, &Error{Code: CodeInvalid, Message: "the settings' hash is missing: reload the settings (Settings) and save again with the hash it gives"}
	}
	if st.ActivityRetentionDays < 0 {
		return SettingsState{}, &Error{Code: CodeInvalid, Message: "activityRetentionDays must be 0 (keep all activity) or a number of days above 0"}
	}
	for i, p := range st.SkillPluginPaths {
		if p == "" || !(filepath.IsAbs(p) || p == "~" || len(p) > 1 && p[:2] == "~/") {
			return SettingsState{}, &Error{Code: CodeInvalid, Message: "skillPluginPaths entry " + strconv.Itoa(i+1) + " (" + p + ") must be an absolute path or start with ~/"}
		}
	}
	_, _, newHash, err := settings.Update(s.pbHome, hash, func(cur *settings.Settings) error { *cur = st; return nil })
	var stale *settings.StaleError
	switch {
	case errors.As(err, &stale):
		return SettingsState{}, &Error{Code: CodeStale, Message: "settings.json changed on disk since it was loaded; nothing was saved — review the current settings and save again",
			Current: SettingsState{Settings: stale.Current, Hash: stale.Hash}}
	case errors.Is(err, settings.ErrUnreadable):
		return SettingsState{}, &Error{Code: CodeInvalid, Message: err.Error()}
	case err != nil:
		return SettingsState{}, &Error{Code: CodeIO, Message: err.Error()}
	}
	go s.Rescan()
	saved, _, _ := settings.Read(s.pbHome)
	return SettingsState{Settings: saved, Hash: newHash}, nil
}

// folder is the folder a page call names, as an absolute path: ~/ is the user's home; a
// relative path is invalid (it would be resolved against wherever this process started,
// which the page cannot know), and one that is not a folder is not-found.
func (s *Service) folder(what, p string) (string, *Error) {
	if p != "~" && !strings.HasPrefix(p, "~/") && !filepath.IsAbs(p) {
		return "", &Error{Code: CodeInvalid, Message: what + " " + p + " is a relative path; give its full path (or ~/…)"}
	}
	abs := settings.ExpandHome(p, s.home)
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return "", &Error{Code: CodeNotFound, Message: what + " " + p + " is not a folder"}
	}
	return abs, nil
}

// OpenWorkspace makes path the open workspace ("" closes it) and rescans.
func (s *Service) OpenWorkspace(path string) (*catalog.Catalog, error) {
	if path != "" {
		abs, err := s.folder("the workspace", path)
		if err != nil {
			return nil, err
		}
		path = abs
	}
	s.mu.Lock()
	s.workspace = path
	live := s.live
	s.mu.Unlock()
	if live != nil {
		live.SetOptions(s.catalogOptions(path))
	}
	return s.Rescan()
}

// SetWorkspaceTrust adds the open workspace to trustedWorkspaces, or removes it, then
// rescans. The change goes through the same guarded save as any settings edit.
func (s *Service) SetWorkspaceTrust(trusted bool) (*catalog.Catalog, error) {
	s.mu.Lock()
	ws := s.workspace
	s.mu.Unlock()
	if ws == "" {
		return nil, &Error{Code: CodeInvalid, Message: "no workspace is open; open one first"}
	}
	want, err := pathsafe.Root(ws)
	if err != nil {
		return nil, &Error{Code: CodeNotFound, Message: err.Error()}
	}
	_, _, _, err = settings.Update(s.pbHome, "", func(st *settings.Settings) error {
		var kept []string
		for _, t := range st.TrustedWorkspaces {
			if !settings.NamesFolder(t, want, s.home) {
				kept = append(kept, t)
			}
		}
		if trusted {
			kept = append(kept, ws)
		}
		st.TrustedWorkspaces = kept
		return nil
	})
	switch {
	case errors.Is(err, settings.ErrUnreadable):
		return nil, &Error{Code: CodeInvalid, Message: err.Error()}
	case errors.Is(err, settings.ErrStale):
		return nil, &Error{Code: CodeStale, Message: "settings.json keeps changing on disk; try again"}
	case err != nil:
		return nil, &Error{Code: CodeIO, Message: err.Error()}
	}
	return s.Rescan()
}

// SetDraftDirty is how the page says it holds an unsaved assignment draft (A5): the
// desktop window then asks before closing.
func (s *Service) SetDraftDirty(dirty bool) error {
	s.draftDirty.Store(dirty)
	return nil
}

// DraftDirty reports what the page last said.
func (s *Service) DraftDirty() bool { return s.draftDirty.Load() }

// SetActor names who saves through this service in the history ("desktop", "http").
func (s *Service) SetActor(actor string) { s.actor = actor }

// Workspace returns the open workspace.
func (s *Service) Workspace() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.workspace
}
