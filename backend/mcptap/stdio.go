package mcptap

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	goruntime "runtime"
	"syscall"
	"time"
)

// Child is a stdio MCP server to start: its executable, its argv (argv[0] included) and
// its whole environment. It runs in the current working folder.
type Child struct {
	Path string
	Argv []string
	Env  []string
}

// drainWait bounds how long RunStdio reads the server's stdout after the server has
// exited: a process the server left behind may hold it open.
const drainWait = 2 * time.Second

// RunStdio starts c as a child with stderr inherited, relays in to its stdin and its
// stdout to out byte for byte through a tap that hands the answered tool calls to sink,
// and returns the child's exit status (128+n when a signal n ended it). The child has a
// process group of its own, so that a terminal's signals reach it once, through here:
// SIGTERM, SIGINT and SIGHUP are forwarded to the whole group, and a group still there
// drainWait after a SIGTERM or SIGINT is killed. On Linux the child is
// sent SIGTERM if this process dies first. When in ends the child's stdin is closed.
// Once the child has exited, what it left in its group (a browser, a helper holding its
// stdout) is sent SIGTERM, and SIGKILL after drainWait, so nothing of the server stays
// behind the relay. A process that left the group (setsid) is its own. log gets one
// line (who: …) when calls were not tracked. A child that cannot be started returns 127
// (not found) or 126 with the error.
func RunStdio(c Child, in io.Reader, out io.Writer, sink Sink, who string, log io.Writer) (int, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return 126, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return 126, err
	}
	cmd := &exec.Cmd{Path: c.Path, Args: c.Argv, Env: c.Env, Stdin: inR, Stdout: outW, Stderr: os.Stderr,
		SysProcAttr: childAttr(), WaitDelay: drainWait}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(sigs)
	// The parent-death signal goes with the thread that started the child: keep this
	// goroutine on it until the child is gone.
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			return 127, err
		}
		return 126, err
	}
	exited := make(chan struct{})
	go func() {
		// A group that a forwarded SIGTERM or SIGINT has not ended within drainWait is
		// killed: the MCP client that sent it will not wait for ever either.
		var kill <-chan time.Time
		for {
			select {
			case s := <-sigs:
				signalGroup(cmd.Process, s)
				if kill == nil && s != syscall.SIGHUP {
					kill = time.After(drainWait)
				}
			case <-kill:
				signalGroup(cmd.Process, syscall.SIGKILL)
			case <-exited:
				return
			}
		}
	}()

	tap := New(sink)
	go func() {
		_ = Copy(inW, in, MaxLine, true, tap.ClientLine)
		inW.Close()
	}()
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		// An answer is shown before it is passed on: its row is written first (Recorder.Wait).
		if err := Copy(out, outR, MaxLine, true, tap.ServerLine); err != nil {
			outR.Close() // nobody reads the server any more: its writes fail instead of blocking
		}
	}()
	werr := cmd.Wait()
	close(exited)
	signalGroup(cmd.Process, syscall.SIGTERM)
	t := time.NewTimer(drainWait)
	select {
	case <-drained:
	case <-t.C:
		outR.Close()
		<-drained
	}
	t.Stop()
	signalGroup(cmd.Process, syscall.SIGKILL)
	if n := tap.Untracked(); n > 0 {
		fmt.Fprintf(log, "%s: %d MCP tool calls were not counted: more than %d were in flight\n", who, n, maxPending)
	}
	return ExitStatus(werr)
}

// ExitStatus is the status a shell would show for a process whose Wait returned err
// (128+n for a signal): 0, the status, or 1 and err when it did not run to an exit.
func ExitStatus(err error) (int, error) {
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
