package install

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
)

// extractor writes an archive's entries beneath one folder, through an os.Root, so that
// no entry can write outside it whatever the entries before it made.
type extractor struct {
	archive  string
	root     *os.Root
	maxBytes int64
	maxFiles int
	written  int64
	files    int
	seen     map[string]bool
}

// extractArchive extracts the .zip or .tar.gz file p into the empty folder dir and
// returns the file's "sha256:<hex>". Entries with an absolute path or "..", links that
// leave the archive, devices, FIFOs and sockets refuse the archive; so does one past
// MaxBytes or MaxFiles.
func extractArchive(p, dir string, maxBytes int64, maxFiles int) (string, error) {
	sum, err := fileSum(p)
	if err != nil {
		return "", err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	x := &extractor{archive: p, root: root, maxBytes: maxBytes, maxFiles: maxFiles, seen: map[string]bool{}}
	switch archiveFormat(p) {
	case "zip":
		err = x.zip()
	default:
		err = x.tarGz()
	}
	return sum, err
}

func fileSum(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reading %s: %w", p, err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

func (x *extractor) zip() error {
	r, err := zip.OpenReader(x.archive)
	if err != nil {
		return fmt.Errorf("%s is not a readable zip archive (%v); check the file, or give the folder instead", x.archive, err)
	}
	defer r.Close()
	for _, f := range r.File {
		if err := x.count(); err != nil {
			return err
		}
		name, err := x.name(f.Name)
		if err != nil || name == "" {
			if err != nil {
				return err
			}
			continue
		}
		mode := f.Mode()
		switch {
		case mode.IsDir():
			err = x.dir(name)
		case mode&fs.ModeSymlink != 0:
			var target []byte
			if target, err = readSmall(f); err == nil {
				err = x.symlink(name, string(target))
			}
		case mode.IsRegular():
			var rc io.ReadCloser
			if rc, err = f.Open(); err == nil {
				err = x.file(name, mode, rc)
				rc.Close()
			}
		default:
			err = x.special(name, mode.Type().String())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func readSmall(f *zip.File) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(io.LimitReader(rc, 4096))
}

func (x *extractor) tarGz() error {
	f, err := os.Open(x.archive)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s is not a gzip-compressed tar archive (%v); check the file, or give the folder instead", x.archive, err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s cannot be read as a tar archive (%v); check the file", x.archive, err)
		}
		if err := x.count(); err != nil {
			return err // every entry counts, whatever its name ("./" two million times)
		}
		if h.Typeflag == tar.TypeXGlobalHeader || h.Typeflag == tar.TypeXHeader {
			continue // metadata (git archive writes a global header), not a file
		}
		name, err := x.name(h.Name)
		if err != nil {
			return err
		}
		if name == "" {
			continue
		}
		switch h.Typeflag {
		case tar.TypeDir:
			err = x.dir(name)
		case tar.TypeReg, tar.TypeRegA:
			err = x.file(name, fs.FileMode(h.Mode), tr)
		case tar.TypeSymlink:
			err = x.symlink(name, h.Linkname)
		case tar.TypeLink:
			err = x.hardlink(name, h.Linkname)
		case tar.TypeChar:
			err = x.special(name, "character device")
		case tar.TypeBlock:
			err = x.special(name, "block device")
		case tar.TypeFifo:
			err = x.special(name, "FIFO")
		default:
			err = x.special(name, fmt.Sprintf("tar entry type %q", h.Typeflag))
		}
		if err != nil {
			return err
		}
	}
}

// name checks an entry's name and returns it clean and slash-separated ("" for the
// archive's top, which is skipped).
func (x *extractor) name(raw string) (string, error) {
	n := strings.ReplaceAll(raw, "\\", "/")
	if strings.HasPrefix(n, "/") || (len(n) > 1 && n[1] == ':') {
		return "", fmt.Errorf("%s: the entry %q has an absolute path: %w; an archive of a plugin holds relative paths only (make it again from inside the folder)", x.archive, raw, ErrRefused)
	}
	for _, part := range strings.Split(n, "/") {
		if part == ".." {
			return "", fmt.Errorf("%s: the entry %q climbs out of the archive (..): %w; make the archive again from inside the plugin folder", x.archive, raw, ErrRefused)
		}
	}
	n = path.Clean(n)
	if n == "." {
		return "", nil
	}
	if x.seen[n] {
		return "", fmt.Errorf("%s: the entry %q appears twice: %w; make the archive again", x.archive, raw, ErrRefused)
	}
	x.seen[n] = true
	return n, nil
}

func (x *extractor) count() error {
	x.files++
	if x.files > x.maxFiles {
		return fmt.Errorf("%s holds more than %d entries: %w; an archive is for a plugin, not a data set", x.archive, x.maxFiles, ErrRefused)
	}
	return nil
}

func (x *extractor) dir(name string) error {
	return x.unwritable(name, x.root.MkdirAll(name, 0o755))
}

// unwritable turns the error of writing the entry name beneath the root (os.Root refuses
// a path that a link made by an earlier entry leads out of, or through a link into a
// missing folder) into a refusal that says so; nil stays nil.
func (x *extractor) unwritable(name string, err error) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s: the entry %q cannot be written inside the plugin folder (%v): %w; an entry may not be written through a link another entry made — make the archive again without links between its folders", x.archive, name, err, ErrRefused)
}

