package oracle

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/testhome"
)

// A package whose hooks, MCP server and scripts would each leave a marker file if they
// ran.
// Its remote MCP server is remote, a loopback address whose every connection the test
// counts.
func hostilePackage(t *testing.T, markers, remote string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "hostile")
	touch := func(name string) string { return "touch " + filepath.Join(markers, name) }
	testhome.WriteFile(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), `{"name": "hostile"}`)
	testhome.WriteFile(t, filepath.Join(dir, "skills", "s", "SKILL.md"), "---\nname: s\ndescription: A skill.\n---\nBody\n")
	testhome.WriteFile(t, filepath.Join(dir, "hooks", "hooks.json"), `{"hooks": {
		"SessionStart": [{"hooks": [{"type": "command", "command": "`+touch("session-start")+`"}]}],
		"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "`+touch("prompt")+`"}]}]}}`)
	testhome.WriteFile(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers": {
		"local": {"command": "sh", "args": ["-c", "`+touch("mcp")+`; sleep 5"]},
		"remote": {"type": "http", "url": "http://`+remote+`/mcp"}}}`)
	testhome.WriteFile(t, filepath.Join(dir, "bin", "tool"), "#!/bin/sh\n"+touch("bin")+"\n")
	if err := os.Chmod(filepath.Join(dir, "bin", "tool"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// traced is a hostile package (hostilePackage) and a client wrapped to run under
// strace, without a network namespace, as for a user who is not root.
type traced struct {
	pkg, wrapper, log, markers string
	remote                     net.Listener
	reached                    chan struct{}
}

// newTraced makes the package and a wrapper of bin, named name, that records every
// program start and connection of each run in log.<pid>.
func newTraced(t *testing.T, bin, name string) *traced {
	t.Helper()
	if err := exec.Command("strace", "-f", "-qq", "-o", "/dev/null", "true").Run(); err != nil {
		testhome.CannotRun(t, "strace cannot run (%v): the check needs it (apt-get install strace)", err)
	}
	unshared := unshareWorks
	unshareWorks = func() bool { return false }
	t.Cleanup(func() { unshareWorks = unshared })
	remote, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tr := &traced{markers: t.TempDir(), remote: remote, reached: make(chan struct{}, 16),
		log: filepath.Join(t.TempDir(), "strace.log"), wrapper: filepath.Join(t.TempDir(), name)}
	go func() {
		for {
			c, err := remote.Accept()
			if err != nil {
				return
			}
			tr.reached <- struct{}{}
			_ = c.Close()
		}
	}()
	tr.pkg = hostilePackage(t, tr.markers, remote.Addr().String())
	testhome.WriteFile(t, tr.wrapper, "#!/bin/sh\nexec strace -f -qq -o "+tr.log+".$$ -e trace=execve,connect "+bin+" \"$@\"\n")
	if err := os.Chmod(tr.wrapper, 0o755); err != nil {
		t.Fatal(err)
	}
	return tr
}

// check fails the test for a connection to the package's remote MCP server, a marker a
// package's code left, or what checkTrace refuses in the runs' records. Call it once the
// client has returned: it and everything it started are gone.
func (tr *traced) check(t *testing.T) {
	t.Helper()
	_ = tr.remote.Close()
	select {
	case <-tr.reached:
		t.Errorf("the client connected to the package's remote MCP server")
	default:
	}
	entries, _ := os.ReadDir(tr.markers)
	for _, e := range entries {
		t.Errorf("package code ran: %s", e.Name())
	}
	traces, _ := filepath.Glob(tr.log + ".*")
	if len(traces) == 0 {
		t.Fatal("strace wrote no record: the wrapper was not run")
	}
	var all strings.Builder
	for _, f := range traces {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	checkTrace(t, all.String(), tr.pkg)
}

// Asked what it loads, the real claude (every pinned release) starts no process of the
// package (no hook, no MCP server, no script: no marker appears, and strace sees no
// program of the package run) and reaches nothing but loopback and local sockets. The
// run is made without a network namespace, as for a user who is not root.
func TestNothingRuns(t *testing.T) {
	for _, c := range testhome.ClaudeVersions {
		t.Run(c.Version, func(t *testing.T) {
			tr := newTraced(t, testhome.AgentBin(t, c.Bin), "claude")
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			in, err := Claude(ctx, tr.wrapper, tr.pkg)
			if err != nil {
				t.Fatal(err)
			}
			if !in.Loads || in.Plugin != "hostile" || strings.Join(in.Skills, ",") != "hostile:s" || in.Version != c.Version {
				t.Errorf("the answer = %+v, want hostile loaded with hostile:s by %s", in, c.Version)
			}
			tr.check(t)
		})
	}
}

var (
	execLine    = regexp.MustCompile(`execve\("([^"]*)"`)
	connectLine = regexp.MustCompile(`connect\(\d+, \{sa_family=(AF_\w+)(.*?)\}`)
	loopback    = regexp.MustCompile(`inet_addr\("127\.|inet_pton\(AF_INET6, "::1"|inet_pton\(AF_INET6, "::ffff:127\.`)
)

