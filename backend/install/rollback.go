package install

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/jsonfile"
)

// The rollback copy of plugin <id> is $PLUGBOARD_HOME/state/rollback/<id>/: the folder
// an update replaced (plugin/) and its lockfile entry (entry.json), one previous version
// per plugin. Apply writes it; Rollback exchanges it with the installed folder, so the
// version it replaces becomes the rollback copy and a second rollback returns.
const (
	rollbackFolder = "plugin"
	rollbackEntry  = "entry.json"
)

// ErrNoRollback: Rollback found no kept previous version.
var ErrNoRollback = errors.New("no previous version is kept")

// RollbackOptions say which plugin to roll back and where. Home and PlugboardHome are
// required and absolute.
type RollbackOptions struct {
	Home          string // the user's home folder
	PlugboardHome string // $PLUGBOARD_HOME
	Name          string // the installed plugin id
}

// rollbackDir is $PLUGBOARD_HOME/state/rollback.
func rollbackDir(pbHome string) string { return filepath.Join(pbHome, "state", "rollback") }

// Rollback puts the kept previous version of o.Name back in plugins/<id> in one
// renameat2(RENAME_EXCHANGE) and its lockfile entry back in the lockfile, under the home's
// install lock; the version it replaces (with its entry) becomes the rollback copy. It is
// refused with ErrNoRollback when no previous version is kept, and with ErrTampered when
// the kept folder's content is not its entry's. The Result describes the restored version
// (Replaced is true).
func Rollback(ctx context.Context, o RollbackOptions) (Result, error) {
	if o.Home == "" || o.PlugboardHome == "" {
		return Result{}, errors.New("rollback: the home and Plugboard home folders are required")
	}
	if err := checkID(o.Name); err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	id := o.Name
	dir := pluginsDir(o.PlugboardHome)
	dest := filepath.Join(dir, id)
	keep := filepath.Join(rollbackDir(o.PlugboardHome), id)
	res := Result{ID: id, Path: dest, Issues: issue.List{}, Servers: []Server{}}
	fi, err := os.Lstat(dest)
	switch {
	case err != nil:
		return res, fmt.Errorf("%s is not installed (no %s): %w; plugboard catalog lists the installed plugins", id, dest, ErrNotInstalled)
	case fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir():
		return res, fmt.Errorf("%s is not a folder plugboard install made (a symbolic link or a file): %w", dest, ErrNotOurs)
	}
	unlock, err := lockHome(dir)
	if err != nil {
		return res, err
	}
	defer unlock()
	prev, err := readKept(keep, id)
	if err != nil {
		return res, err
	}
	lf, err := ReadLockfile(LockfilePath(o.PlugboardHome))
	if err != nil {
		return res, err
	}
	cur, ok := lf.Plugins[id]
	if !ok {
		return res, fmt.Errorf("%s was not installed by plugboard install (%s has no entry for it): %w; nothing was changed", dest, LockfilePath(o.PlugboardHome), ErrNotOurs)
	}
	kept := filepath.Join(keep, rollbackFolder)
	if !sameContent(kept, prev.Content) {
		return res, fmt.Errorf("the kept previous version of %s (%s) does not have the content its entry records (%s): %w; it was changed after the update kept it: remove %s, or install the version you want with plugboard install --force", id, kept, prev.Content, ErrTampered, keep)
	}
	_, actual := fileSums(dest)
	cur.Content = actual // what the new rollback copy holds (the lockfile's, unless edited by hand)
	data, err := json.MarshalIndent(cur, "", "  ")
	if err != nil {
		return res, err
	}
	next := filepath.Join(keep, "."+rollbackEntry+".new")
	if err := begin(o.PlugboardHome, journal{Op: "rollback", ID: id, Dest: dest, Keep: keep, To: prev}); err != nil {
		return res, fmt.Errorf("recording the rollback of %s: %w; nothing was changed", id, err)
	}
	crashAt("rollback:recorded")
	if err := jsonfile.WriteAtomic(next, append(data, '\n'), 0o644); err != nil {
		end(o.PlugboardHome, id)
		return res, fmt.Errorf("writing %s: %w", next, err)
	}
	crashAt("rollback:entry")
	if err := exchange(kept, dest); err != nil {
		os.Remove(next)
		end(o.PlugboardHome, id)
		return res, fmt.Errorf("rolling back %s: %w", dest, err)
	}
	crashAt("rollback:exchanged")
	if err := editLockfile(o.PlugboardHome, func(lf *Lockfile) { lf.Plugins[id] = prev }); err != nil {
		// the record stays: the next command completes the rollback
		return res, fmt.Errorf("%w; %s is rolled back and the lockfile still the replaced version's: the next install, update or rollback completes it", err, dest)
	}
	crashAt("rollback:lockfile")
	if err := os.Rename(next, filepath.Join(keep, rollbackEntry)); err != nil {
		return res, fmt.Errorf("%s is rolled back, but %s could not be written yet (%v); the next install, update or rollback does it", id, filepath.Join(keep, rollbackEntry), err)
	}
	crashAt("rollback:done")
	end(o.PlugboardHome, id)
	res.Source, res.Kind, res.Ref, res.Subpath = prev.Source, prev.Kind, prev.Ref, prev.Path
	res.Commit, res.Archive, res.Content, res.Replaced = prev.Commit, prev.Archive, prev.Content, true
	d := catalog.InspectAny(dest, o.Home)
	if d.Plugin != nil {
		res.Valid = d.Plugin.Valid
		res.Issues = d.Plugin.AllIssues().NonNil()
		if c := d.Clients; c != nil {
			for _, l := range []issue.List{c.Claude.Issues, c.Cursor.Issues, c.Codex.Issues, c.PI.Issues} {
				res.Issues = append(res.Issues, l...)
			}
		}
		res.Issues = dedupe(res.Issues)
		res.Servers = servers(d.Plugin)
	}
	return res, nil
}

