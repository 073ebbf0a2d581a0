//go:build desktop

package desktop

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// Notify over a private session bus reaches the notification service (a stand-in, see
// fakeNotifications) with the app's name, the text and the expiry.
func TestNotify(t *testing.T) {
	addr := startBus(t)
	fake := serveNotifications(t, addr)
	conn := dial(t, addr)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	id, err := Notify(ctx, conn, "Plugin no longer valid", "demo failed validation after a change", notifyExpiry)
	if err != nil || id != 1 {
		t.Fatalf("Notify = %d, %v; want id 1", id, err)
	}
	n := fake.wait(t)
	if n.App != "Plugboard" || n.Summary != "Plugin no longer valid" || n.Body != "demo failed validation after a change" {
		t.Errorf("got %+v", n)
	}
	if n.Expire != 6000 || n.Icon != "plugboard" || n.Hints["desktop-entry"].Value() != "plugboard" {
		t.Errorf("expire %d ms, icon %q, hints %v", n.Expire, n.Icon, n.Hints)
	}
}

// The Notifier app.StartLive is given: it finds the session bus from the environment,
// returns at once, and delivers in order.
func TestNotifier(t *testing.T) {
	addr := startBus(t)
	fake := serveNotifications(t, addr)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	var log strings.Builder
	n := NewNotifier(&log)
	defer n.Close()
	start := time.Now()
	n.Notify("Plugin no longer valid", "alpha failed validation after a change; open Plugboard to see why.")
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Errorf("Notify took %v: it must not hold up the reload loop", d)
	}
	if got := fake.wait(t); got.Summary != "Plugin no longer valid" || !strings.HasPrefix(got.Body, "alpha failed") {
		t.Errorf("got %+v", got)
	}
	if log.Len() != 0 {
		t.Errorf("logged %q", log.String())
	}
}

// A session bus with no notification service (a bare window manager without a daemon):
// one line in the log for any number of notifications.
func TestNotifierNoService(t *testing.T) {
	addr := startBus(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	var log syncBuilder
	n := NewNotifier(&log)
	defer n.Close()
	for range 3 {
		n.send("Plugin no longer valid", "demo")
	}
	if got := log.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, "desktop notifications off") {
		t.Errorf("log = %q, want one line", got)
	}
}

type syncBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuilder) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuilder) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
