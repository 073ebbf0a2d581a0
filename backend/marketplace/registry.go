package marketplace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/plugboard/plugboard/backend/argerr"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/jsondoc"
	"github.com/plugboard/plugboard/backend/jsonfile"
)

// The marketplaces a user added are recorded in $PLUGBOARD_HOME/marketplaces.json:
//
//	{"version": 1, "marketplaces": {"<name>": {"source": "…", "kind": "git|folder",
//	  "path": "<local root>", "ref": "…", "commit": "…", "addedAt": "…"}}}
//
// A git marketplace is cloned into $PLUGBOARD_HOME/state/marketplaces/<name>; a folder
// is referenced where it is and never written to or deleted. Every change takes the lock
// state/marketplaces.lock, reads the file afresh under it and replaces it atomically
// (jsonfile), keeping top-level members it does not know. A URL is recorded without its
// user name or password.
const (
	RegistryFile    = "marketplaces.json"
	RegistryVersion = 1
	KindGit         = "git"
	KindFolder      = "folder"
)

// Errors Add, Remove and Resolve wrap; the message says which marketplace and the fix.
var (
	ErrExists        = errors.New("marketplace already added")
	ErrNotAdded      = errors.New("marketplace not added")
	ErrNoMarketplace = errors.New("no marketplace file")
	ErrInvalid       = errors.New("marketplace file has errors")
)

// Added is one recorded marketplace.
type Added struct {
	Name    string `json:"-"`
	Source  string `json:"source"` // the folder, or the git URL cloned (no userinfo)
	Kind    string `json:"kind"`   // KindGit or KindFolder
	Path    string `json:"path"`   // the local root: the clone or the folder
	Ref     string `json:"ref,omitempty"`
	Commit  string `json:"commit,omitempty"` // the commit cloned (git)
	AddedAt string `json:"addedAt"`
}

// InvalidError is a marketplace refused for the errors of its file; Issues lists them,
// each with its file (under the folder, or under the URL for a clone, which is deleted by
// then) and line.
type InvalidError struct {
	Source string
	Issues issue.List // errors only, paths under the folder or the URL
}

func (e *InvalidError) Error() string {
	n, _ := e.Issues.Count()
	noun := "errors"
	if n == 1 {
		noun = "error"
	}
	file := File
	if len(e.Issues) > 0 && e.Issues[0].Path != "" {
		file = e.Issues[0].Path // the file that was read (Claude's or Cursor's)
	}
	return fmt.Sprintf("%s: %s has %d %s; fix them and add it again", e.Source, file, n, noun)
}

func (e *InvalidError) Unwrap() error { return ErrInvalid }

// AddOptions tunes Add.
type AddOptions struct {
	Name    string        // the name to record; "" takes the marketplace file's name
	Timeout time.Duration // bounds the clone; 0 is DefaultCloneTimeout
}

// AddResult is what Add recorded, and the warnings of the marketplace file.
type AddResult struct {
	Added
	Name     string   `json:"name"`
	Plugins  int      `json:"plugins"`
	Warnings []string `json:"warnings,omitempty"`
}

