package ctree

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/plugboard/plugboard/backend/capread"
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
	// MaxEntries bounds the entries the walk meets (folders, files, links, entries left
	// out), each counted again whenever a link leads back into folders already listed:
	// a few folders linked to one another hold exponentially many paths, none of them a
	// loop. 0: EntriesPerFile × MaxFiles when MaxFiles is set, else no limit.
	MaxEntries int
	// Skip leaves an entry (and what is below it) out; rel is slash-separated from the
	// walked folder.
	Skip func(rel string) bool
	// Leave lists the kinds of *Error whose entry is left out of the tree (recorded in
	// Tree.Skipped with the reason) instead of failing the walk. KindTooLarge always fails.
	Leave []string
	// NoHash opens every file (an unreadable one is found) without reading it.
	NoHash bool
	// Keep names a file directly in the walked folder that the walk reads into Tree.Kept,
	// when it is a regular file reached without a link, of at most KeepMax bytes: a caller
	// that needs the listing and that one file (the catalog: a skill folder's check and
	// its SKILL.md) opens it once. Otherwise Kept stays nil and the entry is walked as
	// any other.
	Keep    string
	KeepMax int64
	// List records every folder's listing in Tree.Listings: a caller that also reads the
	// folders (the catalog's client models) then lists none of them again.
	List bool
	// Sums, when set, gives the hash of a file whose inode facts it remembers without
	// reading the file, and remembers the hashes the walk takes (see Sums).
	Sums *Sums
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
	Sum string
	// Kept is the content of Options.Keep, when it was read.
	Kept []byte
	// Listings (Options.List) are the walked folders' entries, each folder's by its Rel
	// ("" for the walked folder), sorted by name, each with its own type (a link is a
	// link), as os.ReadDir of that path gives them; a folder reached through a link is
	// listed under the path through the link. A slice, not a map: a skill folder has one
	// listing, and a map for each was 3 MB of a scan of 10,000 skills.
	Listings []Listing
	root     string
}

// Listing is one walked folder's entries.
type Listing struct {
	Rel     string
	Entries []fs.DirEntry
}

// Walk lists, and unless o.NoHash hashes, the folder dir inside root: root must be
// filesystem-resolved (pathsafe.Root), dir absolute; dir may reach its folder through
// links inside root.
func Walk(root, dir string, o Options) (*Tree, error) {
	r, err := OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.Walk(dir, o)
}

// Root is an opened package root, for walking several of its folders (a plugin's skills)
// with one open. Not safe for concurrent use.
type Root struct {
	path string
	fd   int
}

// OpenRoot opens the filesystem-resolved root for walks; Close releases it.
func OpenRoot(root string) (*Root, error) {
	fd, err := openRoot(root)
	if err != nil {
		return nil, err
	}
	return &Root{path: root, fd: fd}, nil
}

// Close releases the root.
func (r *Root) Close() error { return unix.Close(r.fd) }

// Walk is the package's Walk of dir inside this root.
func (r *Root) Walk(dir string, o Options) (*Tree, error) {
	fd, from, err := openTop(r.fd, r.path, dir)
	if err != nil {
		return nil, err
	}
	if o.MaxEntries == 0 && o.MaxFiles > 0 {
		o.MaxEntries = EntriesPerFile * o.MaxFiles
	}
	w := &walker{o: o, root: r.path, rootfd: r.fd, t: &Tree{root: r.path}}
	if !o.NoHash {
		w.buf, w.h = make([]byte, 32<<10), sha256.New()
	}
	if err := w.dir(fd, from, "", false); err != nil {
		return nil, err
	}
	slices.SortFunc(w.t.Files, func(a, b File) int { return strings.Compare(a.Rel, b.Rel) })
	if !o.NoHash {
		w.t.Sum = sumOf(w.t.Files)
	}
	return w.t, nil
}

