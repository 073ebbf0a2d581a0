// Package devlink puts a plugin an author is working on where the catalog finds it
// (requirement U5): a symlink, or a synced copy, in $PLUGBOARD_HOME/plugins/<name>
// ("home", the default) or ~/.cursor/plugins/local/<name> ("cursor").
//
// Link validates the package first (catalog.Inspect) and refuses an invalid one unless
// forced. It never clobbers: a symlink to the same folder is "already linked"; anything
// else at the destination — a folder, a file, a link elsewhere — is refused, named.
// Symlinks are made in one system call, which fails rather than replace. Copy mode keeps
// a copy for agents that refuse symlinks leaving their folder: regular files and folders
// only (symlinks inside the package are copied as what they point to; one leading out of
// the package is refused; .git is left out), built in a hidden temporary sibling and
// renamed into place, with a marker file (MarkerFile) naming the source. Sync brings a
// copy up to date, writing each changed file atomically and removing what the source no
// longer has. Unlink removes a symlink or a copy Link made and nothing else.
//
// What Link made — symlinks and copies alike — is recorded in the links registry
// ($PLUGBOARD_HOME/state/links.json, see registry.go), and only what it records is
// unlinked, synced or listed. A folder that carries a marker but is not recorded (a
// plugin may ship one; copies made before copies were recorded are not recorded either)
// is not Plugboard's: it is left alone, and refusals say so with the fix.
//
// Functions write only in the two destination folders and the registry, and are safe to
// call concurrently: two Links of one name never both create it (the second finds it in
// place, or is refused).
package devlink

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/ctree"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/jsonfile"
	"github.com/plugboard/plugboard/backend/pathsafe"
)

// Places and modes.
const (
	IntoHome   = "home"   // $PLUGBOARD_HOME/plugins/<name>: assignable by Plugboard
	IntoCursor = "cursor" // ~/.cursor/plugins/local/<name>: seen by Cursor too
	ModeLink   = "link"
	ModeCopy   = "copy"
)

// MarkerFile is written in a copy made by Link: the source folder and the id the
// registry records for the copy. It does not make a folder a copy by itself.
const MarkerFile = ".plugboard-link.json"

// Sentinels callers branch on.
var (
	ErrInvalid   = errors.New("the package is invalid")
	ErrExists    = errors.New("the destination is taken")
	ErrNotLinked = errors.New("no such local development link")
	ErrNotOurs   = errors.New("not made by plugboard link")
)

// InvalidError is Link's refusal of an invalid package: its errors, with paths under Dir.
type InvalidError struct {
	Dir    string
	Issues issue.List
}

func (e *InvalidError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s is not a valid plugin (%d errors); fix them, or pass --force to link it anyway:", e.Dir, len(e.Issues))
	for _, i := range e.Issues {
		b.WriteString("\n  " + i.String())
	}
	return b.String()
}

func (e *InvalidError) Unwrap() error { return ErrInvalid }

// Options says where and how to link.
type Options struct {
	Home          string // the user's home folder
	PlugboardHome string // $PLUGBOARD_HOME
	// Into is IntoHome or IntoCursor. Link defaults to IntoHome; Unlink and Sync look in
	// both places when it is empty.
	Into string
	// Name is the destination folder's name, which is the plugin id. Default: the
	// manifest's name, else the source folder's name.
	Name  string
	Copy  bool // keep a synced copy instead of a symlink
	Force bool // link an invalid package
}

// Result describes one link.
type Result struct {
	Name          string `json:"name"`
	Into          string `json:"into"`
	Dest          string `json:"dest"`
	Source        string `json:"source"`
	Mode          string `json:"mode"`
	SourceExists  bool   `json:"sourceExists"`
	AlreadyLinked bool   `json:"alreadyLinked,omitempty"` // Link found it in place (a copy was synced)
	// Validation of the package (Link: the source; List and Unlink: the destination).
	Valid    bool `json:"valid"`
	Errors   int  `json:"errors"`
	Warnings int  `json:"warnings"`
	// Skipped lists what a copy left out (sockets, devices, dangling links), relative.
	Skipped []string `json:"skipped,omitempty"`
}

