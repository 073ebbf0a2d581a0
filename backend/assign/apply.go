package assign

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/jsonfile"
	"github.com/plugboard/plugboard/backend/settings"
)

// LockName is the advisory lock file, one in each folder of target files (agents/,
// templates/), taken around the hash comparison and the write.
const LockName = ".assign.lock"

// staleTemp is how old a leftover temporary file of ours must be before a save removes
// it: a save in progress (in another process) finishes its temporary file within
// milliseconds, so a minute-old one was left by a process that died.
const staleTemp = time.Minute

// beforeLock, when set (by tests), runs after a save has read its target and before it
// takes the lock: the window in which another writer can change the file.
var beforeLock func(file string)

// editFunc computes the new pluginDirs of t (nil: delete the member).
type editFunc func(h *home, t *located) ([]string, error)

// Apply changes the managed plugin set of one target and saves it (A2–A4). expectHash
// is the hash the caller's view was based on; "" means no guard from the caller, and the
// hash read at the start of Apply still guards the write. ack acknowledges the MCP
// servers the change adds. On a rule or acknowledgment error the Outcome says what the
// change would have done; nothing is written.
func Apply(pbHome string, cat *catalog.Catalog, targetID string, ch Change, expectHash string, ack bool) (Outcome, error) {
	return save(pbHome, cat, targetID, changeEdit(ch), expectHash, ack, true)
}

// Preview runs every check of Apply without an acknowledgment and writes nothing: an
// *AckError comes with the filled Outcome, so the page can show the diff and the servers.
func Preview(pbHome string, cat *catalog.Catalog, targetID string, ch Change) (Outcome, error) {
	return save(pbHome, cat, targetID, changeEdit(ch), "", false, false)
}

// SetDirs writes dirs as the target's pluginDirs: nil deletes the member (a slot then
// inherits its agent), managed entries are normalised, every other entry is written as
// given. It exists for reverting a save exactly (Outcome.BeforeDirs), unmanaged entries
// and inheritance included; the rules of Apply still hold for the ids it adds.
func SetDirs(pbHome string, cat *catalog.Catalog, targetID string, dirs []string, expectHash string, ack bool) (Outcome, error) {
	return save(pbHome, cat, targetID, func(*home, *located) ([]string, error) {
		if dirs == nil {
			return nil, nil
		}
		return append([]string{}, dirs...), nil
	}, expectHash, ack, true)
}

func save(pbHome string, cat *catalog.Catalog, id string, edit editFunc, expect string, ack, write bool) (Outcome, error) {
	h := scan(pbHome, indexPlugins(cat))
	t := h.find(id)
	if t == nil {
		return Outcome{}, h.notFound(id)
	}
	if t.ReadOnly {
		return Outcome{Target: t.Target}, fmt.Errorf("%s: %w (%s)", id, ErrReadOnly, readOnlyWhy(t))
	}
	if expect != "" && expect != t.Hash {
		return Outcome{}, &StaleError{Fresh: t.Target}
	}
	dirs, err := edit(h, t)
	if err != nil {
		return Outcome{Target: t.Target}, err
	}
	if dirs = h.plugins.normalise(dirs); t.Kind == KindAgent && t.dirs == nil && len(dirs) == 0 {
		dirs = nil // an agent without the member keeps not having it
	}
	data, err := t.rewrite(dirs)
	if err != nil {
		return Outcome{Target: t.Target}, fmt.Errorf("rewrite %s: %w", t.File, err)
	}
	after := h.reparse(t, data)
	out := Outcome{
		Target: after.Target, Before: t.Effective, After: after.Effective,
		BeforeDirs: t.dirs, AfterDirs: dirs, BeforeInherits: t.Inherits,
		BeforeHash: t.Hash, AfterHash: settings.Hash(data), Acknowledged: []Ack{},
	}
	acks, err := h.plugins.check(t.Effective, h.plugins.ids(dirs), after.Effective, ack, h.acknowledged(t.ID))
	if err != nil || !write {
		return out, err
	}
	out.Acknowledged = acks
	if out.Written, err = commit(h, t, data); err != nil {
		return Outcome{}, err
	}
	return out, nil
}

// acknowledged says whether a server was acknowledged for target before, reading the
// store once, on the first question (a save that brings no server opens no database).
func (h *home) acknowledged(target string) func(Ack) bool {
	var set map[string]bool
	return func(a Ack) bool {
		if set == nil {
			set, _ = Acknowledged(context.Background(), h.dir, target) // unreadable: ask again
		}
		return set[AckKey(a.Plugin, a.Server, a.Digest)]
	}
}

func readOnlyWhy(t *located) string {
	switch t.Kind {
	case KindShellBinding:
		return "a shell binding has no stable place to write an assignment; change its agent instead"
	case KindActive:
		return "the __active__ slot runs whichever agent is active; assign plugins to that agent"
	}
	return "its pluginDirs is not a list of folder paths; fix the file first"
}

// TargetID is a target as a person may name it: a bare NAME is agent:NAME, as the
// launch names it; anything with a kind (agent:, template:, shell:, dir:) is as given.
func TargetID(s string) string {
	if s != "" && !strings.Contains(s, ":") {
		return "agent:" + s
	}
	return s
}

func (h *home) find(id string) *located {
	id = TargetID(id)
	for _, t := range h.targets {
		if t.ID == id {
			return t
		}
	}
	return nil
}

