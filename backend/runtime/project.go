package runtime

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/plugboard/plugboard/backend/ctree"
)

// layout is what a projection holds, relative to its folder.
type layout struct {
	files  map[string][]byte   // written with mode 0600
	trees  map[string]tree     // skill folders to copy
	owners map[string]skillRef // whose skill each tree is
	how    map[string]string   // plugin id → PlanPlugin.How
}

type skillRef struct{ plugin, skill string }

func newLayout() layout {
	return layout{files: map[string][]byte{}, trees: map[string]tree{}, owners: map[string]skillRef{}, how: map[string]string{}}
}

// addTree puts the skill s of plugin at rel.
func (l layout) addTree(rel, plugin string, s projSkill) {
	l.trees[rel] = s.t
	l.owners[rel] = skillRef{plugin, s.name}
}

// projectSkill puts the skill s of u at rel in the layout, lists it in the plan by the
// name the backend gives it, and records its grants and refusals (perms: the backend's
// permission rules, nil when it has none).
func projectSkill(plan *Plan, l *layout, perms *permissions, u *unit, s projSkill, name, rel string) {
	l.addTree(rel, u.p.ID, s)
	plan.addSkill(name, u.p.ID)
	projectSkillPaths(plan, l, perms, u, s, name, rel)
}

// indexedSkill is the activity index's entry for the skill s of u, which the agent
// reads at location.
func indexedSkill(u *unit, s projSkill, location string) IndexedSkill {
	return IndexedSkill{Plugin: u.p.ID, Version: u.p.Version, Hash: "sha256:" + s.t.Sum, Location: location}
}

// backends make the layout of a projection and fill the plan's argv, skills and servers.
var backends = map[string]func(plan *Plan, units []unit, req Request) layout{
	Claude:  claudeLayout,
	PI:      piLayout,
	Codex:   codexLayout,
	Copilot: copilotLayout,
}

// readyHome makes the private home a backend's client writes its state into, beside
// the sealed projection (statehome.go), after the projection is made.
var readyHome = map[string]func(plan *Plan, req Request) error{
	Codex:   readyCodexHome,
	Copilot: readyCopilotHome,
}

// maxChangedRetries bounds how many skills changing under the copy one launch drops
// before it gives up: each drop projects the set again.
const maxChangedRetries = 3

// project fingerprints the launch set, lays it out for the backend and materialises it;
// a dry run writes nothing and says whether the projection would be reused. A skill
// whose files change while they are copied is dropped alone (R5), with the reason, and
// the set is projected again without it, so the projection always holds exactly what
// its fingerprint names.
func project(plan *Plan, units []unit, req Request, backend string) (layout, error) {
	base := *plan
	for attempt := 0; ; attempt++ {
		plan.Fingerprint = fingerprint(backend, req, units)
		plan.Projection = filepath.Join(RuntimeDir(req.PlugboardHome), backend, strings.TrimPrefix(plan.Fingerprint, "sha256:")[:32])
		l := backends[backend](plan, units, req)
		if req.DryRun {
			plan.Reused, plan.Rebuilt = wouldReuse(plan.Projection)
			return l, nil
		}
		var err error
		plan.Reused, plan.Rebuilt, err = materialise(plan.Projection, l)
		var ce *changedError
		if errors.As(err, &ce) && units[0].sums != nil {
			// A file's content differed from its hash while it was copied: it was edited
			// meanwhile, or a remembered hash is wrong. The next launch reads every file.
			units[0].sums.Forget(sumsFile(req.PlugboardHome, backend, plan.Target))
		}
		if !errors.As(err, &ce) || attempt == maxChangedRetries {
			return l, err
		}
		*plan = base
		for i := range units {
			if units[i].p.ID == ce.owner.plugin {
				units[i].skills = slices.DeleteFunc(units[i].skills, func(s projSkill) bool { return s.name == ce.owner.skill })
			}
		}
		plan.Dropped = append(plan.Dropped, Drop{Plugin: ce.owner.plugin, What: "skill", Name: ce.owner.skill,
			Reason: "its files changed while they were being copied into the projection; launch again to include it"})
		base = *plan
	}
}

// changedError is a skill folder that changed while it was copied.
type changedError struct {
	owner skillRef
	err   error
}

