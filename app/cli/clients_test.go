package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/testhome"
)

// The real agent clients, installed by `make deps-agents` into build/agents (make test
// does it). They run offline: HOME is a temporary folder, no API key is set, and when
// this process may, inside an empty network namespace (unshare -n). See
// ../shared/docs/AGENT-BACKENDS.md.
//
// client returns the path of an installed client, or skips (fails under CI, where make
// test installs them).
func client(t *testing.T, rel string) string { return testhome.AgentBin(t, rel) }

// offline runs argv with a private HOME, no credentials and, when possible, no network.
func offline(ctx context.Context, t *testing.T, argv []string, extraEnv ...string) *exec.Cmd {
	t.Helper()
	env := []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "TERM=dumb",
		"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1"}
	env = append(env, extraEnv...)
	if os.Geteuid() == 0 && exec.Command("unshare", "-n", "true").Run() == nil {
		argv = append([]string{"unshare", "-n"}, argv...)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = env
	// The agent starts others (MCP servers through plugboard, a shell), which may outlive
	// it for a moment and write under its HOME: the context's end kills them all, and
	// the test ends when none is left, before its folders are removed (so a folder the
	// caller makes for the command must be made before this).
	testhome.OwnGroup(cmd)
	t.Cleanup(func() {
		if cmd.Process != nil {
			testhome.StopGroup(t, cmd.Process.Pid)
		}
	})
	return cmd
}