func (x *extractor) file(name string, mode fs.FileMode, r io.Reader) error {
	if dir := path.Dir(name); dir != "." {
		if err := x.root.MkdirAll(dir, 0o755); err != nil {
			return x.unwritable(name, err)
		}
	}
	perm := fs.FileMode(0o644)
	if mode&0o111 != 0 {
		perm = 0o755
	}
	f, err := x.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return x.unwritable(name, err)
	}
	n, err := io.Copy(f, io.LimitReader(r, x.maxBytes-x.written+1))
	x.written += n
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %s: %w", x.archive, name, err)
	}
	if x.written > x.maxBytes {
		return fmt.Errorf("%s unpacks to more than %d MiB: %w; an archive is for a plugin, not a data set", x.archive, x.maxBytes>>20, ErrRefused)
	}
	return nil
}

// symlink makes a link whose target stays inside the archive, judged from where the
// link is (the contained walk later checks the result again).
func (x *extractor) symlink(name, target string) error {
	t := strings.ReplaceAll(target, "\\", "/")
	resolved := path.Join(path.Dir(name), t)
	if t == "" || strings.HasPrefix(t, "/") || resolved == ".." || strings.HasPrefix(resolved, "../") {
		return fmt.Errorf("%s: %s is a symbolic link that leaves the plugin folder (or is absolute): %w; replace it with the file itself or a relative link inside the plugin", x.archive, name, ErrRefused)
	}
	if dir := path.Dir(name); dir != "." {
		if err := x.root.MkdirAll(dir, 0o755); err != nil {
			return x.unwritable(name, err)
		}
	}
	return x.unwritable(name, x.root.Symlink(t, name))
}

// hardlink makes a hard link to an entry extracted before it (tar names it by path from
// the archive's top); anything else is refused.
func (x *extractor) hardlink(name, target string) error {
	t, err := x.cleanTarget(target)
	if err != nil || !x.seen[t] {
		return fmt.Errorf("%s: %s is a hard link to %q, which is not a file earlier in the archive: %w; make the archive again without hard links", x.archive, name, target, ErrRefused)
	}
	st, err := x.root.Lstat(t)
	if err != nil || !st.Mode().IsRegular() {
		return fmt.Errorf("%s: %s is a hard link to %q, which is not a regular file: %w", x.archive, name, target, ErrRefused)
	}
	if dir := path.Dir(name); dir != "." {
		if err := x.root.MkdirAll(dir, 0o755); err != nil {
			return x.unwritable(name, err)
		}
	}
	return x.unwritable(name, x.root.Link(t, name))
}

func (x *extractor) cleanTarget(target string) (string, error) {
	t := strings.ReplaceAll(target, "\\", "/")
	if strings.HasPrefix(t, "/") {
		return "", errors.New("absolute")
	}
	t = path.Clean(t)
	if t == ".." || strings.HasPrefix(t, "../") {
		return "", errors.New("outside")
	}
	return t, nil
}

func (x *extractor) special(name, what string) error {
	return fmt.Errorf("%s: %s is not a regular file or folder (%s): %w; remove it from the archive", x.archive, name, what, ErrRefused)
}
