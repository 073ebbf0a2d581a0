package gitexec

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// StripUserinfo removes secrets from URLs and keeps ssh user names.
func TestStripUserinfo(t *testing.T) {
	for in, want := range map[string]string{
		"https://tok@github.com/o/r.git":         "https://github.com/o/r.git",
		"https://u:p@host/r.git?x=@y":            "https://host/r.git?x=@y",
		"ssh://git@host/r.git":                   "ssh://git@host/r.git",
		"ssh://git:pw@host/r.git":                "ssh://git@host/r.git",
		"git@github.com:o/r.git":                 "git@github.com:o/r.git",
		"https://github.com/o/r.git":             "https://github.com/o/r.git",
		"file:///srv/r.git":                      "file:///srv/r.git",
		"http://a:b@127.0.0.1:8080/path@x/r.git": "http://127.0.0.1:8080/path@x/r.git",
	} {
		if got, stripped := StripUserinfo(in); got != want || stripped != (in != want) {
			t.Errorf("StripUserinfo(%s) = %s, %v; want %s", in, got, stripped, want)
		}
	}
}

// Redact puts the shown URL for the given one, and strips user information from every
// other URL in the text by StripUserinfo's rule.
func TestRedact(t *testing.T) {
	const given, shown = "file:///srv/secret-name/r.git", "/srv/secret-name/r.git"
	for _, c := range []struct{ in, want string }{
		{"fatal: repository 'https://tok@github.com/o/r.git/' not found",
			"fatal: repository 'https://github.com/o/r.git/' not found"},
		{"fatal: unable to access 'https://u:p@host/': Could not resolve host: host",
			"fatal: unable to access 'https://host/': Could not resolve host: host"},
		{"remote: see https://a:b@x.example and http://c@y.example:8080/z; done",
			"remote: see https://x.example and http://y.example:8080/z; done"},
		{"ssh://git:pw@host/r.git and ssh://git@host/r.git", "ssh://git@host/r.git and ssh://git@host/r.git"},
		{"'https://u:p@ss@host/r' (a password with an @)", "'https://host/r' (a password with an @)"},
		{"https://host/r?to=me@example.com", "https://host/r?to=me@example.com"},
		{"git@github.com:o/r.git: Permission denied (publickey).", "git@github.com:o/r.git: Permission denied (publickey)."},
		{"fatal: '" + given + "' does not appear to be a git repository",
			"fatal: '" + shown + "' does not appear to be a git repository"},
		{"no URL here: a@b c:d", "no URL here: a@b c:d"},
	} {
		if got := Redact(c.in, given, shown); got != c.want {
			t.Errorf("Redact(%q)\n got  %q\n want %q", c.in, got, c.want)
		}
	}
	if got := Redact("https://t@h/x", "", ""); got != "https://h/x" {
		t.Errorf("Redact with no URL given = %q", got)
	}
}

// gitBin is the git on PATH; the test is skipped without one.
func gitBin(t *testing.T) string {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skipf("git is not on PATH: %v", err)
	}
	return git
}

// A run in a local repository returns git's output; a failure is an *Error with git's
// message on one line, the subcommand, and the URL as shown in place of the one given.
func TestRun(t *testing.T) {
	git := gitBin(t)
	repo := t.TempDir()
	env := []string{"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com"}
	r := Runner{Bin: git, Env: env, Timeout: time.Minute}
	ctx := context.Background()
	for _, args := range [][]string{{"init", "--quiet"}, {"commit", "--quiet", "--allow-empty", "-m", "first"}} {
		if _, err := r.Run(ctx, repo, args...); err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
	}
	out, err := r.Run(ctx, repo, "rev-parse", "HEAD")
	if err != nil || !regexp.MustCompile(`^[0-9a-f]{40}\n$`).MatchString(out) {
		t.Fatalf("rev-parse HEAD = %q, %v", out, err)
	}

	_, err = r.Run(ctx, repo, "-c", "core.quotePath=false", "rev-parse", "--verify", "--end-of-options", "no-such-ref")
	var e *Error
	if !errors.As(err, &e) || e.Subcommand() != "rev-parse" || !strings.Contains(e.Error(), "fatal:") || strings.Contains(e.Error(), "\n") {
		t.Errorf("a failing rev-parse = %#v (%v)", e, err)
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Errorf("the error does not unwrap to the exit status: %v", err)
	}

	// What was given (a path standing for a URL with credentials) is shown as told.
	r.Given, r.Shown = filepath.Join(t.TempDir(), "s3cret-repo"), "the-shown-url"
	_, err = r.Run(ctx, t.TempDir(), "ls-remote", "--", r.Given)
	if !errors.As(err, &e) || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "the-shown-url") {
		t.Errorf("ls-remote of a missing repository = %v", err)
	}

	// Without a message (git never started), the error is why.
	_, err = Runner{Bin: filepath.Join(t.TempDir(), "no-git")}.Run(ctx, "", "status")
	if !errors.As(err, &e) || e.Stderr != "" || err.Error() != e.Err.Error() || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing git = %v", err)
	}
}

// A git that hangs is killed with everything it started when the Timeout passes, well
// before Command's WaitDelay; a cancelled context stops it the same way.
func TestRunTimeout(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "git")
	// The child sleep holds the output pipe: only killing the whole session ends the run.
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho fetching... >&2\nsleep 60 &\nwait\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := Runner{Bin: bin, Timeout: 300 * time.Millisecond}.Run(context.Background(), dir, "clone", "x")
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("the hung git was stopped after %s", took)
	}
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, context.DeadlineExceeded) || e.Subcommand() != "clone" {
		t.Errorf("a hung git = %v; want context.DeadlineExceeded", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start = time.Now()
	_, err = Runner{Bin: bin}.Run(ctx, dir, "fetch")
	if took := time.Since(start); took > 3*time.Second || !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled git = %v after %s; want context.Canceled, at once", err, took)
	}
}
