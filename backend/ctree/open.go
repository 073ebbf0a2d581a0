package ctree

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// openRoot opens the root for lookups only (O_PATH): every other open is relative to it.
func openRoot(root string) (int, error) {
	fd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &os.PathError{Op: "open", Path: root, Err: err}
	}
	return fd, nil
}

// openName opens one entry of the folder dirfd, failing on a symbolic link (ELOOP). A
// single name has no intermediate component, so O_NOFOLLOW alone covers it.
func openName(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// openPath opens from (clean, relative to the root) with no symbolic link followed at any
// component: openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, else one O_NOFOLLOW openat per
// component from the root descriptor.
func openPath(rootfd int, root, from string, flags int) (int, error) {
	if !clean(from) {
		return -1, fmt.Errorf("%q is not a clean relative path", from)
	}
	fd, err := openat2(rootfd, from, flags|unix.O_NOFOLLOW, unix.RESOLVE_BENEATH|unix.RESOLVE_NO_SYMLINKS|unix.RESOLVE_NO_MAGICLINKS)
	if err != unix.ENOSYS {
		return fd, err
	}
	if from == "." {
		return unix.Openat(rootfd, ".", flags|unix.O_CLOEXEC, 0)
	}
	parts := strings.Split(from, "/")
	cur := rootfd
	for i, c := range parts {
		f := unix.O_PATH | unix.O_DIRECTORY
		if i == len(parts)-1 {
			f = flags
		}
		next, err := openName(cur, c, f)
		if cur != rootfd {
			unix.Close(cur)
		}
		if err != nil {
			return -1, err
		}
		cur = next
	}
	return cur, nil
}

// openFollow opens from, following symbolic links, where the kernel keeps the whole
// resolution beneath the root (RESOLVE_BENEATH: EXDEV for a link that leaves it or is
// absolute); else os.Root, which keeps it inside in user space.
func openFollow(rootfd int, root, from string, flags int) (int, error) {
	if !clean(from) {
		return -1, fmt.Errorf("%q is not a clean relative path", from)
	}
	fd, err := openat2(rootfd, from, flags, unix.RESOLVE_BENEATH|unix.RESOLVE_NO_MAGICLINKS)
	if err != unix.ENOSYS {
		return fd, err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return -1, err
	}
	defer r.Close()
	f, err := r.OpenFile(from, flags, 0)
	if err != nil {
		var errno unix.Errno
		if errors.As(err, &errno) {
			return -1, errno
		}
		return -1, unix.EXDEV // os.Root: the path escapes the root
	}
	defer f.Close()
	return unix.Dup(int(f.Fd()))
}

// openat2 retries the two transient failures: EINTR, and EAGAIN (a rename raced the
// resolution, which RESOLVE_BENEATH then refuses to guess about).
func openat2(dirfd int, p string, flags int, resolve uint64) (int, error) {
	how := unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC), Resolve: resolve}
	var fd int
	var err error
	for try := 0; try < 8; try++ {
		fd, err = unix.Openat2(dirfd, p, &how)
		if err != unix.EINTR && err != unix.EAGAIN {
			break
		}
	}
	return fd, err
}

// open opens f again beneath the tree's root with no link followed anywhere, and checks
// that it is still a regular file of its recorded size.
func (t *Tree) open(rootfd int, f File) (int, error) {
	fd, err := openPath(rootfd, t.root, f.from, unix.O_RDONLY|unix.O_NONBLOCK)
	if err != nil {
		return -1, openError(f.Rel, f.Rel, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size != f.Size {
		unix.Close(fd)
		return -1, fmt.Errorf("%s: %w", f.Rel, ErrChanged)
	}
	return fd, nil
}

// CopyTo writes the tree under dest, which must not hold its files yet: folders with
// dirMode, each file with mode(f). Each file is read from a descriptor opened beneath the
// root with no link followed and hashed as it is copied; content other than the walk's
// fails with ErrChanged (the partial copy is the caller's to remove).
func (t *Tree) CopyTo(dest string, dirMode fs.FileMode, mode func(File) fs.FileMode) error {
	rootfd, err := openRoot(t.root)
	if err != nil {
		return err
	}
	defer unix.Close(rootfd)
	if err := os.MkdirAll(dest, dirMode); err != nil {
		return err
	}
	for _, d := range t.Dirs {
		if err := os.MkdirAll(filepath.Join(dest, filepath.FromSlash(d)), dirMode); err != nil {
			return err
		}
	}
	buf := make([]byte, 32<<10)
	for _, f := range t.Files {
		if err := t.copyFile(rootfd, f, filepath.Join(dest, filepath.FromSlash(f.Rel)), mode(f), buf); err != nil {
			return err
		}
	}
	return nil
}

func (t *Tree) copyFile(rootfd int, f File, to string, mode fs.FileMode, buf []byte) error {
	in, err := t.open(rootfd, f)
	if err != nil {
		return err
	}
	defer unix.Close(in)
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	h := sha256.New()
	for err == nil {
		var n int
		if n, err = unix.Read(in, buf); n > 0 {
			h.Write(buf[:n])
			_, err = out.Write(buf[:n])
		} else if n == 0 && err == nil {
			break
		} else if err == unix.EINTR {
			err = nil
		}
	}
	if err == nil {
		err = out.Chmod(mode) // the umask may have narrowed it
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if f.Sum != "" && hex.EncodeToString(h.Sum(nil)) != f.Sum {
		return fmt.Errorf("%s: %w", f.Rel, ErrChanged)
	}
	return nil
}

// Read returns f's content, read beneath the root with no link followed; content other
// than the walk's fails with ErrChanged.
func (t *Tree) Read(f File) ([]byte, error) {
	var data []byte
	err := t.ReadEach([]File{f}, func(_ File, b []byte) error { data = b; return nil })
	return data, err
}

// ReadEach reads each of files as Read does, opening the root once, and hands its
// content to fn; it stops at the first error, fn's included.
func (t *Tree) ReadEach(files []File, fn func(File, []byte) error) error {
	rootfd, err := openRoot(t.root)
	if err != nil {
		return err
	}
	defer unix.Close(rootfd)
	for _, f := range files {
		data, err := t.read(rootfd, f)
		if err != nil {
			return err
		}
		if err := fn(f, data); err != nil {
			return err
		}
	}
	return nil
}

func (t *Tree) read(rootfd int, f File) ([]byte, error) {
	fd, err := t.open(rootfd, f)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	data := make([]byte, 0, f.Size+1)
	for {
		if len(data) == cap(data) {
			return nil, fmt.Errorf("%s: %w", f.Rel, ErrChanged) // it grew
		}
		n, err := unix.Read(fd, data[len(data):cap(data)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			break
		}
		data = data[:len(data)+n]
	}
	if f.Sum != "" {
		sum := sha256.Sum256(data)
		if hex.EncodeToString(sum[:]) != f.Sum {
			return nil, fmt.Errorf("%s: %w", f.Rel, ErrChanged)
		}
	}
	return data, nil
}
