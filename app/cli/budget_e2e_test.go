package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/plugboard/plugboard/backend/budget"
	"github.com/plugboard/plugboard/backend/scriptmodel"
	"github.com/plugboard/plugboard/backend/testhome"
)

// budgetHome is a private home with one portable package of n skills (descriptions of
// descLen characters), a skill of the user's own (~/.claude/skills) and a project with
// one of its own (.claude/skills), and agents over the package for claude and pi.
type budgetHome struct {
	root, pb, project string
}

func buildBudgetHome(t *testing.T, n, descLen int) budgetHome {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := budgetHome{root: root, pb: filepath.Join(root, ".plugboard"), project: filepath.Join(root, "project")}
	kit := filepath.Join(h.pb, "plugins", "bkit")
	testhome.WriteFile(t, filepath.Join(kit, "plugin.json"), `{
  "$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json",
  "name": "bkit",
  "version": "1.0.0",
  "description": "Budget test kit"
}
`)
	skill := func(dir, name, desc, extra string) {
		testhome.WriteFile(t, filepath.Join(dir, name, "SKILL.md"),
			"---\nname: "+name+"\ndescription: "+desc+"\n"+extra+"---\n# "+name+"\n\nBody of "+name+".\n")
	}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("skill-%02d", i)
		skill(filepath.Join(kit, "skills"), name, budgetDesc(name, descLen), "")
	}
	skill(filepath.Join(root, ".claude", "skills"), "mine", "The user's own skill. Use when asked for mine.", "")
	skill(filepath.Join(h.project, ".claude", "skills"), "proj", "The project's skill.", "when_to_use: when the project asks\n")
	testhome.WriteFile(t, filepath.Join(h.pb, "agents", "budget-claude.json"), `{"name": "budget-claude", "pluginDirs": ["plugins/bkit"]}`+"\n")
	testhome.WriteFile(t, filepath.Join(h.pb, "agents", "budget-pi.json"), `{"name": "budget-pi", "backend": "pi", "pluginDirs": ["plugins/bkit"]}`+"\n")
	return h
}

// budgetDesc is a description of exactly n characters that starts with the skill's name.
func budgetDesc(name string, n int) string {
	s := "Describes " + name + "."
	for len(s) < n {
		s += " Words that fill the description."
	}
	return s[:n]
}

// launchBudget runs the real plugboard launch TARGET -- args with the real agent against
// a model that answers "done", in the project folder, and returns the model's first
// scripted request.
func launchBudget(t *testing.T, h budgetHome, target string, env []string, args func(*scriptmodel.Server) []string) *scriptmodel.Request {
	t.Helper()
	return launchBudgetIn(t, newE2ENet(t), h, target, env, args)
}

// launchBudgetIn is launchBudget in the net n (where the home's remote servers are).
func launchBudgetIn(t *testing.T, n e2eNet, h budgetHome, target string, env []string, args func(*scriptmodel.Server) []string) *scriptmodel.Request {
	t.Helper()
	model := n.startModel(t, scriptmodel.Say("done"))
	if err := model.WritePIModels(h.root); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	argv := n.argv(append([]string{testBinary(t), "launch", "--home", h.pb, target, "--"}, args(model)...)...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(append([]string{"HOME=" + h.root, "PATH=" + os.Getenv("PATH"), "TERM=dumb"}, env...), slices.Concat(model.ClaudeEnv(), model.CopilotEnv())...)
	cmd.Dir = h.project
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || model.Err() != nil {
		t.Fatalf("plugboard launch %s: %v; model: %v\nstdout:\n%s\nstderr:\n%s", target, err, model.Err(), stdout.String(), stderr.String())
	}
	m := model.Main()
	if len(m) == 0 {
		t.Fatalf("no scripted request\nstdout:\n%s", stdout.String())
	}
	return m[0]
}

// budgetReport runs the real plugboard budget --json TARGET in the project folder.
func budgetReport(t *testing.T, h budgetHome, target string, env []string) budget.Report {
	t.Helper()
	return budgetReportArgs(t, h, env, "--json", target)
}

func budgetReportArgs(t *testing.T, h budgetHome, env []string, args ...string) budget.Report {
	t.Helper()
	cmd := exec.Command(testBinary(t), append([]string{"budget", "--home", h.pb}, args...)...)
	cmd.Env = append([]string{"HOME=" + h.root, "PATH=" + os.Getenv("PATH")}, env...)
	cmd.Dir = h.project
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("plugboard budget %v: %v\n%s", args, err, out)
	}
	var rep budget.Report
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("plugboard budget printed %s: %v", out, err)
	}
	return rep
}

