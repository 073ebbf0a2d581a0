//go:build desktop

package desktop

import (
	"bufio"
	"fmt"
	"github.com/plugboard/plugboard/backend/testhome"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// startBus runs a private session bus (dbus-daemon, as dbus-run-session would) for one
// test and returns its address. Nothing of the machine's own session is touched.
func startBus(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		testhome.CannotRun(t, "dbus-daemon is missing (Debian: dbus-daemon, or dbus)")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	d := exec.Command("dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=3")
	d.ExtraFiles = []*os.File{w}
	var stderr syncBuilder // as root it complains that it may not raise its fd limit
	d.Stderr = &stderr
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() {
		d.Process.Kill()
		d.Wait()
		if t.Failed() && stderr.String() != "" {
			t.Logf("dbus-daemon:\n%s", stderr.String())
		}
	})
	line, err := bufio.NewReader(r).ReadString('\n')
	r.Close()
	if err != nil {
		t.Fatalf("dbus-daemon did not print its address: %v", err)
	}
	return strings.TrimSpace(line)
}

// dial connects to the bus at addr for the test's side of the conversation.
func dial(t *testing.T, addr string) *dbus.Conn {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("connect to %s: %v", addr, err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// own takes a well-known name on conn, as a service does.
func own(t *testing.T, conn *dbus.Conn, name string) {
	t.Helper()
	reply, err := conn.RequestName(name, dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("RequestName(%s) = %v, %v", name, reply, err)
	}
}

func hasOwner(t *testing.T, conn *dbus.Conn, name string) bool {
	t.Helper()
	var ok bool
	if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, name).Store(&ok); err != nil {
		t.Fatal(err)
	}
	return ok
}

// eventually retries check until it returns "" or the time is up, then fails with its
// last complaint.
func eventually(t *testing.T, what string, check func() string) {
	t.Helper()
	var last string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if last = check(); last == "" {
			return
		}
	}
	t.Fatalf("%s: %s", what, last)
}

// The fake notification daemon: a stand-in for GNOME Shell's, dunst or mako, which need a
// desktop session. It implements the one method Plugboard calls, with the signature of
// the Desktop Notifications Specification, and records what it was sent.
type fakeNotifications struct {
	mu    sync.Mutex
	notes []note
	got   chan note
}

type note struct {
	App, Icon, Summary, Body string
	Hints                    map[string]dbus.Variant
	Expire                   int32
}

func (f *fakeNotifications) Notify(app string, replaces uint32, icon, summary, body string, actions []string, hints map[string]dbus.Variant, expire int32) (uint32, *dbus.Error) {
	n := note{App: app, Icon: icon, Summary: summary, Body: body, Hints: hints, Expire: expire}
	f.mu.Lock()
	f.notes = append(f.notes, n)
	id := uint32(len(f.notes))
	f.mu.Unlock()
	select {
	case f.got <- n:
	default:
	}
	return id, nil
}

// serveNotifications puts the fake on the bus at addr under the real service's name.
func serveNotifications(t *testing.T, addr string) *fakeNotifications {
	t.Helper()
	conn := dial(t, addr)
	f := &fakeNotifications{got: make(chan note, 16)}
	if err := conn.Export(f, notifyPath, notifyName); err != nil {
		t.Fatal(err)
	}
	own(t, conn, notifyName)
	return f
}

func (f *fakeNotifications) wait(t *testing.T) note {
	t.Helper()
	select {
	case n := <-f.got:
		return n
	case <-time.After(10 * time.Second):
		t.Fatal("no notification reached the notification service")
	}
	return note{}
}

// helperProcess runs this test binary again as the helper named mode (see
// TestHelperProcess), with exactly env as its environment. systray keeps its state in
// package variables and starts once per process, so every tray scenario gets a process
// of its own.
type helperProcess struct {
	cmd    *exec.Cmd
	stdin  *os.File
	lines  chan string
	stderr *strings.Builder
	mu     sync.Mutex
	done   chan error
}

func startHelper(t *testing.T, mode string, env ...string) *helperProcess {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestHelperProcess$")
	cmd.Env = append([]string{"PLUGBOARD_TEST_HELPER=" + mode}, env...)
	cmd.Dir, _ = os.Getwd() // the helper reads ../../build/appicon.png
	h := &helperProcess{cmd: cmd, lines: make(chan string, 64), stderr: &strings.Builder{}, done: make(chan error, 1)}
	inR, inW, _ := os.Pipe()
	cmd.Stdin, h.stdin = inR, inW
	out, outW, _ := os.Pipe() // not StdoutPipe: Wait would close it under the reader
	cmd.Stdout = outW
	cmd.Stderr = writerFunc(func(p []byte) (int, error) {
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.stderr.Write(p)
	})
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	go func() {
		s := bufio.NewScanner(out)
		for s.Scan() {
			h.lines <- s.Text()
		}
		close(h.lines)
	}()
	go func() { h.done <- cmd.Wait() }()
	t.Cleanup(func() {
		h.stdin.Close()
		cmd.Process.Kill()
		if t.Failed() {
			t.Logf("helper %s stderr:\n%s", mode, h.log())
		}
	})
	return h
}

// expect waits for the helper to print want (other lines are skipped).
func (h *helperProcess) expect(t *testing.T, want string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case line, ok := <-h.lines:
			if !ok {
				t.Fatalf("helper ended before saying %q; stderr:\n%s", want, h.log())
			}
			if line == want {
				return
			}
		case <-timeout:
			t.Fatalf("helper did not say %q within 10 s; stderr:\n%s", want, h.log())
		}
	}
}

func (h *helperProcess) send(t *testing.T, command string) {
	t.Helper()
	if _, err := fmt.Fprintln(h.stdin, command); err != nil {
		t.Fatal(err)
	}
}

// wait waits for the helper to exit and returns its error (nil: exit status 0).
func (h *helperProcess) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-h.done:
		return err
	case <-time.After(15 * time.Second):
		t.Fatalf("helper did not exit; stderr:\n%s", h.log())
	}
	return nil
}

func (h *helperProcess) log() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stderr.String()
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