// dryRun runs the real plugboard's launch --dry-run --json and returns the plan, then
// makes its projection: a dry run writes nothing, so the plan is launched once with
// /bin/true in the agent's place (the fingerprint does not cover the executable, so the
// projection is the one the plan names).
func dryRun(t *testing.T, pb string, env []string, args ...string) runtime.Plan {
	t.Helper()
	cmd := exec.Command(testBinary(t), append([]string{"launch", "--dry-run", "--json", "--home", pb}, args...)...)
	cmd.Env = append([]string{"HOME=" + filepath.Dir(pb), "PATH=" + os.Getenv("PATH")}, env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("launch --dry-run: %v\n%s", err, out)
	}
	var p runtime.Plan
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(p.Projection); !os.IsNotExist(err) && !p.Reused {
		t.Fatalf("the dry run wrote its projection %s", p.Projection)
	}
	launch := exec.Command(testBinary(t), append([]string{"launch", "--home", pb}, args...)...)
	launch.Env = append(append([]string{"HOME=" + filepath.Dir(pb), "PATH=" + os.Getenv("PATH")}, env...),
		"PLUGBOARD_CLAUDE_BIN=/bin/true", "PLUGBOARD_PI_BIN=/bin/true", "PLUGBOARD_CODEX_BIN=/bin/true", "PLUGBOARD_COPILOT_BIN=/bin/true")
	if out, err := launch.CombinedOutput(); err != nil {
		t.Fatalf("launch with /bin/true for the agent: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(p.Projection, sealName)); err != nil {
		t.Fatalf("the launch did not make the projection the dry run named: %v", err)
	}
	return p
}

// sealName is the projection's seal (backend/runtime), present once it is whole.
const sealName = ".seal.json"

func sorted(l []string) []string {
	l = slices.Clone(l)
	sort.Strings(l)
	return l
}

// Claude started with the dry-run's argv loads exactly the projected skills and MCP
// servers: its first stream-json event (system/init) lists what the session would use.
func TestClaudeLoadsTheProjection(t *testing.T) {
	claude := client(t, testhome.Claude)
	pb, _ := launchHome(t)
	plan := dryRun(t, pb, []string{"PLUGBOARD_CLAUDE_BIN=" + claude}, "coder")
	if len(plan.Skills) != 3 || len(plan.Servers) != 3 {
		t.Fatalf("fixture plan: %v %v", plan.Skills, plan.Servers)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	work := t.TempDir()
	cmd := offline(ctx, t, append(plan.Argv, "-p", "hi", "--output-format", "stream-json", "--verbose"))
	cmd.Dir = work
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	var init struct {
		Type, Subtype string
		Skills        []string
		Plugins       []struct{ Name, Path string }
		MCPServers    []struct{ Name, Status string } `json:"mcp_servers"`
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if json.Unmarshal(sc.Bytes(), &init) == nil && init.Type == "system" && init.Subtype == "init" {
			break
		}
	}
	cancel()
	if init.Subtype != "init" {
		t.Fatal("claude printed no init event")
	}
	var skills, plugins, servers []string
	for _, s := range init.Skills {
		if strings.HasPrefix(s, "review:") || strings.HasPrefix(s, "legacy-tools:") {
			skills = append(skills, s)
		}
	}
	for _, p := range init.Plugins {
		plugins = append(plugins, p.Name+"@"+p.Path)
	}
	for _, s := range init.MCPServers {
		servers = append(servers, s.Name)
	}
	if !slices.Equal(sorted(skills), plan.Skills) {
		t.Errorf("claude loaded plugin skills %v, the plan projected %v", skills, plan.Skills)
	}
	if !slices.Equal(sorted(servers), plan.Servers) {
		t.Errorf("claude's MCP servers %v, the plan has %v", servers, plan.Servers)
	}
	wantPlugins := []string{"legacy-tools@" + filepath.Join(pb, "plugins", "legacy-tools"), "review@" + filepath.Join(plan.Projection, "plugins", "review")}
	if !slices.Equal(sorted(plugins), wantPlugins) {
		t.Errorf("claude's plugins %v, want %v", plugins, wantPlugins)
	}
	t.Logf("init: skills %v, servers %v", skills, init.MCPServers)

	// Suppression: a benchmark launch gives Claude no portable MCP.
	bench := dryRun(t, pb, []string{"PLUGBOARD_CLAUDE_BIN=" + claude}, "coder", "--mode", "benchmark")
	if slices.ContainsFunc(bench.Argv, func(a string) bool { return strings.HasPrefix(a, "--mcp-config") }) {
		t.Errorf("benchmark argv %v", bench.Argv)
	}
}

// claude plugin validate passes on every compatibility projection.
func TestClaudeValidatesCompatibilityPlugins(t *testing.T) {
	claude := client(t, testhome.Claude)
	pb, _ := launchHome(t)
	plan := dryRun(t, pb, []string{"PLUGBOARD_CLAUDE_BIN=" + claude}, "coder")
	n := 0
	for _, p := range plan.Plugins {
		if p.How != "projected" {
			continue
		}
		n++
		dir := filepath.Join(plan.Projection, "plugins", p.ID)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		out, err := offline(ctx, t, []string{claude, "plugin", "validate", "--strict", dir}).CombinedOutput()
		cancel()
		if err != nil {
			t.Errorf("claude plugin validate --strict %s: %v\n%s", dir, err, out)
		}
	}
	if n == 0 {
		t.Fatal("no compatibility plugin in the plan")
	}
}

// PI in RPC mode, started with the dry-run's argv, lists exactly the projected skills;
// with the MCP bridge, its servers are the plan's.
func TestPILoadsTheProjection(t *testing.T) {
	pi := client(t, ".bin/pi")
	adapter := client(t, "pi-mcp-adapter/index.ts")
	pb, _ := launchHome(t)
	plan := dryRun(t, pb, []string{"PLUGBOARD_PI_BIN=" + pi, "PLUGBOARD_PI_MCP_ADAPTER=" + adapter}, "pi-coder")
	if !slices.Equal(plan.Skills, []string{"check", "explain"}) || !slices.Equal(plan.Servers, []string{"docs", "lint"}) {
		t.Fatalf("fixture plan: %v %v", plan.Skills, plan.Servers)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	env := []string{}
	for _, k := range plan.EnvKeys {
		if k == runtime.PIMCPConfigMode {
			env = append(env, k+"=exclusive")
		}
	}
	cmd := offline(ctx, t, append(plan.Argv, "--mode", "rpc", "--no-session", "--offline"), env...)
	cmd.Dir = t.TempDir()
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	stdin.Write([]byte(`{"id":"1","type":"get_commands"}` + "\n"))
	stdin.Write([]byte(`{"id":"2","type":"prompt","message":"/mcp status"}` + "\n"))
	var skills []string
	var bridge bool
	status := ""
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() && (skills == nil || status == "") {
		var ev struct {
			ID, Type, Method, Message string
			Data                      struct {
				Commands []struct{ Name, Source string }
			}
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		switch {
		case ev.ID == "1" && ev.Type == "response":
			skills = []string{}
			for _, c := range ev.Data.Commands {
				if c.Source == "skill" {
					skills = append(skills, strings.TrimPrefix(c.Name, "skill:"))
				}
				bridge = bridge || c.Name == "mcp"
			}
		case ev.Method == "notify" && strings.Contains(ev.Message, "lint") && strings.Contains(ev.Message, "docs"):
			status = ev.Message
		}
	}
	if !slices.Equal(sorted(skills), plan.Skills) {
		t.Errorf("pi loaded skills %v, the plan projected %v", skills, plan.Skills)
	}
	if !bridge {
		t.Error("the MCP bridge extension did not load")
	}
	if status == "" {
		t.Error("pi's /mcp status never named both servers")
	}
	t.Logf("pi: skills %v; /mcp status: %q", skills, status)
}

// A package the specification rejects, launched as Claude loads it: the real claude,
// started with the dry-run's argv, lists exactly the skills the plan names (Claude's own
// listing: folder names, an unquoted colon tolerated, a skill without description left
// out).
func TestClaudeLaunchAsClaudeLoadsIt(t *testing.T) {
	claude := client(t, testhome.Claude)
	pb, env := launchHome(t)
	dir := filepath.Join(pb, "plugins", "claude-only")
	testhome.WriteFile(t, filepath.Join(dir, "plugin.json"), `{"name": "other-tool", "main": "index.js"}`)
	testhome.WriteFile(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), `{"name": "claude-only"}`)
	testhome.WriteFile(t, filepath.Join(dir, "skills", "helper", "SKILL.md"), "---\nname: Helper Skill\ndescription: Use this: when helping\n---\n")
	testhome.WriteFile(t, filepath.Join(dir, "skills", "quiet", "SKILL.md"), "no frontmatter\n")
	testhome.WriteFile(t, filepath.Join(pb, "agents", "solo.json"), `{"name": "solo", "pluginDirs": ["plugins/claude-only", "plugins/legacy-tools"]}`)
	if code, out, errOut := run(t, env, "launch-as", "claude-only", "claude"); code != ExitOK || !strings.Contains(out, "history entry") {
		t.Fatalf("launch-as = %d %s %s", code, out, errOut)
	}
	plan := dryRun(t, pb, []string{"PLUGBOARD_CLAUDE_BIN=" + claude}, "solo")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	work := t.TempDir()
	cmd := offline(ctx, t, append(plan.Argv, "-p", "hi", "--output-format", "stream-json", "--verbose"))
	cmd.Dir = work
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	var init struct {
		Type, Subtype string
		Skills        []string
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if json.Unmarshal(sc.Bytes(), &init) == nil && init.Type == "system" && init.Subtype == "init" {
			break
		}
	}
	cancel()
	var skills []string
	for _, s := range init.Skills {
		if strings.Contains(s, ":") {
			skills = append(skills, s)
		}
	}
	if !slices.Equal(sorted(skills), plan.Skills) || !slices.Contains(plan.Skills, "claude-only:helper") {
		t.Errorf("claude listed %v, the plan says %v", sorted(skills), plan.Skills)
	}
}
