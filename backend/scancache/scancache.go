// Package scancache keeps the output of a scan of file trees, with the facts of every
// path the scan could have read, and hands the output back only while every one of those
// facts is as it was: what lets `plugboard catalog` answer an unchanged machine from one
// look-up per path instead of reading and judging every file again (issue 16, goal 1).
//
// A Snapshot records, for each path it is given and every entry below it (following
// symbolic links, each folder once), what moves whenever the entry does: its type and
// mode, size, modification and status-change times, inode and device, or the error a
// look-up gave. The status-change time is set by the kernel on every
// write, chmod, rename or link and no call can set it back; a folder's times move when an
// entry is made, removed or renamed in it, so a new file is seen without listing the
// folder again. A symbolic link is recorded twice: as a link and as what it leads to.
//
// As git's index does for "racily clean" files, a snapshot in which any entry changed
// less than RacyWindow before the scan began is not to be kept (Racy): a second write
// within the file system's timestamp granularity could leave every fact as it was.
//
// The file is a cache: one that is missing, damaged (it carries a checksum), made for
// another key, or whose facts no longer hold is a miss, and costs a scan. It is written
// atomically, readable by its owner alone.
package scancache

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/backend/jsonfile"
)

// RacyWindow is how long before a scan an entry must have last changed for the
// snapshot to be kept: longer than any local file system's timestamp granularity
// (FAT's is 2 s).
const RacyWindow = 3 * time.Second

// MaxEntries bounds a snapshot: a tree larger than this (a linked working copy with its
// dependencies, say) is not cached, since looking it up would cost what a scan does.
const MaxEntries = 500_000

// maxEntries is MaxEntries, smaller in tests.
var maxEntries = MaxEntries

// MaxFile bounds the cache file read back.
const MaxFile = 1 << 30

// ErrTooLarge is Take's error for trees of more than MaxEntries look-ups.
var ErrTooLarge = errors.New("scancache: more entries than a snapshot keeps")

const header = "plugboard-scancache 1\n"

// facts are what a look-up of one path found.
type facts struct {
	errno        int32 // 0, or the error of the look-up
	mode         uint32
	size         int64
	mtime, ctime int64 // ns
	ino, dev     uint64
}

const factsSize = 4 + 4 + 8 + 8 + 8 + 8 + 8

func factsOf(st *unix.Stat_t, err error) facts {
	if err != nil {
		var errno unix.Errno
		if !errors.As(err, &errno) {
			errno = unix.EIO
		}
		return facts{errno: int32(errno)}
	}
	return facts{mode: st.Mode, size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), ino: st.Ino, dev: uint64(st.Dev)}
}

// entry is one recorded look-up: lstat of path, or with follow, stat.
type entry struct {
	path   string
	follow bool
	facts
}

func (e *entry) look() facts {
	var st unix.Stat_t
	var err error
	if e.follow {
		err = unix.Stat(e.path, &st)
	} else {
		err = unix.Lstat(e.path, &st)
	}
	return factsOf(&st, err)
}

// Snapshot is the recorded facts of a set of trees and files.
type Snapshot struct {
	entries []entry
	// listings are the folders that were listed, each with the entries met in it:
	// entries[from:to] (a walk adds them together).
	listings []listing
}

type listing struct{ dir, from, to int }

// Len is the number of look-ups the snapshot holds.
func (s *Snapshot) Len() int { return len(s.entries) }

// Paths lists each recorded path once, in no particular order.
func (s *Snapshot) Paths() []string {
	seen := make(map[string]bool, len(s.entries))
	var out []string
	for _, e := range s.entries {
		if !seen[e.path] {
			seen[e.path] = true
			out = append(out, e.path)
		}
	}
	return out
}

// Take records the facts of paths. Each that is a folder (or a link to one) is recorded
// with every entry below it, following links, each folder (by device and inode) walked
// once. A path that does not exist is recorded as missing, so that its arrival is a
// change.
//
// prev, when not nil, is an earlier snapshot: a folder whose facts are as prev recorded
// them is not listed again (its entries are the ones prev met in it, as Holds assumes),
// which spares a walk of an unchanged tree all but one look-up per entry.
func Take(prev *Snapshot, paths []string) (*Snapshot, error) {
	t := &taker{seen: map[[2]uint64]bool{}, prev: prev.folders()}
	t.cond = sync.NewCond(&t.mu)
	for _, p := range paths {
		t.add(lookUp(nil, filepath.Clean(p), unix.AT_FDCWD, p), -1)
	}
	var wg sync.WaitGroup
	for range 4 * runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 32<<10)
			for {
				i, dir, ok := t.next()
				if !ok {
					return
				}
				if was, ok := t.prev[dir.path]; ok && was.facts == dir.facts {
					t.add(lookUpAll(dir.path, was.names), i)
				} else if es, ok := list(dir.path, buf); ok {
					t.add(es, i)
				} else {
					t.add(es, -1) // not all listed: not to be reused
				}
				t.done()
			}
		}()
	}
	wg.Wait()
	if t.tooLarge {
		return nil, ErrTooLarge
	}
	return &Snapshot{entries: t.entries, listings: t.listings}, nil
}

