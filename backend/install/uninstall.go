package install

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/plugboard/plugboard/backend/assign"
	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/devlink"
)

// UninstallOptions say what to take out. Force removes a plugin that targets assign,
// and a folder in plugins/ that install did not make (no lockfile entry).
type UninstallOptions struct {
	Home          string
	PlugboardHome string
	Name          string
	Force         bool
}

// Uninstalled describes one uninstall.
type Uninstalled struct {
	ID      string   `json:"id"`
	Path    string   `json:"path"`
	Source  string   `json:"source,omitempty"` // from the lockfile
	Targets []string `json:"targets"`          // the targets that assigned it (removed with Force)
	Locked  bool     `json:"locked"`           // it had a lockfile entry, now removed
}

// InUseError refuses to uninstall a plugin that targets assign.
type InUseError struct {
	ID      string
	Targets []string
}

func (e *InUseError) Error() string {
	return fmt.Sprintf("%s is assigned to %s; remove it from them first (plugboard assign TARGET --remove %s), or pass --force to uninstall it anyway (they will name a plugin that is gone)",
		e.ID, strings.Join(e.Targets, ", "), e.ID)
}

func (e *InUseError) Unwrap() error { return ErrInUse }

// Uninstall removes $PLUGBOARD_HOME/plugins/<name> and its lockfile entry: the folder is
// renamed aside in one rename (the catalog sees it gone at once), then deleted. A link or
// copy made by plugboard link is refused (plugboard unlink removes those), and so is a
// plugin some agent or template slot assigns, unless Force.
func Uninstall(ctx context.Context, o UninstallOptions) (Uninstalled, error) {
	if err := checkID(o.Name); err != nil {
		return Uninstalled{}, err
	}
	dir := pluginsDir(o.PlugboardHome)
	dest := filepath.Join(dir, o.Name)
	out := Uninstalled{ID: o.Name, Path: dest, Targets: []string{}}
	fi, err := os.Lstat(dest)
	if err != nil {
		return out, fmt.Errorf("%s is not installed (no %s): %w; plugboard catalog lists the installed plugins", o.Name, dest, ErrNotInstalled)
	}
	links, err := devlink.List(devlink.Options{Home: o.Home, PlugboardHome: o.PlugboardHome})
	if err != nil {
		return out, fmt.Errorf("%w; uninstall tells plugboard link's folders from installed ones by it", err)
	}
	for _, l := range links {
		if l.Dest == dest {
			return out, fmt.Errorf("%s is a local development %s made by plugboard link (%s → %s), not an installed plugin: %w; run `plugboard unlink %s`", o.Name, l.Mode, dest, l.Source, ErrNotOurs, o.Name)
		}
	}
	if fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir() {
		return out, fmt.Errorf("%s is not a folder install made (a symbolic link or a file): %w; remove it yourself if you mean to", dest, ErrNotOurs)
	}
	lf, err := ReadLockfile(LockfilePath(o.PlugboardHome))
	if err != nil {
		return out, err
	}
	e, locked := lf.Plugins[o.Name]
	out.Source, out.Locked = e.Source, locked
	if !locked && !o.Force {
		return out, fmt.Errorf("%s was not installed by plugboard install (%s has no entry for it), so it may be your own folder: %w; pass --force to delete it anyway", dest, LockfilePath(o.PlugboardHome), ErrNotOurs)
	}
	cat := catalog.Load(catalog.Options{Home: o.Home, PlugboardHome: o.PlugboardHome})
	targets, _ := assign.Targets(o.PlugboardHome, cat)
	for _, t := range targets {
		if slices.Contains(t.Effective, o.Name) || slices.Contains(t.Managed, o.Name) {
			out.Targets = append(out.Targets, t.ID)
		}
	}
	sort.Strings(out.Targets)
	if len(out.Targets) > 0 && !o.Force {
		return out, &InUseError{ID: o.Name, Targets: out.Targets}
	}
	if err := ctx.Err(); err != nil {
		return out, err
	}
	aside, err := takeOut(dir, dest, o)
	if aside != "" {
		// The version update kept for a rollback goes too: a later install of the same id
		// must not roll back to a plugin that was uninstalled.
		err = errors.Join(err, os.RemoveAll(aside), os.RemoveAll(filepath.Join(rollbackDir(o.PlugboardHome), o.Name)))
	}
	return out, err
}

// takeOut renames dest into a hidden staging name (removed by the next install if this
// process dies before it does) and drops its lockfile entry, under the install lock.
func takeOut(dir, dest string, o UninstallOptions) (string, error) {
	unlock, err := lockHome(dir)
	if err != nil {
		return "", err
	}
	defer unlock()
	aside, err := os.MkdirTemp(dir, stagingPrefix+"*")
	if err != nil {
		return "", err
	}
	if err := renameNoReplace(dest, filepath.Join(aside, o.Name)); err != nil {
		os.Remove(aside)
		return "", fmt.Errorf("uninstalling %s: %w", dest, err)
	}
	err = editLockfile(o.PlugboardHome, func(lf *Lockfile) { delete(lf.Plugins, o.Name) })
	if err != nil {
		// Put it back: an entry without its folder would be worse than neither.
		if os.Rename(filepath.Join(aside, o.Name), dest) == nil {
			os.Remove(aside)
			return "", err
		}
	}
	return aside, err
}
