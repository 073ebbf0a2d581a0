package runtime

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// standIn writes a recording stand-in agent: a shell script that writes its arguments
// (one per line) and the names of the PLUGBOARD/PLUGIN variables it was given to
// record, and then, in session mode (-p), answers each stdin line with "PID line".
// It stands in for claude and pi where the real ones cannot run (no account).
func standIn(t testing.TB) (bin, record string) {
	t.Helper()
	dir := t.TempDir()
	bin = filepath.Join(dir, "agent")
	record = filepath.Join(dir, "record")
	script := `#!/bin/sh
printf '%s\n' "$@" > "` + record + `.$$"
mv "` + record + `.$$" "` + record + `"
for a in "$@"; do
  if [ "$a" = "-p" ]; then
    while IFS= read -r line; do echo "$$ $line"; done
    exit 0
  fi
done
exit "${STANDIN_EXIT:-0}"
`
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, record
}

func TestRunForeground(t *testing.T) {
	bin, record := standIn(t)
	pb := home(t)
	req := request(pb, "coder")
	req.Bin = bin
	req.Args = []string{"--resume", "it's here"}
	p := build(t, req)
	out := &strings.Builder{}
	t.Setenv("STANDIN_EXIT", "7")
	code, err := Run(context.Background(), p, nil, strings.NewReader(""), out, out)
	if err != nil || code != 7 {
		t.Fatalf("Run = %d, %v", code, err)
	}
	b, _ := os.ReadFile(record)
	got := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if !slices.Equal(got, p.Argv[1:]) {
		t.Errorf("the agent got %q\nwant %q", got, p.Argv[1:])
	}
	if _, err := Run(context.Background(), &Plan{Argv: []string{filepath.Join(t.TempDir(), "missing")}}, nil, nil, out, out); err == nil {
		t.Error("a missing agent is not an error")
	}
}

func TestPoolReusesOnlyEqualFingerprints(t *testing.T) {
	bin, _ := standIn(t)
	pb := home(t)
	req := request(pb, "coder")
	req.Bin = bin
	a := build(t, req)
	req.Mode = ModeBenchmark
	b := build(t, req)
	if a.Fingerprint == b.Fingerprint {
		t.Fatal("fixture: fingerprints are equal")
	}
	pool := &Pool{Max: 3}
	defer pool.Close()
	ctx := context.Background()
	s1, err := pool.Get(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	reply, err := s1.Send([]byte(`{"type":"user"}`))
	if err != nil || string(reply) != strconv.Itoa(s1.PID)+` {"type":"user"}`+"\n" {
		t.Fatalf("reply %q, %v", reply, err)
	}
	s2, _ := pool.Get(ctx, a)
	if s2 != s1 {
		t.Error("an equal fingerprint started a second process")
	}
	// Other agent arguments: the same capabilities, but not the same session.
	withArgs := *a
	withArgs.Argv = append(append([]string{}, a.Argv...), "--model", "x")
	sw, _ := pool.Get(ctx, &withArgs)
	if sw == s1 {
		t.Error("a session started with other arguments was reused")
	}
	s3, _ := pool.Get(ctx, b)
	if s3 == s1 || s3.PID == s1.PID {
		t.Error("a different fingerprint reused a process")
	}
	if pool.Len() != 3 {
		t.Errorf("pool holds %d", pool.Len())
	}
	// A session that died is replaced.
	syscall.Kill(s1.PID, syscall.SIGKILL)
	<-s1.exited
	s4, _ := pool.Get(ctx, a)
	if s4 == s1 || !s4.alive() {
		t.Error("a dead session was handed out")
	}
	// Past Max the least recently used goes.
	req.Mode = ModeSubagent
	c := build(t, req)
	s5, _ := pool.Get(ctx, c)
	if pool.Len() != 3 || sw.alive() || !s3.alive() || !s5.alive() {
		t.Errorf("eviction: len %d, least recently used alive %v", pool.Len(), sw.alive())
	}
	pool.Close()
	if s4.alive() || s5.alive() {
		t.Error("Close left sessions running")
	}
	if _, err := pool.Get(ctx, a); err == nil {
		t.Error("a closed pool started a session")
	}
}