// readKept reads the rollback copy keep of id: its entry, and that its folder is there.
func readKept(keep, id string) (Entry, error) {
	var e Entry
	p := filepath.Join(keep, rollbackEntry)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return e, fmt.Errorf("%s has no previous version to roll back to (no %s): %w; plugboard update keeps one when it replaces a plugin, and nothing was changed", id, keep, ErrNoRollback)
	}
	if err != nil {
		return e, err
	}
	if err := json.Unmarshal(data, &e); err != nil || e.Source == "" || e.Content == "" || e.Kind != KindGit && e.Kind != KindFolder && e.Kind != KindArchive {
		return e, fmt.Errorf("%s is not the entry of a kept version (it needs a source, a kind and a content hash): %w; remove %s, or install the version you want with plugboard install --force", p, ErrTampered, keep)
	}
	if fi, err := os.Lstat(filepath.Join(keep, rollbackFolder)); err != nil || !fi.IsDir() {
		return e, fmt.Errorf("%s has no kept folder %s: %w; remove %s", id, filepath.Join(keep, rollbackFolder), ErrNoRollback, keep)
	}
	return e, nil
}

// Kept is the entry of the previous version a rollback of id returns to, or nil when there is
// none to roll back to (or it cannot be read: Rollback then says why).
func Kept(pbHome, id string) *Entry {
	if checkID(id) != nil {
		return nil
	}
	e, err := readKept(filepath.Join(rollbackDir(pbHome), id), id)
	if err != nil {
		return nil
	}
	return &e
}

// newRollbackCopy makes a hidden folder in state/rollback holding entry.json of kept,
// ready for the replaced folder; it first removes the hidden folders an update that
// died left there. The caller holds the home's install lock (so none is in use).
func newRollbackCopy(pbHome, id string, kept Entry) (string, error) {
	dir := rollbackDir(pbHome)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("making %s: %w", dir, err)
	}
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				os.RemoveAll(filepath.Join(dir, e.Name()))
			}
		}
	}
	tmp, err := os.MkdirTemp(dir, "."+id+"-")
	if err != nil {
		return "", fmt.Errorf("making a folder in %s: %w", dir, err)
	}
	data, err := json.MarshalIndent(kept, "", "  ")
	if err == nil {
		err = jsonfile.WriteAtomic(filepath.Join(tmp, rollbackEntry), append(data, '\n'), 0o644)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("writing %s: %w", filepath.Join(tmp, rollbackEntry), err)
	}
	return tmp, nil
}

// replaceRollback makes tmp the rollback copy keep: one exchange with the previous copy
// (left in tmp, which the caller removes), or one rename when there is none.
func replaceRollback(tmp, keep string) error {
	if _, err := os.Lstat(keep); err == nil {
		return exchange(tmp, keep)
	}
	return renameNoReplace(tmp, keep)
}
