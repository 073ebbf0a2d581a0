// Package gitexec prepares the user's git as Plugboard runs it (install, update,
// marketplace add): their own git, credentials, SSH agent and proxies, but never a
// prompt — GIT_TERMINAL_PROMPT=0 and GCM_INTERACTIVE=never for git's own prompts, and a
// session of its own, so no controlling terminal for ssh to ask on — and never left
// behind: the whole session is killed when the context ends, and git is killed if this
// process dies.
package gitexec

import (
	"context"
	"os"
	"os/exec"
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