func (e *changedError) Error() string {
	return e.owner.plugin + ":" + e.owner.skill + ": " + e.err.Error()
}
func (e *changedError) Unwrap() error { return e.err }

// materialise makes dir hold l unless a sealed projection of it is there already: a
// projection is named after its fingerprint, so one whose files still match its seal has
// the same content and is reused as it is (R6: nothing copied). One that no longer
// matches (a file missing, added or changed) is made anew, and rebuilt says why. A new
// one is built and sealed in a temporary sibling and renamed into place, so a projection
// is either whole or absent, and two launches racing to make the same one both end with
// it. The runtime folder and everything in it is private (0700/0600).
func materialise(dir string, l layout) (reused bool, rebuilt string, err error) {
	if reused, rebuilt = wouldReuse(dir); reused {
		now := time.Now()
		_ = os.Chtimes(dir, now, now) // in use: prune keeps it
		return true, "", nil
	}
	parent := filepath.Dir(dir)
	if err := privateDir(filepath.Dir(parent)); err != nil {
		return false, "", err
	}
	if err := privateDir(parent); err != nil {
		return false, "", err
	}
	tmp, err := os.MkdirTemp(parent, ".tmp-")
	if err != nil {
		return false, "", err
	}
	defer os.RemoveAll(tmp) // a no-op after the rename
	if err := l.write(tmp); err != nil {
		return false, "", fmt.Errorf("projection %s: %w", dir, err)
	}
	if err := writeSeal(tmp, l); err != nil {
		return false, "", fmt.Errorf("projection %s: %w", dir, err)
	}
	if rebuilt != "" {
		// Move the unsound one aside first: a rename cannot replace a folder that has files.
		stale, err := os.MkdirTemp(parent, ".tmp-stale-")
		if err != nil {
			return false, "", err
		}
		defer os.RemoveAll(stale)
		if err := os.Rename(dir, filepath.Join(stale, "old")); err != nil && !os.IsNotExist(err) {
			return false, "", err
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if reused, _ := wouldReuse(dir); reused {
			return true, "", nil // another launch made it first
		}
		return false, "", err
	}
	now := time.Now()
	prune(parent, dir, now)
	prune(filepath.Join(filepath.Dir(parent), "sums"), "", now) // remembered hashes (sumsFile): a launch touches its own
	return false, rebuilt, nil
}

// Projections not launched for pruneAge are removed when a new one is made: every
// change of an env or header value makes a new projection, and the old one's private
// files would otherwise keep the old values for ever. A launch touches the projection it
// reuses, so only sets nobody launched for a month go. Temporary folders of interrupted
// builds go after an hour.
const (
	pruneAge    = 30 * 24 * time.Hour
	pruneTmpAge = time.Hour
)

// prune removes the projections in parent (one backend's folder), or the files of
// remembered hashes (runtime/sums), older than pruneAge, never keep.
func prune(parent, keep string, now time.Time) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		p := filepath.Join(parent, e.Name())
		info, err := e.Info()
		if err != nil || p == keep || !e.IsDir() && !info.Mode().IsRegular() {
			continue
		}
		age := now.Sub(info.ModTime())
		if strings.HasPrefix(e.Name(), ".tmp-") && age > pruneTmpAge || !strings.HasPrefix(e.Name(), ".") && age > pruneAge {
			_ = os.RemoveAll(p)
			// The client's own home beside a projection (StateHome) goes with it.
			_ = os.RemoveAll(filepath.Join(parent+"-home", e.Name()))
		}
	}
}

func (l layout) write(root string) error {
	names := make([]string, 0, len(l.trees))
	for rel := range l.trees {
		names = append(names, rel)
	}
	sort.Strings(names)
	for _, rel := range names {
		if err := copyTree(l.trees[rel], filepath.Join(root, filepath.FromSlash(rel))); err != nil {
			if errors.Is(err, ctree.ErrChanged) {
				return &changedError{owner: l.owners[rel], err: err}
			}
			return err
		}
	}
	for rel, data := range l.files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// privateDir makes dir (mode 0700) or narrows an existing one to 0700.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return errors.New(dir + " is not a folder")
	}
	if st.Mode().Perm() != 0o700 {
		return os.Chmod(dir, 0o700)
	}
	return nil
}
