// Package autostart keeps Plugboard's XDG autostart entry: a desktop entry in
// $XDG_CONFIG_HOME/autostart (default ~/.config/autostart) that starts the app at login,
// in the tray (--hidden). Only an entry this package wrote (it carries X-Plugboard-Autostart)
// is ever replaced or removed.
package autostart

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// FileName is the entry's name, the application's id.
const FileName = "org.plugboard.Plugboard.desktop"

const marker = "X-Plugboard-Autostart=true"

// ErrNotOurs: a file of that name exists that Plugboard did not write; it is left alone.
var ErrNotOurs = errors.New("an autostart entry Plugboard did not write is in the way")

// Path is where the entry lives for a user whose home is home; getenv reads
// XDG_CONFIG_HOME.
func Path(home string, getenv func(string) string) string {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "autostart", FileName)
}

// Enabled reports whether the entry at path is Plugboard's and on.
func Enabled(path string) bool {
	b, err := os.ReadFile(path)
	return err == nil && strings.Contains(string(b), marker) && !strings.Contains(string(b), "\nHidden=true")
}

// Entry is the desktop entry that starts exe in the tray.
func Entry(exe string) string {
	return "[Desktop Entry]\nType=Application\nName=Plugboard\nComment=Start Plugboard in the tray at login\n" +
		"Exec=" + execQuote(exe) + " --hidden\nIcon=plugboard\nTerminal=false\nX-GNOME-Autostart-enabled=true\n" + marker + "\n"
}

// Enable writes the entry for exe at path, atomically; an entry there that Plugboard did
// not write is ErrNotOurs.
func Enable(path, exe string) error {
	if err := ours(path); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".plugboard-autostart-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(Entry(exe)); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Disable removes Plugboard's entry at path (none there is no error).
func Disable(path string) error {
	if err := ours(path); err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

func ours(path string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !strings.Contains(string(b), marker) {
		return fmt.Errorf("%w: %s; remove it yourself to let Plugboard manage it", ErrNotOurs, path)
	}
	return nil
}

// execQuote quotes a program path for a desktop entry's Exec key: in double quotes when
// it holds anything but plain path characters, with ", `, $ and \ escaped.
func execQuote(p string) string {
	if strings.IndexFunc(p, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+", r))
	}) < 0 {
		return p
	}
	return `"` + strings.NewReplacer(`\`, `\\\\`, `"`, `\\"`, "`", "\\\\`", "$", `\\$`).Replace(p) + `"`
}
