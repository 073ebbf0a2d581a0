package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"github.com/plugboard/plugboard/backend/install"
	"github.com/plugboard/plugboard/backend/marketplace"
)

// EventInstallProgress carries one progress line of an install or an update as it
// happens: {"line": "fetching …"}. The method's answer carries every line too (progress),
// so a page that missed some events (another connection, a dropped event) still shows
// them all.
const EventInstallProgress = "install:progress"

// Reasons say, for a "refused" error of the install methods, which rule refused, so the
// page can offer what overrides it (Force for an invalid package or a taken id,
// "Uninstall anyway" for a plugin in use).
const (
	ReasonInvalidPackage = "invalid-package" // the package has errors (issues lists them); Force installs it
	ReasonExists         = "exists"          // a plugin of that id is installed; Force replaces it
	ReasonNotPlugin      = "not-plugin"      // not one plugin package (a marketplace, a lone skill, nothing)
	ReasonRule           = "rule"            // submodules, a link leaving the package, size, archive entries
	ReasonTampered       = "tampered"        // the content differs from what the lockfile records
	ReasonInUse          = "in-use"          // Uninstall: targets assign it (targets lists them); force removes it
	ReasonNotOurs        = "not-ours"        // Uninstall: a link, or a folder install did not make
	ReasonNotInstallable = "not-installable" // a marketplace entry Plugboard cannot install
	ReasonMarketplace    = "marketplace"     // AddMarketplace: no marketplace file, errors in it (issues), a name taken
)

// InstallResult is one install: what backend/install reports, and its progress lines.
type InstallResult struct {
	install.Result
	Progress []string `json:"progress"`
}

// InstalledPlugin is one entry of plugins.lock.json: how a plugin was installed.
type InstalledPlugin struct {
	ID string `json:"id"`
	install.Entry
	// Rollback is the previous version a rollback returns to; absent, there is none (the
	// page's Rollback is then disabled).
	Rollback *install.Entry `json:"rollback,omitempty"`
}

// RemovedMarketplace is a marketplace RemoveMarketplace forgot.
type RemovedMarketplace struct {
	Name    string `json:"name"`
	Source  string `json:"source"`
	Kind    string `json:"kind"`
	Path    string `json:"path"`
	Deleted bool   `json:"deleted"` // its clone was deleted (a folder added in place never is)
}

// Install fetches, checks, validates and places one plugin package (backend/install), then
// rescans, so the catalog the page asks for next has it. source is a git URL, owner/repo,
// an absolute folder or archive path (~/ is the home folder), or PLUGIN@MARKETPLACE; ref,
// path and name are optional; force installs an invalid package and replaces an installed
// plugin of the same id. Each progress line is emitted as install:progress as it comes.
func (s *Service) Install(source, ref, path, name string, force bool) (InstallResult, error) {
	source = strings.TrimSpace(source)
	if source == "" {
		return InstallResult{}, &Error{Code: CodeInvalid, Message: "give a source: a git URL, owner/repo, the full path of a plugin folder or a .zip/.tar.gz file, or PLUGIN@MARKETPLACE"}
	}
	if strings.HasPrefix(source, "~/") {
		source = s.home + source[1:]
	}
	if source == "." || source == ".." || strings.HasPrefix(source, "./") || strings.HasPrefix(source, "../") {
		return InstallResult{}, &Error{Code: CodeInvalid, Message: source + " is a relative path; give the folder's or archive's full path (or ~/…)"}
	}
	pw := s.progressWriter()
	res, err := install.Install(context.Background(), install.Options{Home: s.home, PlugboardHome: s.pbHome,
		Source: source, Ref: strings.TrimSpace(ref), Path: strings.TrimSpace(path), Name: strings.TrimSpace(name),
		Force: force, Progress: pw})
	lines := pw.done()
	if err != nil {
		return InstallResult{}, withProgress(installError(err), lines)
	}
	s.Rescan()
	return InstallResult{Result: res, Progress: lines}, nil
}

// Uninstall removes a plugin Install installed, and its lockfile entry, then rescans.
// Refused (reason in-use, targets listed) while targets assign it, unless force.
func (s *Service) Uninstall(name string, force bool) (install.Uninstalled, error) {
	res, err := install.Uninstall(context.Background(), install.UninstallOptions{Home: s.home, PlugboardHome: s.pbHome, Name: name, Force: force})
	if err != nil {
		return res, installError(err)
	}
	s.Rescan()
	return res, nil
}

