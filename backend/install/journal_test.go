package install

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/plugboard/plugboard/backend/testhome"
)

// TestMain runs the test binary as a plugboard that is killed at one step of an update
// or a rollback when PLUGBOARD_CRASH_OP says so.
func TestMain(m *testing.M) {
	if op := os.Getenv("PLUGBOARD_CRASH_OP"); op != "" {
		crashChild(op, os.Getenv("PLUGBOARD_CRASH_AT"), os.Getenv("PLUGBOARD_CRASH_HOME"))
		return
	}
	os.Exit(m.Run())
}

func crashChild(op, at, pbHome string) {
	crashAt = func(step string) {
		if step == at {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
	}
	var err error
	switch op {
	case "install":
		_, err = Install(context.Background(), Options{Home: filepath.Dir(pbHome), PlugboardHome: pbHome, Source: os.Getenv("PLUGBOARD_CRASH_SRC")})
	case "update":
		_, err = Apply(context.Background(), UpdateOptions{Home: filepath.Dir(pbHome), PlugboardHome: pbHome, Name: "tool"})
	case "rollback":
		_, err = Rollback(context.Background(), RollbackOptions{Home: filepath.Dir(pbHome), PlugboardHome: pbHome, Name: "tool"})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	os.Exit(0)
}

var (
	installSteps  = []string{"install:recorded", "install:placed", "install:lockfile"}
	updateSteps   = []string{"update:recorded", "update:exchanged", "update:moved", "update:recorded-lockfile", "update:kept"}
	rollbackSteps = []string{"rollback:recorded", "rollback:entry", "rollback:exchanged", "rollback:lockfile", "rollback:done"}
)

// An update and a rollback killed at each of their steps, twenty rounds each (200 kills):
// the next command (here update --check) completes or undoes what was left, so that the
// lockfile always describes the installed folder, both versions are still there (one
// installed, the other the rollback copy, whose entry matches it) once the update got
// as far as its first rename, no record or hidden folder is left, and a rollback then
// works.
func TestKilledUpdateAndRollbackLoseNothing(t *testing.T) {
	for round := range 20 {
		for _, op := range []string{"update", "rollback"} {
			steps := updateSteps
			if op == "rollback" {
				steps = rollbackSteps
			}
			for _, step := range steps {
				t.Run(fmt.Sprintf("%s/%d", step, round), func(t *testing.T) {
					home, pbHome := homes(t)
					src := filepath.Join(filepath.Dir(home), "src", "tool")
					writePlugin(t, src, "tool")
					if _, err := Install(context.Background(), opts(t, pbHome, src)); err != nil {
						t.Fatal(err)
					}
					v1 := contentOf(filepath.Join(pbHome, "plugins", "tool"))
					testhome.WriteFile(t, filepath.Join(src, "skills", "wave", "SKILL.md"), "---\nname: wave\ndescription: Waves.\n---\n")
					if op == "rollback" {
						if _, err := Apply(context.Background(), UpdateOptions{Home: home, PlugboardHome: pbHome, Name: "tool"}); err != nil {
							t.Fatal(err)
						}
					}
					v2 := contentOf(filepath.Join(src))
					cmd := exec.Command(os.Args[0])
					cmd.Env = append(os.Environ(), "PLUGBOARD_CRASH_OP="+op, "PLUGBOARD_CRASH_AT="+step, "PLUGBOARD_CRASH_HOME="+pbHome)
					out, err := cmd.CombinedOutput()
					if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
						t.Fatalf("the %s was not killed at %s: %v\n%s", op, step, err, out)
					}
					// the next command of any kind that takes the install lock
					if _, err := Check(context.Background(), UpdateOptions{Home: home, PlugboardHome: pbHome, Name: "tool"}); err != nil {
						t.Fatalf("the next command: %v", err)
					}
					checkWhole(t, pbHome, v1, v2)
					if _, err := Rollback(context.Background(), RollbackOptions{Home: home, PlugboardHome: pbHome, Name: "tool"}); err != nil && !strings.Contains(err.Error(), "no previous version") {
						t.Errorf("a rollback after it: %v", err)
					}
					checkWhole(t, pbHome, v1, v2)
				})
			}
		}
	}
}

// contentOf is the content hash the lockfile records of a folder.
func contentOf(dir string) string {
	_, c := fileSums(dir)
	return c
}

// checkWhole: the lockfile describes the installed folder; v1 is installed or kept, and
// so is v2 when the installed one is not v1; the rollback copy's entry matches its
// folder; no record, staging or hidden rollback folder is left.
func checkWhole(t *testing.T, pbHome, v1, v2 string) {
	t.Helper()
	lf, err := ReadLockfile(LockfilePath(pbHome))
	if err != nil {
		t.Fatal(err)
	}
	installed := contentOf(filepath.Join(pbHome, "plugins", "tool"))
	if e := lf.Plugins["tool"]; e.Content != installed {
		t.Errorf("the lockfile says %s, the installed folder is %s", e.Content, installed)
	}
	versions := []string{installed}
	keep := filepath.Join(rollbackDir(pbHome), "tool")
	if e, err := readKept(keep, "tool"); err == nil {
		kept := contentOf(filepath.Join(keep, rollbackFolder))
		if e.Content != kept {
			t.Errorf("the rollback copy's entry says %s, its folder is %s", e.Content, kept)
		}
		versions = append(versions, kept)
	}
	if !slices.Contains(versions, v1) || installed != v1 && !slices.Contains(versions, v2) {
		t.Errorf("versions there: %v; v1 %s, v2 %s", versions, v1, v2)
	}
	if entries, _ := os.ReadDir(journalDir(pbHome)); len(entries) > 0 {
		t.Errorf("records left: %v", entries)
	}
	if entries, _ := os.ReadDir(rollbackDir(pbHome)); len(entries) > 0 {
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				t.Errorf("hidden folder left in %s: %s", rollbackDir(pbHome), e.Name())
			}
		}
	}
	checkNoLeftovers(t, pbHome)
}