// claudeListing is the skill listing block of Claude's request (its header included).
func claudeListing(t *testing.T, r *scriptmodel.Request) string {
	t.Helper()
	for _, m := range r.Body.Messages {
		for _, b := range m.Content {
			if i := strings.Index(b.Text, budget.ClaudeHeader); i >= 0 && m.Role != "assistant" {
				return strings.TrimRight(b.Text[i:], "\n")
			}
		}
	}
	t.Fatalf("claude's first request holds no skill listing:\n%s", r.Texts())
	return ""
}

// listingNames are the entry names of a Claude listing, in order, and those that are a
// bare name (no description).
func listingNames(text string) (names, bare []string) {
	body := strings.TrimPrefix(text, budget.ClaudeHeader)
	for _, e := range regexp.MustCompile(`\n(?:- )`).Split("\n"+body, -1)[1:] {
		line := strings.SplitN(e, "\n", 2)[0]
		name, _, ok := strings.Cut(line, ": ")
		if !ok {
			name = line
			bare = append(bare, name)
		}
		names = append(names, name)
	}
	return names, bare
}

// checkListing compares a predicted listing with the one the client sent: the same
// text, hence the same names in the same order and the same cuts, and a length within 2%.
func checkListing(t *testing.T, pred budget.Skills, got string, names, bare []string) {
	t.Helper()
	if !slices.Equal(pred.Listed, names) {
		t.Errorf("predicted entries %v\nthe client listed   %v", pred.Listed, names)
	}
	if !slices.Equal(pred.Cut, bare) {
		t.Errorf("predicted cut %v, the client listed by name only %v", pred.Cut, bare)
	}
	n := len(utf16.Encode([]rune(got)))
	if d := math.Abs(float64(pred.Chars-n)) / float64(n); d > 0.02 {
		t.Errorf("predicted %d chars, the client sent %d (%.2f%% off)", pred.Chars, n, 100*d)
	}
	sum := 0
	for _, c := range pred.BySource {
		sum += c
	}
	if sum <= 0 || sum > pred.Chars {
		t.Errorf("characters by source %v sum to %d of %d", pred.BySource, sum, pred.Chars)
	}
	if pred.Text != got {
		t.Errorf("the predicted listing differs from the one the client sent\npredicted:\n%s\nsent:\n%s", pred.Text, got)
	}
	t.Logf("listing: %d chars predicted, %d sent; %d entries, %d cut; ~%d tokens", pred.Chars, n, len(names), len(bare), pred.Tokens)
}

// The real claude, started by the real plugboard launch in a project folder, lists for the
// model exactly the skills plugboard budget predicts, in its order and text: the target's
// skills, the user's and the project's own (a when_to_use included), and Claude's bundled
// entries; first with the budget Claude computes itself (everything fits), then with a
// budget set through Claude's own override (SLASH_COMMAND_TOOL_CHAR_BUDGET) so low that
// all but three of the skills that may be shortened are listed by name only.
func TestBudgetPredictsClaudesListingEndToEnd(t *testing.T) {
	claude := client(t, testhome.Claude)
	h := buildBudgetHome(t, 8, 200)
	bin := "PLUGBOARD_CLAUDE_BIN=" + claude
	args := func(*scriptmodel.Server) []string {
		return []string{"-p", "hi", "--output-format", "stream-json", "--verbose"}
	}

	pred := budgetReport(t, h, "budget-claude", []string{bin})
	// Claude's own budget for the model it sends the scripted server (claude-opus-4-8: a 1M
	// window, 3 bytes a token): 1% of 1M times 3, 30000 characters; everything fits.
	if pred.Backend != "claude" || pred.Skills.Budget != 30000 || pred.Skills.Mode != "fits" || len(pred.Skills.Cut) != 0 ||
		pred.MCP.Tools == nil || *pred.MCP.Tools != 0 || len(pred.MCP.Servers) != 0 || pred.Total != pred.Skills.Tokens {
		t.Fatalf("plugboard budget: %+v", pred)
	}
	for _, n := range []string{"mine", "proj", "bkit:skill-00", "bkit:skill-07"} {
		if !slices.Contains(pred.Skills.Listed, n) {
			t.Errorf("the prediction lists no %s: %v", n, pred.Skills.Listed)
		}
	}
	got := claudeListing(t, launchBudget(t, h, "budget-claude", []string{bin}, args))
	names, bare := listingNames(got)
	checkListing(t, pred.Skills, got, names, bare)

	// A budget that holds every bundled entry, every other name, and the descriptions of
	// the first three entries Claude may shorten (usage scores are all zero, so it keeps
	// them in listing order while they fit).
	none := budgetReport(t, h, "budget-claude", []string{bin, "SLASH_COMMAND_TOOL_CHAR_BUDGET=1"})
	base := len(utf16.Encode([]rune(strings.TrimPrefix(none.Skills.Text, budget.ClaudeHeader))))
	extra := func(name string) int {
		for _, line := range strings.Split(pred.Skills.Text, "\n") {
			if rest, ok := strings.CutPrefix(line, "- "+name+": "); ok {
				return len(utf16.Encode([]rune(rest))) + 2
			}
		}
		t.Fatalf("no entry %s", name)
		return 0
	}
	low := base + extra("mine") + extra("proj") + extra("bkit:skill-00") + 3
	env := []string{bin, fmt.Sprintf("SLASH_COMMAND_TOOL_CHAR_BUDGET=%d", low)}
	pred = budgetReport(t, h, "budget-claude", env)
	want := []string{"bkit:skill-01", "bkit:skill-02", "bkit:skill-03", "bkit:skill-04", "bkit:skill-05", "bkit:skill-06", "bkit:skill-07", "init", "review", "security-review"}
	if pred.Skills.Budget != low || pred.Skills.Mode != "priority" || !slices.Equal(pred.Skills.Cut, want) {
		t.Fatalf("with a budget of %d: budget %d, mode %s, cut %v; want cut %v", low, pred.Skills.Budget, pred.Skills.Mode, pred.Skills.Cut, want)
	}
	got = claudeListing(t, launchBudget(t, h, "budget-claude", env, args))
	names, bare = listingNames(got)
	checkListing(t, pred.Skills, got, names, bare)
}

