package settings

import (
	"path/filepath"
	"strings"

	"github.com/plugboard/plugboard/backend/pathsafe"
)

// ExpandHome turns "~" and "~/x" into the home folder and home/x; other paths are
// returned cleaned. Settings paths are absolute or start with ~/.
func ExpandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return filepath.Clean(p)
}

// NamesFolder reports whether the settings entry names the folder resolved (the output
// of pathsafe.Root), once both are resolved through symlinks.
func NamesFolder(entry, resolved, home string) bool {
	got, err := pathsafe.Root(ExpandHome(entry, home))
	return err == nil && got == resolved
}

// Trusts reports whether the workspace ws is one of the trusted workspaces.
func (s Settings) Trusts(ws, home string) bool {
	want, err := pathsafe.Root(ws)
	if err != nil {
		return false
	}
	for _, t := range s.TrustedWorkspaces {
		if NamesFolder(t, want, home) {
			return true
		}
	}
	return false
}
