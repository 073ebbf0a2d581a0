package installed

import (
	"context"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// The clients Find looks for, by the name Plugboard gives each, in the order it returns
// them.
const (
	Claude      = "claude"
	Codex       = "codex"
	PI          = "pi"
	CursorAgent = "cursor-agent"
)

// How a version was learned (Client.From), most trusted first.
const (
	// FromPackageJSON: the "version" of the npm package the executable belongs to.
	FromPackageJSON = "package.json"
	// FromCodexPackageJSON: the "version" of the codex-package.json that Codex's own
	// packages (npm platform packages, release archives) carry beside bin/codex.
	FromCodexPackageJSON = "codex-package.json"
	// FromInstallFolder: the name of the versioned folder the installer put it in.
	FromInstallFolder = "install folder"
	// FromVersionFlag: the first version-shaped word the executable printed for --version.
	FromVersionFlag = "--version"
)

// Client is one agent client as found on this machine: what a verdict about that client
// is judged against.
type Client struct {
	// Name is the client: claude, codex, pi or cursor-agent.
	Name string `json:"name"`
	// Found is true when an executable of the client was found.
	Found bool `json:"found"`
	// Path is the executable as found: in a PATH folder, or in a known install place.
	Path string `json:"path,omitempty"`
	// OnPath is true when Path was found through PATH (a shell, and a launch, run it);
	// false for a known install place the PATH given to Find does not reach.
	OnPath bool `json:"onPath"`
	// Target is where Path leads with every symbolic link followed.
	Target string `json:"target,omitempty"`
	// Version is the client's version ("2.1.328"); "" when it could not be learned.
	Version string `json:"version,omitempty"`
	// From says how Version was learned (the From… constants).
	From string `json:"from,omitempty"`
	// Problem says, in a sentence, why a found client's version is unknown.
	Problem string `json:"problem,omitempty"`
}

// String is the client as a verdict names what it was judged against: "claude 2.1.328
// installed", "codex installed, version unknown", "pi not installed".
func (c Client) String() string {
	switch {
	case !c.Found:
		return c.Name + " not installed"
	case c.Version == "":
		return c.Name + " installed, version unknown"
	}
	return c.Name + " " + c.Version + " installed"
}

// Find looks for each client and learns its version, taking PATH and HOME from env (in
// os.Environ form; the last of a name counts). It returns one Client per client, always
// in the order claude, codex, pi, cursor-agent. ctx bounds the --version runs (each is
// also bounded by VersionTimeout); a run the caller's ctx cut short is not remembered.
func Find(ctx context.Context, env []string) []Client {
	e := environ{path: lastValue(env, "PATH"), home: lastValue(env, "HOME")}
	out := make([]Client, len(specs))
	for i := range specs {
		out[i] = specs[i].find(ctx, e)
	}
	return out
}

// environ is what Find reads from its env.
type environ struct{ path, home string }

func lastValue(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

// candidate is a place an executable of a client may be.
type candidate struct {
	path   string
	onPath bool
	own    bool // the name is the client's own (see spec.borrowed)
}

// candidates are the places to look, in order: every executable name in every PATH
// folder, then the known install places under HOME. A relative PATH entry (or an empty
// one, which means the working folder) is passed over, as exec.LookPath refuses what it
// finds there: what it names depends on where Plugboard happens to run.
func (s *spec) candidates(e environ) []candidate {
	var out []candidate
	for _, name := range s.exes {
		for _, dir := range filepath.SplitList(e.path) {
			if filepath.IsAbs(dir) {
				out = append(out, candidate{filepath.Join(dir, name), true, name != s.borrowed})
			}
		}
	}
	if filepath.IsAbs(e.home) {
		for _, rel := range s.homes {
			out = append(out, candidate{filepath.Join(e.home, rel), false, filepath.Base(rel) != s.borrowed})
		}
	}
	return out
}

// find returns the client as the first of its candidates that is an executable shows it;
// one that is not found, or a borrowed name that leads elsewhere, is passed over.
func (s *spec) find(ctx context.Context, e environ) Client {
	for _, c := range s.candidates(e) {
		f, ok := executable(c.path)
		if !ok {
			continue
		}
		l, ok := cached(c.path, f)
		if !ok {
			var cancelled bool
			l, cancelled = s.learn(ctx, c, e)
			if !cancelled {
				remember(c.path, f, l)
			}
		}
		if l.notOurs {
			continue
		}
		return Client{Name: s.name, Found: true, Path: c.path, OnPath: c.onPath, Target: l.target,
			Version: l.version, From: l.from, Problem: l.problem}
	}
	return Client{Name: s.name}
}

// facts are what moves whenever a file is replaced or written: its identity, size, and
// modification and status-change times. The status-change time is set by the kernel on
// every write, chmod, rename or link and no call can set it back; installers replace
// files (a new inode) or re-point links, and either changes the facts of the file a
// path leads to.
type facts struct {
	dev, ino           uint64
	size, mtime, ctime int64
}

// statFacts stats path, following links; ok is false when there is nothing there.
func statFacts(path string) (facts, uint32, bool) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return facts{}, 0, false
	}
	return facts{uint64(st.Dev), uint64(st.Ino), st.Size, st.Mtim.Nano(), st.Ctim.Nano()}, st.Mode, true
}

