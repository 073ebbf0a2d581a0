//go:build desktop

package desktop

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// The freedesktop.org notification service, as every Linux desktop provides it (GNOME
// Shell, KDE Plasma, dunst, mako, xfce4-notifyd).
const (
	notifyName   = "org.freedesktop.Notifications"
	notifyPath   = dbus.ObjectPath("/org/freedesktop/Notifications")
	notifyMethod = notifyName + ".Notify"
)

// notifyExpiry is how long a notification stays up: long enough to read two lines, short
// enough that a burst of saves does not pile them up.
const notifyExpiry = 6 * time.Second

// notifyTimeout bounds one call: a wedged notification daemon must not hold up reloading.
const notifyTimeout = 3 * time.Second

// Notify shows one desktop notification over conn and returns its id. The icon and the
// desktop-entry hint name the installed plugboard icon and plugboard.desktop (make
// install), so the desktop can group Plugboard's notifications under the app.
func Notify(ctx context.Context, conn *dbus.Conn, summary, body string, expire time.Duration) (uint32, error) {
	hints := map[string]dbus.Variant{
		"desktop-entry": dbus.MakeVariant("plugboard"),
		"urgency":       dbus.MakeVariant(byte(1)), // normal
	}
	var id uint32
	// Notify(app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout):
	// a new notification (replaces_id 0) with no actions, as the window is where to look.
	err := conn.Object(notifyName, notifyPath).CallWithContext(ctx, notifyMethod, 0,
		"Plugboard", uint32(0), "plugboard", summary, body, []string{}, hints,
		int32(expire/time.Millisecond),
	).Store(&id)
	return id, err
}

// Notifier sends desktop notifications on its own session bus connection (systray closes
// the shared one when the tray stops). It connects on the first notification, not at
// start-up, so a session that never needs one never connects. Without a session bus or a
// notification daemon it logs once and drops notifications: they repeat what the window
// and the tray already show.
type Notifier struct {
	log  io.Writer
	dial func() (*dbus.Conn, error)

	mu     sync.Mutex // one notification at a time, in order
	conn   *dbus.Conn
	warned bool
	closed bool
}

// NewNotifier makes a Notifier for the session bus of DBUS_SESSION_BUS_ADDRESS.
func NewNotifier(log io.Writer) *Notifier {
	return &Notifier{log: log, dial: func() (*dbus.Conn, error) { return dbus.ConnectSessionBus() }}
}

// Notify shows a notification in the background and returns at once: it is an
// app.Notifier, called from the reload loop, which must not wait on the bus.
func (n *Notifier) Notify(summary, body string) {
	go n.send(summary, body)
}

func (n *Notifier) send(summary, body string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return
	}
	if n.conn == nil {
		conn, err := n.dial()
		if err != nil {
			n.warn("no D-Bus session bus (%v)", err)
			return
		}
		n.conn = conn
	}
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	defer cancel()
	if _, err := Notify(ctx, n.conn, summary, body, notifyExpiry); err != nil {
		n.warn("%v", err)
		if !n.conn.Connected() {
			n.conn.Close()
			n.conn = nil // the bus went away; dial again next time
		}
	}
}

// warn logs the first failure only: every later notification would fail the same way.
func (n *Notifier) warn(format string, args ...any) {
	if !n.warned {
		n.warned = true
		fmt.Fprintf(n.log, "plugboard: desktop notifications off: "+format+"\n", args...)
	}
}

// Close drops the connection; later notifications are ignored.
func (n *Notifier) Close() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.closed = true
	if n.conn != nil {
		n.conn.Close()
		n.conn = nil
	}
}
