package install

import (
	"context"
	"fmt"
	"io"
	"sort"
)

// LockedOptions say which lockfile to replay into which home.
type LockedOptions struct {
	Home          string
	PlugboardHome string
	Lockfile      string // the file to replay (another home's plugins.lock.json)
	Force         bool   // replace an installed plugin whose content differs
	Progress      io.Writer
	Git           string
}

// InstallLocked installs every plugin of a lockfile exactly as it records it: the same
// source, commit and path, under the same id, refused with ErrTampered when the fetched
// archive or content hash differs. A plugin already installed with the locked content
// is left (Result.Unchanged). A package with errors goes in as it did when it was locked
// (perhaps with --force): its hash says it is that package. Plugins are installed in id order and the first failure
// stops the replay; the results of those installed before it are returned with it.
func InstallLocked(ctx context.Context, o LockedOptions) ([]Result, error) {
	lf, err := ReadLockfile(o.Lockfile)
	if err != nil {
		return nil, err
	}
	if len(lf.Plugins) == 0 {
		return nil, fmt.Errorf("%s lists no plugins; give the plugins.lock.json of a home that has some", o.Lockfile)
	}
	ids := make([]string, 0, len(lf.Plugins))
	for id := range lf.Plugins {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []Result
	for _, id := range ids {
		e := lf.Plugins[id]
		ref := e.Ref
		if e.Kind == KindGit && e.Commit == "" {
			return out, fmt.Errorf("%s: %s has no commit, so it cannot be installed exactly; install it again to record one", o.Lockfile, id)
		}
		r, err := Install(ctx, Options{Home: o.Home, PlugboardHome: o.PlugboardHome, Source: e.Source, Ref: ref,
			Path: e.Path, Name: id, Force: o.Force, Progress: o.Progress, Git: o.Git, expect: &e})
		if err != nil {
			return out, fmt.Errorf("%s (from %s): %w", id, o.Lockfile, err)
		}
		out = append(out, r)
	}
	return out, nil
}