// Installed lists the entries of plugins.lock.json by id: the plugins Install installed.
func (s *Service) Installed() ([]InstalledPlugin, error) {
	lf, err := install.ReadLockfile(install.LockfilePath(s.pbHome))
	if err != nil {
		return nil, &Error{Code: CodeIO, Message: err.Error()}
	}
	out := make([]InstalledPlugin, 0, len(lf.Plugins))
	for id, e := range lf.Plugins {
		out = append(out, InstalledPlugin{ID: id, Entry: e, Rollback: install.Kept(s.pbHome, id)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// Marketplaces lists the added marketplaces, each with its plugins as its file reads now.
func (s *Service) Marketplaces() ([]marketplace.Listed, error) {
	l, err := marketplace.List(s.pbHome)
	if err != nil {
		return nil, &Error{Code: CodeIO, Message: err.Error()}
	}
	return l, nil
}

// AddMarketplace records the marketplace at source (a folder, a git URL or owner/name);
// name "" takes the marketplace file's name.
func (s *Service) AddMarketplace(source, name string) (marketplace.AddResult, error) {
	source = strings.TrimSpace(source)
	if source == "" {
		return marketplace.AddResult{}, &Error{Code: CodeInvalid, Message: "give the marketplace's source: a folder holding .claude-plugin/marketplace.json, a git URL or GitHub owner/name"}
	}
	if strings.HasPrefix(source, "~/") {
		source = s.home + source[1:]
	}
	res, err := marketplace.Add(s.pbHome, source, marketplace.AddOptions{Name: strings.TrimSpace(name)})
	if err != nil {
		return res, installError(err)
	}
	return res, nil
}

// RemoveMarketplace forgets an added marketplace and deletes its clone (a folder added in
// place is left as it is).
func (s *Service) RemoveMarketplace(name string) (RemovedMarketplace, error) {
	gone, err := marketplace.Remove(s.pbHome, name)
	if err != nil {
		return RemovedMarketplace{}, installError(err)
	}
	return RemovedMarketplace{Name: gone.Name, Source: gone.Source, Kind: gone.Kind, Path: gone.Path, Deleted: gone.Kind == marketplace.KindGit}, nil
}

// UpdateResult is one update: what backend/install's Apply reports, and its progress lines.
type UpdateResult struct {
	Updates  []install.Update `json:"updates"`
	Progress []string         `json:"progress"`
}

// CheckUpdates fetches each installed plugin's source again (name, or every plugin of
// plugins.lock.json for "") and reports what an update would change; it changes nothing.
// A plugin that could not be checked carries its error in the list; an error is returned
// only when nothing could be checked.
func (s *Service) CheckUpdates(name string) ([]install.Update, error) {
	ups, err := install.Check(context.Background(), install.UpdateOptions{Home: s.home, PlugboardHome: s.pbHome, Name: strings.TrimSpace(name)})
	if err != nil && len(ups) == 0 {
		return nil, installError(err)
	}
	return ups, nil
}

// Update puts the new version of the installed plugin name in place when its source
// changed, keeping the replaced version for Rollback, then rescans. An invalid new version
// is refused (reason invalid-package, issues listed) and the installed one stays.
func (s *Service) Update(name string) (UpdateResult, error) {
	if strings.TrimSpace(name) == "" {
		return UpdateResult{}, &Error{Code: CodeInvalid, Message: "name the installed plugin to update"}
	}
	pw := s.progressWriter()
	ups, err := install.Apply(context.Background(), install.UpdateOptions{Home: s.home, PlugboardHome: s.pbHome, Name: name, Progress: pw})
	lines := pw.done()
	if err != nil {
		return UpdateResult{}, withProgress(updateError(err), lines)
	}
	s.Rescan()
	return UpdateResult{Updates: ups, Progress: lines}, nil
}

// Rollback puts back the version of name the last update replaced (the version it
// replaces becomes the one a second rollback returns to), then rescans.
func (s *Service) Rollback(name string) (install.Result, error) {
	res, err := install.Rollback(context.Background(), install.RollbackOptions{Home: s.home, PlugboardHome: s.pbHome, Name: name})
	if err != nil {
		return res, installError(err)
	}
	s.Rescan()
	return res, nil
}

// updateError is installError for an update, whose refusal of an invalid new version is
// not overridden (there is no Force): its message is backend/install's.
func updateError(err error) error {
	var inv *install.InvalidError
	if errors.As(err, &inv) {
		return &Error{Code: CodeRefused, Reason: ReasonInvalidPackage, Issues: inv.Issues.NonNil(), Message: pageMessage(err.Error(), "")}
	}
	return installError(err)
}

// installError is the page's error for the install and marketplace methods: a rule's
// refusal is "refused" with its reason (and the issues or targets it is about), what is not
// there is "not-found", anything else (a fetch that failed, a file that cannot be read) is
// "io". The messages are backend/install's and backend/marketplace's, which name the file,
// with the command line's advice replaced by the page's (pageMessage); those of the two
// refusals the page overrides are its own.
func installError(err error) error {
	var inv *install.InvalidError
	var inUse *install.InUseError
	var minv *marketplace.InvalidError
	refused := func(reason string) *Error {
		return &Error{Code: CodeRefused, Reason: reason, Message: pageMessage(err.Error(), reason)}
	}
	switch {
	case errors.As(err, &inv):
		n, _ := inv.Issues.Count()
		return &Error{Code: CodeRefused, Reason: ReasonInvalidPackage, Issues: inv.Issues.NonNil(),
			Message: fmt.Sprintf("%s is not a valid plugin (%s, listed below with their files); fix them in the package, or choose Force to install it anyway", inv.Source, count(n, "error"))}
	case errors.As(err, &inUse):
		return &Error{Code: CodeRefused, Reason: ReasonInUse, Targets: inUse.Targets,
			Message: fmt.Sprintf("%s is assigned to %s; remove it from them in Assignments first, or uninstall it anyway (they will then name a plugin that is gone)", inUse.ID, strings.Join(inUse.Targets, ", "))}
	case errors.As(err, &minv):
		return &Error{Code: CodeRefused, Reason: ReasonMarketplace, Issues: minv.Issues.NonNil(), Message: pageMessage(err.Error(), ReasonMarketplace)}
	case errors.Is(err, install.ErrExists):
		return refused(ReasonExists)
	case errors.Is(err, install.ErrNotPlugin):
		return refused(ReasonNotPlugin)
	case errors.Is(err, install.ErrRefused):
		return refused(ReasonRule)
	case errors.Is(err, install.ErrTampered):
		return refused(ReasonTampered)
	case errors.Is(err, install.ErrNotOurs):
		return refused(ReasonNotOurs)
	case errors.Is(err, marketplace.ErrNotInstallable):
		return refused(ReasonNotInstallable)
	case errors.Is(err, marketplace.ErrExists), errors.Is(err, marketplace.ErrNoMarketplace):
		return refused(ReasonMarketplace)
	case errors.Is(err, install.ErrNotInstalled), errors.Is(err, marketplace.ErrNotAdded),
		errors.Is(err, marketplace.ErrUnknownPlugin), errors.Is(err, fs.ErrNotExist), errors.Is(err, install.ErrNoRollback):
		return &Error{Code: CodeNotFound, Message: pageMessage(err.Error(), CodeNotFound)}
	case errors.Is(err, install.ErrBadArgument):
		return &Error{Code: CodeInvalid, Message: pageMessage(err.Error(), "")}
	}
	return &Error{Code: CodeIO, Message: pageMessage(err.Error(), CodeIO)}
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// withProgress attaches the progress lines an install wrote before it failed.
func withProgress(err error, lines []string) error {
	var e *Error
	if errors.As(err, &e) && len(lines) > 0 {
		e.Progress = lines
	}
	return err
}

// progressLines is the Progress writer of one install or update: each complete line is
// kept and emitted as install:progress.
type progressLines struct {
	emit  Emitter
	mu    sync.Mutex
	buf   []byte
	lines []string
}

func (s *Service) progressWriter() *progressLines {
	return &progressLines{emit: s.emit, lines: []string{}}
}

func (p *progressLines) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		p.add(string(p.buf[:i]))
		p.buf = p.buf[i+1:]
	}
}

func (p *progressLines) add(line string) {
	line = strings.TrimRight(line, "\r")
	if line == "" {
		return
	}
	p.lines = append(p.lines, line)
	p.emit(EventInstallProgress, map[string]string{"line": line})
}

// done returns every line, the last one even without its newline.
func (p *progressLines) done() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.buf) > 0 {
		p.add(string(p.buf))
		p.buf = nil
	}
	return p.lines
}