// lookUp appends to out the facts of path, looked up as name in the folder open as
// dirfd (or unix.AT_FDCWD), and, for a symbolic link, a second entry for what the link
// leads to.
func lookUp(out []entry, path string, dirfd int, name string) []entry {
	var st unix.Stat_t
	e := entry{path: path, facts: factsOf(&st, unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW))}
	out = append(out, e)
	if e.errno == 0 && e.mode&unix.S_IFMT == unix.S_IFLNK {
		out = append(out, entry{path: path, follow: true, facts: factsOf(&st, unix.Fstatat(dirfd, name, &st, 0))})
	}
	return out
}

// list looks up every entry of the folder dir, by name in the open folder (buf holds
// its listing). It is false when the folder could not be listed to its end; the
// folder's own facts are recorded, and a change of its mode or entries moves them.
func list(dir string, buf []byte) ([]entry, bool) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	defer unix.Close(fd)
	var out []entry
	var names []string
	for {
		n, err := unix.Getdents(fd, buf)
		if err != nil {
			return out, false
		}
		if n <= 0 {
			return out, true
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names[:0])
		for _, name := range names {
			out = lookUp(out, dir+"/"+name, fd, name)
		}
	}
}

// lookUpAll looks up each of names in the folder dir by its path.
func lookUpAll(dir string, names []string) []entry {
	out := make([]entry, 0, len(names)+1)
	for _, n := range names {
		p := dir + "/" + n
		out = lookUp(out, p, unix.AT_FDCWD, p)
	}
	return out
}

// folder is what an earlier snapshot recorded of a folder it listed: its facts (or, for
// a link, those of what it leads to) and the names of its entries.
type folder struct {
	facts
	names []string
}

// folders indexes the folders s listed by path; nil for a nil s.
func (s *Snapshot) folders() map[string]*folder {
	if s == nil {
		return nil
	}
	m := make(map[string]*folder, len(s.listings))
	for _, l := range s.listings {
		f := &folder{facts: s.entries[l.dir].facts}
		for i := l.from; i < l.to; i++ {
			if e := &s.entries[i]; !e.follow {
				f.names = append(f.names, filepath.Base(e.path))
			}
		}
		m[s.entries[l.dir].path] = f
	}
	return m
}

// taker is one Take: a queue of folders to list, shared by the workers.
type taker struct {
	mu       sync.Mutex
	cond     *sync.Cond
	entries  []entry
	seen     map[[2]uint64]bool // folders queued, by device and inode
	prev     map[string]*folder
	queue    []int // folders to list, by their place in entries
	listings []listing
	busy     int // folders being listed
	tooLarge bool
}

// add keeps es and queues each that is a folder (or leads to one, for a link's second
// entry) not met before. With dir not -1, es are every entry of the folder at
// entries[dir].
func (t *taker) add(es []entry, dir int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if dir >= 0 {
		t.listings = append(t.listings, listing{dir, len(t.entries), len(t.entries) + len(es)})
	}
	for i := range es {
		e := &es[i]
		t.entries = append(t.entries, *e)
		if e.errno != 0 || e.mode&unix.S_IFMT != unix.S_IFDIR || t.tooLarge {
			continue
		}
		if k := [2]uint64{e.dev, e.ino}; !t.seen[k] {
			t.seen[k] = true
			t.queue = append(t.queue, len(t.entries)-1)
			t.cond.Signal()
		}
	}
	if len(t.entries) > maxEntries {
		t.tooLarge = true
		t.queue = nil
		t.cond.Broadcast()
	}
}

// next hands out a folder to list; false when every folder is listed.
func (t *taker) next() (int, entry, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for len(t.queue) == 0 {
		if t.busy == 0 || t.tooLarge {
			t.cond.Broadcast()
			return 0, entry{}, false
		}
		t.cond.Wait()
	}
	i := t.queue[len(t.queue)-1]
	t.queue = t.queue[:len(t.queue)-1]
	t.busy++
	return i, t.entries[i], true
}

func (t *taker) done() {
	t.mu.Lock()
	t.busy--
	t.cond.Broadcast()
	t.mu.Unlock()
}

// Racy reports whether any entry changed later than RacyWindow before start: a snapshot
// taken after a scan that began at start is only to be kept when it is not.
func (s *Snapshot) Racy(start time.Time) bool {
	since := start.Add(-RacyWindow).UnixNano()
	for i := range s.entries {
		if e := &s.entries[i]; e.errno == 0 && (e.mtime >= since || e.ctime >= since) {
			return true
		}
	}
	return false
}

