package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/plugboard/plugboard/backend/jsonfile"
)

// An install, an update or a rollback is one or more renames and a lockfile write; a process killed
// between two of them left the lockfile describing one version and the folder holding
// another, or the replaced version only in a hidden folder the next update removed. So
// each records its intent first, in $PLUGBOARD_HOME/state/journal/<id>.json, and the next
// command that takes the home's install lock (install, update, rollback, uninstall)
// completes it or undoes it before anything else: the lockfile always describes the
// installed folder and no version is lost.

// journal is one install's, update's or rollback's intent.
type journal struct {
	Op   string `json:"op"` // "install", "update" or "rollback"
	ID   string `json:"id"`
	Dest string `json:"dest"` // plugins/<id>
	Keep string `json:"keep"` // state/rollback/<id>
	// install, update: the staged new version; update: the hidden folder that becomes the
	// rollback copy
	Final string `json:"final,omitempty"`
	Tmp   string `json:"tmp,omitempty"`
	// To is the lockfile entry the operation writes; its Content is the new folder's.
	To Entry `json:"to"`
	// Kept is, for an update, the entry of the version it keeps for rollback (the hidden
	// folder's entry.json until it becomes the rollback copy).
	Kept Entry `json:"kept,omitempty"`
}

func journalDir(pbHome string) string { return filepath.Join(pbHome, "state", "journal") }

// begin records j; the caller holds the install lock.
func begin(pbHome string, j journal) error {
	if err := os.MkdirAll(journalDir(pbHome), 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	return jsonfile.WriteAtomic(filepath.Join(journalDir(pbHome), j.ID+".json"), append(data, '\n'), 0o644)
}

// end removes j's record: the operation is whole.
func end(pbHome, id string) {
	_ = os.Remove(filepath.Join(journalDir(pbHome), id+".json"))
}

// crashAt is called after each step of an install, an update and a rollback; the tests
// kill the process there.
var crashAt = func(step string) {}

// Recover completes or undoes what a killed install, update or rollback left recorded in
// pbHome, under the install lock (taking the lock does it), and removes the staging
// folders of installs that died. update and update --check call it first; install,
// rollback and uninstall take the lock anyway.
func Recover(pbHome string) error {
	if _, err := os.Stat(pluginsDir(pbHome)); err != nil {
		return nil // nothing installed, nothing to recover
	}
	unlock, err := lockHome(pluginsDir(pbHome))
	if err != nil {
		return err
	}
	defer unlock()
	return cleanStale(pluginsDir(pbHome)) // and the staging folders killed installs left
}

// recoverJournals completes or undoes every operation a killed process left recorded.
// The caller holds the install lock.
func recoverJournals(pbHome string) error {
	entries, err := os.ReadDir(journalDir(pbHome))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		p := filepath.Join(journalDir(pbHome), e.Name())
		var j journal
		data, err := os.ReadFile(p)
		if err == nil {
			err = json.Unmarshal(data, &j)
		}
		if err == nil && (j.ID == "" || j.Dest == "" || j.Op != "install" && j.Keep == "") {
			err = errors.New("it names no plugin or folder")
		}
		if err != nil {
			return fmt.Errorf("%s records an interrupted install, update or rollback but cannot be read (%v); look at %s and %s, then remove it", p, err, pluginsDir(pbHome), rollbackDir(pbHome))
		}
		switch j.Op {
		case "install":
			err = recoverInstall(pbHome, j)
		case "update":
			err = recoverUpdate(pbHome, j)
		case "rollback":
			err = recoverRollback(pbHome, j)
		default:
			err = fmt.Errorf("unknown operation %q", j.Op)
		}
		if err != nil {
			return fmt.Errorf("completing the interrupted %s of %s (%s): %w", j.Op, j.ID, p, err)
		}
		end(pbHome, j.ID)
	}
	return nil
}

// recoverInstall: the install's steps are (1) move the staged folder into plugins/<id>
// (with --force, exchange it with the installed one), (2) write the lockfile. While the
// staged folder still holds the new content, nothing changed; otherwise the lockfile is
// written and the replaced version (--force) removed.
func recoverInstall(pbHome string, j journal) error {
	if sameContent(j.Final, j.To.Content) {
		return os.RemoveAll(j.Final) // (1) not done
	}
	if err := editLockfile(pbHome, func(lf *Lockfile) { lf.Plugins[j.ID] = j.To }); err != nil { // (2)
		return err
	}
	return os.RemoveAll(j.Final)
}

// recoverUpdate: the update's steps are (1) exchange the staged folder with plugins/<id>,
// (2) move the old version from the staged place into the hidden rollback folder, (3)
// write the lockfile, (4) make the hidden folder the rollback copy. Where the old
// version is tells how far it came: still in plugins/<id> (the staged folder holds the
// new content), so nothing changed and the staging is removed; otherwise every step
// left is done.
func recoverUpdate(pbHome string, j journal) error {
	if sameContent(j.Final, j.To.Content) {
		_ = os.RemoveAll(j.Final) // (1) not done: the update never happened
		_ = os.RemoveAll(j.Tmp)
		return nil
	}
	if _, err := os.Lstat(j.Final); err == nil {
		if err := os.Rename(j.Final, filepath.Join(j.Tmp, rollbackFolder)); err != nil { // (2)
			return err
		}
	}
	if err := editLockfile(pbHome, func(lf *Lockfile) { lf.Plugins[j.ID] = j.To }); err != nil { // (3)
		return err
	}
	// (4), unless done: the hidden folder then holds the copy it displaced, whose entry
	// is not the one this update kept
	if e, err := readKept(j.Tmp, j.ID); err == nil && e == j.Kept {
		if err := replaceRollback(j.Tmp, j.Keep); err != nil {
			return err
		}
	}
	_ = os.RemoveAll(j.Tmp) // the rollback copy it displaced, if any
	return nil
}

// recoverRollback: the rollback's steps are (1) exchange the kept folder with
// plugins/<id>, (2) write the lockfile, (3) put the replaced version's entry in place.
// While the kept folder still holds the restored version's content, nothing changed.
func recoverRollback(pbHome string, j journal) error {
	next := filepath.Join(j.Keep, "."+rollbackEntry+".new")
	if sameContent(filepath.Join(j.Keep, rollbackFolder), j.To.Content) {
		_ = os.Remove(next) // (1) not done
		return nil
	}
	if err := editLockfile(pbHome, func(lf *Lockfile) { lf.Plugins[j.ID] = j.To }); err != nil { // (2)
		return err
	}
	if _, err := os.Lstat(next); err == nil { // (3)
		return os.Rename(next, filepath.Join(j.Keep, rollbackEntry))
	}
	return nil
}
