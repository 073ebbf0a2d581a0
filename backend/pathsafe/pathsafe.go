// Package pathsafe resolves package paths through symlinks and decides whether they stay
// inside a root (Agent Plugins §4.1, requirement F4). It only reads the filesystem
// (Lstat, Readlink) and is safe for concurrent use.
//
// A path whose tail does not exist yet is resolved as far as the filesystem goes and the
// rest is joined lexically: a missing "./bin/server" whose existing ancestors are inside
// the root is contained, as the specification asks only for containment. A ".." after a
// missing component is refused (ErrMissingParent): the system cannot resolve it either
// ("nope/.." fails where nope does not exist), and joining it lexically would let
// "./nope/../../outside" pass as contained.
package pathsafe

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// maxLinks bounds how many symlinks one resolution follows; more means a loop.
const maxLinks = 64

var (
	// ErrEscapes means the resolved path leaves the root.
	ErrEscapes = errors.New("resolves outside the root")
	// ErrLoop means too many symlinks were followed (a loop).
	ErrLoop = errors.New("too many levels of symbolic links")
	// ErrAbsolute means a relative path was expected.
	ErrAbsolute = errors.New("is absolute")
	// ErrMissingParent means a ".." follows a component that does not exist.
	ErrMissingParent = errors.New(`has ".." after a folder that does not exist`)
)

// Root returns the absolute, symlink-resolved form of dir.
func Root(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// Within reports whether p equals root or lies below it; both must be clean and absolute.
func Within(root, p string) bool {
	if p == root {
		return true
	}
	if root == string(filepath.Separator) {
		return strings.HasPrefix(p, root)
	}
	return strings.HasPrefix(p, root+string(filepath.Separator))
}

// Resolve resolves rel (slash-separated, relative to root, with or without a leading "./")
// through every symlink on the way and returns the resolved absolute path. root must be
// the output of Root. It fails with ErrEscapes when the result leaves root and ErrLoop on
// a symlink loop.
func Resolve(root, rel string) (string, error) {
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") {
		return "", ErrAbsolute
	}
	got, err := resolveFrom(root, filepath.FromSlash(rel))
	if err != nil {
		return "", err
	}
	if !Within(root, got) {
		return got, ErrEscapes
	}
	return got, nil
}

// ResolveUnder resolves rel starting from base, a folder already resolved and inside root
// (for example a skills folder whose containment was checked), so that only the
// components of rel are looked up. The result must still lie inside root.
func ResolveUnder(root, base, rel string) (string, error) {
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") {
		return "", ErrAbsolute
	}
	if !Within(root, base) {
		return base, ErrEscapes
	}
	got, err := resolveFrom(base, filepath.FromSlash(rel))
	if err != nil {
		return "", err
	}
	if !Within(root, got) {
		return got, ErrEscapes
	}
	return got, nil
}

// ResolveAbs resolves an absolute path the same way, with no containment check.
func ResolveAbs(p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%q: want an absolute path", p)
	}
	return resolveFrom(string(filepath.Separator), p)
}

// resolveFrom walks the components of rel starting at the resolved folder base.
func resolveFrom(base, rel string) (string, error) {
	cur := base
	pending := splitComponents(rel)
	links := 0
	for len(pending) > 0 {
		c := pending[0]
		pending = pending[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		st, err := os.Lstat(next)
		if errors.Is(err, os.ErrNotExist) {
			// The rest does not exist: join it lexically, unless it climbs back up
			// through a folder that is not there.
			if slices.Contains(pending, "..") {
				return "", ErrMissingParent
			}
			return filepath.Clean(filepath.Join(append([]string{next}, pending...)...)), nil
		}
		if err != nil {
			return "", err
		}
		if st.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		links++
		if links > maxLinks {
			return "", ErrLoop
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			cur = string(filepath.Separator)
		}
		pending = append(splitComponents(target), pending...)
	}
	return cur, nil
}

func splitComponents(p string) []string {
	return strings.Split(filepath.ToSlash(p), "/")
}

// Rel returns p relative to root in slash form, for messages ("skills/a/SKILL.md").
func Rel(root, p string) string {
	r, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

// Reason words a Resolve or ResolveUnder failure without any path, for a message that
// must not show one: the error of a failed Lstat or Readlink names the absolute path,
// which holds the relative path as written (a command or cwd, which may hold a token).
func Reason(err error) string {
	var pe *fs.PathError
	switch {
	case errors.Is(err, ErrEscapes):
		return "it leads outside the folder"
	case errors.Is(err, ErrLoop):
		return "a symlink loop"
	case errors.Is(err, ErrAbsolute):
		return "an absolute path"
	case errors.Is(err, ErrMissingParent):
		return "\"..\" after a folder that does not exist"
	case errors.As(err, &pe):
		return pe.Err.Error()
	}
	return "it cannot be looked up"
}
