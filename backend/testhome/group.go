package testhome

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// OwnGroup makes cmd, when started, lead a process group of its own, which what it starts
// joins unless it leaves it. StopGroup ends the group. For a command made with
// exec.CommandContext, the context's end kills the whole group too.
func OwnGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	if cmd.Cancel != nil { // set by exec.CommandContext (it refuses one on other commands)
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	}
}

// StopGroup kills process group pgid (a process started after OwnGroup, and whatever it
// started) and returns once none of its processes can run anymore. Killing the leader
// alone is not enough where it has started others: WebKit's processes under the window,
// a shell or MCP server under an agent outlive it for a moment and may go on writing
// under the test's HOME while the test's folders are removed ("directory not empty").
// A killed process has made its last write once it is a zombie, and an orphan's zombie
// may never be reaped here (PID 1 need not reap), so a zombie counts as gone. The
// caller still waits for the leader, its own child.
func StopGroup(t testing.TB, pgid int) {
	t.Helper()
	syscall.Kill(-pgid, syscall.SIGKILL)
	var alive []string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if alive = liveInGroup(pgid); len(alive) == 0 {
			return
		}
	}
	t.Errorf("processes of group %d still running 10 s after SIGKILL: %v", pgid, alive)
}

// liveInGroup lists the processes of process group pgid that are not zombies.
func liveInGroup(pgid int) []string {
	dirs, _ := os.ReadDir("/proc")
	var alive []string
	for _, d := range dirs {
		if d.Name()[0] < '0' || d.Name()[0] > '9' {
			continue
		}
		if who, live, group, ok := procStat(d.Name()); ok && live && group == pgid {
			alive = append(alive, d.Name()+" "+who)
		}
	}
	return alive
}

// procStat reads /proc/PID/stat: who the process is (its pid and command), whether it
// is live (not a zombie) and its process group. The state is the field after the
// command's closing parenthesis, the process group the third after it. ok is false for
// a process that is gone.
func procStat(pid string) (who string, live bool, pgid int, ok bool) {
	stat, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	i := strings.LastIndexByte(string(stat), ')')
	if err != nil || i < 0 {
		return "", false, 0, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 3 {
		return "", false, 0, false
	}
	pgid, err = strconv.Atoi(f[2])
	return string(stat[:i+1]), f[0] != "Z" && f[0] != "X", pgid, err == nil
}