// openTop opens the walked folder dir beneath the root. A dir lexically inside the root
// with no link on the way (the catalog's common case) opens in one call; otherwise it is
// resolved first, and must resolve inside the root.
func openTop(rootfd int, root, dir string) (fd int, from string, err error) {
	rel, ok := "", dir == root
	if ok {
		rel = "."
	} else if len(dir) > len(root) && dir[len(root)] == '/' && strings.HasPrefix(dir, root) {
		rel = dir[len(root)+1:]
		ok = clean(rel)
	}
	if ok {
		if fd, err = openPath(rootfd, root, rel, unix.O_RDONLY|unix.O_DIRECTORY); err == nil {
			return fd, rel, nil
		}
	}
	resolved, err := pathsafe.ResolveAbs(dir)
	if err != nil {
		return -1, "", err
	}
	if !pathsafe.Within(root, resolved) {
		return -1, "", &Error{Kind: KindOutside, msg: "the folder resolves outside the plugin folder"}
	}
	from = pathsafe.Rel(root, resolved)
	if fd, err = openPath(rootfd, root, from, unix.O_RDONLY|unix.O_DIRECTORY); err != nil {
		return -1, "", openError("", "the folder", err)
	}
	return fd, from, nil
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

// EntriesPerFile is MaxEntries over MaxFiles when MaxEntries is not given: room for the
// folders and links of a tree at its file limit.
const EntriesPerFile = 4

type devIno struct{ dev, ino uint64 }

// frame is a folder on the walk's current path; its identity is read only when a link is
// followed, the one way a walk can come back to a folder it is inside.
type frame struct {
	fd    int
	id    devIno
	known bool
}

type walker struct {
	o      Options
	root   string
	rootfd int
	t      *Tree
	bytes  int64
	seen   int     // entries met (Options.MaxEntries)
	stack  []frame // folders on the current path, against link loops
	buf    []byte  // file reads (hashing)
	dbuf   []byte  // folder listings
	h      hash.Hash
}

// dir walks the open folder fd (taken over: closed here) found at from beneath the root;
// linked says a link was followed to reach it.
func (w *walker) dir(fd int, from, rel string, linked bool) error {
	defer unix.Close(fd)
	if linked {
		id, err := fdID(fd)
		if err != nil {
			return err
		}
		for i := range w.stack {
			f := &w.stack[i]
			if !f.known {
				if f.id, err = fdID(f.fd); err != nil {
					return err
				}
				f.known = true
			}
			if f.id == id {
				w.t.Dirs = slices.DeleteFunc(w.t.Dirs, func(d string) bool { return d == rel })
				return w.refuse(&Error{Kind: KindLoop, Rel: rel, msg: fmt.Sprintf("%s is a symbolic link to a folder it is inside (a loop); remove the link", show(rel))})
			}
		}
	}
	w.stack = append(w.stack, frame{fd: fd})
	defer func() { w.stack = w.stack[:len(w.stack)-1] }()
	names, err := w.names(fd)
	if err != nil {
		return w.openFailed(rel, err)
	}
	sort.Strings(names)
	var listing []fs.DirEntry
	var entries []dirEntry // the listing's entries, in one allocation for the folder
	if w.o.List {
		listing, entries = make([]fs.DirEntry, 0, len(names)), make([]dirEntry, 0, len(names))
		defer func() { w.t.Listings = append(w.t.Listings, Listing{Rel: rel, Entries: listing}) }()
	}
	for _, name := range names {
		childRel := join(rel, name)
		if w.o.Skip != nil && w.o.Skip(childRel) {
			continue
		}
		if w.seen++; w.o.MaxEntries > 0 && w.seen > w.o.MaxEntries {
			return &Error{Kind: KindTooLarge, Rel: childRel, msg: fmt.Sprintf("the folder holds more than %d entries counted through its symbolic links (at %s); "+
				"links between its folders reach the same files by many paths: replace them with the folders themselves, or move data out of it", w.o.MaxEntries, childRel)}
		}
		typ, err := w.entry(fd, name, join(from, name), childRel)
		if err != nil {
			return err
		}
		if w.o.List {
			entries = append(entries, dirEntry{name: name, typ: typ, root: w.root, from: from}) // never grown: its capacity is every name
			listing = append(listing, &entries[len(entries)-1])
		}
	}
	return nil
}

// dirEntry is one entry of a Tree listing.
type dirEntry struct {
	name       string
	typ        fs.FileMode
	root, from string // the folder's path is root/from, for Info (joined only if asked)
}

func (e dirEntry) Name() string               { return e.name }
func (e dirEntry) IsDir() bool                { return e.typ.IsDir() }
func (e dirEntry) Type() fs.FileMode          { return e.typ }
func (e dirEntry) Info() (fs.FileInfo, error) { return os.Lstat(e.root + "/" + e.from + "/" + e.name) }

// typeOf is the fs type bits of a stat mode.
func typeOf(mode uint32) fs.FileMode {
	switch mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFREG:
		return 0
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	}
	return fs.ModeIrregular
}

func fdID(fd int) (devIno, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return devIno{}, err
	}
	return devIno{uint64(st.Dev), st.Ino}, nil
}

// direntBufs holds the listing buffers of walks: the catalog walks ten thousand skill
// folders, and a buffer each would be garbage to collect.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 8<<10); return &b }}

// names lists the open folder fd with raw getdents, "." and ".." left out.
func (w *walker) names(fd int) ([]string, error) {
	if w.dbuf == nil {
		b := direntBufs.Get().(*[]byte)
		defer direntBufs.Put(b)
		w.dbuf = *b
		defer func() { w.dbuf = nil }()
	}
	var names []string
	for {
		n, err := unix.ReadDirent(fd, w.dbuf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return names, nil
		}
		_, _, names = unix.ParseDirent(w.dbuf[:n], -1, names)
	}
}

