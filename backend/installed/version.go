package installed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/plugboard/plugboard/backend/capread"
)

// spec says how one client is installed in the real world, and so where to look and
// how to learn its version.
type spec struct {
	name string
	// exes are the executable names, in the order they are looked for.
	exes []string
	// borrowed is an executable name that is a common word (Cursor's "agent"): a file of
	// that name counts only when it leads into the client's install folder, and is
	// never run.
	borrowed string
	// packages are the npm package names ("name" in package.json) the client is
	// published as. An npm alias installs it under another folder name, never another
	// "name".
	packages []string
	// codexPackage: Codex's own packages carry a codex-package.json beside bin/codex.
	codexPackage bool
	// folders are the two folder names right above a folder (or file) named by the
	// version: {"claude", "versions"} is Claude Code's native installer
	// (~/.local/share/claude/versions/2.1.328), {"Cellar", "codex"} a Homebrew formula.
	folders [][2]string
	// homes are known install places under HOME, looked at after PATH.
	homes []string
}

// specs are the clients in the order Find returns them. The install places are those of
// the clients' own installers: ~/.local/bin is where Claude Code's and Cursor's put
// their links (and where people put their own), which a desktop session's PATH often
// lacks; ~/.claude/local/claude is the launcher of Claude Code's older local install
// (/migrate-installer), a script into ~/.claude/local/node_modules.
var specs = []spec{
	{
		name:     Claude,
		exes:     []string{"claude"},
		packages: []string{"@anthropic-ai/claude-code"},
		folders:  [][2]string{{"claude", "versions"}, {"Caskroom", "claude-code"}},
		homes:    []string{".local/bin/claude", ".claude/local/claude"},
	},
	{
		name:         Codex,
		exes:         []string{"codex"},
		packages:     []string{"@openai/codex"},
		codexPackage: true,
		folders:      [][2]string{{"Cellar", "codex"}, {"Caskroom", "codex"}},
		homes:        []string{".local/bin/codex"},
	},
	{
		name:     PI,
		exes:     []string{"pi"},
		packages: []string{"@mariozechner/pi-coding-agent", "@earendil-works/pi-coding-agent"},
		homes:    []string{".local/bin/pi"},
	},
	{
		name:     CursorAgent,
		exes:     []string{"cursor-agent", "agent"},
		borrowed: "agent",
		folders:  [][2]string{{"cursor-agent", "versions"}},
		homes:    []string{".local/bin/cursor-agent", ".local/bin/agent"},
	},
}

// folderVersion is the version named by the install folder target sits in: the path
// element right below one of s.folders, among the last three (Claude's
// versions/2.1.328, Cursor's versions/2026.10.01-e373342/cursor-agent, Homebrew's
// Cellar/codex/0.46.0/bin/codex). A Homebrew revision (_1) is not part of the version.
func (s *spec) folderVersion(target string) string {
	if len(s.folders) == 0 {
		return ""
	}
	seg := strings.Split(filepath.ToSlash(target), "/")
	for i := len(seg) - 3; i >= 0 && i >= len(seg)-5; i-- {
		for _, f := range s.folders {
			if seg[i] != f[0] || seg[i+1] != f[1] {
				continue
			}
			v := seg[i+2]
			if j := strings.LastIndexByte(v, '_'); j > 0 && allDigits(v[j+1:]) {
				v = v[:j]
			}
			if isVersion(v) {
				return v
			}
		}
	}
	return ""
}

// walkLevels bounds the walk up from an executable to its package: npm's deepest is
// Codex's platform package (vendor/<target>/bin/codex, four levels).
const walkLevels = 8

