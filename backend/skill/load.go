package skill

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/backend/pathsafe"
)

// FileName is the one file name that makes a folder a skill (case-sensitive).
const FileName = "SKILL.md"

// readProblem is why SKILL.md could not be read.
type readProblem struct {
	code, msg string
}

// Load reads dir/SKILL.md (dir is the skill folder; it may be a symlink) and validates it.
// A missing SKILL.md, one that is not a regular file, an unreadable or over-cap file,
// invalid UTF-8 and so on all give Valid=false with an issue; Load never panics and never
// returns an error.
func Load(dir string, opts Options) Skill {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = filepath.Clean(dir)
	}
	folder := filepath.Base(abs)
	data, p := opts.Data, (*readProblem)(nil)
	if opts.Path == "" || data == nil {
		// Only then is SKILL.md's path needed: the catalog gives both.
		file := filepath.Join(abs, FileName)
		if opts.Path == "" {
			opts.Path = file
		}
		if data == nil {
			data, p = readSkill(abs, file, opts.Root, opts.Resolved)
		}
	}
	if p != nil {
		s := Skill{Name: folder, Folder: folder, Dir: abs, Path: opts.Path}
		s.Issues.Errorf(p.code, opts.Path, "", "%s", p.msg)
		s.finish()
		return s
	}
	s := Parse(data, folder, abs, opts)
	if opts.Keep {
		s.Data = data
	}
	return s
}

// readSkill contains, finds and reads SKILL.md. Containment comes first, so nothing
// outside the plugin root is even opened. The happy path costs one Lstat per component
// below the root plus the read itself: the catalog does this ten thousand times.
func readSkill(dir, file, root string, resolved bool) ([]byte, *readProblem) {
	if root != "" && resolved && !caseInsensitiveFS {
		// dir is resolved and inside root: a SKILL.md that opens without following a
		// link is contained. Only a symlinked SKILL.md takes the long way below.
		data, err := capread.ReadNoFollow(file, capread.SkillMax)
		if !errors.Is(err, capread.ErrSymlink) && !errors.Is(err, os.ErrNotExist) {
			if err != nil {
				return nil, describe("SKILL.md", err)
			}
			return data, nil
		}
	}
	if root != "" {
		root = filepath.Clean(root)
		var got string
		var err error
		if resolved {
			got, err = pathsafe.ResolveUnder(root, dir, FileName)
		} else if rel, ok := below(root, file); ok {
			got, err = pathsafe.Resolve(root, rel)
		} else {
			got, err = pathsafe.ResolveAbs(file)
			if err == nil && !pathsafe.Within(root, got) {
				err = pathsafe.ErrEscapes
			}
		}
		switch {
		case errors.Is(err, syscall.ENOTDIR):
			// dir is a file: findExact says so.
		case errors.Is(err, pathsafe.ErrEscapes):
			return nil, &readProblem{CodeEscapesRoot, "SKILL.md resolves to " + got + ", outside the plugin folder " +
				root + "; the skill is skipped: move it inside the plugin or replace the symlink with a copy"}
		case err != nil:
			return nil, describe("SKILL.md", err)
		}
	}
	data, err := capread.ReadFile(file, capread.SkillMax)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		if p := findExact(dir); p != nil {
			return nil, p
		}
	}
	if err != nil {
		return nil, describe("SKILL.md", err)
	}
	if caseInsensitiveFS {
		// skill.md would have opened as SKILL.md: insist on the exact name.
		if p := findExact(dir); p != nil {
			return nil, p
		}
	}
	return data, nil
}

// caseInsensitiveFS is true where the usual file systems fold case.
var caseInsensitiveFS = runtime.GOOS == "darwin" || runtime.GOOS == "windows"

// below returns p relative to root when p is lexically inside root.
func below(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, filepath.Clean(p))
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// findExact checks that dir holds an entry named exactly SKILL.md (a case-insensitive
// file system would otherwise open skill.md), and names a near miss when there is one.
func findExact(dir string) *readProblem {
	// Stat first: opening a FIFO posing as the folder would block.
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return &readProblem{CodeMissing, "the skill folder " + dir + " does not exist (a dangling symlink?); create it or remove the link"}
	case err != nil:
		return describe("the skill folder", err)
	case !st.IsDir():
		return &readProblem{CodeMissing, "the skill folder " + dir + " is not a folder; a skill is a folder holding SKILL.md"}
	}
	f, err := os.Open(dir)
	if err != nil {
		return describe("the skill folder", err)
	}
	defer f.Close()
	nearMiss := ""
	for {
		names, err := f.Readdirnames(256)
		for _, n := range names {
			if n == FileName {
				return nil
			}
			if nearMiss == "" && strings.EqualFold(n, FileName) {
				nearMiss = n
			}
		}
		if err == io.EOF || (err == nil && len(names) == 0) {
			break
		}
		if err != nil {
			return describe("the skill folder", err)
		}
	}
	if nearMiss != "" {
		return &readProblem{CodeMissing, "the folder has " + nearMiss + " but no SKILL.md; rename it to SKILL.md (the name is case-sensitive)"}
	}
	return &readProblem{CodeMissing, "the folder has no SKILL.md; add one with name: and description: frontmatter"}
}

// describe maps a read error to an issue code and a message with the fix.
func describe(subject string, err error) *readProblem {
	var tl *capread.TooLargeError
	switch {
	case errors.Is(err, syscall.ELOOP), errors.Is(err, pathsafe.ErrLoop):
		return &readProblem{CodeSymlinkLoop, subject + " is a symlink loop (or a link in its path is); point the link at a real file or folder"}
	case errors.As(err, &tl):
		return &readProblem{CodeTooLarge, subject + " " + capread.Describe(err) + " (move long material into references/ files)"}
	case errors.Is(err, capread.ErrNotRegular):
		return &readProblem{CodeNotRegular, subject + " " + capread.Describe(err)}
	case errors.Is(err, os.ErrNotExist):
		return &readProblem{CodeMissing, subject + " " + capread.Describe(err)}
	}
	return &readProblem{CodeUnreadable, subject + " " + capread.Describe(err)}
}