// marker is the content of MarkerFile.
type marker struct {
	Tool   string `json:"tool"` // "plugboard link"
	Source string `json:"source"`
	Mode   string `json:"mode"`
	ID     string `json:"id,omitempty"` // the registry's id of the copy; absent before copies were recorded
}

const markerTool = "plugboard link"

// Link validates the package in dir and links it; see the package comment.
func Link(dir string, o Options) (Result, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Result{}, err
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return Result{}, fmt.Errorf("link %s: not a folder", abs)
	}
	p := catalog.Inspect(abs, o.Home)
	if !p.Valid && !o.Force {
		var errs issue.List
		for _, i := range p.AllIssues().Prefix(abs) {
			if i.Severity == issue.Error {
				errs = append(errs, i)
			}
		}
		return Result{}, &InvalidError{Dir: abs, Issues: errs}
	}
	name := o.Name
	if name == "" {
		name = p.Name // a rejected manifest's name is not to be trusted
		if !p.Valid || CheckNewName(name) != nil {
			name = filepath.Base(abs)
		}
	}
	into := o.Into
	if into == "" {
		into = IntoHome
	}
	parent, err := place(into, o)
	if err != nil {
		return Result{}, err
	}
	if err := CheckNewName(name); err != nil {
		if o.Name == "" {
			err = fmt.Errorf("%w; give the link one with --name", err)
		}
		return Result{}, err
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return Result{}, fmt.Errorf("link %s: %w", name, err)
	}
	dest := filepath.Join(parent, name)
	if err := checkOutside(abs, parent, name); err != nil {
		return Result{}, err
	}
	r := Result{Name: name, Into: into, Dest: dest, Source: abs, Mode: ModeLink, SourceExists: true,
		Valid: p.Valid, Errors: p.IssueCounts.Errors, Warnings: p.IssueCounts.Warnings}
	if o.Copy {
		r.Mode = ModeCopy
		return linkCopy(r, o.PlugboardHome)
	}
	err = os.Symlink(abs, dest)
	if err == nil {
		if err := updateRegistry(o.PlugboardHome, dest, abs); err != nil {
			os.Remove(dest) // unrecorded, it could not be unlinked: undo it
			return Result{}, fmt.Errorf("link %s: recording the link: %w", name, err)
		}
		return r, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return Result{}, fmt.Errorf("link %s: %w", name, err)
	}
	if target, ok := linkTarget(dest); ok && sameFolder(target, abs) {
		// Already there (made by an earlier link, or by hand to the same folder): the
		// user asked for exactly this link, so it is recorded as ours from now on.
		r.AlreadyLinked = true
		return r, updateRegistry(o.PlugboardHome, dest, abs)
	}
	reg, err := readRegistry(o.PlugboardHome)
	if err != nil {
		return Result{}, err
	}
	return Result{}, taken(dest, abs, name, into, reg)
}

