// Package gitexec runs the user's git as Plugboard runs it (install, update, marketplace
// add): their own git, credentials, SSH agent and proxies, but never a prompt —
// GIT_TERMINAL_PROMPT=0 and GCM_INTERACTIVE=never for git's own prompts, and a session of
// its own, so no controlling terminal for ssh to ask on — and never left behind: the
// whole session is killed when the context ends, and git is killed if this process
// dies. A Runner runs it and hands back git's message with the credentials removed
// (Redact), which the caller words for its command.
package gitexec

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Command is git (the executable bin) with args under ctx, prepared as the package
// comment says; extra is added to the environment. The caller sets Dir and the streams.
func Command(ctx context.Context, bin string, extra []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GCM_INTERACTIVE=never"), extra...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// Runner runs git for one purpose (a fetch, a clone): the executable, what it adds to
// the environment, the bound on each run, and the URL as given to git and as shown.
type Runner struct {
	Bin     string        // the git executable
	Env     []string      // added to the environment (Command's extra)
	Timeout time.Duration // bounds each Run; 0 leaves it to the context
	Given   string        // the URL as handed to git, credentials and all; "" for none
	Shown   string        // what replaces Given in git's messages
}

// Run runs git with args in dir ("" for the current directory) under ctx, prepared by
// Command and bounded by the Timeout, and returns its standard output. A failure is an
// *Error carrying git's message with the credentials removed (Redact).
func (r Runner) Run(ctx context.Context, dir string, args ...string) (string, error) {
	if r.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.Timeout)
		defer cancel()
	}
	cmd := Command(ctx, r.Bin, r.Env, args...) // killed whole when ctx ends: git runs ssh and remote helpers
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err == nil {
		return stdout.String(), nil
	}
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	return "", &Error{Args: args, Stderr: Redact(strings.TrimSpace(stderr.String()), r.Given, r.Shown), Err: err}
}

// Error is a git run that failed.
type Error struct {
	Args   []string // git's arguments
	Stderr string   // what git wrote on its standard error, trimmed, credentials removed
	// Err is why: the context's error when it ended (context.DeadlineExceeded for the
	// Timeout), else git's exit status or why it did not start.
	Err error
}

// Error is git's message on one line (its lines joined by "; ", the last 2,000 bytes of
// a longer one), or Err's when git wrote nothing.
func (e *Error) Error() string {
	msg := e.Stderr
	if msg == "" {
		return e.Err.Error()
	}
	if len(msg) > 2000 {
		msg = "…" + msg[len(msg)-2000:]
	}
	return strings.ReplaceAll(msg, "\n", "; ")
}

func (e *Error) Unwrap() error { return e.Err }

// Subcommand is the git command that ran, such as "clone": the first argument that is
// not an option, "-c name=value" and "-C dir" skipped.
func (e *Error) Subcommand() string {
	for i := 0; i < len(e.Args); i++ {
		switch a := e.Args[i]; {
		case a == "-c" || a == "-C":
			i++
		case !strings.HasPrefix(a, "-"):
			return a
		}
	}
	return ""
}

// Redact removes credentials from text (git's messages quote the URLs they were given):
// given, when not "", becomes shown, and any other URL loses its user information as
// StripUserinfo says.
func Redact(text, given, shown string) string {
	if given != "" {
		text = strings.ReplaceAll(text, given, shown)
	}
	return urlAuthority().ReplaceAllStringFunc(text, func(u string) string {
		u, _ = StripUserinfo(u)
		return u
	})
}

// urlAuthority matches a URL's scheme and authority in text.
var urlAuthority = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#]*`)
})

// StripUserinfo returns u without the password of an ssh URL and without the whole
// user name and password of any other URL (https://TOKEN@host/… carries a secret in the
// user name), and whether it removed anything. An ssh user name (git@host:…,
// ssh://git@host/…) is kept: it names the account, not a secret. Anything that is not a
// URL is returned as it is.
func StripUserinfo(u string) (string, bool) {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u, false
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	at := strings.LastIndex(rest[:end], "@")
	if at < 0 {
		return u, false
	}
	userinfo, host := rest[:at], rest[at+1:]
	switch strings.ToLower(scheme) {
	case "ssh", "git+ssh", "ssh+git":
		user, _, hasPassword := strings.Cut(userinfo, ":")
		if !hasPassword {
			return u, false
		}
		return scheme + "://" + user + "@" + host, true
	}
	return scheme + "://" + host, true
}