// Add records the marketplace at source: a folder holding File (or File itself), a git
// URL (https://, http://, ssh://, git://, file://, user@host:path, each with an optional
// #REF) or GitHub owner/name. A git source is cloned one commit deep into a staging folder
// beside its final place and renamed there only when its marketplace file reads without
// errors and the name is free, so a failure leaves nothing behind. Refused (wrapping
// ErrNoMarketplace, ErrInvalid or ErrExists): a source with no marketplace file, a file
// with errors (an *InvalidError lists them), a name already added.
func Add(pbHome, source string, o AddOptions) (AddResult, error) {
	var r AddResult
	if o.Name != "" {
		if err := checkName(o.Name); err != nil {
			return r, argerr.Bad(fmt.Errorf("--name %v", err))
		}
		if err := refuseTaken(pbHome, o.Name); err != nil {
			return r, err
		}
	}
	g, isGit, err := parseGitSource(source)
	if err != nil {
		return r, err
	}
	if g.Stripped {
		r.Warnings = append(r.Warnings, "the user name or password in the URL was stripped: Plugboard never prints or stores it; let git's credential helper supply it")
	}
	var root, stage string
	if isGit {
		dir := filepath.Join(pbHome, "state", "marketplaces")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return r, err
		}
		stage, err = os.MkdirTemp(dir, ".adding-")
		if err != nil {
			return r, err
		}
		defer os.RemoveAll(stage) // after the rename this finds nothing
		commit, err := cloneShallow(g.URL, g.Ref, stage, o.Timeout)
		if err != nil {
			if g.Shorthand {
				err = fmt.Errorf("%w (%s was read as GitHub owner/name: no such local folder)", err, source)
			}
			return r, err
		}
		root = stage
		r.Added = Added{Source: g.URL, Kind: KindGit, Ref: g.Ref, Commit: commit}
	} else {
		if root, err = localRoot(source); err != nil {
			return r, err
		}
		r.Added = Added{Source: root, Kind: KindFolder, Path: root}
	}
	shown := r.Source
	if !Exists(root) {
		return r, fmt.Errorf("%w: %s holds no %s (nor Cursor's %s); a marketplace lists its plugins there (see plugboard inspect)", ErrNoMarketplace, shown, File, CursorFile)
	}
	m := Read(root)
	if m.Issues.HasErrors() {
		var errs issue.List
		for _, i := range m.Issues {
			if i.Severity == issue.Error {
				errs = append(errs, i)
			}
		}
		prefix := root
		if isGit {
			prefix = strings.TrimSuffix(g.URL, "/")
		}
		errs = errs.Prefix(prefix)
		return r, &InvalidError{Source: shown, Issues: errs}
	}
	for _, i := range m.Issues {
		r.Warnings = append(r.Warnings, i.String())
	}
	r.Name = o.Name
	if r.Name == "" {
		r.Name = m.Name
		if err := checkName(r.Name); err != nil {
			return r, fmt.Errorf("%s: the marketplace's name %v; add it with --name NAME", shown, err)
		}
	}
	r.Added.Name, r.Plugins = r.Name, len(m.Plugins)
	r.AddedAt = time.Now().UTC().Format(time.RFC3339)
	err = withRegistry(pbHome, func(reg map[string]Added) (bool, error) {
		if _, ok := reg[r.Name]; ok {
			return false, takenError(r.Name, reg[r.Name])
		}
		if isGit {
			r.Path = cloneDir(pbHome, r.Name)
			// Only Add puts folders here; one the registry does not record is what a
			// crash between the rename and the registry write left behind.
			if err := os.RemoveAll(r.Path); err != nil {
				return false, err
			}
			if err := os.Rename(stage, r.Path); err != nil {
				return false, err
			}
		}
		reg[r.Name] = r.Added
		return true, nil
	})
	if err != nil && isGit && r.Path != "" && !errors.Is(err, ErrExists) {
		if reg, rerr := readRegistry(pbHome); rerr == nil {
			if _, ok := reg[r.Name]; !ok {
				os.RemoveAll(r.Path) // renamed, but not recorded
			}
		}
	}
	return r, err
}

// Remove forgets the marketplace name and deletes its clone; a folder added in place is
// never deleted. Refused (ErrNotAdded) for a name not added; the message lists those that
// are.
func Remove(pbHome, name string) (Added, error) {
	var gone Added
	reg, err := readRegistry(pbHome)
	if err != nil {
		return gone, err
	}
	if _, ok := reg[name]; !ok { // refused without the lock, writing nothing
		return gone, notAddedError(name, reg)
	}
	err = withRegistry(pbHome, func(reg map[string]Added) (bool, error) {
		a, ok := reg[name]
		if !ok {
			return false, notAddedError(name, reg)
		}
		gone = a
		gone.Name = name
		delete(reg, name)
		return true, nil
	})
	if err != nil {
		return gone, err
	}
	if gone.Kind == KindGit {
		// Delete only the clone Add made: the recorded path must be this home's clone
		// folder for the name, whatever the file was edited to say.
		if dir := cloneDir(pbHome, name); filepath.Clean(gone.Path) == dir {
			if err := os.RemoveAll(dir); err != nil {
				return gone, fmt.Errorf("%s was removed from %s, but its clone %s could not be deleted: %v; delete it by hand", name, RegistryFile, dir, err)
			}
		}
	}
	return gone, nil
}

// Listed is one added marketplace and its plugins as its file reads now.
type Listed struct {
	Added
	Name    string       `json:"name"`
	Plugins []ListedItem `json:"plugins"`
	Issues  issue.List   `json:"issues"`
}

// ListedItem is one plugin of a listed marketplace: OK says whether Plugboard can install
// it, Reason why not.
type ListedItem struct {
	Name        string `json:"name"`
	Version     string `json:"version,omitempty"`
	Description string `json:"description,omitempty"`
	Source      Source `json:"source"`
	OK          bool   `json:"ok"`
	Reason      string `json:"reason,omitempty"`
}

// List returns the added marketplaces by name, each with its plugins read afresh. A
// marketplace whose folder is gone lists no plugins and an error issue saying so.
func List(pbHome string) ([]Listed, error) {
	reg, err := readRegistry(pbHome)
	if err != nil {
		return nil, err
	}
	out := []Listed{}
	for _, name := range sortedNames(reg) {
		a := reg[name]
		a.Name = name
		l := Listed{Added: a, Name: name, Plugins: []ListedItem{}}
		m := Read(a.Path)
		l.Issues = m.Issues.Prefix(a.Path)
		if _, err := os.Stat(a.Path); err != nil {
			l.Issues = issue.List{{Severity: issue.Error, Code: CodeUnreadable, Path: a.Path,
				Message: fmt.Sprintf("the marketplace folder is gone; plugboard marketplace remove %s forgets it", name)}}
		}
		for _, e := range m.Plugins {
			ok, why := e.Installable()
			l.Plugins = append(l.Plugins, ListedItem{Name: e.Name, Version: e.Version, Description: e.Description, Source: e.Source, OK: ok, Reason: why})
		}
		out = append(out, l)
	}
	return out, nil
}