// packageVersion walks up from target to the nearest package.json that names one of
// s.packages (a package.json of another name, such as dist/package.json with only a
// "type", is passed over), or for Codex to a codex-package.json, and returns its version,
// the file and that file's facts. The walk stops at node_modules: above it lies no longer
// the package. Last, a launcher script beside its own node_modules
// (~/.claude/local/claude) is the package in that node_modules.
func (s *spec) packageVersion(target string) (version, from, file string, f facts) {
	if len(s.packages) == 0 && !s.codexPackage {
		return "", "", "", facts{}
	}
	dir := filepath.Dir(target)
	for range walkLevels {
		if filepath.Base(dir) == "node_modules" {
			break
		}
		if s.codexPackage {
			file = filepath.Join(dir, "codex-package.json")
			if v, f := codexPackageVersion(file); v != "" {
				return v, FromCodexPackageJSON, file, f
			}
		}
		file = filepath.Join(dir, "package.json")
		if v, f := s.npmVersion(file); v != "" {
			return v, FromPackageJSON, file, f
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if isScript(target) {
		for _, p := range s.packages {
			file = filepath.Join(filepath.Dir(target), "node_modules", filepath.FromSlash(p), "package.json")
			if v, f := s.npmVersion(file); v != "" {
				return v, FromPackageJSON, file, f
			}
		}
	}
	return "", "", "", facts{}
}

// readJSON decodes file into v and returns the facts the file had before it was read:
// were it replaced meanwhile, they are the old file's, and the next Find reads it again.
func readJSON(file string, v any) (facts, bool) {
	f, _, ok := statFacts(file)
	if !ok {
		return facts{}, false
	}
	data, err := capread.ReadFile(file, capread.ManifestMax)
	if err != nil || json.Unmarshal(data, v) != nil {
		return facts{}, false
	}
	return f, true
}

// npmVersion is the version in the package.json file when it is one of s.packages. The
// platform packages of Codex are published under its name with the platform added to
// the version ("0.169.0-linux-x64", with "os": ["linux"], "cpu": ["x64"]): that suffix
// is not part of the client's version.
func (s *spec) npmVersion(file string) (string, facts) {
	var m struct {
		Name    string   `json:"name"`
		Version string   `json:"version"`
		OS      []string `json:"os"`
		CPU     []string `json:"cpu"`
	}
	f, ok := readJSON(file, &m)
	if !ok || !slices.Contains(s.packages, m.Name) {
		return "", facts{}
	}
	if len(m.OS) == 1 && len(m.CPU) == 1 {
		m.Version = strings.TrimSuffix(m.Version, "-"+m.OS[0]+"-"+m.CPU[0])
	}
	if !isVersion(m.Version) {
		return "", facts{}
	}
	return m.Version, f
}

// codexPackageVersion is the version in a codex-package.json of the codex variant.
func codexPackageVersion(file string) (string, facts) {
	var m struct {
		Version string `json:"version"`
		Variant string `json:"variant"`
	}
	f, ok := readJSON(file, &m)
	if !ok || (m.Variant != "" && m.Variant != "codex") || !isVersion(m.Version) {
		return "", facts{}
	}
	return m.Version, f
}

// isScript reports whether file starts with #!.
func isScript(file string) bool {
	f, err := os.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [2]byte
	n, _ := f.Read(b[:])
	return n == 2 && string(b[:]) == "#!"
}

// VersionTimeout bounds one run of an executable's --version, which Find does only when
// no file tells the version. A node client starts in 0.3 s (claude) to 1.5 s (pi) on a
// loaded machine; one that takes longer waits for something it will not get.
const VersionTimeout = 2 * time.Second

// outputMax caps what a --version run may print that is kept.
const outputMax = 4 << 10

// askVersion runs path --version, in a process group of its own (killed whole at the
// timeout), with no standard input, in /, with only PATH and HOME in its environment,
// and returns the first version-shaped word of what it printed, or a sentence saying
// why there is none. cancelled is true when ctx, not the timeout, stopped it.
func askVersion(ctx context.Context, path string, e environ) (version, problem string, cancelled bool) {
	run, cancel := context.WithTimeout(ctx, VersionTimeout)
	defer cancel()
	cmd := exec.CommandContext(run, path, "--version")
	cmd.Env = []string{} // not nil: nil would hand over all of Plugboard's environment
	if e.path != "" {
		cmd.Env = append(cmd.Env, "PATH="+e.path)
	}
	if filepath.IsAbs(e.home) {
		cmd.Env = append(cmd.Env, "HOME="+e.home)
	}
	cmd.Dir = "/" // a folder that is always there, whose files no client claims
	var stdout, stderr capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second // a child that keeps the output open does not hold Find
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return "", fmt.Sprintf("the look-up stopped before %s --version answered; the next look-up asks again", path), true
	case errors.Is(run.Err(), context.DeadlineExceeded):
		return "", fmt.Sprintf("%s --version did not answer within %v; run it in a terminal to see what it waits for, or reinstall it", path, VersionTimeout), false
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return "", fmt.Sprintf("%s --version exited with status %d (%s); run it in a terminal to see why, or reinstall it",
			path, exit.ExitCode(), firstLine(stderr.b, stdout.b)), false
	}
	if err != nil {
		return "", fmt.Sprintf("%s could not be started (%v); reinstall it", path, err), false
	}
	if v := versionToken(string(stdout.b)); v != "" {
		return v, "", false
	}
	if v := versionToken(string(stderr.b)); v != "" {
		return v, "", false
	}
	return "", fmt.Sprintf("%s --version printed no version (%s); run it in a terminal to see what it is, or reinstall it",
		path, firstLine(stdout.b, stderr.b)), false
}

// capped keeps the first outputMax bytes written to it and drops the rest.
type capped struct{ b []byte }

func (c *capped) Write(p []byte) (int, error) {
	if room := outputMax - len(c.b); room > 0 {
		c.b = append(c.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// firstLine is the first non-blank line of the first output that has one, quoted.
func firstLine(outs ...[]byte) string {
	for _, out := range outs {
		for line := range bytes.Lines(out) {
			if l := strings.TrimSpace(string(line)); l != "" {
				return fmt.Sprintf("%q", l)
			}
		}
	}
	return "nothing"
}

// versionToken is the first word of out shaped like a version: "2.1.328 (Claude Code)",
// "codex-cli 0.169.0", "v1.2.3". Brackets and trailing punctuation around it are not
// part of it.
func versionToken(out string) string {
	for _, w := range strings.Fields(out) {
		w = strings.TrimLeft(w, "([{'\"")
		w = strings.TrimRight(w, ".,;:)]}'\"")
		if len(w) > 1 && (w[0] == 'v' || w[0] == 'V') {
			w = w[1:]
		}
		if isVersion(w) {
			return w
		}
	}
	return ""
}

// isVersion reports whether s is a version: two or more dot-separated numbers, then
// optionally - or + and letters, digits, dots and dashes ("2.1.328", "0.170.0-alpha.1",
// "2026.10.01-e373342").
func isVersion(s string) bool {
	core, rest := s, ""
	if i := strings.IndexAny(s, "-+"); i >= 0 {
		core, rest = s[:i], s[i+1:]
		if rest == "" {
			return false
		}
	}
	parts := strings.Split(core, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if !allDigits(p) {
			return false
		}
	}
	for _, r := range rest {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '.' || r == '-' || r == '+') {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
