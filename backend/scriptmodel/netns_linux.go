package scriptmodel

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Netns is an empty network namespace with only its loopback, up: servers listen in it
// with Listen, clients run in it through Command. Nothing started there reaches any
// network but that loopback. It needs root (or CAP_SYS_ADMIN), unshare, ip and nsenter.
//
// It is held by a small process (unshare -n sh: ip link set lo up, then cat) that lives
// until Close closes its stdin; readiness is that process's "ready" line, not a delay.
type Netns struct {
	holder *exec.Cmd
	stdin  io.WriteCloser
	path   string // /proc/<holder>/ns/net
}

// ErrNoNetns says this process cannot make a network namespace here.
var ErrNoNetns = errors.New("cannot make a network namespace here (needs root, unshare, ip and nsenter)")

// NewNetns makes the namespace and brings its loopback up.
func NewNetns() (*Netns, error) {
	if os.Geteuid() != 0 {
		return nil, ErrNoNetns
	}
	for _, t := range []string{"unshare", "ip", "nsenter"} {
		if _, err := exec.LookPath(t); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNoNetns, err)
		}
	}
	cmd := exec.Command("unshare", "-n", "sh", "-c", "ip link set lo up && echo ready && exec cat")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.WaitDelay = 2 * time.Second // Close does not wait on a process that keeps stderr open
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoNetns, err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "ready" {
		stdin.Close()
		werr := cmd.Wait()
		return nil, fmt.Errorf("%w: %v: %s", ErrNoNetns, werr, strings.TrimSpace(stderr.String()))
	}
	return &Netns{holder: cmd, stdin: stdin, path: "/proc/" + strconv.Itoa(cmd.Process.Pid) + "/ns/net"}, nil
}

// Path is the namespace's file, for nsenter --net=.
func (n *Netns) Path() string { return n.path }

// Command returns argv run inside the namespace (through nsenter).
func (n *Netns) Command(argv ...string) []string {
	return append([]string{"nsenter", "--net=" + n.path, "--"}, argv...)
}

// Listen opens a TCP listener on addr (such as "127.0.0.1:0") inside the namespace. The
// socket is made on a thread that has joined the namespace and then left it again; a
// thread that cannot leave is never reused (its goroutine ends locked).
func (n *Netns) Listen(addr string) (net.Listener, error) {
	type result struct {
		l   net.Listener
		err error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // no Unlock unless the thread is back in its own namespace
		self, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			ch <- result{nil, err}
			return
		}
		defer self.Close()
		target, err := os.Open(n.path)
		if err != nil {
			ch <- result{nil, err}
			return
		}
		defer target.Close()
		if err := setns(target); err != nil {
			runtime.UnlockOSThread() // not moved: the thread is still clean
			ch <- result{nil, fmt.Errorf("setns: %w", err)}
			return
		}
		l, lerr := net.Listen("tcp", addr)
		if err := setns(self); err == nil {
			runtime.UnlockOSThread()
		}
		ch <- result{l, lerr}
	}()
	r := <-ch
	return r.l, r.err
}

func setns(f *os.File) error { return unix.Setns(int(f.Fd()), unix.CLONE_NEWNET) }

// Close ends the holder process and waits for it. Processes still running in the
// namespace keep it alive until they end.
func (n *Netns) Close() error {
	n.stdin.Close()
	return n.holder.Wait()
}
