// Package capread reads files with a hard cap on size, so that no input can make the
// program allocate without bound. It refuses anything that is not a regular file (a FIFO
// would block, a device would never end). Safe for concurrent use.
package capread

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Caps used across the catalog. Real manifests are a few KiB; the caps leave room for
// large hand-written files while keeping a hostile one from costing memory.
const (
	ManifestMax = 1 << 20  // plugin.json, .claude-plugin/plugin.json, .cursor-plugin/plugin.json
	MCPMax      = 1 << 20  // mcp.json and Claude/Cursor MCP files
	SkillMax    = 1 << 20  // SKILL.md (frontmatter is capped separately by the skill package)
	SettingsMax = 4 << 20  // settings.json, agents, templates
	IndexMax    = 16 << 20 // Cursor's .cloud-plugin-manifest.json
)

// ErrTooLarge is returned when a file is larger than the cap.
var ErrTooLarge = errors.New("file too large")

// ErrNotRegular is returned for folders, FIFOs, devices and sockets.
var ErrNotRegular = errors.New("not a regular file")

// TooLargeError carries the cap that was exceeded.
type TooLargeError struct{ Max int64 }

func (e *TooLargeError) Error() string { return fmt.Sprintf("file is larger than %d bytes", e.Max) }
func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// ReadFile reads path (symlinks followed) when it is a regular file of at most max bytes.
func ReadFile(path string, max int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, ErrNotRegular
	}
	if st.Size() > max {
		return nil, &TooLargeError{Max: max}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Size may have changed since Stat: read at most max+1 to notice growth.
	buf := make([]byte, 0, st.Size()+1)
	r := io.LimitReader(f, max+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if int64(len(buf)) > max {
		return nil, &TooLargeError{Max: max}
	}
	return buf, nil
}

// Describe turns a read error into the words an issue message uses, with the fix.
func Describe(err error) string {
	var tl *TooLargeError
	switch {
	case errors.As(err, &tl):
		return fmt.Sprintf("is larger than the %d-byte limit; shrink it", tl.Max)
	case errors.Is(err, ErrNotRegular):
		return "is not a regular file; replace it with a file"
	case errors.Is(err, os.ErrPermission):
		return "cannot be read (permission denied); make it readable by this user"
	case errors.Is(err, os.ErrNotExist):
		return "does not exist (a dangling symlink?); create it or remove the link"
	default:
		return fmt.Sprintf("cannot be read: %v", err)
	}
}