// Holds reports whether every recorded look-up finds what it found then.
func (s *Snapshot) Holds() bool {
	var changed atomic.Bool
	var next atomic.Int64
	const chunk = 256
	var wg sync.WaitGroup
	for range 4 * runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !changed.Load() {
				i := int(next.Add(chunk)) - chunk
				if i >= len(s.entries) {
					return
				}
				for j := i; j < min(i+chunk, len(s.entries)); j++ {
					if e := &s.entries[j]; e.look() != e.facts {
						changed.Store(true)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	return !changed.Load()
}

// Save writes data with key and s to path, atomically, readable by its owner alone,
// making the folder. It does not flush the file to the disk: a file cut short by a
// crash fails its checksum and is a miss.
func Save(path, key string, s *Snapshot, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return jsonfile.WriteCacheAtomic(path, 0o600, func(w io.Writer) error {
		sum := crc32.New(castagnoli)
		w = io.MultiWriter(w, sum)
		var b []byte
		b = append(b, header...)
		b = appendBytes(b, []byte(key))
		b = binary.AppendUvarint(b, uint64(len(s.entries)))
		le := binary.LittleEndian
		for i := range s.entries {
			e := &s.entries[i]
			b = appendBytes(b, []byte(e.path))
			flag := byte(0)
			if e.follow {
				flag = 1
			}
			b = append(b, flag)
			b = le.AppendUint32(b, uint32(e.errno))
			b = le.AppendUint32(b, e.mode)
			b = le.AppendUint64(b, uint64(e.size))
			b = le.AppendUint64(b, uint64(e.mtime))
			b = le.AppendUint64(b, uint64(e.ctime))
			b = le.AppendUint64(b, e.ino)
			b = le.AppendUint64(b, e.dev)
			if len(b) >= 64<<10 {
				if _, err := w.Write(b); err != nil {
					return err
				}
				b = b[:0]
			}
		}
		b = binary.AppendUvarint(b, uint64(len(s.listings)))
		for _, l := range s.listings {
			b = binary.AppendUvarint(b, uint64(l.dir))
			b = binary.AppendUvarint(b, uint64(l.from))
			b = binary.AppendUvarint(b, uint64(l.to))
		}
		b = binary.AppendUvarint(b, uint64(len(data)))
		if _, err := w.Write(b); err != nil {
			return err
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
		_, err := w.Write(le.AppendUint32(nil, sum.Sum32()))
		return err
	})
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func appendBytes(b, p []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(p))), p...)
}

// Load reads the cache at path. It returns its data, and true, when it was saved with key
// and every look-up it recorded finds what it found then. Otherwise it is false, and
// prev is the snapshot the cache holds (nil when it cannot be read), for Take.
func Load(path, key string) (data []byte, prev *Snapshot, ok bool) {
	saved, s, data, ok := read(path)
	if !ok {
		return nil, nil, false
	}
	if saved != key || !s.Holds() {
		return nil, s, false
	}
	return data, s, true
}

// read parses the cache at path: the key it was saved under, its snapshot and its data.
func read(path string) (string, *Snapshot, []byte, bool) {
	raw, err := capread.ReadNoFollow(path, MaxFile)
	if err != nil || len(raw) < len(header)+4 {
		return "", nil, nil, false
	}
	body := raw[:len(raw)-4]
	if binary.LittleEndian.Uint32(raw[len(raw)-4:]) != crc32.Checksum(body, castagnoli) || string(body[:len(header)]) != header {
		return "", nil, nil, false
	}
	r := reader{b: body[len(header):]}
	key := string(r.bytes())
	n := r.uvarint()
	if r.bad || n > MaxEntries {
		return "", nil, nil, false
	}
	s := &Snapshot{entries: make([]entry, n)}
	for i := range s.entries {
		p := r.bytes()
		fb := r.take(factsSize + 1)
		if r.bad {
			return "", nil, nil, false
		}
		le := binary.LittleEndian
		s.entries[i] = entry{path: string(p), follow: fb[0] == 1, facts: facts{
			errno: int32(le.Uint32(fb[1:])), mode: le.Uint32(fb[5:]), size: int64(le.Uint64(fb[9:])),
			mtime: int64(le.Uint64(fb[17:])), ctime: int64(le.Uint64(fb[25:])), ino: le.Uint64(fb[33:]), dev: le.Uint64(fb[41:]),
		}}
	}
	nl := r.uvarint()
	if r.bad || nl > n {
		return "", nil, nil, false
	}
	s.listings = make([]listing, nl)
	for i := range s.listings {
		l := listing{int(r.uvarint()), int(r.uvarint()), int(r.uvarint())}
		if l.dir < 0 || uint64(l.dir) >= n || l.from < 0 || l.from > l.to || uint64(l.to) > n {
			return "", nil, nil, false
		}
		s.listings[i] = l
	}
	data := r.bytes()
	if r.bad || len(r.b) != 0 {
		return "", nil, nil, false
	}
	return key, s, data, true
}

// reader takes fields off a byte slice; bad is set once one is cut short.
type reader struct {
	b   []byte
	bad bool
}

func (r *reader) uvarint() uint64 {
	n, k := binary.Uvarint(r.b)
	if k <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[k:]
	return n
}

func (r *reader) take(n int) []byte {
	if r.bad || n < 0 || n > len(r.b) {
		r.bad = true
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *reader) bytes() []byte {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.bad = true
		return nil
	}
	return r.take(int(n))
}