// An install killed at each of its steps, twenty rounds (60 kills): the next command leaves the
// plugin either installed and in the lockfile with its content, or neither, and nothing
// else behind.
func TestKilledInstallLosesNothing(t *testing.T) {
	for round := range 20 {
		for _, step := range installSteps {
			t.Run(fmt.Sprintf("%s/%d", step, round), func(t *testing.T) {
				home, pbHome := homes(t)
				src := filepath.Join(filepath.Dir(home), "src", "tool")
				writePlugin(t, src, "tool")
				if err := os.MkdirAll(pbHome, 0o755); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command(os.Args[0])
				cmd.Env = append(os.Environ(), "PLUGBOARD_CRASH_OP=install", "PLUGBOARD_CRASH_AT="+step, "PLUGBOARD_CRASH_HOME="+pbHome, "PLUGBOARD_CRASH_SRC="+src)
				out, err := cmd.CombinedOutput()
				if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
					t.Fatalf("the install was not killed at %s: %v\n%s", step, err, out)
				}
				if _, err := Check(context.Background(), UpdateOptions{Home: home, PlugboardHome: pbHome}); err != nil {
					t.Fatalf("the next command: %v", err)
				}
				lf, err := ReadLockfile(LockfilePath(pbHome))
				if err != nil {
					t.Fatal(err)
				}
				e, recorded := lf.Plugins["tool"]
				dest := filepath.Join(pbHome, "plugins", "tool")
				_, statErr := os.Lstat(dest)
				switch {
				case recorded && statErr != nil:
					t.Errorf("the lockfile records tool, which is not installed")
				case !recorded && statErr == nil:
					t.Errorf("tool is installed and the lockfile does not record it")
				case recorded && e.Content != contentOf(dest):
					t.Errorf("the lockfile says %s, the folder is %s", e.Content, contentOf(dest))
				}
				if entries, _ := os.ReadDir(journalDir(pbHome)); len(entries) > 0 {
					t.Errorf("records left: %v", entries)
				}
				checkNoLeftovers(t, pbHome)
			})
		}
	}
}