// The real pi, started by the real plugboard launch with its skills passed one by one and
// --no-skills, lists in its system prompt exactly the block plugboard budget predicts:
// the target's skills in the launch's order, with their projected locations, and none of
// the user's or the project's own.
func TestBudgetPredictsPIsListingEndToEnd(t *testing.T) {
	pi := client(t, ".bin/pi")
	h := buildBudgetHome(t, 4, 120)
	env := []string{"PLUGBOARD_PI_BIN=" + pi}
	pred := budgetReport(t, h, "budget-pi", env)
	if pred.Backend != "pi" || len(pred.Skills.Listed) != 4 || len(pred.Skills.Cut) != 0 {
		t.Fatalf("plugboard budget: %+v", pred)
	}
	first := launchBudget(t, h, "budget-pi", env, func(*scriptmodel.Server) []string {
		return append(scriptmodel.PIArgs(), "--offline", "--no-session", "-p", "hi")
	})
	sys := first.SystemText()
	i, j := strings.Index(sys, budget.PIHeader), strings.Index(sys, "</available_skills>")
	if i < 0 || j < i {
		t.Fatalf("pi's system prompt holds no skill listing:\n%s", sys)
	}
	got := sys[i : j+len("</available_skills>")]
	var names []string
	for _, s := range first.AvailableSkills() {
		names = append(names, s.Name)
	}
	checkListing(t, pred.Skills, got, names, nil)
}

// mcpToolChars is what a request's tools named with prefix cost as plugboard budget
// counts them: name, description and input schema of each; and how many there are.
func mcpToolChars(r *scriptmodel.Request, prefix string) (chars, n int) {
	for _, tl := range r.Body.Tools {
		if strings.HasPrefix(tl.Name, prefix) {
			chars += len(utf16.Encode([]rune(tl.Name + tl.Description)))
			chars += len(tl.InputSchema)
			n++
		}
	}
	return chars, n
}

