package ctree

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/backend/jsonfile"
)

// Sums remembers the content hashes of files by inode, with the facts that move whenever
// the content does: size, modification and status-change times and mode. A walk given
// Sums (Options.Sums) takes the hash of a file whose facts are all as remembered from
// here, without opening or reading it, so a walk of a tree that did not change reads no
// file: what an unchanged launch needs (issue 16, goal 5). The status-change time is
// set by the kernel on every write, chmod, rename or touch and no call can set it back.
//
// A file whose times are less than racyWindow older than the Sums' start is hashed but
// not remembered, as git's index does for "racily clean" entries: a second write within
// the file system's timestamp granularity could leave every fact as it was.
//
// Sums is safe for concurrent use. Its file holds one line per file, and Save keeps
// only the files this Sums was asked about, so a file kept for one launch set holds that
// set's files and no more: an edited file's old inode, or a skill taken out of the set,
// is gone after the next launch. A file that cannot be read or parsed is an empty Sums
// (it is a cache: the worst it costs is a reading).
type Sums struct {
	mu      sync.Mutex
	m       map[sumKey]sumVal
	order   []sumKey        // as loaded or learned, for a stable file
	used    map[sumKey]bool // asked about since loaded
	since   int64           // ns: files with a time after this are not remembered
	learned bool            // a hash was stored
	hits    int
}

type sumKey struct{ dev, ino uint64 }

type sumVal struct {
	facts
	sum string
}

// facts are what moves whenever a file's content does.
type facts struct {
	size, mtime, ctime int64
	mode               uint32
}

func factsOf(st *unix.Stat_t) facts {
	return facts{size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), mode: st.Mode}
}

const (
	sumsHeader = "plugboard-sums 1"
	racyWindow = 3 * time.Second
)

// NewSums returns an empty Sums that remembers files last changed before now - 3 s.
func NewSums() *Sums {
	return &Sums{m: map[sumKey]sumVal{}, used: map[sumKey]bool{}, since: time.Now().Add(-racyWindow).UnixNano()}
}

// LoadSums reads the Sums saved at path; a missing, unreadable or malformed file gives
// an empty one.
func LoadSums(path string) *Sums {
	s := NewSums()
	data, err := capread.ReadNoFollow(path, 16<<20)
	if err != nil {
		return s
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	if !sc.Scan() || sc.Text() != sumsHeader {
		return s
	}
	for sc.Scan() {
		k, v, ok := parseSum(sc.Text())
		if !ok {
			return NewSums()
		}
		if _, seen := s.m[k]; !seen {
			s.order = append(s.order, k)
		}
		s.m[k] = v
	}
	return s
}

func parseSum(line string) (sumKey, sumVal, bool) {
	f := strings.Fields(line)
	if len(f) != 7 || len(f[6]) != 64 {
		return sumKey{}, sumVal{}, false
	}
	var n [6]uint64
	for i := range n {
		x, err := strconv.ParseUint(f[i], 10, 64)
		if err != nil {
			return sumKey{}, sumVal{}, false
		}
		n[i] = x
	}
	return sumKey{n[0], n[1]}, sumVal{facts{size: int64(n[2]), mtime: int64(n[3]), ctime: int64(n[4]), mode: uint32(n[5])}, f[6]}, true
}

// Save writes to path (atomically, private) the files s was asked about since it was
// loaded, when that differs from what it loaded: it learned a hash, or a file it holds
// was not asked about (gone from the launch set, or an edited file's old inode).
// Otherwise it writes nothing.
func (s *Sums) Save(path string) error {
	s.mu.Lock()
	if !s.changed() {
		s.mu.Unlock()
		return nil
	}
	var b bytes.Buffer
	b.WriteString(sumsHeader + "\n")
	for _, k := range s.order {
		if v, ok := s.m[k]; ok && s.used[k] {
			fmt.Fprintf(&b, "%d %d %d %d %d %d %s\n", k.dev, k.ino, v.size, v.mtime, v.ctime, v.mode, v.sum)
		}
	}
	s.learned = false
	s.mu.Unlock()
	return jsonfile.WriteAtomic(path, b.Bytes(), 0o600)
}

// Changed says whether Save would write.
func (s *Sums) Changed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed()
}

func (s *Sums) changed() bool { return s.learned || len(s.used) != len(s.m) }

// Forget empties s and removes its file at path: a hash it gave did not match the
// content read after it (or the file was edited meanwhile), so none is trusted.
func (s *Sums) Forget(path string) {
	s.mu.Lock()
	s.m, s.order, s.used, s.learned = map[sumKey]sumVal{}, nil, map[sumKey]bool{}, false
	s.mu.Unlock()
	_ = os.Remove(path)
}

// Hits is how many hashes s gave instead of a reading.
func (s *Sums) Hits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits
}

// lookup gives the remembered hash of the file st describes, when every fact matches.
func (s *Sums) lookup(st *unix.Stat_t) (string, bool) {
	if s == nil {
		return "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := sumKey{uint64(st.Dev), st.Ino}
	v, ok := s.m[k]
	if !ok || v.facts != factsOf(st) {
		return "", false
	}
	s.used[k] = true
	s.hits++
	return v.sum, true
}

// store remembers sum for the file st describes (stat before it was read), unless its
// times are too recent to trust.
func (s *Sums) store(st *unix.Stat_t, sum string) {
	if s == nil || st.Mtim.Nano() > s.since || st.Ctim.Nano() > s.since {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := sumKey{uint64(st.Dev), st.Ino}
	v := sumVal{factsOf(st), sum}
	s.used[k] = true
	if old, ok := s.m[k]; ok {
		if old == v {
			return
		}
	} else {
		s.order = append(s.order, k)
	}
	s.m[k] = v
	s.learned = true
}
