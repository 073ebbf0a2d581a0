package ctree

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path"
	"slices"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/plugboard/plugboard/backend/pathsafe"
)

// Kinds of *Error: which rule of a contained tree an entry breaks.
const (
	KindOutside    = "outside"    // a symbolic link that leaves the root (or is absolute)
	KindSpecial    = "special"    // a FIFO, socket or device
	KindLoop       = "loop"       // a symbolic link back to a folder it is inside
	KindDangling   = "dangling"   // a symbolic link to nothing
	KindUnreadable = "unreadable" // a file or folder that cannot be opened or read
	KindTooLarge   = "too-large"  // more files or bytes than Options allow
)

// Error is an entry of the tree that breaks a rule; Rel is slash-separated from the walked
// folder ("" for the folder itself). Its text names the entry and the fix.
type Error struct {
	Kind string
	Rel  string
	msg  string
}

func (e *Error) Error() string { return e.msg }

// ErrChanged says the tree changed while it was walked or copied: a folder became a link,
// a file's content differs from its hash. Nothing outside the root was read; walk again.
var ErrChanged = errors.New("changed while it was being read; try again")

// Options bound and shape a walk.
type Options struct {
	MaxFiles int   // 0: no limit
	MaxBytes int64 // 0: no limit
	// Skip leaves an entry (and what is below it) out; rel is slash-separated from the
	// walked folder.
	Skip func(rel string) bool
	// Leave lists the kinds of *Error whose entry is left out of the tree (recorded in
	// Tree.Skipped with the reason) instead of failing the walk. KindTooLarge always fails.
	Leave []string
	// NoHash opens every file (an unreadable one is found) without reading it.
	NoHash bool
}

// File is one regular file of a tree.
type File struct {
	Rel  string      // slash-separated, from the walked folder
	Mode fs.FileMode // permission bits
	Size int64
	Sum  string // hex sha256 of the content; "" with Options.NoHash
	// CTime is the inode's status-change time (ns): any write, chmod or touch moves it,
	// and no user call can set it back, so an equal CTime with an equal size says the
	// file was left alone.
	CTime int64
	from  string // its link-free path beneath the root
}

// Tree is a walked folder: its folders and files in path order and one hash over them.
type Tree struct {
	Dirs    []string // slash-separated, parents first
	Files   []File
	Skipped []*Error // entries left out by Options.Leave, with the reason
	// Sum hashes every file's path, execute bit and content hash ("" with NoHash).
	Sum  string
	root string
}

// Walk lists, and unless o.NoHash hashes, the folder dir inside root: root must be
// filesystem-resolved (pathsafe.Root), dir absolute; dir may reach its folder through
// links inside root.
func Walk(root, dir string, o Options) (*Tree, error) {
	resolved, err := pathsafe.ResolveAbs(dir)
	if err != nil {
		return nil, err
	}
	if !pathsafe.Within(root, resolved) {
		return nil, &Error{Kind: KindOutside, msg: "the folder resolves outside the plugin folder"}
	}
	rootfd, err := openRoot(root)
	if err != nil {
		return nil, err
	}
	defer unix.Close(rootfd)
	from := pathsafe.Rel(root, resolved)
	fd, err := openPath(rootfd, root, from, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, openError("", "the folder", err)
	}
	w := &walker{o: o, root: root, rootfd: rootfd, t: &Tree{root: root}, buf: make([]byte, 32<<10), h: sha256.New()}
	if err := w.dir(fd, from, ""); err != nil {
		return nil, err
	}
	sort.Slice(w.t.Files, func(a, b int) bool { return w.t.Files[a].Rel < w.t.Files[b].Rel })
	if !o.NoHash {
		w.t.Sum = sumOf(w.t.Files)
	}
	return w.t, nil
}

func sumOf(files []File) string {
	h := sha256.New()
	for _, f := range files {
		mode := "-"
		if f.Mode&0o111 != 0 {
			mode = "x"
		}
		fmt.Fprintf(h, "%s\x00%s\x00%s\n", f.Rel, mode, f.Sum)
	}
	return hex.EncodeToString(h.Sum(nil))
}