// executable returns the facts of path when it leads to a regular file someone may run.
func executable(path string) (facts, bool) {
	f, mode, ok := statFacts(path)
	return f, ok && mode&unix.S_IFMT == unix.S_IFREG && mode&0o111 != 0
}

// learned is what one look at a candidate found, as the cache keeps it.
type learned struct {
	target, version, from, problem string
	// notOurs: a borrowed name (Cursor's "agent") that leads elsewhere.
	notOurs bool
	// evidence is the file the version was read from when it is not the executable
	// itself (a package.json), with its facts then: a launcher script that stays as it
	// is while the package beside it is updated must not keep the old version.
	evidence      string
	evidenceFacts facts
}

// The cache: per executable path, the facts of the file it led to and what was learned
// from it. One entry per path, so it never holds more than the places looked at.
var cache = struct {
	sync.Mutex
	m map[string]cacheEntry
}{m: map[string]cacheEntry{}}

type cacheEntry struct {
	facts
	learned
}

// cached returns what was learned from path when the file it leads to, and the file the
// version was read from, are as they were.
func cached(path string, f facts) (learned, bool) {
	cache.Lock()
	c, ok := cache.m[path]
	cache.Unlock()
	if !ok || c.facts != f {
		return learned{}, false
	}
	if c.evidence != "" {
		if ef, _, ok := statFacts(c.evidence); !ok || ef != c.evidenceFacts {
			return learned{}, false
		}
	}
	return c.learned, true
}

func remember(path string, f facts, l learned) {
	cache.Lock()
	cache.m[path] = cacheEntry{f, l}
	cache.Unlock()
}

// forget empties the cache (tests and the cold benchmark).
func forget() {
	cache.Lock()
	clear(cache.m)
	cache.Unlock()
}

// learn looks at one candidate that is an executable: where it leads, and its version
// from the first source that gives one (install folder, package.json or
// codex-package.json, a launcher's own node_modules, and last --version). cancelled is
// true when the caller's ctx cut a --version run short.
func (s *spec) learn(ctx context.Context, c candidate, e environ) (l learned, cancelled bool) {
	l.target = c.path
	if t, err := filepath.EvalSymlinks(c.path); err == nil {
		l.target = t
	}
	if v := s.folderVersion(l.target); v != "" {
		l.version, l.from = v, FromInstallFolder
		return l, false
	}
	if !c.own {
		l.notOurs = true
		return l, false
	}
	if v, from, file, f := s.packageVersion(l.target); v != "" {
		l.version, l.from, l.evidence, l.evidenceFacts = v, from, file, f
		return l, false
	}
	v, problem, cancelled := askVersion(ctx, c.path, e)
	if v != "" {
		l.version, l.from = v, FromVersionFlag
	}
	l.problem = problem
	return l, cancelled
}