// entry handles one name of the folder dirfd: a folder or file is opened with no link
// followed; a link is followed by the kernel from the root, never out of it. It returns
// the entry's own type.
func (w *walker) entry(dirfd int, name, from, rel string) (fs.FileMode, error) {
	if w.o.Keep != "" && rel == w.o.Keep {
		if done, err := w.keep(dirfd, name, from, rel); done {
			return 0, err // a regular file
		}
	}
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return 0, fmt.Errorf("%s: %w", rel, ErrChanged)
	}
	return typeOf(st.Mode), w.stated(dirfd, name, from, rel, &st)
}

// stated handles the entry name of dirfd, of stat st.
func (w *walker) stated(dirfd int, name, from, rel string, st *unix.Stat_t) error {
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		fd, err := openName(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY)
		if err != nil {
			return w.openFailed(rel, err)
		}
		w.t.Dirs = append(w.t.Dirs, rel)
		return w.dir(fd, from, rel, false)
	case unix.S_IFREG:
		if w.o.NoHash {
			// Nothing is read: whether it could be is one access check, and the stat
			// above has the rest.
			if err := unix.Faccessat(dirfd, name, unix.R_OK, unix.AT_EACCESS|unix.AT_SYMLINK_NOFOLLOW); err != nil {
				return w.openFailed(rel, err)
			}
			return w.add(st, from, rel)
		}
		if done, err := w.remembered(st, from, rel); done {
			return err
		}
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
		return w.dir(fd, realFrom, rel, true)
	case unix.S_IFREG:
		if done, err := w.remembered(&st, realFrom, rel); done {
			unix.Close(fd)
			return err
		}
		return w.file(fd, realFrom, rel)
	}
	unix.Close(fd)
	return w.special(rel, st.Mode)
}

// remembered records the regular file st describes with the hash Options.Sums remembers
// for it, when it does (done): the file is then not read.
func (w *walker) remembered(st *unix.Stat_t, from, rel string) (done bool, err error) {
	if w.o.NoHash {
		return false, nil
	}
	sum, ok := w.o.Sums.lookup(st)
	if !ok {
		return false, nil
	}
	if err := w.add(st, from, rel); err != nil {
		return true, err
	}
	w.t.Files[len(w.t.Files)-1].Sum = sum
	return true, nil
}

// file records the open regular file fd (closed here), hashing it unless NoHash.
func (w *walker) file(fd int, from, rel string) error {
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return fmt.Errorf("%s: %w", rel, ErrChanged)
	}
	if err := w.add(&st, from, rel); err != nil || w.o.NoHash {
		return err
	}
	f := &w.t.Files[len(w.t.Files)-1]
	sum, n, err := hashFD(fd, w.h, w.buf)
	if err != nil {
		return w.openFailed(rel, err)
	}
	if n != st.Size {
		return fmt.Errorf("%s: %w", rel, ErrChanged)
	}
	f.Sum = sum
	w.o.Sums.store(&st, sum)
	return nil
}

// keep reads Options.Keep through one open (open, fstat, read, close, against the
// generic entry's fstatat and access check and the caller's own open of the file by
// path). done is false when the entry is not a readable regular file within KeepMax,
// reached without a link: entry then looks at it as at any other.
func (w *walker) keep(dirfd int, name, from, rel string) (done bool, err error) {
	fd, err := openName(dirfd, name, unix.O_RDONLY|unix.O_NONBLOCK)
	if err != nil {
		return false, nil
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size > w.o.KeepMax {
		return false, nil
	}
	data, err := capread.ReadFD(fd, st.Size)
	if err != nil {
		return false, nil
	}
	w.t.Kept = data
	if err := w.add(&st, from, rel); err != nil || w.o.NoHash {
		return true, err
	}
	if int64(len(data)) != st.Size {
		return true, fmt.Errorf("%s: %w", rel, ErrChanged)
	}
	sum := sha256.Sum256(data)
	w.t.Files[len(w.t.Files)-1].Sum = hex.EncodeToString(sum[:])
	return true, nil
}

// add records the regular file st found at from, within the limits.
func (w *walker) add(st *unix.Stat_t, from, rel string) error {
	w.bytes += st.Size
	if w.o.MaxFiles > 0 && len(w.t.Files) >= w.o.MaxFiles || w.o.MaxBytes > 0 && w.bytes > w.o.MaxBytes {
		return &Error{Kind: KindTooLarge, msg: fmt.Sprintf("the folder holds more than %d files or %d MiB; move large data out of it", w.o.MaxFiles, w.o.MaxBytes>>20)}
	}
	w.t.Files = append(w.t.Files, File{Rel: rel, Mode: fs.FileMode(st.Mode & 0o777), Size: st.Size, CTime: st.Ctim.Nano(), from: from})
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
	for rest, more := from, true; more; {
		var c string
		c, rest, more = strings.Cut(rest, "/")
		if c == "" || c == "." || c == ".." {
			return false
		}
	}
	return true // and so path.Clean(from) == from (TestClean)
}
