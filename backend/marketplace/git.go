package marketplace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/plugboard/plugboard/backend/argerr"
	"github.com/plugboard/plugboard/backend/gitexec"
)

// DefaultCloneTimeout bounds one git clone of a marketplace.
const DefaultCloneTimeout = 2 * time.Minute

// A git source as written for "marketplace add": a URL of these schemes, an scp-like
// user@host:path, or GitHub owner/name; each may end in #REF (a branch or tag).
var (
	gitSchemes = []string{"https://", "http://", "ssh://", "git://", "file://", "git+ssh://", "ssh+git://"}
	scpLike    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[^@/:\s]+@[^@/:\s]+:[^\s]+$`) })
)

// gitSource is a marketplace source that is cloned: the URL git is given (userinfo
// stripped) and the ref, if any.
type gitSource struct {
	URL, Ref  string
	Stripped  bool // a user name or password was removed from the URL
	Shorthand bool // written as GitHub owner/name
}

// parseGitSource reads SOURCE as a git source; ok is false for anything else (a folder).
func parseGitSource(s string) (g gitSource, ok bool, err error) {
	base, ref := s, ""
	if i := strings.LastIndex(s, "#"); i >= 0 {
		base, ref = s[:i], s[i+1:]
	}
	lower := strings.ToLower(base)
	switch {
	case strings.Contains(base, "://"):
		known := false
		for _, p := range gitSchemes {
			known = known || strings.HasPrefix(lower, p)
		}
		if !known {
			shown, _ := gitexec.StripUserinfo(base)
			return g, true, argerr.Bad(fmt.Errorf("%s: Plugboard clones https://, http://, ssh://, git:// and file:// URLs (or GitHub owner/name)", shown))
		}
		g.URL, g.Stripped = gitexec.StripUserinfo(base)
	case scpLike().MatchString(base):
		g.URL = base
	case isRepo(base):
		if _, err := os.Stat(base); err == nil {
			return g, false, nil // a folder that happens to read as owner/name
		}
		g.URL, g.Shorthand = GitHubURL(strings.TrimSuffix(base, ".git")), true
	default:
		return g, false, nil
	}
	if strings.Contains(s, "#") && (ref == "" || strings.HasPrefix(ref, "-")) {
		return g, true, fmt.Errorf("%s: the ref after # must name a branch or tag, such as %s#main", g.URL, g.URL)
	}
	g.Ref = ref
	return g, true, nil
}

// GitHubURL is the https clone URL of a GitHub owner/name.
func GitHubURL(repo string) string { return "https://github.com/" + repo + ".git" }

// cloneShallow clones url (at ref, when given) into dest, which must not exist or be
// empty, with the user's git: one commit deep, never prompting (GIT_TERMINAL_PROMPT=0,
// and no controlling terminal for ssh), within timeout. It returns the commit checked out.
// Errors name the URL and say what to check.
func cloneShallow(url, ref, dest string, timeout time.Duration) (string, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return "", fmt.Errorf("cloning %s needs git, which is not on PATH: install git, or add a local folder instead", url)
	}
	if timeout <= 0 {
		timeout = DefaultCloneTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	run := gitexec.Runner{Bin: git, Env: []string{"LC_ALL=C"}} // the URL has no password left to hide
	args := []string{"-c", "protocol.ext.allow=never", "clone", "--depth", "1", "--quiet", "--no-tags"}
	if ref != "" {
		args = append(args, "--branch", ref)
	}
	args = append(args, "--", url, dest)
	if _, err := run.Run(ctx, "", args...); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return "", fmt.Errorf("git clone %s did not finish within %s; check the URL and the network (nothing was added)", url, timeout)
		}
		what := ""
		if ref != "" {
			what = fmt.Sprintf(" (branch or tag %q)", ref)
		}
		return "", fmt.Errorf("git clone %s%s failed: %v; check the URL and that you can reach it (git ls-remote %s); nothing was added", url, what, err, url)
	}
	out, err := run.Run(ctx, dest, "rev-parse", "HEAD")
	if err != nil {
		return "", fmt.Errorf("the clone of %s has no commit: %v", url, err)
	}
	return strings.TrimSpace(out), nil
}

// localRoot returns the marketplace root SOURCE names: a folder, or the marketplace file
// itself (.claude-plugin/marketplace.json), absolute with symlinks resolved.
func localRoot(s string) (string, error) {
	abs, err := filepath.Abs(s)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", argerr.Missing(fmt.Errorf("%s: no such folder, and not a git URL (https://, ssh://, file://, git@host:path) or GitHub owner/name", s))
	}
	if !st.IsDir() {
		rel := filepath.Base(filepath.Dir(abs)) + "/" + filepath.Base(abs)
		if rel != File && rel != CursorFile {
			return "", argerr.Bad(fmt.Errorf("%s is a file; give the marketplace folder (the one holding %s)", s, File))
		}
		abs = filepath.Dir(filepath.Dir(abs))
	}
	return filepath.EvalSymlinks(abs)
}
