package assign

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/catalog"
)

// Helper processes: the test binary run again with ASSIGN_HELPER set.
//
//	apply: Apply Set ASSIGN_SET to ASSIGN_TARGET with ASSIGN_EXPECT; exit 0 saved, 3
//	       stale, 1 anything else. Between its read and the lock the save waits at a
//	       barrier (ASSIGN_READY, ASSIGN_N) until all ASSIGN_N processes have read.
//	loop:  save ASSIGN_TARGET forever, alternating Set ASSIGN_SET and Set ASSIGN_SET2,
//	       creating ASSIGN_GO after savesBeforeKill saves.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv("ASSIGN_HELPER")
	if mode == "" {
		return // run by the process tests
	}
	pb := os.Getenv("ASSIGN_HOME")
	cat := catalog.Load(catalog.Options{Home: os.Getenv("ASSIGN_USERHOME"), PlugboardHome: pb, Workers: 1})
	id, goFile := os.Getenv("ASSIGN_TARGET"), os.Getenv("ASSIGN_GO")
	set := func(v string) Change { return Change{Set: strings.Split(os.Getenv(v), ",")} }
	switch mode {
	case "apply":
		// A barrier between the read and the lock: each process says it has read the
		// target (a file in ASSIGN_READY) and waits until every one has, so all of them
		// read before any of them writes.
		ready, n := os.Getenv("ASSIGN_READY"), os.Getenv("ASSIGN_N")
		beforeLock = func(string) {
			os.WriteFile(filepath.Join(ready, strconv.Itoa(os.Getpid())), nil, 0o644)
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
				if ents, _ := os.ReadDir(ready); strconv.Itoa(len(ents)) == n {
					return
				}
			}
		}
		_, err := Apply(pb, cat, id, set("ASSIGN_SET"), os.Getenv("ASSIGN_EXPECT"), false)
		switch {
		case err == nil:
			os.Exit(0)
		case errors.Is(err, ErrStale):
			os.Exit(3)
		}
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	case "loop":
		for i := 0; ; i++ {
			ch := set("ASSIGN_SET")
			if i%2 == 1 {
				ch = set("ASSIGN_SET2")
			}
			if _, err := Apply(pb, cat, id, ch, "", false); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			if i == savesBeforeKill {
				os.WriteFile(goFile, nil, 0o644) // the test kills it from now on, mid-save or between
			}
		}
	}
	os.Exit(2)
}

// savesBeforeKill is how many saves the loop helper makes before it tells the test to kill
// it: enough for the kill to land anywhere in a save.
const savesBeforeKill = 50

func helper(t *testing.T, pb string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), append([]string{"ASSIGN_HOME=" + pb, "ASSIGN_USERHOME=" + t.TempDir()}, env...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	t.Cleanup(func() {
		if stderr.Len() > 0 {
			t.Logf("helper stderr: %s", stderr.String())
		}
	})
	return cmd
}

// Two processes save the same target from the same hash: exactly one wins, the other is
// stale, and the file is the winner's.
func TestConcurrentProcesses(t *testing.T) {
	for round := 0; round < 3; round++ {
		pb, cat := mainHome(t)
		id, p := "agent:keeper", filepath.Join(pb, "agents", "keeper.json")
		hash := target(t, pb, cat, id).Hash
		ready := t.TempDir()
		sets := []string{"legacy-one", "mcp-off"}
		var cmds []*exec.Cmd
		for _, s := range sets {
			cmd := helper(t, pb, "ASSIGN_HELPER=apply", "ASSIGN_TARGET="+id, "ASSIGN_EXPECT="+hash, "ASSIGN_READY="+ready,
				"ASSIGN_N="+strconv.Itoa(len(sets)), "ASSIGN_SET="+s)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds = append(cmds, cmd)
		}
		var codes []int
		winner := ""
		for i, cmd := range cmds {
			cmd.Wait()
			code := cmd.ProcessState.ExitCode()
			codes = append(codes, code)
			if code == 0 {
				winner = sets[i]
			}
		}
		if !(codes[0] == 0 && codes[1] == 3 || codes[0] == 3 && codes[1] == 0) {
			t.Fatalf("round %d: exit codes %v; want one 0 (saved) and one 3 (stale)", round, codes)
		}
		if got, _ := dirsIn(t, p, -1); !eq(got, []string{"/srv/plugins/r&d-first", "plugins/" + winner}) {
			t.Errorf("round %d: pluginDirs = %v; want the winner's (%s)", round, got, winner)
		}
	}
}

// A process killed (SIGKILL) while it saves in a loop leaves one of the written versions,
// never a torn file; a leftover temporary file is never the target itself, and the next
// save removes it once it is old.
func TestKilledMidSave(t *testing.T) {
	pb, cat := mainHome(t)
	id, dir := "agent:keeper", filepath.Join(pb, "agents")
	p := filepath.Join(dir, "keeper.json")
	// The two versions the loop writes, computed on a scratch copy.
	var versions [][]byte
	scratch, scat := mainHome(t)
	for _, s := range [][]string{{"legacy-one"}, {"notes", "legacy-one"}} {
		if _, err := Apply(scratch, scat, id, Change{Set: s}, "", false); err != nil {
			t.Fatal(err)
		}
		versions = append(versions, readFile(t, filepath.Join(scratch, "agents", "keeper.json")))
	}
	goFile := filepath.Join(t.TempDir(), "go")
	cmd := helper(t, pb, "ASSIGN_HELPER=loop", "ASSIGN_TARGET="+id, "ASSIGN_GO="+goFile, "ASSIGN_SET=legacy-one", "ASSIGN_SET2=notes,legacy-one")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(goFile); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the helper never saved")
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	got := readFile(t, p)
	if !json.Valid(got) || !bytes.Equal(got, versions[0]) && !bytes.Equal(got, versions[1]) {
		t.Fatalf("after SIGKILL the file is not one of the written versions:\n%s", got)
	}
	if st, err := os.Lstat(p); err != nil || !st.Mode().IsRegular() {
		t.Fatalf("the target is not a regular file: %v", err)
	}
	ents, _ := os.ReadDir(dir)
	var temps []string
	for _, e := range ents {
		switch n := e.Name(); {
		case strings.HasPrefix(n, ".keeper.json.tmp-"):
			temps = append(temps, n)
		case strings.HasSuffix(n, ".json"), n == LockName:
		default:
			t.Errorf("unexpected file left in agents/: %s", n)
		}
	}
	t.Logf("after SIGKILL: file is version %d; temporary files left: %v", map[bool]int{true: 1, false: 2}[bytes.Equal(got, versions[0])], temps)
	// Age the leftovers; the next save removes them.
	past := time.Now().Add(-2 * time.Minute)
	for _, n := range temps {
		os.Chtimes(filepath.Join(dir, n), past, past)
	}
	if _, err := Apply(pb, cat, id, Change{Add: []string{"mcp-off"}}, "", false); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".keeper.json.tmp-*")); len(left) != 0 {
		t.Errorf("old temporary files survived the next save: %v", left)
	}
}
