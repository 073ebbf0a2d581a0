// Package version says which Plugboard this is: the version the build was given (make
// sets it from `git describe`), else the commit Go recorded, the build date, the Go
// version, and the Wails version of the window program (read from its build
// information, since the command line does not link Wails).
package version

import (
	"debug/buildinfo"
	"runtime"
	"runtime/debug"
	"strings"
)

// Set by the build (make: -ldflags "-X github.com/plugboard/plugboard/backend/version.Version=...").
var (
	Version   = ""
	Commit    = ""
	BuildDate = ""
)

// Info is what plugboard version --json prints.
type Info struct {
	Version   string `json:"version"`             // a git tag or description ("v0.3.0", "v0.3.0-4-gabc1234"), else the commit, else "devel"
	Commit    string `json:"commit,omitempty"`    // the full commit the build was made from
	Modified  bool   `json:"modified,omitempty"`  // built from a working tree with changes
	BuildDate string `json:"buildDate,omitempty"` // RFC 3339; else the commit's time
	Go        string `json:"go"`
	Wails     string `json:"wails,omitempty"` // of the window program; "" when there is none
	Window    string `json:"window,omitempty"`
}

// Get describes this build; window is the window program's path ("" for none, or when
// this program is the window itself).
func Get(window string) Info {
	in := Info{Version: Version, Commit: Commit, BuildDate: BuildDate, Go: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		fill(&in, bi)
	}
	if window != "" {
		if bi, err := buildinfo.ReadFile(window); err == nil {
			in.Window = window
			in.Wails = wails(bi)
		}
	}
	if in.Version == "" {
		in.Version = "devel"
		if in.Commit != "" {
			in.Version = in.Commit[:min(12, len(in.Commit))]
			if in.Modified {
				in.Version += "-dirty"
			}
		}
	}
	return in
}

func fill(in *Info, bi *debug.BuildInfo) {
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			if in.Commit == "" {
				in.Commit = s.Value
			}
		case "vcs.modified":
			in.Modified = s.Value == "true"
		case "vcs.time":
			if in.BuildDate == "" {
				in.BuildDate = s.Value
			}
		}
	}
	if w := wails(bi); w != "" {
		in.Wails = w
	}
}

func wails(bi *debug.BuildInfo) string {
	for _, d := range bi.Deps {
		if strings.HasPrefix(d.Path, "github.com/wailsapp/wails/") {
			return d.Version
		}
	}
	return ""
}

// String is the one line plugboard --version prints.
func (in Info) String() string {
	s := "plugboard " + in.Version
	if in.Commit != "" && !strings.HasPrefix(in.Commit, strings.TrimSuffix(in.Version, "-dirty")) {
		s += " (" + in.Commit[:min(12, len(in.Commit))] + ")"
	}
	if in.BuildDate != "" {
		s += ", built " + in.BuildDate
	}
	s += ", " + in.Go
	if in.Wails != "" {
		s += ", Wails " + in.Wails
	}
	return s
}
