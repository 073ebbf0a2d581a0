package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// makeStateDir makes the state folder with mode 0700 and reports whether it was
// missing (the first run).
func makeStateDir(dir string) (firstRun bool, err error) {
	_, err = os.Stat(dir)
	firstRun = errors.Is(err, fs.ErrNotExist)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, fmt.Errorf("create the state folder: %w", err)
	}
	// Best effort: a folder made by an older build or by hand may be wider.
	_ = os.Chmod(dir, 0o700)
	return firstRun, nil
}

// prepareFile makes the database file when there is none. A database missing from
// an existing state folder is worth a warning; one missing on the first run is not.
// Journal files left without their database are set aside first.
func prepareFile(ctx context.Context, path string, firstRun bool) ([]string, error) {
	if _, err := os.Lstat(path); err == nil {
		_ = os.Chmod(path, 0o600) // best effort, as for the folder
		return nil, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var warnings []string
	if found := existing(path); len(found) > 0 {
		aside, err := setAside(path)
		if err != nil {
			return nil, fmt.Errorf("the database %s is missing and its leftover journal files could not be moved aside: %w", path, err)
		}
		warnings = append(warnings, fmt.Sprintf("the Plugboard database %s was missing but its journal files (%s) were still there. "+
			"They were moved aside to %s-… and a new, empty database was created.", path, strings.Join(found, ", "), aside))
		firstRun = true // the warning above says it all
	}
	created, err := createDatabase(ctx, path)
	if err != nil {
		return warnings, err
	}
	if created && !firstRun {
		warnings = append(warnings, fmt.Sprintf("the Plugboard database %s was missing; a new, empty one was created. "+
			"Your agents and templates are unchanged; the assignment history and catalog snapshots start over.", path))
	}
	return warnings, nil
}

// existing lists the names of path's sidecar files that exist.
func existing(path string) []string {
	var found []string
	for _, suffix := range sidecars {
		if _, err := os.Lstat(path + suffix); err == nil {
			found = append(found, dbName+suffix)
		}
	}
	return found
}

// createDatabase builds a new database, in WAL mode and migrated, in a temporary file
// (mode 0600) beside path and links it into place, so that no other connection ever
// sees a half-made file. SQLite does not cope well with several connections turning
// the same empty file into a WAL database at once: some fail at once with "database
// is locked" or a disk I/O error instead of waiting. It reports false when path
// exists already, because another process made it a moment ago.
func createDatabase(ctx context.Context, path string) (created bool, err error) {
	f, err := os.CreateTemp(filepath.Dir(path), dbName+".new-*")
	if err != nil {
		return false, fmt.Errorf("create the database file: %w", err)
	}
	tmp := f.Name()
	defer func() {
		for _, suffix := range moveOrder {
			os.Remove(tmp + suffix)
		}
	}()
	if err := f.Close(); err != nil {
		return false, fmt.Errorf("create the database file: %w", err)
	}
	db, err := openChecked(ctx, tmp, nil)
	if err != nil {
		return false, fmt.Errorf("create the database file: %w", err)
	}
	// Closing the last connection checkpoints the WAL into the file.
	if err := db.Close(); err != nil {
		return false, fmt.Errorf("create the database file: %w", err)
	}
	err = os.Link(tmp, path)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		// A file system without hard links: rename, which replaces rather than
		// refuses, so look first (a race lost here replaces a file just as new).
		if _, serr := os.Lstat(path); serr == nil {
			return false, nil
		}
		if err := os.Rename(tmp, path); err != nil {
			return false, fmt.Errorf("create the database file: %w", err)
		}
	}
	return true, nil
}
