package app

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/installed"
	"github.com/plugboard/plugboard/backend/testhome"
)

// events records the events a Service emits, and hands each name to a waiter.
type events struct {
	mu  sync.Mutex
	got []string
	ch  chan string
}

func newEvents() *events { return &events{ch: make(chan string, 1024)} }

func (e *events) emit(name string, _ any) {
	e.mu.Lock()
	e.got = append(e.got, name)
	e.mu.Unlock()
	e.ch <- name
}

// wait returns once the event name has been emitted, failing the test after a minute.
func (e *events) wait(t *testing.T, name string) {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case n := <-e.ch:
			if n == name {
				return
			}
		case <-timeout:
			t.Fatalf("no %s event in a minute", name)
		}
	}
}

// With claude on the app's PATH, every scan is followed by the asking: progress events,
// then clients:answered, and ClientAnswers holds the installed claude's answer about each
// package, beside the model's verdict judged by the same release. A second scan of the
// same packages answers from the database.
func TestServiceAsksInstalledClients(t *testing.T) {
	bin := testhome.AgentBin(t, testhome.ClaudeNewest)
	pathDir := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(pathDir, "claude")); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	pb := filepath.Join(home, ".plugboard")
	testhome.WriteFile(t, filepath.Join(pb, "plugins", "greeter", ".claude-plugin", "plugin.json"), `{"name": "greeter"}`)
	testhome.WriteFile(t, filepath.Join(pb, "plugins", "greeter", "skills", "hello", "SKILL.md"), "---\nname: hello\ndescription: Says hello.\n---\n")
	testhome.WriteFile(t, filepath.Join(pb, "plugins", "empty", "README.md"), "nothing Claude loads\n")
	ev := newEvents()
	s := NewService(home, pb, ev.emit)
	s.getenv = func(k string) string { return map[string]string{"PATH": pathDir}[k] }
	defer s.Close()

	c, err := s.Rescan()
	if err != nil {
		t.Fatal(err)
	}
	if j := c.Plugins[0].Clients.Claude.JudgedBy; j != "model of claude 2.1.328, claude 2.1.328 installed" {
		t.Errorf("judgedBy = %q", j)
	}
	ev.wait(t, EventClientsAnswered)
	st, err := s.ClientAnswers()
	if err != nil {
		t.Fatal(err)
	}
	if st.Seq != c.Seq || st.Asking != nil || len(st.Answers) != 2 || st.Error != "" {
		t.Fatalf("state after asking: %+v", st)
	}
	if !slices.ContainsFunc(st.Clients, func(cl installed.Client) bool { return cl.Name == "claude" && cl.Found && cl.Version == "2.1.328" }) {
		t.Errorf("clients: %+v", st.Clients)
	}
	for _, r := range st.Answers {
		if r.Answer == nil || len(r.Differs) != 0 || r.Cached {
			t.Errorf("%s: %+v %+v", r.Plugin, r, r.Answer)
		}
	}
	ev.mu.Lock()
	progress := slices.Index(ev.got, EventClientsProgress)
	ev.mu.Unlock()
	if progress < 0 {
		t.Errorf("no clients:progress before clients:answered: %v", ev.got)
	}

	if _, err := s.Rescan(); err != nil {
		t.Fatal(err)
	}
	ev.wait(t, EventClientsAnswered)
	st, _ = s.ClientAnswers()
	if len(st.Answers) != 2 || !st.Answers[0].Cached || !st.Answers[1].Cached {
		t.Errorf("the second scan asked again: %+v", st.Answers)
	}
}

// A client that is slow to answer never holds a scan back (issue 33): with a claude that
// waits, before it answers anything, until the test lets it, Rescan returns the catalog,
// ClientAnswers says the asking is under way, a second Rescan returns too (the first
// asking is dropped for the new one), and once the client may answer the asking ends.
// No time is measured: a scan that waited on the client would never return here.
func TestScanNotBlockedBySlowClient(t *testing.T) {
	real := testhome.AgentBin(t, testhome.ClaudeNewest)
	dir := t.TempDir()
	started, release := filepath.Join(dir, "started"), filepath.Join(dir, "release")
	pathDir := t.TempDir()
	script := "#!/bin/sh\nif [ \"$1\" = --version ]; then exec '" + real + "' --version; fi\n" +
		"touch '" + started + "'\nwhile [ ! -e '" + release + "' ]; do sleep 0.05; done\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(pathDir, "claude"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	pb := filepath.Join(home, ".plugboard")
	testhome.WriteFile(t, filepath.Join(pb, "plugins", "greeter", ".claude-plugin", "plugin.json"), `{"name": "greeter"}`)
	testhome.WriteFile(t, filepath.Join(pb, "plugins", "greeter", "skills", "hello", "SKILL.md"), "---\nname: hello\ndescription: Says hello.\n---\n")
	ev := newEvents()
	s := NewService(home, pb, ev.emit)
	s.getenv = func(k string) string { return map[string]string{"PATH": pathDir}[k] }
	defer s.Close()
	t.Cleanup(func() { _ = os.WriteFile(release, nil, 0o644) }) // a failed test does not leave the client waiting

	c, err := s.Rescan()
	if err != nil || len(c.Plugins) != 1 {
		t.Fatalf("Rescan = %v, %v", c, err)
	}
	for { // the client has been started and is waiting
		if _, err := os.Stat(started); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if st, _ := s.ClientAnswers(); st.Asking == nil || st.Asking.Client != "claude" {
		t.Fatalf("while claude waits, ClientAnswers = %+v; want the asking under way", st)
	}
	testhome.WriteFile(t, filepath.Join(pb, "plugins", "greeter", "skills", "bye", "SKILL.md"), "---\nname: bye\ndescription: Says bye.\n---\n")
	c2, err := s.Rescan()
	if err != nil || c2.Seq == c.Seq || c2.Summary.Skills != c.Summary.Skills+1 {
		t.Fatalf("the second Rescan while claude waits = %+v, %v", c2.Summary, err)
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ev.wait(t, EventClientsAnswered)
	st, _ := s.ClientAnswers()
	for st.Seq != c2.Seq || st.Asking != nil { // the first asking's end may come first
		ev.wait(t, EventClientsAnswered)
		st, _ = s.ClientAnswers()
	}
	if len(st.Answers) != 1 || st.Answers[0].Answer == nil || len(st.Answers[0].Answer.Skills) != 2 {
		t.Fatalf("answers about the second scan: %+v", st.Answers)
	}
}