type devIno struct{ dev, ino uint64 }

type walker struct {
	o      Options
	root   string
	rootfd int
	t      *Tree
	bytes  int64
	stack  []devIno // folders on the current path, against link loops
	buf    []byte
	h      hash.Hash
}

// dir walks the open folder fd (taken over: closed here) found at from beneath the root.
func (w *walker) dir(fd int, from, rel string) error {
	f := os.NewFile(uintptr(fd), from)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	id := devIno{uint64(st.Dev), st.Ino}
	if slices.Contains(w.stack, id) {
		w.t.Dirs = slices.DeleteFunc(w.t.Dirs, func(d string) bool { return d == rel })
		return w.refuse(&Error{Kind: KindLoop, Rel: rel, msg: fmt.Sprintf("%s is a symbolic link to a folder it is inside (a loop); remove the link", show(rel))})
	}
	w.stack = append(w.stack, id)
	defer func() { w.stack = w.stack[:len(w.stack)-1] }()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return w.openFailed(rel, err)
	}
	sort.Strings(names)
	for _, name := range names {
		childRel := join(rel, name)
		if w.o.Skip != nil && w.o.Skip(childRel) {
			continue
		}
		if err := w.entry(fd, name, join(from, name), childRel); err != nil {
			return err
		}
	}
	return nil
}

// entry handles one name of the folder dirfd: a folder or file is opened with no link
// followed; a link is followed by the kernel from the root, never out of it.
func (w *walker) entry(dirfd int, name, from, rel string) error {
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fmt.Errorf("%s: %w", rel, ErrChanged)
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		fd, err := openName(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY)
		if err != nil {
			return w.openFailed(rel, err)
		}
		w.t.Dirs = append(w.t.Dirs, rel)
		return w.dir(fd, from, rel)
	case unix.S_IFREG:
		fd, err := openName(dirfd, name, unix.O_RDONLY|unix.O_NONBLOCK)
		if err != nil {
			return w.openFailed(rel, err)
		}
		return w.file(fd, from, rel)
	case unix.S_IFLNK:
		return w.link(from, rel)
	}
	return w.special(rel, st.Mode)
}

func (w *walker) special(rel string, mode uint32) error {
	return w.refuse(&Error{Kind: KindSpecial, Rel: rel, msg: fmt.Sprintf("%s is not a regular file or folder (%s); remove it", rel, typeName(mode))})
}

// refuse fails the walk with e, or leaves its entry out when Options.Leave says so.
func (w *walker) refuse(e *Error) error {
	if e.Rel != "" && slices.Contains(w.o.Leave, e.Kind) {
		w.t.Skipped = append(w.t.Skipped, e)
		return nil
	}
	return e
}

// link follows the symbolic link at from (beneath the root) with the kernel's
// RESOLVE_BENEATH, so that it can lead anywhere inside the root and nowhere else.
func (w *walker) link(from, rel string) error {
	fd, err := openFollow(w.rootfd, w.root, from, unix.O_RDONLY|unix.O_NONBLOCK)
	switch {
	case errors.Is(err, unix.EXDEV):
		return w.refuse(&Error{Kind: KindOutside, Rel: rel, msg: fmt.Sprintf("%s is a symbolic link that leaves the plugin folder (or is absolute); replace it with the file itself or a relative link inside the plugin", rel)})
	case errors.Is(err, unix.ENOENT):
		return w.refuse(&Error{Kind: KindDangling, Rel: rel, msg: fmt.Sprintf("%s is a symbolic link to nothing; remove it or restore what it points to", rel)})
	case errors.Is(err, unix.ELOOP):
		return w.refuse(&Error{Kind: KindLoop, Rel: rel, msg: fmt.Sprintf("%s is a symbolic link loop; remove the link", rel)})
	case err != nil:
		return w.openFailed(rel, err)
	}
	real, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
	if err != nil || !pathsafe.Within(w.root, real) {
		unix.Close(fd)
		return fmt.Errorf("%s: %w", rel, ErrChanged)
	}
	realFrom := pathsafe.Rel(w.root, real)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return err
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		w.t.Dirs = append(w.t.Dirs, rel)
		return w.dir(fd, realFrom, rel)
	case unix.S_IFREG:
		return w.file(fd, realFrom, rel)
	}
	unix.Close(fd)
	return w.special(rel, st.Mode)
}