// changeEdit turns a Change into the new pluginDirs of a target.
func changeEdit(ch Change) editFunc {
	return func(h *home, t *located) ([]string, error) {
		kinds, ids := 0, append(append(append([]string{}, ch.Set...), ch.Add...), ch.Remove...)
		for _, on := range []bool{ch.Set != nil, len(ch.Add) > 0, len(ch.Remove) > 0, ch.Defaults} {
			if on {
				kinds++
			}
		}
		if kinds != 1 {
			return nil, &RuleError{Code: RuleBadChange, Reason: "a change is exactly one of: set, add, remove, use defaults"}
		}
		var bad []string
		for _, id := range ids {
			if !validID(id) {
				bad = append(bad, id)
			}
		}
		if len(bad) > 0 {
			return nil, &RuleError{Code: RuleUnknown, Reason: "not a plugin id (plugboard catalog lists them)", Names: bad}
		}
		if ch.Defaults {
			if t.Kind != KindSlot {
				return nil, &RuleError{Code: RuleNoDefaults, Reason: "only a template slot can use defaults (its agent's set); an agent holds its own set"}
			}
			return nil, nil
		}
		base, err := h.base(t)
		switch {
		case err != nil:
			return nil, err
		case ch.Set != nil:
			return h.plugins.setIDs(base, dedupe(ch.Set)), nil
		case len(ch.Add) > 0:
			return h.plugins.addIDs(base, ch.Add), nil
		}
		return h.plugins.removeIDs(base, dedupe(ch.Remove))
	}
}

// base is what a change starts from: the target's entries, or for a slot that inherits,
// a copy of its agent's (the slot becomes a full custom snapshot).
func (h *home) base(t *located) ([]string, error) {
	if !t.Inherits {
		return t.dirs, nil
	}
	a := h.agents[t.Ref]
	if a == nil {
		return []string{}, nil
	}
	if a.ReadOnly {
		return nil, &RuleError{Code: RuleBadChange, Reason: "the slot's agent has a pluginDirs that cannot be read, so no snapshot can start from it; fix " + a.File, Names: []string{t.Ref}}
	}
	return append([]string{}, a.dirs...), nil
}

// reparse reads the target again from the bytes a save would write.
func (h *home) reparse(t *located, data []byte) *located {
	scratch := &home{dir: h.dir, plugins: h.plugins, agents: h.agents}
	ls := []*located{}
	if t.slot < 0 {
		ls = append(ls, scratch.agentFrom(t.File, data))
	} else {
		ls = scratch.templateFrom(t.File, data)
	}
	for _, l := range ls {
		if l != nil && l.ID == t.ID {
			scratch.finish(l)
			return l
		}
	}
	return t
}

// commit writes data over t's file, under the folder's lock, if the file still holds the
// bytes t was read from. It reports whether it wrote (equal bytes are not rewritten).
func commit(h *home, t *located, data []byte) (bool, error) {
	if beforeLock != nil {
		beforeLock(t.File)
	}
	unlock, err := jsonfile.Lock(filepath.Join(filepath.Dir(t.File), LockName))
	if err != nil {
		return false, fmt.Errorf("lock %s: %w", filepath.Dir(t.File), err)
	}
	defer unlock()
	cur, err := capread.ReadFile(t.File, capread.SettingsMax)
	if errors.Is(err, os.ErrNotExist) || err == nil && settings.Hash(cur) != t.Hash {
		var fresh Target
		if f := scan(h.dir, h.plugins).find(t.ID); f != nil {
			fresh = f.Target
		}
		return false, &StaleError{Fresh: fresh}
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", t.File, err)
	}
	if bytes.Equal(cur, data) {
		return false, nil
	}
	// A symlinked file (a dotfiles checkout) is written where it points, link kept.
	real, err := filepath.EvalSymlinks(t.File)
	if err != nil {
		return false, fmt.Errorf("resolve %s: %w", t.File, err)
	}
	st, err := os.Stat(real)
	if err != nil {
		return false, fmt.Errorf("stat %s: %w", real, err)
	}
	if err := writable(t, real, st.Mode()); err != nil {
		return false, err
	}
	cleanTemps(real)
	if err := jsonfile.WriteAtomic(real, data, st.Mode().Perm()); err != nil {
		return false, fmt.Errorf("save %s: %w", t.File, err)
	}
	return true, nil
}

// writable refuses a file its owner may not write (mode 0444): the rename of an atomic
// write needs only the folder to be writable, so it would replace the file and drop
// the protection someone gave it. The mode bits decide, not a write attempt, so the
// refusal holds for root too.
func writable(t *located, real string, mode os.FileMode) error {
	if mode.Perm()&0o200 != 0 {
		return nil
	}
	where := t.File
	if fi, err := os.Lstat(t.File); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		where += " (a link to " + real + ")"
	}
	return fmt.Errorf("%s: %w: %s is not writable (mode %04o), and a save would replace it; nothing was written. Make it writable with chmod u+w %s, or leave the target as it is",
		t.ID, ErrReadOnly, where, mode.Perm(), real)
}

// cleanTemps removes temporary files of p (".<name>.tmp-*", jsonfile.WriteAtomic's
// pattern) older than staleTemp: a process killed between creating and renaming one
// leaves it behind.
func cleanTemps(p string) {
	dir, prefix := filepath.Dir(p), "."+filepath.Base(p)+".tmp-"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), prefix) || e.IsDir() {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > staleTemp {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
