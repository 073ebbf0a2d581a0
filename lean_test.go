package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The lean build (make app's plugboard) links neither the MCP SDK nor the page's server,
// nor net/http (a launch's recorder is backend/hookhttp): that is what it is for.
func TestLeanBuildLeavesOutTheSDKAndTheServer(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-tags", "lean", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "github.com/modelcontextprotocol/") || pkg == "github.com/plugboard/plugboard/app" ||
			pkg == "net/http" || pkg == "crypto/tls" {
			t.Errorf("the lean build links %s", pkg)
		}
	}
}

// A lean plugboard hands mcp check, mcp-proxy, budget and serve to plugboard-full beside
// it (or in ../lib/plugboard), arguments and all; without one it says so and exits 2.
func TestLeanBuildHandsOverToFull(t *testing.T) {
	dir := t.TempDir()
	lean, full := filepath.Join(dir, "bin", "plugboard"), filepath.Join(dir, "lib", "plugboard", "plugboard-full")
	for _, b := range []struct{ out, tags string }{{lean, "lean"}, {full, ""}} {
		if out, err := exec.Command("go", "build", "-tags", b.tags, "-o", b.out, ".").CombinedOutput(); err != nil {
			t.Fatalf("go build -tags %q: %v\n%s", b.tags, err, out)
		}
	}
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "PLUGBOARD_HOME="+filepath.Join(home, ".plugboard"))
	run := func(args ...string) (string, int) {
		cmd := exec.Command(lean, args...)
		cmd.Env = env
		out, _ := cmd.CombinedOutput()
		return string(out), cmd.ProcessState.ExitCode()
	}
	for _, c := range [][]string{{"mcp-proxy"}, {"budget"}, {"mcp"}} {
		out, code := run(c...)
		if code != 2 || !strings.HasPrefix(out, "usage: plugboard "+c[0]) {
			t.Errorf("plugboard %s: exit %d, %q; want plugboard-full's usage", c[0], code, out)
		}
	}

	// serve with its arguments: the full program's server answers with its URL.
	serve := exec.Command(lean, "serve", "--addr", "127.0.0.1:0", "--home", filepath.Join(home, ".plugboard"))
	serve.Env = env
	stdout, err := serve.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer serve.Wait()
	defer serve.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "http://127.0.0.1:") {
		t.Fatalf("plugboard serve through plugboard-full: %q, %v", line, err)
	}
	if exe, err := os.Readlink("/proc/" + strconv.Itoa(serve.Process.Pid) + "/exe"); err != nil || exe != full {
		t.Errorf("serve runs %q (%v), want %s", exe, err, full)
	}

	if err := os.Remove(full); err != nil {
		t.Fatal(err)
	}
	out, code := run("mcp-proxy", "--config", "x")
	if code != 2 || !strings.Contains(out, "plugboard-full") || !strings.Contains(out, "could not be started") {
		t.Errorf("without plugboard-full: exit %d, %q", code, out)
	}
}
