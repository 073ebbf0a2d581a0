package install

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

	"github.com/plugboard/plugboard/backend/gitexec"
)

var fullSHA = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{40}$`) })

// gitRun runs git for one fetch: gitexec's Runner, whose Shown is the URL in messages.
type gitRun struct{ gitexec.Runner }

// fetchGit clones s into dir (which must not exist) at ref, shallow, and returns the
// commit checked out. expectCommit, when set, is fetched by its id.
func fetchGit(ctx context.Context, o *Options, s source, dir, expectCommit string) (string, error) {
	bin := o.Git
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("git"); err != nil {
			return "", fmt.Errorf("installing from %s needs git, and there is no git on PATH: install git (https://git-scm.com) or give a folder or archive instead", s.shown)
		}
	}
	timeout, _, _ := o.limits()
	g := gitRun{gitexec.Runner{Bin: bin, Timeout: timeout, Given: s.fetch, Shown: s.shown}}
	ref := o.Ref
	switch {
	case expectCommit != "":
		err := g.fetchCommit(ctx, dir, s.fetch, expectCommit)
		if err != nil && ref != "" && !fullSHA().MatchString(ref) {
			// A server that will not serve a commit by id (uploadpack.allowReachableSHA1InWant
			// off): the locked ref, which must still be that commit.
			os.RemoveAll(dir)
			err = g.clone(ctx, dir, s.fetch, ref)
		}
		if err != nil {
			return "", err
		}
	case fullSHA().MatchString(ref):
		if err := g.fetchCommit(ctx, dir, s.fetch, ref); err != nil {
			return "", err
		}
	default:
		if err := g.clone(ctx, dir, s.fetch, ref); err != nil {
			return "", err
		}
	}
	out, err := g.run(ctx, dir, "rev-parse", "HEAD")
	if err != nil {
		return "", err
	}
	commit := strings.TrimSpace(out)
	if expectCommit != "" && commit != expectCommit {
		return "", fmt.Errorf("%s at %s is commit %s, not the locked %s: %w; check the repository, or install it without --locked", s.shown, ref, commit, expectCommit, ErrTampered)
	}
	if err := g.refuseSubmodules(ctx, dir); err != nil {
		return "", err
	}
	return commit, nil
}

func (g gitRun) clone(ctx context.Context, dir, url, ref string) error {
	args := []string{"clone", "--depth", "1", "--single-branch", "--no-tags", "--quiet"}
	if ref != "" {
		args = append(args, "--branch", ref)
	}
	args = append(args, "--", url, dir)
	_, err := g.run(ctx, "", args...)
	return err
}

// fetchCommit makes dir a repository holding the one commit sha, checked out.
func (g gitRun) fetchCommit(ctx context.Context, dir, url, sha string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, args := range [][]string{
		{"init", "--quiet"},
		{"fetch", "--depth", "1", "--no-tags", "--quiet", "--", url, sha},
		{"-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", "FETCH_HEAD"},
	} {
		if _, err := g.run(ctx, dir, args...); err != nil {
			return err
		}
	}
	return nil
}

// refuseSubmodules refuses a checkout with submodules: Plugboard fetches one repository,
// and a gitlink would install as an empty folder.
func (g gitRun) refuseSubmodules(ctx context.Context, dir string) error {
	out, err := g.run(ctx, dir, "ls-tree", "-r", "-z", "--full-tree", "HEAD")
	if err != nil {
		return err
	}
	for _, line := range strings.Split(out, "\x00") {
		if strings.HasPrefix(line, "160000 ") {
			name := line[strings.IndexByte(line, '\t')+1:]
			return fmt.Errorf("%s has submodules (%s is one; see .gitmodules), which install does not fetch: %w; install a repository without submodules (vendor their files), or give a folder you assembled", g.Shown, name, ErrRefused)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, ".gitmodules")); err == nil {
		return fmt.Errorf("%s has a .gitmodules file (submodules), which install does not fetch: %w; install a repository without submodules (vendor their files), or give a folder you assembled", g.Shown, ErrRefused)
	}
	return nil
}

// run runs git in dir and returns its standard output; an error says what failed in
// git's own words, credentials removed, and what to check.
func (g gitRun) run(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := g.Run(ctx, dir, args...)
	var e *gitexec.Error
	if !errors.As(err, &e) {
		return out, err
	}
	switch {
	case errors.Is(e.Err, context.DeadlineExceeded):
		return "", fmt.Errorf("fetching %s took longer than %s and was stopped; check the URL and your network (a proxy, a VPN), then try again", g.Shown, g.Timeout)
	case errors.Is(e.Err, context.Canceled):
		return "", fmt.Errorf("fetching %s: %w", g.Shown, e.Err)
	}
	msg := e.Stderr
	if msg == "" {
		msg = e.Err.Error()
	}
	return "", fmt.Errorf("fetching %s: git %s failed: %s\n  check the URL and --ref, and that `git ls-remote %s` works in your shell (credentials, SSH keys and proxies are your git's)", g.Shown, e.Subcommand(), msg, g.Shown)
}