func linkCopy(r Result, pbHome string) (Result, error) {
	if _, err := os.Lstat(r.Dest); err == nil {
		return syncInPlace(r, pbHome)
	}
	t, err := walkSource(r.Source)
	if err != nil {
		return Result{}, fmt.Errorf("copy %s: %w", r.Source, err)
	}
	id, err := newCopyID()
	if err != nil {
		return Result{}, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(r.Dest), "."+r.Name+".plugboard-tmp-*") // hidden: never catalogued
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(tmp) // after the rename this finds nothing
	if err := copyInto(t, tmp); err != nil {
		return Result{}, fmt.Errorf("copy %s: %w", r.Source, err)
	}
	if err := writeMarker(tmp, r.Source, id); err != nil {
		return Result{}, err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return Result{}, err
	}
	// The rename and the record happen under the registry's lock, so no other Link,
	// Unlink or Sync sees the copy in place and unrecorded. os.Rename refuses an existing
	// folder and the kernel a file, so a destination that appeared meanwhile is not
	// replaced: it is judged as one found in place (another Link's copy of this folder is
	// synced, anything else refused).
	renamed, appeared := false, false
	err = withRegistry(pbHome, func(reg *registry) (bool, error) {
		if _, err := os.Lstat(r.Dest); err == nil {
			appeared = true
			return false, nil
		}
		if err := os.Rename(tmp, r.Dest); err != nil {
			return false, fmt.Errorf("copy %s into place: %w", r.Source, err)
		}
		renamed = true
		delete(reg.Links, r.Dest)
		reg.Copies[r.Dest] = copyEntry{Source: r.Source, ID: id}
		return true, nil
	})
	if err != nil {
		if renamed && os.Rename(r.Dest, tmp) == nil { // unrecorded, it could not be unlinked: undo it
			return Result{}, fmt.Errorf("link %s: recording the copy: %w", r.Name, err)
		}
		return Result{}, err
	}
	if appeared {
		return syncInPlace(r, pbHome)
	}
	r.Skipped = skippedOf(t)
	return r, nil
}

// syncInPlace is Link --copy onto a destination that exists: a recorded copy of the
// same folder is synced, anything else refused. Both are decided under the lock.
func syncInPlace(r Result, pbHome string) (Result, error) {
	err := withRegistry(pbHome, func(reg *registry) (bool, error) {
		mode, src, err := classify(r.Name, r.Into, r.Dest, *reg)
		if err != nil || mode != ModeCopy || !sameFolder(src, r.Source) {
			return false, taken(r.Dest, r.Source, r.Name, r.Into, *reg)
		}
		r.Source = src
		r.Skipped, err = syncCopy(src, r.Dest)
		return false, err
	})
	if err != nil {
		return Result{}, err
	}
	r.AlreadyLinked = true
	return r, nil
}

// taken explains what holds dest, and how to free it.
func taken(dest, want, name, into string, reg registry) error {
	what := "something Plugboard did not make"
	fix := "remove it yourself if you mean to replace it, or choose another --name"
	mode, src, ourErr := classify(name, into, dest, reg)
	if target, ok := linkTarget(dest); ok {
		what = "a link to " + target
		if ourErr == nil {
			what += " (made by plugboard link)"
		}
	} else if ourErr == nil && mode == ModeCopy {
		what = "a copy of " + src + " (plugboard link --copy)"
	} else if m, err := readMarker(dest); err == nil {
		what = fmt.Sprintf("a folder not made by Plugboard (its %s names %s, but it is not a copy %s records)", MarkerFile, m.Source, registryPath(reg.home))
		fix = "delete it yourself if it is an old copy of yours and link again, or choose another --name"
	} else if st, err := os.Lstat(dest); err == nil && st.IsDir() {
		what = "a folder not made by plugboard link"
	} else if err == nil {
		what = "a file"
	}
	if ourErr == nil {
		fix = fmt.Sprintf("run `plugboard unlink %s%s` first, or choose another --name", name, intoFlag(into))
	}
	return fmt.Errorf("%s is %s, not a link to %s; %s: %w", dest, what, want, fix, ErrExists)
}

// intoFlag is the --into flag a command about into needs (none for the default place).
func intoFlag(into string) string {
	if into == IntoCursor {
		return " --into " + IntoCursor
	}
	return ""
}

// Sync brings the copy called name up to date with its source. Only a copy the registry
// records is synced; anything else is refused untouched.
func Sync(name string, o Options) error {
	dest, into, err := find(name, o)
	if err != nil {
		return err
	}
	check := func(reg registry) (string, error) {
		mode, src, err := classify(name, into, dest, reg)
		if err != nil {
			return "", err
		}
		if mode != ModeCopy {
			return "", fmt.Errorf("%s is a link, not a copy: it needs no sync", dest)
		}
		return src, nil
	}
	if err := refuseUnrecorded(o.PlugboardHome, func(reg registry) error { _, err := check(reg); return err }); err != nil {
		return err
	}
	return withRegistry(o.PlugboardHome, func(reg *registry) (bool, error) {
		src, err := check(*reg)
		if err != nil {
			return false, err
		}
		_, err = syncCopy(src, dest)
		return false, err
	})
}

