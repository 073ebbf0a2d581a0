package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
)

// Run starts the plan's agent in the foreground with the given standard streams and
// waits for it. The agent shares the terminal: Ctrl-C reaches it directly (same process
// group), so Run ignores SIGINT and SIGQUIT while it waits and forwards SIGTERM and
// SIGHUP. It returns the agent's exit status.
func Run(ctx context.Context, p *Plan, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	bin, err := exec.LookPath(p.Argv[0])
	if err != nil {
		return 127, fmt.Errorf("%s: %w (install it, or give its path with --bin)", p.Argv[0], err)
	}
	cmd := exec.CommandContext(ctx, bin, p.Argv[1:]...)
	cmd.Env = p.Env(os.Environ())
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	signal.Ignore(syscall.SIGINT, syscall.SIGQUIT)
	defer signal.Reset(syscall.SIGINT, syscall.SIGQUIT)
	fwd := make(chan os.Signal, 2)
	signal.Notify(fwd, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(fwd)
	if err := cmd.Start(); err != nil {
		return 126, err
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case s := <-fwd:
				_ = cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err = cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if st, ok := ee.Sys().(syscall.WaitStatus); ok && st.Signaled() {
			return 128 + int(st.Signal()), nil
		}
		return ee.ExitCode(), nil
	}
	if err != nil {
		return 1, err
	}
	return 0, nil
}

// ExecStdio is "plugboard mcp-stdio": it changes to cwd and replaces this process with
// command (found with the executable search of the environment it was given), so an MCP
// client without a working-folder setting still starts the server where spec §7.2.1
// says. It returns only on failure.
func ExecStdio(cwd string, argv []string) error {
	if len(argv) == 0 {
		return errors.New("no command given")
	}
	if err := os.Chdir(cwd); err != nil {
		return fmt.Errorf("working folder: %w", err)
	}
	bin := argv[0]
	if !strings.Contains(bin, "/") {
		p, err := exec.LookPath(bin)
		if err != nil {
			return err
		}
		bin = p
	}
	return syscall.Exec(bin, argv, os.Environ())
}

// ShellQuote renders argv as one line a POSIX shell reads back as the same words, for
// showing the exact command.
func ShellQuote(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && !strings.ContainsFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
		}) {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