// The MCP part of plugboard budget, against what the real clients send once the e2e
// home's three servers (two stdio, one remote in the net) have been checked by the real
// plugboard mcp check: Claude, against a server that is not Anthropic's, sends every
// tool's definition, and the prediction has the same count and size; with its tool
// search on (ENABLE_TOOL_SEARCH, the default against Anthropic's API) no definition is
// sent and the prediction says so. PI's adapter sends its gateway tool and a proxy per
// server, whatever their tools, and the prediction has their size exactly. Before the
// check, Claude's MCP cost is unknown and the servers are listed as unchecked.
func TestBudgetCountsMCPToolsEndToEnd(t *testing.T) {
	claude := client(t, testhome.Claude)
	pi := client(t, ".bin/pi")
	adapter := client(t, "pi-mcp-adapter/index.ts")
	n := newE2ENet(t)
	e := buildE2EHome(t, n.startRemote(t, (&remoteServer{}).handler()))
	h := budgetHome{root: e.root, pb: e.pb, project: filepath.Join(e.root, "project")}
	if err := os.MkdirAll(h.project, 0o755); err != nil {
		t.Fatal(err)
	}
	cli := func(args ...string) {
		t.Helper()
		argv := n.argv(append([]string{testBinary(t)}, args...)...)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = []string{"HOME=" + e.root, "PATH=" + os.Getenv("PATH"), "E2E_CURSOR_RECORD=" + e.record}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("plugboard %v: %v\n%s", args, err, out)
		}
	}
	for _, target := range []string{"e2e-claude", "e2e-pi"} {
		cli("assign", "--home", e.pb, "agent:"+target, "--add", e2eCursorID, "--ack-mcp")
		cli("ack", "--home", e.pb, "agent:"+target)
	}
	// Claude starts its MCP servers before the first request only when told to wait.
	cEnv := []string{"PLUGBOARD_CLAUDE_BIN=" + claude, "MCP_CONNECTION_NONBLOCKING=0", "E2E_CURSOR_RECORD=" + e.record}
	// plugboard budget reads the environment the launch would pass on: the launch below
	// gets the scripted model's base URL, which is not Anthropic's.
	bEnv := slices.Concat(cEnv, []string{"ANTHROPIC_BASE_URL=http://127.0.0.1:9/"})
	before := budgetReport(t, h, "e2e-claude", bEnv)
	if m := before.MCP; m.Tools != nil || m.Tokens != nil || len(m.Unchecked) != 3 || before.Total != before.Skills.Tokens {
		t.Errorf("before any check: %+v", m)
	}
	cli("mcp", "check", "--home", e.pb, "e2e-claude")
	args := func(*scriptmodel.Server) []string {
		return []string{"-p", "hi", "--output-format", "stream-json", "--verbose"}
	}
	pred := budgetReport(t, h, "e2e-claude", bEnv)
	got, count := mcpToolChars(launchBudgetIn(t, n, h, "e2e-claude", cEnv, args), "mcp__")
	m := pred.MCP
	if m.Mode != "inline" || m.Tools == nil || *m.Tools != count || count != 3 || m.Chars != got || len(m.Unchecked) != 0 ||
		pred.Total != pred.Skills.Tokens+*m.Tokens {
		t.Errorf("claude sent %d MCP tools, %d chars; predicted %+v (total %d)", count, got, m, pred.Total)
	}
	t.Logf("claude, inline: %d tools, %d chars predicted, %d sent", *m.Tools, m.Chars, got)
	text := exec.Command(testBinary(t), "budget", "--home", e.pb, "e2e-claude")
	text.Env = append([]string{"HOME=" + e.root, "PATH=" + os.Getenv("PATH")}, bEnv...)
	out, err := text.Output()
	want := fmt.Sprintf("MCP: 3 servers, %d chars, ~%d tokens: every tool's definition\n", got, got/4)
	if err != nil || !strings.Contains(string(out), want) || !strings.Contains(string(out), "  kitstdio: 1 tool, ") {
		t.Errorf("plugboard budget printed (%v):\n%s\nwant a line %q", err, out, want)
	}

	// Tool search on: the definitions stay out of the request.
	sEnv := slices.Concat(cEnv, []string{"ENABLE_TOOL_SEARCH=true"})
	pred = budgetReport(t, h, "e2e-claude", slices.Concat(bEnv, []string{"ENABLE_TOOL_SEARCH=true"}))
	req := launchBudgetIn(t, n, h, "e2e-claude", sEnv, args)
	if _, count := mcpToolChars(req, "mcp__"); count != 0 || pred.MCP.Mode != "deferred" || *pred.MCP.Tools != 0 || !req.HasTool("ToolSearch") {
		t.Errorf("with tool search claude sent %d MCP tools (ToolSearch offered: %v); predicted %+v", count, req.HasTool("ToolSearch"), pred.MCP)
	}

	pEnv := []string{"PLUGBOARD_PI_BIN=" + pi, "PLUGBOARD_PI_MCP_ADAPTER=" + adapter, "E2E_CURSOR_RECORD=" + e.record}
	pred = budgetReport(t, h, "e2e-pi", pEnv)
	req = launchBudgetIn(t, n, h, "e2e-pi", pEnv, func(*scriptmodel.Server) []string {
		return append(scriptmodel.PIArgs(), "--offline", "--no-session", "-p", "hi")
	})
	gw, _ := mcpToolChars(req, "mcp")
	proxies, np := mcpToolChars(req, "mcp__")
	gw -= proxies
	m = pred.MCP
	if m.Mode != "gateway" || *m.Tools != np+1 || np != 3 || m.Chars != gw+proxies {
		t.Errorf("pi sent a gateway of %d chars and %d proxies of %d; predicted %+v", gw, np, proxies, m)
	}
	t.Logf("pi: gateway %d chars and %d proxy tools, %d chars; predicted %d", gw, np, proxies, m.Chars)
}