// Unlink removes the link or copy called name that Link made (the registry records it);
// anything else is refused untouched. See Options.Into.
func Unlink(name string, o Options) (Result, error) {
	dest, into, err := find(name, o)
	if err != nil {
		return Result{}, err
	}
	if err := refuseUnrecorded(o.PlugboardHome, func(reg registry) error { _, _, err := classify(name, into, dest, reg); return err }); err != nil {
		return Result{}, err
	}
	var r Result
	aside := ""
	err = withRegistry(o.PlugboardHome, func(reg *registry) (bool, error) {
		var err error
		if r, err = describe(name, into, dest, o, *reg); err != nil {
			return false, err
		}
		if r.Mode == ModeLink {
			if err := os.Remove(dest); err != nil {
				return false, err
			}
			delete(reg.Links, dest)
			return true, nil
		}
		// Rename the copy aside first, so that it goes at once, then delete it. The
		// hidden name is reserved by MkdirTemp and freed for the rename (which refuses a
		// folder).
		tmp, err := os.MkdirTemp(filepath.Dir(dest), "."+name+".plugboard-unlink-*")
		if err != nil {
			return false, err
		}
		os.Remove(tmp)
		if err := os.Rename(dest, tmp); err != nil {
			return false, fmt.Errorf("unlink %s: %w", dest, err)
		}
		aside = tmp
		delete(reg.Copies, dest)
		return true, nil
	})
	if aside != "" {
		err = errors.Join(err, os.RemoveAll(aside))
	}
	if err != nil && r.Mode == "" {
		return Result{}, err
	}
	return r, err
}

// refuseUnrecorded returns check's refusal when there is no registry, so that a refusal
// in a home that records nothing writes nothing, not even the state folder or the lock.
// Otherwise the decision is left to a read under the lock.
func refuseUnrecorded(pbHome string, check func(registry) error) error {
	if _, err := os.Lstat(registryPath(pbHome)); err == nil {
		return nil
	}
	reg, err := readRegistry(pbHome)
	if err != nil {
		return err
	}
	return check(reg)
}

