package testhome

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// NonRootEnv is set, to the value the caller gave, in the process AsNonRoot starts.
const NonRootEnv = "PLUGBOARD_TEST_NONROOT"

// NonRootUID is the user a root test process runs its non-root part as (nobody).
const NonRootUID = "65534"

// AsNonRoot runs the test named helper of the current test binary as a user that is not
// root, with NonRootEnv=arg, and returns its standard output. Permission cases need it:
// tests may run as root here, and root reads a file of mode 000. As root it copies the
// binary into a folder that user can reach and starts it with setpriv (util-linux);
// otherwise it runs it directly. dirs are made reachable (0755) for that user, with
// every ancestor up to the first one that already is, so the fixture must live in them.
// The helper test does its work only when NonRootEnv is set and writes its result to
// stdout. A missing setpriv fails the test: the case must not silently not run.
func AsNonRoot(t testing.TB, helper, arg string, dirs ...string) []byte {
	t.Helper()
	bin := os.Args[0]
	var argv []string
	if os.Geteuid() == 0 {
		setpriv, err := exec.LookPath("setpriv")
		if err != nil {
			t.Fatalf("setpriv (util-linux) is needed to run %s as a user that is not root: %v", helper, err)
		}
		binDir := t.TempDir()
		dirs = append(dirs, binDir)
		bin = filepath.Join(binDir, filepath.Base(os.Args[0]))
		copyExecutable(t, os.Args[0], bin)
		argv = []string{setpriv, "--reuid=" + NonRootUID, "--regid=" + NonRootUID, "--clear-groups", "--"}
	}
	for _, d := range dirs {
		reachable(t, d)
	}
	argv = append(argv, bin, "-test.run=^"+helper+"$", "-test.count=1")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), NonRootEnv+"="+arg)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second // a process the helper left holding its output does not hold the test
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s as a user that is not root: %v\n%s%s", helper, err, stdout.Bytes(), stderr.Bytes())
	}
	return stdout.Bytes()
}

// reachable makes dir and its ancestors searchable by anyone, from dir up to the first
// that already is.
func reachable(t testing.TB, dir string) {
	t.Helper()
	for d := dir; d != filepath.Dir(d); d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm()&0o005 == 0o005 && d != dir {
			return
		}
		if err := os.Chmod(d, st.Mode().Perm()|0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func copyExecutable(t testing.TB, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// CannotRun is what a test does when something it needs is missing (a tool, a fixture,
// the shared folder): outside CI it skips with the reason; under CI (CI set, as .ci/run
// sets it) it fails, because a test that cannot run there must not pass unseen.
func CannotRun(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("cannot run under CI: "+format, args...)
	}
	t.Skipf(format, args...)
}