// file records the open regular file fd (closed here), hashing it unless NoHash.
func (w *walker) file(fd int, from, rel string) error {
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return fmt.Errorf("%s: %w", rel, ErrChanged)
	}
	w.bytes += st.Size
	if w.o.MaxFiles > 0 && len(w.t.Files) >= w.o.MaxFiles || w.o.MaxBytes > 0 && w.bytes > w.o.MaxBytes {
		return &Error{Kind: KindTooLarge, msg: fmt.Sprintf("the folder holds more than %d files or %d MiB; move large data out of it", w.o.MaxFiles, w.o.MaxBytes>>20)}
	}
	f := File{Rel: rel, Mode: fs.FileMode(st.Mode & 0o777), Size: st.Size, CTime: st.Ctim.Nano(), from: from}
	if !w.o.NoHash {
		sum, n, err := hashFD(fd, w.h, w.buf)
		if err != nil {
			return w.openFailed(rel, err)
		}
		if n != st.Size {
			return fmt.Errorf("%s: %w", rel, ErrChanged)
		}
		f.Sum = sum
	}
	w.t.Files = append(w.t.Files, f)
	return nil
}

func hashFD(fd int, h hash.Hash, buf []byte) (string, int64, error) {
	h.Reset()
	var n int64
	for {
		m, err := unix.Read(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return "", n, err
		}
		if m == 0 {
			return hex.EncodeToString(h.Sum(nil)), n, nil
		}
		h.Write(buf[:m])
		n += int64(m)
	}
}

// openFailed is openError for an entry of the walk, left out when Options.Leave says so.
func (w *walker) openFailed(rel string, err error) error {
	e := openError(rel, show(rel), err)
	if ce, ok := e.(*Error); ok {
		return w.refuse(ce)
	}
	return e
}

// openError names what cannot be opened and why; a link met where the walk saw none is
// a change under the walk.
func openError(rel, what string, err error) error {
	switch {
	case errors.Is(err, unix.ELOOP), errors.Is(err, unix.ENOTDIR), errors.Is(err, unix.ENOENT), errors.Is(err, unix.EXDEV), errors.Is(err, unix.EAGAIN):
		return fmt.Errorf("%s: %w", what, ErrChanged)
	case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
		return &Error{Kind: KindUnreadable, Rel: rel, msg: fmt.Sprintf("%s cannot be read (permission denied); make it readable or remove it", what)}
	}
	return &Error{Kind: KindUnreadable, Rel: rel, msg: fmt.Sprintf("%s cannot be read: %v", what, err)}
}

func join(a, b string) string {
	if a == "" || a == "." {
		return b
	}
	return a + "/" + b
}

func show(rel string) string {
	if rel == "" {
		return "the folder"
	}
	return rel
}

func typeName(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFIFO:
		return "a named pipe"
	case unix.S_IFSOCK:
		return "a socket"
	case unix.S_IFCHR, unix.S_IFBLK:
		return "a device"
	}
	return "not a file"
}

// clean reports whether from is a relative path with no empty, "." (other than the
// whole path) or ".." component: the only paths the opens below take.
func clean(from string) bool {
	if from == "." {
		return true
	}
	if from == "" || strings.HasPrefix(from, "/") {
		return false
	}
	for _, c := range strings.Split(from, "/") {
		if c == "" || c == "." || c == ".." {
			return false
		}
	}
	return path.Clean(from) == from
}