func registryPath(pbHome string) string { return filepath.Join(pbHome, RegistryFile) }

// cloneDir is where the git marketplace name is cloned.
func cloneDir(pbHome, name string) string {
	return filepath.Join(pbHome, "state", "marketplaces", name)
}

// readRegistry reads the recorded marketplaces; no file records none. A file that does
// not parse, or that a newer Plugboard wrote, is an error naming it and the fix: it is
// never rewritten from a guess.
func readRegistry(pbHome string) (map[string]Added, error) {
	p := registryPath(pbHome)
	reg := map[string]Added{}
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return reg, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Version      int              `json:"version"`
		Marketplaces map[string]Added `json:"marketplaces"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		line := max(jsondoc.ErrorLine(err), 1)
		return nil, fmt.Errorf("%s:%d: %v; fix the file, or delete it to forget every added marketplace", p, line, err)
	}
	if doc.Version > RegistryVersion {
		return nil, fmt.Errorf("%s has version %d, written by a newer Plugboard (this one reads version %d); upgrade Plugboard", p, doc.Version, RegistryVersion)
	}
	for name, a := range doc.Marketplaces {
		a.Name = name
		reg[name] = a
	}
	return reg, nil
}

// withRegistry runs fn on the registry read under its lock and, when fn reports a change,
// writes it back atomically, still under the lock.
func withRegistry(pbHome string, fn func(reg map[string]Added) (changed bool, err error)) error {
	state := filepath.Join(pbHome, "state")
	if err := os.MkdirAll(state, 0o755); err != nil {
		return err
	}
	unlock, err := jsonfile.Lock(filepath.Join(state, "marketplaces.lock"))
	if err != nil {
		return err
	}
	defer unlock()
	reg, err := readRegistry(pbHome)
	if err != nil {
		return err
	}
	changed, err := fn(reg)
	if err != nil || !changed {
		return err
	}
	return writeRegistry(pbHome, reg)
}

func writeRegistry(pbHome string, reg map[string]Added) error {
	p := registryPath(pbHome)
	data, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	members, err := jsonfile.Members(data)
	if err != nil {
		return fmt.Errorf("%s: %v; fix the file, or delete it to forget every added marketplace", p, err)
	}
	if members, err = jsonfile.Set(members, "version", RegistryVersion); err != nil {
		return err
	}
	if members, err = jsonfile.Set(members, "marketplaces", reg); err != nil {
		return err
	}
	out, err := jsonfile.Encode(members)
	if err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(p); err == nil {
		mode = st.Mode().Perm()
	}
	return jsonfile.WriteAtomic(p, out, mode)
}

// refuseTaken refuses a name already added, before anything is cloned.
func refuseTaken(pbHome, name string) error {
	reg, err := readRegistry(pbHome)
	if err != nil {
		return err
	}
	if a, ok := reg[name]; ok {
		return takenError(name, a)
	}
	return nil
}

func takenError(name string, a Added) error {
	return fmt.Errorf("%w: %q is already added (from %s); plugboard marketplace remove %s forgets it, or add this one with --name OTHER", ErrExists, name, a.Source, name)
}

func notAddedError(name string, reg map[string]Added) error {
	names := sortedNames(reg)
	if len(names) == 0 {
		return fmt.Errorf("%w: %q: no marketplace is added (plugboard marketplace add SOURCE adds one)", ErrNotAdded, name)
	}
	msg := fmt.Sprintf("%q is not an added marketplace", name)
	if near := closest(name, names); len(near) > 0 {
		msg += fmt.Sprintf("; did you mean %s?", quoteList(near))
	}
	return fmt.Errorf("%w: %s (added: %s)", ErrNotAdded, msg, strings.Join(names, ", "))
}

// checkName accepts a marketplace name usable as a folder name and in PLUGIN@NAME:
// letters, digits, '.', '_' and '-', starting with a letter or digit.
func checkName(name string) error {
	if name == "" {
		return errors.New("is empty")
	}
	for i, c := range name {
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return fmt.Errorf("%q must be letters, digits, '.', '_' and '-', starting with a letter or digit (such as \"team-tools\")", name)
		}
	}
	return nil
}

func sortedNames(reg map[string]Added) []string {
	names := make([]string, 0, len(reg))
	for n := range reg {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