// checkTrace fails the test for a program started from the package folder, a command
// line that names one of its hook or server commands, or a connection to anything but
// loopback or a local socket.
func checkTrace(t *testing.T, trace, pkg string) {
	t.Helper()
	execs, connects := 0, 0
	for _, line := range strings.Split(trace, "\n") {
		if strings.Contains(line, "execve(") {
			execs++
			if m := execLine.FindStringSubmatch(line); m != nil && strings.HasPrefix(m[1], pkg) || strings.Contains(line, "touch ") || strings.Contains(line, "sleep 5") {
				t.Errorf("a process of the package started: %s", line)
			}
		}
		if m := connectLine.FindStringSubmatch(line); m != nil {
			connects++
			switch m[1] {
			case "AF_UNIX", "AF_NETLINK":
			case "AF_INET", "AF_INET6":
				if !loopback.MatchString(m[2]) {
					t.Errorf("a connection beyond loopback: %s", line)
				}
			default:
				t.Errorf("a connection of an unexpected kind: %s", line)
			}
		}
	}
	if execs == 0 {
		t.Fatalf("strace recorded no program start: the trace is not of the client\n%s", trace)
	}
	t.Logf("%d program starts, %d connections, all allowed", execs, connects)
}

// One run with many folders answers for each as a run of that folder alone does (the
// recorded outcomes of the Claude fixtures, every pinned release); two folders the
// client names alike are left out, to be asked alone.
func TestClaudeEach(t *testing.T) {
	fixtures := testhome.Testdata(filepath.Join("clients", "claude"))
	b, err := os.ReadFile(filepath.Join(fixtures, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var recorded map[string]map[string]struct {
		Loads  bool
		Plugin string
		Skills []string
		Agents []string
	}
	if err := json.Unmarshal(b, &recorded); err != nil {
		t.Fatal(err)
	}
	for _, c := range testhome.ClaudeVersions {
		t.Run(c.Version, func(t *testing.T) {
			bin := testhome.AgentBin(t, c.Bin)
			// every fixture that loads alone under a name no other one has, and needs
			// no other plugin
			var dirs []string
			seen := map[string]bool{}
			for name, r := range recorded[c.Version] {
				if r.Loads && !seen[r.Plugin] && !strings.HasPrefix(name, "manifest-dependencies") {
					seen[r.Plugin] = true
					dirs = append(dirs, filepath.Join(fixtures, name))
				}
			}
			slices.Sort(dirs)
			if len(dirs) < 10 {
				t.Fatalf("only %d fixtures to batch", len(dirs))
			}
			dup := filepath.Join(t.TempDir(), "dup")
			testhome.WriteFile(t, filepath.Join(dup, ".claude-plugin", "plugin.json"), `{"name": "demo"}`) // as many fixtures
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			got, err := ClaudeEach(ctx, bin, append(dirs, dup))
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := got[dup]; ok {
				t.Errorf("a folder named like another was answered: %+v", got[dup])
			}
			answered := 0
			for _, d := range dirs {
				in, ok := got[d]
				if !ok {
					if recorded[c.Version][filepath.Base(d)].Plugin != "demo" {
						t.Errorf("%s: no answer", filepath.Base(d))
					}
					continue
				}
				answered++
				w := recorded[c.Version][filepath.Base(d)]
				if !in.Loads || in.Plugin != w.Plugin || strings.Join(in.Skills, ",") != strings.Join(w.Skills, ",") || strings.Join(in.Agents, ",") != strings.Join(w.Agents, ",") || in.Version != c.Version {
					t.Errorf("%s: batched %+v, alone %+v", filepath.Base(d), in, w)
				}
			}
			t.Logf("%d folders in one run, %d answered", len(dirs)+1, answered)
		})
	}
}

// Asked what it loads, the real codex (installed into a private marketplace, asked
// through its app-server and prompt-input) starts no process of the package and
// reaches nothing but loopback and local sockets: strace's record of every program
// start and connection, made without a network namespace, as for a user who is not root.
func TestCodexNothingRunsStrace(t *testing.T) {
	tr := newTraced(t, testhome.AgentBin(t, ".bin/codex"), "codex")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	l, err := CodexPlugin(ctx, tr.wrapper, tr.pkg)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Loads || l.Plugin != "hostile" || strings.Join(l.Skills, ",") != "hostile:s" {
		t.Errorf("the answer = %+v, want hostile loaded with hostile:s", l)
	}
	tr.check(t)
}

// A run that ends early (its time ran out) ends every process it started: a client's
// child must not outlive it and write into the private home after that home is removed
// (claude's once recreated HOME/.claude/projects). The stand-in client starts a child
// that keeps writing there and never prints an init event.
func TestRunEndsItsChildren(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	pidFile := filepath.Join(t.TempDir(), "child")
	bin := filepath.Join(t.TempDir(), "claude")
	testhome.WriteFile(t, bin, "#!/bin/sh\nsh -c 'echo $$ > "+pidFile+"; while :; do mkdir -p \"$HOME/.claude/projects\"; sleep 0.01; done' &\nsleep 60\n")
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if _, err := Claude(ctx, bin, ""); err == nil {
		t.Fatal("a client that printed nothing gave an answer")
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the stand-in's child never started: %v", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	// SIGKILL is delivered a moment after it is sent: wait for the child to be dead (gone
	// or a zombie); one that was never sent it lives on, and the test fails at 10 s.
	deadline := time.Now().Add(10 * time.Second)
	for {
		if !testhome.Alive(pid) {
			break
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the client's child %d outlived the run", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
	entries, _ := os.ReadDir(tmp)
	for _, e := range entries {
		t.Errorf("left behind: %s", e.Name())
	}
}

// Asked about many packages in one run (as clientask asks: ClaudeEach, CodexEach, PIEach
// with the packages' skill folders), each real client still starts no process of any of
// them and reaches nothing but loopback: two hostile packages in one run, traced.
func TestNothingRunsWhenAskedMany(t *testing.T) {
	for _, c := range []struct{ name, bin string }{{"claude", testhome.ClaudeNewest}, {"codex", ".bin/codex"}, {"pi", ".bin/pi"}} {
		t.Run(c.name, func(t *testing.T) {
			tr := newTraced(t, testhome.AgentBin(t, c.bin), c.name)
			second := filepath.Join(filepath.Dir(tr.pkg), "hostile-two")
			if err := os.CopyFS(second, os.DirFS(tr.pkg)); err != nil {
				t.Fatal(err)
			}
			testhome.WriteFile(t, filepath.Join(second, ".claude-plugin", "plugin.json"), `{"name": "hostile-two"}`)
			if err := os.Rename(filepath.Join(second, "skills", "s"), filepath.Join(second, "skills", "t")); err != nil {
				t.Fatal(err)
			}
			testhome.WriteFile(t, filepath.Join(second, "skills", "t", "SKILL.md"), "---\nname: t\ndescription: Another skill.\n---\nBody\n")
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			var got string
			switch c.name {
			case "claude":
				each, err := ClaudeEach(ctx, tr.wrapper, []string{tr.pkg, second})
				if err != nil {
					t.Fatal(err)
				}
				got = strings.Join(each[tr.pkg].Skills, ",") + " " + strings.Join(each[second].Skills, ",")
			case "codex":
				each, err := CodexEach(ctx, tr.wrapper, []string{tr.pkg, second})
				if err != nil {
					t.Fatal(err)
				}
				got = strings.Join(each[tr.pkg].Skills, ",") + " " + strings.Join(each[second].Skills, ",")
			case "pi":
				each, err := PIEach(ctx, tr.wrapper, []string{filepath.Join(tr.pkg, "skills", "s"), filepath.Join(second, "skills", "t")})
				if err != nil {
					t.Fatal(err)
				}
				got = strings.Join(each[filepath.Join(tr.pkg, "skills", "s")], ",") + " " + strings.Join(each[filepath.Join(second, "skills", "t")], ",")
			}
			want := map[string]string{"claude": "hostile:s hostile-two:t", "codex": "hostile:s hostile-two:t", "pi": "s t"}[c.name]
			if got != want {
				t.Errorf("the answers = %q, want %q", got, want)
			}
			tr.pkg = filepath.Dir(tr.pkg) // both packages' folder: nothing under it may run
			tr.check(t)
		})
	}
}
