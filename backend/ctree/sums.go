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
// Sums is safe for concurrent use. Its file holds one line per file; a file that cannot
// be read or parsed is an empty Sums (it is a cache: the worst it costs is a reading).
type Sums struct {
	mu    sync.Mutex
	m     map[sumKey]sumVal
	order []sumKey // oldest first, for maxSums
	since int64    // ns: files with a time after this are not remembered
	dirty bool
	hits  int
}

type sumKey struct{ dev, ino uint64 }

type sumVal struct {
	size, mtime, ctime int64
	mode               uint32
	sum                string
}

const (
	sumsHeader = "plugboard-sums 1"
	// maxSums bounds the file: past it the oldest entries go, down to three quarters.
	maxSums    = 50_000
	racyWindow = 3 * time.Second
)

// NewSums returns an empty Sums that remembers files last changed before now - 3 s.
func NewSums() *Sums {
	return &Sums{m: map[sumKey]sumVal{}, since: time.Now().Add(-racyWindow).UnixNano()}
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
	return sumKey{n[0], n[1]}, sumVal{size: int64(n[2]), mtime: int64(n[3]), ctime: int64(n[4]), mode: uint32(n[5]), sum: f[6]}, true
}

// Save writes s to path (atomically, private) when it learned something since it was
// loaded; otherwise it writes nothing.
func (s *Sums) Save(path string) error {
	s.mu.Lock()
	if !s.dirty {
		s.mu.Unlock()
		return nil
	}
	var b bytes.Buffer
	b.WriteString(sumsHeader + "\n")
	for _, k := range s.order {
		v := s.m[k]
		fmt.Fprintf(&b, "%d %d %d %d %d %d %s\n", k.dev, k.ino, v.size, v.mtime, v.ctime, v.mode, v.sum)
	}
	s.dirty = false
	s.mu.Unlock()
	return jsonfile.WriteAtomic(path, b.Bytes(), 0o600)
}

// Forget empties s and removes its file at path: a hash it gave did not match the
// content read after it (or the file was edited meanwhile), so none is trusted.
func (s *Sums) Forget(path string) {
	s.mu.Lock()
	s.m, s.order, s.dirty = map[sumKey]sumVal{}, nil, false
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
	v, ok := s.m[sumKey{uint64(st.Dev), st.Ino}]
	if !ok || v.size != st.Size || v.mtime != st.Mtim.Nano() || v.ctime != st.Ctim.Nano() || v.mode != st.Mode {
		return "", false
	}
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
	v := sumVal{size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), mode: st.Mode, sum: sum}
	if old, ok := s.m[k]; ok {
		if old == v {
			return
		}
	} else {
		s.order = append(s.order, k)
	}
	s.m[k] = v
	s.dirty = true
	if len(s.order) > maxSums {
		drop := len(s.order) - maxSums*3/4
		for _, old := range s.order[:drop] {
			delete(s.m, old)
		}
		s.order = append(s.order[:0], s.order[drop:]...)
	}
}
