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
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
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
const MaxFile = 512 << 20

// ErrTooLarge is Take's error for trees of more than MaxEntries look-ups.
var ErrTooLarge = errors.New("scancache: more entries than a snapshot keeps")

// ErrIncomplete is Take's error when something could not be recorded whole: a folder
// that could not be listed (a scan may still open files in it by name), a path behind
// more links than a look-up follows (a scan's own resolution may follow more), or a
// path too long to look up whole (a scan opens it through its folders).
var ErrIncomplete = errors.New("scancache: a folder could not be listed or a path resolved")

const header = "plugboard-scancache 2\n"

// facts are what a look-up of one path found.
type facts struct {
	errno        int32 // 0, or the error of the look-up
	mode         uint32
	size         int64
	mtime, ctime int64 // ns
	ino, dev     uint64
	uid, gid     uint32
}

const factsSize = 4 + 4 + 8 + 8 + 8 + 8 + 8 + 4 + 4

func factsOf(st *unix.Stat_t, err error) facts {
	if err != nil {
		var errno unix.Errno
		if !errors.As(err, &errno) {
			errno = unix.EIO
		}
		return facts{errno: int32(errno)}
	}
	return facts{mode: st.Mode, size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), ino: st.Ino, dev: uint64(st.Dev),
		uid: st.Uid, gid: st.Gid}
}

// entry is one recorded look-up of path: lstat, or for a link's second entry, stat.
type entry struct {
	path string
	kind uint8
	facts
}

// The kinds of entry.
const (
	kindEntry  = iota // lstat of a path given or of a folder's entry
	kindFollow        // stat of a link: what it leads to
	kindChain         // lstat of a folder or link met in resolving a path
)

func (e *entry) look() facts {
	var st unix.Stat_t
	var err error
	if e.kind == kindFollow {
		err = unix.Stat(e.path, &st)
	} else {
		err = unix.Lstat(e.path, &st)
	}
	return factsOf(&st, err)
}

// passedThrough: a folder met in resolving a path, of which only what it is counts,
// not what it lists (that moves with every file made beside the path, in a home folder
// all the time); what it leads to is the next look-up of the chain.
func (e *entry) passedThrough() bool {
	return e.kind == kindChain && e.mode&unix.S_IFMT == unix.S_IFDIR
}

// holds reports whether now, the facts of a new look-up, are those e recorded: for a
// folder passed through, the same folder with the same mode and owner.
func (e *entry) holds(now facts) bool {
	if e.passedThrough() {
		return now.errno == e.errno && now.mode == e.mode && now.ino == e.ino && now.dev == e.dev &&
			now.uid == e.uid && now.gid == e.gid
	}
	return now == e.facts
}

// Snapshot is the recorded facts of a set of trees and files.
type Snapshot struct {
	entries []entry
	// listings are the folders that were listed, each with the entries met in it:
	// entries[from:to] (a walk adds them together).
	listings []listing
	// changed is, after Holds found a look-up that differs, the status-change time it
	// found (ns; 0 when it found the path missing): what Racy says of a snapshot taken
	// now.
	changed atomic.Int64
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

// Paths says what Take records.
type Paths struct {
	// Walk are recorded each with every entry below it, following links, each folder
	// (by device and inode) walked once.
	Walk []string
	// Resolve are recorded by what resolving each passes through (itself included), not
	// walked: a home folder whose own path a scan resolves.
	Resolve []string
}

// Listed lists the folders the snapshot listed (whose times record what they hold).
func (s *Snapshot) Listed() []string {
	var out []string
	for _, l := range s.listings {
		out = append(out, s.entries[l.dir].path)
	}
	return out
}

// Take records the facts of p's paths. Each is recorded with every folder and link met
// in resolving it from the root folder (a link's target is taken apart the same way),
// and so is every link met in the walk: a scan that resolves a path depends on each of
// them. A path that does not exist is recorded as missing, so that its arrival is a
// change.
//
// prev, when not nil, is an earlier snapshot: a folder whose facts are as prev recorded
// them is not listed again (its entries are the ones prev met in it, as Holds assumes),
// which spares a walk of an unchanged tree all but one look-up per entry.
func Take(prev *Snapshot, p Paths) (*Snapshot, error) {
	t := &taker{seen: map[[2]uint64]bool{}, prev: prev.folders(), chained: map[string]bool{}}
	t.cond = sync.NewCond(&t.mu)
	for _, path := range p.Walk {
		t.add(t.root(path), -1, true)
	}
	for _, path := range p.Resolve {
		t.add(t.chain(nil, absolute(path)), -1, false)
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
					t.add(t.lookUpAll(dir.path, was.names), i, true)
				} else if es, ok := t.list(dir.path, buf); ok {
					t.add(es, i, true)
				} else {
					t.fail()
				}
				t.done()
			}
		}()
	}
	wg.Wait()
	switch {
	case t.tooLarge:
		return nil, ErrTooLarge
	case t.incomplete:
		return nil, ErrIncomplete
	}
	return &Snapshot{entries: t.entries, listings: t.listings}, nil
}

