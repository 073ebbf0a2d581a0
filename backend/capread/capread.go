// Package capread reads files with a hard cap on size, so that no input can make the
// program allocate without bound. It refuses anything that is not a regular file (a FIFO
// would block, a device would never end). Safe for concurrent use.
package capread

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Caps used across the catalog. Real manifests are a few KiB; the caps leave room for
// large hand-written files while keeping a hostile one from costing memory.
const (
	ManifestMax = 1 << 20  // plugin.json, .claude-plugin/plugin.json, .cursor-plugin/plugin.json
	MCPMax      = 1 << 20  // mcp.json and Claude/Cursor MCP files
	SkillMax    = 1 << 20  // SKILL.md (frontmatter is capped separately by the skill package)
	SettingsMax = 4 << 20  // settings.json, agents, templates
	IndexMax    = 16 << 20 // Cursor's .cloud-plugin-manifest.json
)

// ErrTooLarge is returned when a file is larger than the cap.
var ErrTooLarge = errors.New("file too large")

// ErrNotRegular is returned for folders, FIFOs, devices and sockets.
var ErrNotRegular = errors.New("not a regular file")

// TooLargeError carries the cap that was exceeded.
type TooLargeError struct{ Max int64 }

func (e *TooLargeError) Error() string { return fmt.Sprintf("file is larger than %d bytes", e.Max) }
func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// ErrSymlink is returned by ReadNoFollow when the file is a symbolic link.
var ErrSymlink = errors.New("is a symbolic link")

// ReadNoFollow reads path like ReadFile but refuses to follow a symlink in its last
// component (ErrSymlink). For a file directly inside a folder already known to be inside
// a root, a read that succeeds is contained: the containment check costs nothing on the
// common path, and only a symlink needs resolving.
func ReadNoFollow(path string, max int64) ([]byte, error) {
	b, err := read(path, max, syscall.O_NOFOLLOW)
	if errors.Is(err, syscall.ELOOP) {
		return nil, ErrSymlink
	}
	return b, err
}

// ReadFile reads path (symlinks followed) when it is a regular file of at most max bytes.
// It costs four system calls (open, fstat, one read, close): the catalog reads tens of
// thousands of files, and each system call shows in its wall time.
func ReadFile(path string, max int64) ([]byte, error) {
	return read(path, max, 0)
}

func read(path string, max int64, flags int) ([]byte, error) {
	// Raw system calls rather than os.File: an os.File also tries to register every file
	// with the network poller (one failing epoll_ctl per file), and the catalog reads tens
	// of thousands of them. O_NONBLOCK: opening a FIFO must not wait for a writer; it is
	// refused below.
	var fd int
	err := retry(func() (err error) {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC|flags, 0)
		return err
	})
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := retry(func() error { return syscall.Fstat(fd, &st) }); err != nil {
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, ErrNotRegular
	}
	if st.Size > max {
		return nil, &TooLargeError{Max: max}
	}
	buf, err := ReadFD(fd, st.Size)
	if err != nil {
		return nil, &os.PathError{Op: "read", Path: path, Err: err}
	}
	return buf, nil
}

// ReadFD reads the open regular file fd, whose fstat gave size (the caller has checked
// it against its cap): what fstat promised and no more, so a file that grows meanwhile
// is cut at the size it had, which stays under the cap.
func ReadFD(fd int, size int64) ([]byte, error) {
	buf := make([]byte, size)
	n := 0
	for n < len(buf) {
		var m int
		err := retry(func() (err error) {
			m, err = syscall.Read(fd, buf[n:])
			return err
		})
		if err != nil {
			return nil, err
		}
		if m == 0 {
			break // the file shrank
		}
		n += m
	}
	return buf[:n], nil
}

// retry repeats a system call interrupted by a signal.
func retry(call func() error) error {
	for {
		if err := call(); err != syscall.EINTR {
			return err
		}
	}
}

// Describe turns a read error into the words an issue message uses, with the fix.
func Describe(err error) string {
	var tl *TooLargeError
	switch {
	case errors.As(err, &tl):
		return fmt.Sprintf("is larger than the %d-byte limit; shrink it", tl.Max)
	case errors.Is(err, ErrNotRegular):
		return "is not a regular file; replace it with a file"
	case errors.Is(err, os.ErrPermission):
		return "cannot be read (permission denied); make it readable by this user"
	case errors.Is(err, os.ErrNotExist):
		return "does not exist (a dangling symlink?); create it or remove the link"
	default:
		return fmt.Sprintf("cannot be read: %v", err)
	}
}
