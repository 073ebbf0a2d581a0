package jsonfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// ErrNotPrivate marks a file ReadPrivate refused for its kind, mode or size (as opposed
// to one that could not be read at all).
var ErrNotPrivate = errors.New("refused")

// PrivateError is a file ReadPrivate refused; Reason says why and what to do.
type PrivateError struct{ Reason string }

func (e *PrivateError) Error() string { return ErrNotPrivate.Error() + ": " + e.Reason }
func (e *PrivateError) Unwrap() error { return ErrNotPrivate }

// Private describes a private file for ReadPrivate.
type Private struct {
	Max   int64  // the most bytes it may have
	Holds string // what it holds that other users must not see: "header values"
	Fix   string // what to do about a file of the wrong kind or size: "point --config at the file the launcher wrote"
}

// ReadPrivate reads the private file at path: one a launcher wrote, mode 0600, for one
// process to read, holding values no other user may see. It refuses (a *PrivateError) a
// file that is not a regular file (a symlink included), that group or others may read or
// write, that is larger than p.Max, or that changed between the check and the open; the
// reason names the fix (chmod 600 PATH for the mode). The mode is checked as bits, so
// the check holds for root too. Errors do not repeat path, except in the chmod they
// suggest: the caller names the file.
func ReadPrivate(path string, p Private) ([]byte, error) {
	refuse := func(format string, a ...any) ([]byte, error) {
		return nil, &PrivateError{Reason: fmt.Sprintf(format, a...)}
	}
	lst, err := os.Lstat(path)
	if err != nil {
		return nil, bare(err)
	}
	if why := privateProblem(lst, path, p); why != "" {
		return refuse("%s", why)
	}
	// O_NOFOLLOW and O_NONBLOCK: a name swapped for a link or a FIFO after the Lstat
	// neither leads elsewhere nor blocks the open.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, bare(err)
	}
	defer f.Close()
	// The checks above were made on the name; make sure they hold for what was opened.
	st, err := f.Stat()
	if err != nil || !os.SameFile(lst, st) || privateProblem(st, path, p) != "" {
		return refuse("the file changed while it was being opened; try again")
	}
	data, err := io.ReadAll(io.LimitReader(f, p.Max+1))
	if err != nil {
		return nil, bare(err)
	}
	if int64(len(data)) > p.Max {
		return refuse("larger than the %d bytes it may have; %s", p.Max, p.Fix)
	}
	return data, nil
}

func privateProblem(fi os.FileInfo, path string, p Private) string {
	switch mode := fi.Mode(); {
	case !mode.IsRegular():
		return fmt.Sprintf("not a regular file (%s); %s", kindOf(mode), p.Fix)
	case mode.Perm()&0o077 != 0:
		return fmt.Sprintf("mode %04o lets other users read or write it, and it holds %s; run chmod 600 %s", mode.Perm(), p.Holds, path)
	case fi.Size() > p.Max:
		return fmt.Sprintf("%d bytes, more than the %d it may have; %s", fi.Size(), p.Max, p.Fix)
	}
	return ""
}

// bare drops the *os.PathError wrapper, whose text repeats the path.
func bare(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func kindOf(m os.FileMode) string {
	switch {
	case m&os.ModeSymlink != 0:
		return "a symlink"
	case m.IsDir():
		return "a folder"
	}
	return "a special file"
}
