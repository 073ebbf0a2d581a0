//go:build desktop

package desktop

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/wailsapp/wails/v2/pkg/options"
)

// One window per Plugboard home (issue 17). Wails' single-instance lock owns a name on the
// session bus; a second start of the same home finds the name taken, sends its arguments
// and working folder to the owner and exits. Plugboard makes that hand-over itself first
// (handOver), in the same message Wails' owner side reads, so that the second start can
// say what it did and exit 0; Wails' own check then only runs in the first start.

// instanceID is the single-instance id of the Plugboard home pbHome.
func instanceID(pbHome string) string {
	abs, err := filepath.Abs(pbHome)
	if err != nil {
		abs = pbHome
	}
	sum := sha256.Sum256([]byte(filepath.Clean(abs)))
	return "plugboard-" + hex.EncodeToString(sum[:8])
}

// busName and busPath are where Wails v2.16's Linux single-instance lock for id listens.
func busName(id string) (string, dbus.ObjectPath) {
	w := "wails_app_" + strings.NewReplacer("-", "_", ".", "_").Replace(id)
	return "org." + w + ".SingleInstance", dbus.ObjectPath("/org/" + w + "/SingleInstance")
}

// handOver sends args to the running window of id and reports whether one took them.
// No session bus, or nobody owning the name: false, and this start opens the window.
func handOver(id string, args []string) bool {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return false
	}
	defer conn.Close()
	name, path := busName(id)
	var owned bool
	if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, name).Store(&owned); err != nil || !owned {
		return false
	}
	wd, _ := os.Getwd()
	msg, err := json.Marshal(options.SecondInstanceData{Args: args, WorkingDirectory: wd})
	if err != nil {
		return false
	}
	return conn.Object(name, path).Call(name+".SendMessage", 0, string(msg)).Err == nil
}