// List returns the links and copies Link made (the registry records them) in both
// places, sorted by place and name. Other folders are not listed: they are installed
// plugins, not development links, whatever marker they carry. A registry that cannot be
// read lists nothing and is the error.
func List(o Options) ([]Result, error) {
	var out []Result
	reg, err := readRegistry(o.PlugboardHome)
	if err != nil {
		return nil, err
	}
	for _, into := range []string{IntoHome, IntoCursor} {
		parent, _ := place(into, o)
		entries, _ := os.ReadDir(parent)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			if r, err := describe(e.Name(), into, filepath.Join(parent, e.Name()), o, reg); err == nil {
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// describe reports the link or copy at dest that Link made, validated; for anything
// else it returns classify's refusal.
func describe(name, into, dest string, o Options, reg registry) (Result, error) {
	mode, source, err := classify(name, into, dest, reg)
	if err != nil {
		return Result{}, err
	}
	r := Result{Name: name, Into: into, Dest: dest, Mode: mode, Source: source}
	if st, err := os.Stat(r.Source); err == nil && st.IsDir() {
		r.SourceExists = true
	}
	if st, err := os.Stat(dest); err == nil && st.IsDir() {
		p := catalog.Inspect(dest, o.Home)
		r.Valid, r.Errors, r.Warnings = p.Valid, p.IssueCounts.Errors, p.IssueCounts.Warnings
	}
	return r, nil
}

// classify says what is at dest by the registry reg: a symlink Link made (ModeLink and
// its target), a copy Link made (ModeCopy and the recorded source: the registry records
// dest as a copy and the marker in it carries the recorded id), or neither — an error
// wrapping ErrNotOurs that names the folder and what to do, or ErrNotLinked when dest is
// gone. A marker alone is not enough: a plugin can ship one.
func classify(name, into, dest string, reg registry) (mode, source string, err error) {
	if target, ok := linkTarget(dest); ok {
		if reg.ours(dest, target) {
			return ModeLink, target, nil
		}
		return "", "", fmt.Errorf("%s is a symlink to %s that plugboard link did not make (%s does not record it); remove it yourself if you mean to: %w",
			dest, target, registryPath(reg.home), ErrNotOurs)
	}
	st, err := os.Lstat(dest)
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", dest, ErrNotLinked)
	}
	if !st.IsDir() {
		return "", "", fmt.Errorf("%s is a file, not a link or a copy made by plugboard link; remove it yourself if you mean to: %w", dest, ErrNotOurs)
	}
	e, recorded := reg.Copies[dest]
	m, merr := readMarker(dest)
	relink := func(src string) string {
		return fmt.Sprintf("`plugboard link --copy %s --name %s%s`", src, name, intoFlag(into))
	}
	switch {
	case recorded && merr == nil && e.ID != "" && m.ID == e.ID:
		return ModeCopy, e.Source, nil
	case recorded:
		return "", "", fmt.Errorf("%s is recorded in %s as a copy of %s, but its %s is missing or is not the one Plugboard wrote there, so the folder is not that copy any more (it was replaced or edited); Plugboard leaves it alone: delete it yourself if it is yours, then run %s: %w",
			dest, registryPath(reg.home), e.Source, MarkerFile, relink(e.Source), ErrNotOurs)
	case merr == nil:
		return "", "", fmt.Errorf("%s carries a %s naming %s, but %s does not record it as a copy, so it is not one Plugboard made (a plugin can ship that file, and copies made before Plugboard recorded them are not recorded either); Plugboard leaves it alone: if it is your copy of %s, delete the folder yourself and run %s to make one Plugboard records: %w",
			dest, MarkerFile, m.Source, registryPath(reg.home), m.Source, relink(m.Source), ErrNotOurs)
	}
	return "", "", fmt.Errorf("%s is not a link or a copy made by plugboard link; remove it yourself if you mean to: %w", dest, ErrNotOurs)
}

// find locates name in the place o.Into names, or in either place.
func find(name string, o Options) (dest, into string, err error) {
	if err := checkName(name); err != nil {
		return "", "", err
	}
	places := []string{IntoHome, IntoCursor}
	if o.Into != "" {
		places = []string{o.Into}
	}
	var found []string
	for _, in := range places {
		parent, err := place(in, o)
		if err != nil {
			return "", "", err
		}
		if _, err := os.Lstat(filepath.Join(parent, name)); err == nil {
			found = append(found, in)
			dest, into = filepath.Join(parent, name), in
		}
	}
	switch len(found) {
	case 0:
		return "", "", fmt.Errorf("%q in %s: %w", name, strings.Join(places, " or "), ErrNotLinked)
	case 1:
		return dest, into, nil
	}
	return "", "", fmt.Errorf("%q is in both %s and %s; say which with --into", name, found[0], found[1])
}

// place returns the folder links go in.
func place(into string, o Options) (string, error) {
	base := map[string]string{IntoHome: o.PlugboardHome, IntoCursor: o.Home}
	switch b, ok := base[into]; {
	case ok && !filepath.IsAbs(b):
		return "", fmt.Errorf("--into %s: the home folder %q is not an absolute path", into, b)
	case into == IntoHome:
		return filepath.Join(o.PlugboardHome, "plugins"), nil
	case into == IntoCursor:
		return filepath.Join(o.Home, ".cursor", "plugins", "local"), nil
	}
	return "", fmt.Errorf("--into %q: want %s or %s", into, IntoHome, IntoCursor)
}

// checkName accepts one visible folder name (the catalog skips hidden ones).
func checkName(name string) error { return CheckFolderName("plugin name", name) }

// CheckFolderName accepts one visible folder name (the catalog skips hidden ones) for a
// plugin folder; what names what it checks in the message ("plugin name", "plugin id").
func CheckFolderName(what, name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") || strings.HasPrefix(name, ".") || len(name) > 255 {
		return fmt.Errorf("%s %q cannot be a folder name: use letters, digits and hyphens, not starting with a dot", what, name)
	}
	return nil
}

// CheckNewName accepts the name of a plugin folder about to be made (link, install): a
// visible folder name that also stays one word where plugin ids are listed and parsed
// (assign --set a,b; id@marketplace; plugin:skill; one line per plugin in the output), so
// no space, control character, ',', '@' or ':', and no invisible format character (a
// zero-width space made "revie\u200bw" look exactly like "review"; U+202E turns text
// around). Folders made before this rule are still read, unlinked and uninstalled under
// checkName's.
func CheckNewName(name string) error {
	if err := checkName(name); err != nil {
		return err
	}
	for _, r := range name {
		if unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || strings.ContainsRune(",@:", r) {
			return fmt.Errorf("plugin name %q cannot be used: a plugin id must stay one word in lists (assign --set a,b), ids (id@marketplace, plugin:skill) and output, so no spaces, control or invisible characters, ',', '@' or ':'; use letters, digits, '-', '_' and '.'", name)
		}
	}
	return nil
}

// checkOutside refuses a destination inside the package (a link loop, or a copy that
// would copy itself).
func checkOutside(src, parent, name string) error {
	rs, err1 := pathsafe.Root(src)
	rp, err2 := pathsafe.Root(parent)
	if err1 != nil || err2 != nil {
		return errors.Join(err1, err2)
	}
	if pathsafe.Within(rs, filepath.Join(rp, name)) {
		return fmt.Errorf("%s is inside the package %s; link a folder that does not contain %s", filepath.Join(parent, name), src, parent)
	}
	return nil
}

// linkTarget returns the absolute target of the symlink at p; ok is false when p is not
// a symlink.
func linkTarget(p string) (string, bool) {
	t, err := os.Readlink(p)
	if err != nil {
		return "", false
	}
	if !filepath.IsAbs(t) {
		t = filepath.Join(filepath.Dir(p), t)
	}
	return filepath.Clean(t), true
}

// sameFolder compares two absolute paths as written, then resolved.
func sameFolder(a, b string) bool {
	if a == b {
		return true
	}
	ra, err1 := pathsafe.Root(a)
	rb, err2 := pathsafe.Root(b)
	return err1 == nil && err2 == nil && ra == rb
}

func readMarker(dir string) (marker, error) {
	var m marker
	if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
		return m, ErrNotOurs
	}
	p := filepath.Join(dir, MarkerFile)
	if st, err := os.Lstat(p); err != nil || !st.Mode().IsRegular() {
		return m, ErrNotOurs // Link writes a regular file, never a link to one
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(data, &m); err != nil || m.Tool != markerTool || m.Mode != ModeCopy || !filepath.IsAbs(m.Source) {
		return marker{}, fmt.Errorf("%s: not a marker of plugboard link: %w", p, ErrNotOurs)
	}
	return m, nil
}

func writeMarker(dir, source, id string) error {
	data, _ := json.MarshalIndent(marker{Tool: markerTool, Source: source, Mode: ModeCopy, ID: id}, "", "  ")
	return jsonfile.WriteAtomic(filepath.Join(dir, MarkerFile), append(data, '\n'), 0o644)
}

// maxCopyFiles bounds a copy: a package is a manifest, skills and a few scripts; a tree
// beyond this is a mistake (a data set, an installed node_modules) or a link farm.
const maxCopyFiles = 20000

// walkSource lists and hashes the package at src for copying, through the one contained
// walker (backend/ctree): links are followed only inside the package, every file is read
// beneath it with no link followed, and .git and the copy's marker are left out. Special
// files and dangling links are skipped (Tree.Skipped); a link out of the package or a
// link loop refuses the copy.
func walkSource(src string) (*ctree.Tree, error) {
	root, err := pathsafe.Root(src)
	if err != nil {
		return nil, err
	}
	t, err := ctree.Walk(root, root, ctree.Options{
		MaxFiles: maxCopyFiles,
		Skip:     func(rel string) bool { return path.Base(rel) == ".git" || rel == MarkerFile },
		Leave:    []string{ctree.KindSpecial, ctree.KindDangling},
	})
	var e *ctree.Error
	switch {
	case errors.As(err, &e) && e.Kind == ctree.KindOutside:
		return nil, fmt.Errorf("%s is a symlink outside the package; a copy takes only what is inside (make it a real file or folder)", e.Rel)
	case errors.As(err, &e) && e.Kind == ctree.KindTooLarge:
		return nil, fmt.Errorf("%s; a copy is for a plugin, not a data set", e.Error())
	case errors.As(err, &e) && e.Kind == ctree.KindLoop:
		return nil, fmt.Errorf("%s leads back to a folder it is inside (a symlink loop); a copy cannot hold it — remove the link", e.Rel)
	}
	return t, err
}

// skippedOf lists what a walk left out, relative.
func skippedOf(t *ctree.Tree) []string {
	var out []string
	for _, e := range t.Skipped {
		out = append(out, e.Rel)
	}
	return out
}

// copyInto writes the tree into the empty folder dst, each file with its own mode.
func copyInto(t *ctree.Tree, dst string) error {
	return t.CopyTo(dst, 0o755, func(f ctree.File) fs.FileMode { return f.Mode })
}

// syncCopy makes dest hold what src holds: what is gone from src is removed first (so a
// file that became a folder, or the reverse, is replaced), then each file that differs
// is written atomically.
func syncCopy(src, dest string) ([]string, error) {
	if st, err := os.Stat(src); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("sync %s: its source %s is gone; link it again or unlink it", dest, src)
	}
	t, err := walkSource(src)
	if err != nil {
		return nil, fmt.Errorf("sync %s: %w", dest, err)
	}
	keepDirs, keepFiles := map[string]bool{}, map[string]bool{}
	for _, d := range t.Dirs {
		keepDirs[d] = true
	}
	for _, f := range t.Files {
		keepFiles[f.Rel] = true
	}
	err = filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dest {
			return err
		}
		rel, _ := filepath.Rel(dest, p)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == MarkerFile:
			return nil
		case d.IsDir() && !keepDirs[rel]:
			if err := os.RemoveAll(p); err != nil {
				return err
			}
			return filepath.SkipDir
		case !d.IsDir() && (!keepFiles[rel] || !d.Type().IsRegular()):
			return os.Remove(p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sync %s: %w", dest, err)
	}
	dirs := slices.Clone(t.Dirs)
	sort.Strings(dirs) // parents first
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(dest, filepath.FromSlash(d)), 0o755); err != nil {
			return nil, err
		}
	}
	err = t.ReadEach(t.Files, func(f ctree.File, want []byte) error {
		to := filepath.Join(dest, filepath.FromSlash(f.Rel))
		if st, err := os.Lstat(to); err == nil && st.Mode().Perm() == f.Mode && st.Size() == int64(len(want)) {
			if have, err := os.ReadFile(to); err == nil && bytes.Equal(have, want) {
				return nil
			}
		}
		if err := jsonfile.WriteAtomic(to, want, f.Mode); err != nil {
			return fmt.Errorf("%s: %w", f.Rel, err)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sync %s: %w", dest, err)
	}
	return skippedOf(t), nil
}