// root looks up a path given to Take to walk, and what resolving it passes through.
func (t *taker) root(path string) []entry {
	path = absolute(path)
	return t.chain(t.lookUp(nil, path, unix.AT_FDCWD, path), path)
}

func absolute(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// lookUp appends to out the facts of path, looked up as name in the folder open as
// dirfd (or unix.AT_FDCWD). For a symbolic link it adds what the link leads to, and each
// folder and link met in resolving it (chain).
func (t *taker) lookUp(out []entry, path string, dirfd int, name string) []entry {
	if len(path) >= unix.PathMax {
		// A check looks it up by this path, which the kernel refuses (ENAMETOOLONG)
		// while a scan still opens it through its folder: it cannot be recorded.
		t.fail()
	}
	var st unix.Stat_t
	e := entry{path: path, facts: factsOf(&st, unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW))}
	out = append(out, e)
	if e.errno == 0 && e.mode&unix.S_IFMT == unix.S_IFLNK {
		out = append(out, entry{path: path, kind: kindFollow, facts: factsOf(&st, unix.Fstatat(dirfd, name, &st, 0))})
		out = t.chain(out, path)
	}
	return out
}

// maxHops bounds the links followed in resolving one path, as the kernel's 40 does.
const maxHops = 40

// chain appends an lstat of each path met in resolving the absolute path p from the
// root folder: every folder on the way and every link, whose target is resolved the
// same way. It stops at the first that cannot be looked up (recorded as missing) and
// at a link met again (a loop, each of whose links is then recorded); a link that
// cannot be read, or more than maxHops of them, fails the snapshot.
func (t *taker) chain(out []entry, p string) []entry {
	rest := strings.Split(p, "/")
	cur, hops := "", 0
	var met map[string]bool // links met: one met again is a loop, recorded whole
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = strings.TrimSuffix(filepath.Dir("/"+cur), "/") // the folder above, as resolved
			continue
		}
		next := cur + "/" + c
		var st unix.Stat_t
		err := unix.Lstat(next, &st)
		out = append(out, entry{path: next, kind: kindChain, facts: factsOf(&st, err)})
		if err != nil {
			return out
		}
		if st.Mode&unix.S_IFMT != unix.S_IFLNK {
			cur = next
			continue
		}
		if met[next] {
			return out // a loop: every link in it is recorded, and it leads nowhere
		}
		if met == nil {
			met = map[string]bool{}
		}
		met[next] = true
		target, err := os.Readlink(next)
		if hops++; err != nil || hops > maxHops {
			t.fail()
			return out
		}
		if strings.HasPrefix(target, "/") {
			cur = ""
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return out
}

// list looks up every entry of the folder dir, by name in the open folder (buf holds
// its listing). It is false when the folder could not be listed to its end.
func (t *taker) list(dir string, buf []byte) ([]entry, bool) {
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
			out = t.lookUp(out, dir+"/"+name, fd, name)
		}
	}
}

// lookUpAll looks up each of names in the folder dir by its path.
func (t *taker) lookUpAll(dir string, names []string) []entry {
	out := make([]entry, 0, len(names)+1)
	for _, n := range names {
		p := dir + "/" + n
		out = t.lookUp(out, p, unix.AT_FDCWD, p)
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
			if e := &s.entries[i]; e.kind == kindEntry {
				f.names = append(f.names, filepath.Base(e.path))
			}
		}
		m[s.entries[l.dir].path] = f
	}
	return m
}

// taker is one Take: a queue of folders to list, shared by the workers.
type taker struct {
	mu         sync.Mutex
	cond       *sync.Cond
	entries    []entry
	seen       map[[2]uint64]bool // folders queued, by device and inode
	prev       map[string]*folder
	chained    map[string]bool // paths recorded by chain, recorded once
	queue      []int           // folders to list, by their place in entries
	listings   []listing
	busy       int // folders being listed
	tooLarge   bool
	incomplete bool // see ErrIncomplete
}

// fail marks the snapshot incomplete, and stops the walk; it is called holding no lock.
func (t *taker) fail() {
	t.mu.Lock()
	t.incomplete = true
	t.queue = nil
	t.cond.Broadcast()
	t.mu.Unlock()
}

