package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// OpenFolder takes only an existing folder, absolute or relative to an absolute working
// folder, and nothing a process on the bus could slip in: control characters, a file, a
// relative path with no working folder, an over-long path.
func TestOpenFolder(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "plugin")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		arg, wd, want string
	}{
		{dir, "", dir},
		{"plugin", root, dir},
		{dir + "/../plugin/.", "", dir},
		{"plugin", "", ""},
		{"plugin", "relative", ""},
		{file, "", ""},
		{filepath.Join(root, "missing"), "", ""},
		{dir + "\n--flag", "", ""},
		{"", root, ""},
		{"/" + strings.Repeat("a", 5000), "", ""},
	} {
		got, err := OpenFolder(c.arg, c.wd)
		if got != c.want || (err == nil) != (c.want != "") {
			t.Errorf("OpenFolder(%q, %q) = %q, %v; want %q", c.arg, c.wd, got, err, c.want)
		}
	}
}

// A folder the app is asked to open is told to the page once: TakeOpen returns it, then
// nothing, so a page that loads later does not open it again.
func TestTakeOpenOnce(t *testing.T) {
	var events []string
	s := NewService(t.TempDir(), t.TempDir(), func(name string, _ any) { events = append(events, name) })
	s.RequestOpen("/some/folder")
	if r, _ := s.TakeOpen(); r.Dir != "/some/folder" || len(events) != 1 || events[0] != EventOpen {
		t.Fatalf("TakeOpen = %+v, events %v", r, events)
	}
	if r, _ := s.TakeOpen(); r.Dir != "" {
		t.Errorf("a second TakeOpen = %+v", r)
	}
}

// FirstRun is true once per Plugboard home, however many starts ask at once.
func TestFirstRunOnce(t *testing.T) {
	pb := filepath.Join(t.TempDir(), ".plugboard")
	results := make(chan bool, 8)
	for i := 0; i < 8; i++ {
		go func() { results <- FirstRun(pb) }()
	}
	n := 0
	for i := 0; i < 8; i++ {
		if <-results {
			n++
		}
	}
	if n != 1 || FirstRun(pb) {
		t.Errorf("FirstRun was true %d times (want 1), and again after", n)
	}
}
