package pathsafe

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func mustRoot(t *testing.T) (root, outside string) {
	t.Helper()
	base, err := Root(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root = filepath.Join(base, "plugin")
	outside = filepath.Join(base, "outside")
	for _, d := range []string{root, outside, filepath.Join(root, "bin"), filepath.Join(root, "data")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root, outside
}

func TestResolve(t *testing.T) {
	root, outside := mustRoot(t)
	links := map[string]string{
		"escape":      "../outside",
		"abs-escape":  outside,
		"inner":       "bin",
		"abs-inner":   filepath.Join(root, "data"),
		"loop-a":      "loop-b",
		"loop-b":      "loop-a",
		"dotdot-back": "bin/../data",
		"via-outside": "../outside/../plugin/bin",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		rel     string
		want    string // relative to root; "" when an error is expected
		wantErr error
	}{
		{"./bin/server", "bin/server", nil},
		{"bin", "bin", nil},
		{"./missing/deeper/file", "missing/deeper/file", nil},
		{"./inner/server", "bin/server", nil},
		{"./abs-inner/x", "data/x", nil},
		{"./dotdot-back", "data", nil},
		{"./via-outside/tool", "bin/tool", nil},
		{".", ".", nil},
		{"../outside", "", ErrEscapes},
		{"./bin/../../outside", "", ErrEscapes},
		{"./escape/server", "", ErrEscapes},
		{"./escape/missing/x", "", ErrEscapes},
		{"./abs-escape", "", ErrEscapes},
		{"./loop-a/x", "", ErrLoop},
		{"./nope/../evilcmd", "", ErrMissingParent},
		{"./nope/../../outside/evilcmd", "", ErrMissingParent},
		{"./bin/nope/../../../outside", "", ErrMissingParent},
		{"./bin/../data/new", "data/new", nil},
		{"/etc/passwd", "", ErrAbsolute},
	}
	for _, tc := range tests {
		got, err := Resolve(root, tc.rel)
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("Resolve(root, %q) = %q, %v; want error %v", tc.rel, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("Resolve(root, %q) error %v", tc.rel, err)
			continue
		}
		if want := filepath.Join(root, tc.want); got != want {
			t.Errorf("Resolve(root, %q) = %q, want %q", tc.rel, got, want)
		}
	}
}

func TestResolveUnder(t *testing.T) {
	root, _ := mustRoot(t)
	os.Symlink("../..", filepath.Join(root, "bin", "up"))
	tests := []struct {
		base, rel string
		want      string
		wantErr   error
	}{
		{"bin", "server", "bin/server", nil},
		{"bin", "../data/x", "data/x", nil},
		{"bin", "up/outside", "", ErrEscapes},
		{"bin", "../../x", "", ErrEscapes},
		{"bin", "/abs", "", ErrAbsolute},
	}
	for _, tc := range tests {
		got, err := ResolveUnder(root, filepath.Join(root, tc.base), tc.rel)
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("ResolveUnder(%s, %q) = %q, %v; want %v", tc.base, tc.rel, got, err, tc.wantErr)
			}
			continue
		}
		if want := filepath.Join(root, tc.want); err != nil || got != want {
			t.Errorf("ResolveUnder(%s, %q) = %q, %v; want %q", tc.base, tc.rel, got, err, want)
		}
	}
	if _, err := ResolveUnder(root, filepath.Dir(root), "x"); !errors.Is(err, ErrEscapes) {
		t.Errorf("ResolveUnder with a base outside root = %v, want ErrEscapes", err)
	}
}

func TestWithin(t *testing.T) {
	tests := []struct {
		root, p string
		want    bool
	}{
		{"/a/b", "/a/b", true},
		{"/a/b", "/a/b/c", true},
		{"/a/b", "/a/bc", false},
		{"/a/b", "/a", false},
		{"/", "/x", true},
	}
	for _, tc := range tests {
		if got := Within(tc.root, tc.p); got != tc.want {
			t.Errorf("Within(%q, %q) = %v, want %v", tc.root, tc.p, got, tc.want)
		}
	}
}

func FuzzResolve(f *testing.F) {
	for _, s := range []string{"./a", "../b", "a/../../c", "./escape/x", "./loop/x", "", ".", "a//b/./c"} {
		f.Add(s)
	}
	root, outside := func() (string, string) {
		base, _ := Root(f.TempDir())
		r := filepath.Join(base, "root")
		o := filepath.Join(base, "out")
		os.MkdirAll(filepath.Join(r, "a"), 0o755)
		os.MkdirAll(o, 0o755)
		os.Symlink("../out", filepath.Join(r, "escape"))
		os.Symlink("loop", filepath.Join(r, "loop"))
		return r, o
	}()
	f.Fuzz(func(t *testing.T, rel string) {
		got, err := Resolve(root, rel)
		if err == nil && !Within(root, got) {
			t.Fatalf("Resolve(%q) = %q outside root without error", rel, got)
		}
		if err == nil && Within(outside, got) {
			t.Fatalf("Resolve(%q) = %q reached the outside folder", rel, got)
		}
	})
}

// FuzzResolveAgainstOS compares Resolve with the kernel's own resolver on a real tree
// (made anew for every input): where the system opens root/rel, Resolve gives the same
// folder or ErrEscapes when it is outside; where the path does not exist yet and Resolve
// still answers, creating what it named makes the system open exactly that.
func FuzzResolveAgainstOS(f *testing.F) {
	for _, s := range []string{"./nope/../evil", "./a/../b", "./a/nope/../../b", "./in/x", "./in/../a", "./escape/../a",
		"./up/x", "./loop/x", "./file/x", "a/./b/../c", "./abs", "./escape/new/../x", "./a/b/c/../../d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rel string) {
		if rel == "" || strings.HasPrefix(rel, "/") || strings.ContainsRune(rel, 0) || len(rel) > 200 {
			return
		}
		base, err := Root(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		root, out := filepath.Join(base, "root"), filepath.Join(base, "out")
		for _, d := range []string{filepath.Join(root, "a", "b"), filepath.Join(root, "c"), out} {
			os.MkdirAll(d, 0o755)
		}
		os.WriteFile(filepath.Join(root, "file"), nil, 0o644)
		for link, to := range map[string]string{"in": "a/b", "escape": "../out", "up": "..", "loop": "loop", "abs": filepath.Join(root, "c")} {
			os.Symlink(to, filepath.Join(root, link))
		}
		got, rerr := Resolve(root, rel)
		real, oerr := osResolve(root + "/" + rel)
		switch {
		case oerr == nil && Within(root, real):
			if rerr != nil || got != real {
				t.Fatalf("Resolve(%q) = %q, %v; the system opens %q", rel, got, rerr, real)
			}
		case oerr == nil:
			if !errors.Is(rerr, ErrEscapes) {
				t.Fatalf("Resolve(%q) = %q, %v; the system opens %q, outside the root", rel, got, rerr, real)
			}
		case rerr == nil && Within(root, got):
			if err := os.MkdirAll(got, 0o755); err != nil {
				return // a file where a folder would go: no place to create it
			}
			if real, err := osResolve(root + "/" + rel); err != nil || real != got {
				t.Fatalf("Resolve(%q) = %q for a path not there yet; once made, the system opens %q (%v)", rel, got, real, err)
			}
		case rerr == nil:
			t.Fatalf("Resolve(%q) = %q outside the root without error", rel, got)
		}
	})
}

// osResolve opens p with the kernel's resolver and returns the folder or file it reached.
func osResolve(p string) (string, error) {
	fd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	return os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
}