// add keeps es and, with walk, queues each that is a folder (or leads to one, for a
// link's second entry) not met before. With dir not -1, es are every entry of the
// folder at entries[dir] (and what resolving its links met).
func (t *taker) add(es []entry, dir int, walk bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if dir >= 0 {
		from := len(t.entries)
		defer func() { t.listings = append(t.listings, listing{dir, from, len(t.entries)}) }()
	}
	for i := range es {
		e := &es[i]
		if e.kind == kindChain {
			if t.chained[e.path] {
				continue
			}
			t.chained[e.path] = true
		}
		t.entries = append(t.entries, *e)
		if !walk || e.kind == kindChain || e.errno != 0 || e.mode&unix.S_IFMT != unix.S_IFDIR || t.tooLarge || t.incomplete {
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
	}
	if t.tooLarge || t.incomplete {
		t.queue = nil // the snapshot fails: list nothing more
		t.cond.Broadcast()
	}
}

// next hands out a folder to list; false when every folder is listed.
func (t *taker) next() (int, entry, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for len(t.queue) == 0 {
		if t.busy == 0 || t.tooLarge || t.incomplete {
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

// Racy reports whether any entry changed later than RacyWindow before start, by its
// status-change time (which every write sets from the kernel's clock; a modification
// time can be set to anything): a snapshot taken at start, before a scan, is only to be
// kept when it is not. Of a snapshot that no longer Holds, it also says whether the
// change found is that recent: then a snapshot taken now would be racy too.
func (s *Snapshot) Racy(start time.Time) bool {
	since := start.Add(-RacyWindow).UnixNano()
	if s.changed.Load() >= since {
		return true
	}
	for i := range s.entries {
		if e := &s.entries[i]; e.errno == 0 && !e.passedThrough() && e.ctime >= since {
			return true
		}
	}
	return false
}

// Holds reports whether every recorded look-up finds what it found then. When one does
// not, Racy says whether that change is recent.
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
					if e, now := &s.entries[j], s.entries[j].look(); !e.holds(now) {
						if now.errno == 0 {
							s.changed.Store(now.ctime)
						}
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
// making the folder, which must be a folder and not a link to one. It does not flush the
// file to the disk: a file cut short by a crash fails its checksum and is a miss.
func Save(path, key string, s *Snapshot, data []byte) error {
	if len(data)+len(s.entries)*(factsSize+2) >= MaxFile {
		return fmt.Errorf("scancache: %d bytes is more than a cache file holds", len(data))
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("scancache: %s is not a folder (a link is not followed)", dir)
	}
	if !private(dir) {
		return fmt.Errorf("scancache: %s is not a private folder of this user", dir)
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
			b = append(b, e.kind)
			b = le.AppendUint32(b, uint32(e.errno))
			b = le.AppendUint32(b, e.mode)
			b = le.AppendUint64(b, uint64(e.size))
			b = le.AppendUint64(b, uint64(e.mtime))
			b = le.AppendUint64(b, uint64(e.ctime))
			b = le.AppendUint64(b, e.ino)
			b = le.AppendUint64(b, e.dev)
			b = le.AppendUint32(b, e.uid)
			b = le.AppendUint32(b, e.gid)
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
// The file and its folder must be the user's and writable by no one else: a cache
// another user could write is one they could make say anything.
func read(path string) (string, *Snapshot, []byte, bool) {
	if !private(filepath.Dir(path)) || !private(path) {
		return "", nil, nil, false
	}
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
	// Each entry takes at least its facts and two length bytes: a count the rest of the
	// file cannot hold is refused before anything is made for it.
	if r.bad || n == 0 || n > MaxEntries || n > uint64(len(r.b)/(factsSize+2)) {
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
		if fb[0] > kindChain {
			return "", nil, nil, false
		}
		s.entries[i] = entry{path: string(p), kind: fb[0], facts: facts{
			errno: int32(le.Uint32(fb[1:])), mode: le.Uint32(fb[5:]), size: int64(le.Uint64(fb[9:])),
			mtime: int64(le.Uint64(fb[17:])), ctime: int64(le.Uint64(fb[25:])), ino: le.Uint64(fb[33:]), dev: le.Uint64(fb[41:]),
			uid: le.Uint32(fb[49:]), gid: le.Uint32(fb[53:]),
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

// private reports whether path (not followed) belongs to the user running and no one
// else may write it.
func private(path string) bool {
	var st unix.Stat_t
	return unix.Lstat(path, &st) == nil && int(st.Uid) == os.Geteuid() && st.Mode&0o022 == 0
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

const declinedHeader = "plugboard-scancache-declined 1\n"

// Decline records at path that nothing is to be cached under key until until: for a home
// whose snapshot cannot be taken whole, costs about what a scan does, or cannot hold
// what the scan read, so that the runs in between do not each pay for taking one.
func Decline(path, key string, until time.Time) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if !private(dir) {
		return fmt.Errorf("scancache: %s is not a private folder of this user", dir)
	}
	return jsonfile.WriteCacheAtomic(path, 0o600, func(w io.Writer) error {
		b := append([]byte(declinedHeader), strconv.FormatInt(until.UnixNano(), 10)...)
		b = append(append(b, '\n'), key...)
		_, err := w.Write(b)
		return err
	})
}

// Declined returns the time Decline recorded at path under key; false when there is no
// such record.
func Declined(path, key string) (time.Time, bool) {
	if !private(filepath.Dir(path)) || !private(path) {
		return time.Time{}, false
	}
	data, err := capread.ReadNoFollow(path, 1<<20)
	if err != nil {
		return time.Time{}, false
	}
	rest, ok := strings.CutPrefix(string(data), declinedHeader)
	if !ok {
		return time.Time{}, false
	}
	until, saved, ok := strings.Cut(rest, "\n")
	n, err := strconv.ParseInt(until, 10, 64)
	if !ok || err != nil || saved != key {
		return time.Time{}, false
	}
	return time.Unix(0, n), true
}
