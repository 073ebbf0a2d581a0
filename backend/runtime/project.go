package runtime

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// layout is what a projection holds, relative to its folder.
type layout struct {
	files map[string][]byte // written with mode 0600
	trees map[string]tree   // skill folders to copy
	how   map[string]string // plugin id → PlanPlugin.How
}

func newLayout() layout {
	return layout{files: map[string][]byte{}, trees: map[string]tree{}, how: map[string]string{}}
}

// backends make the layout of a projection and fill the plan's argv, skills and servers.
var backends = map[string]func(plan *Plan, units []unit, req Request) layout{
	Claude: claudeLayout,
	PI:     piLayout,
}

// materialise makes dir hold l unless it exists already: a projection is named after its
// fingerprint, so an existing one has the same content and is reused as it is (R6:
// nothing copied). A new one is built in a temporary sibling and renamed into place, so a
// projection is either whole or absent, and two launches racing to make the same one
// both end with it. The runtime folder and everything in it is private (0700/0600).
func materialise(dir string, l layout) (reused bool, err error) {
	if _, err := os.Lstat(dir); err == nil {
		now := time.Now()
		_ = os.Chtimes(dir, now, now) // in use: prune keeps it
		return true, nil
	}
	parent := filepath.Dir(dir)
	if err := privateDir(filepath.Dir(parent)); err != nil {
		return false, err
	}
	if err := privateDir(parent); err != nil {
		return false, err
	}
	tmp, err := os.MkdirTemp(parent, ".tmp-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(tmp) // a no-op after the rename
	if err := l.write(tmp); err != nil {
		return false, fmt.Errorf("projection %s: %w", dir, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Lstat(dir); serr == nil {
			return true, nil // another launch made it first
		}
		return false, err
	}
	prune(parent, dir, time.Now())
	return false, nil
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

// prune removes the projections in parent (one backend's folder) older than pruneAge,
// never keep.
func prune(parent, keep string, now time.Time) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		p := filepath.Join(parent, e.Name())
		info, err := e.Info()
		if err != nil || p == keep || !e.IsDir() {
			continue
		}
		age := now.Sub(info.ModTime())
		if strings.HasPrefix(e.Name(), ".tmp-") && age > pruneTmpAge || !strings.HasPrefix(e.Name(), ".") && age > pruneAge {
			_ = os.RemoveAll(p)
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
