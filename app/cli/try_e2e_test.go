package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/scriptmodel"
	"github.com/plugboard/plugboard/backend/try"
)

// End-to-end proof of plugboard try (issue 13, item 3): the real plugboard try starts the
// real claude on the launch's projection against the scripted model and reads back, from
// the activity records of each turn, the skills the model invoked.

// runTryCommand runs the real "plugboard try ARGS..." in the e2e net against model, with
// pbEnv (the agents' executables) added to the environment, and returns its stdout and
// exit status.
func runTryCommand(t *testing.T, n e2eNet, h e2eHome, pbEnv []string, model *scriptmodel.Server, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	argv := n.argv(append([]string{testBinary(t), "try", "--home", h.pb}, args...)...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(append([]string{"HOME=" + h.root, "PATH=" + os.Getenv("PATH"), "TERM=dumb", "E2E_CURSOR_RECORD=" + h.record},
		pbEnv...), slices.Concat(model.ClaudeEnv(), model.CopilotEnv(), model.CodexEnv())...)
	cmd.Dir = t.TempDir()
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("plugboard try %q ran %v\nstderr:\n%s", args, time.Since(start).Round(time.Millisecond), stderr.String())
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("plugboard try: %v\nstderr:\n%s", err, stderr.String())
	}
	if err := model.Err(); err != nil {
		t.Fatalf("the script failed: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	select {
	case <-model.Done():
	default:
		t.Fatalf("the agent exited with %d steps of the script unused\nstdout:\n%s\nstderr:\n%s", model.Remaining(), stdout.String(), stderr.String())
	}
	return stdout.String(), code
}

// One prompt: the answer is the script's, the skill the script called is the one
// reported, and how it was invoked.
func TestTryReportsTheSkillTheModelPicked(t *testing.T) {
	n, h, claude := activityHome(t)
	kitSkill := e2eKit + ":" + e2eKitSkill
	model := n.startModel(t, callSkill("try", kitSkill), scriptmodel.Say("the brief is done"))
	out, code := runTryCommand(t, n, h, []string{"PLUGBOARD_CLAUDE_BIN=" + claude}, model, "e2e-claude", "-p", "write me a brief", "--json")
	if code != 0 {
		t.Fatalf("plugboard try exited %d\n%s", code, out)
	}
	var res try.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("plugboard try --json printed %s: %v", out, err)
	}
	if res.Answer != "the brief is done" || res.Target != "agent:e2e-claude" || res.Backend != "claude" || res.Warm ||
		len(res.Skills) != 1 || res.Skills[0] != (try.Invocation{Skill: kitSkill, Plugin: e2eKit, How: "model"}) {
		t.Errorf("try result %+v; want the answer, agent:e2e-claude, a new process and %s invoked by the model", res, kitSkill)
	}
	// The try's records are activity like any launch's.
	if got := uses(activityReport(t, h)); got[kitSkill] != e2eKit+` 1 {"agent:e2e-claude":1}` {
		t.Errorf("activity after the try: %v", got)
	}
}

// A cases file runs in one warm claude, its conversation cleared between cases: the
// second case's request carries none of the first's prompt. A case whose turn invokes
// another skill than the expected one fails, and the command exits 1.
func TestTryCasesReportAFailedCase(t *testing.T) {
	n, h, claude := activityHome(t)
	kitSkill, curSkill := e2eKit+":"+e2eKitSkill, e2eCursor+":"+e2eCurSk
	const first, second = "FIRST-CASE-PROMPT write a brief", "SECOND-CASE-PROMPT write another brief"
	model := n.startModel(t,
		callSkill("c1", kitSkill), scriptmodel.Say("first done"),
		callSkill("c2", curSkill), scriptmodel.Say("second done"))
	cases := filepath.Join(t.TempDir(), "cases.json")
	body := `[{"name": "brief", "prompt": "` + first + `", "expect": "` + e2eKitSkill + `"},
		{"name": "another brief", "prompt": "` + second + `", "expect": ["` + kitSkill + `"]}]`
	if err := os.WriteFile(cases, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := runTryCommand(t, n, h, []string{"PLUGBOARD_CLAUDE_BIN=" + claude}, model, "e2e-claude", "--cases", cases, "--json")
	if code != ExitInvalid {
		t.Errorf("plugboard try --cases exited %d with a failed case, want %d\n%s", code, ExitInvalid, out)
	}
	var got struct {
		Cases          []try.CaseResult
		Passed, Failed int
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("plugboard try --cases --json printed %s: %v", out, err)
	}
	if len(got.Cases) != 2 || got.Passed != 1 || got.Failed != 1 {
		t.Fatalf("cases %+v, passed %d, failed %d; want 1 and 1", got.Cases, got.Passed, got.Failed)
	}
	c1, c2 := got.Cases[0], got.Cases[1]
	if !c1.Pass || c1.Result == nil || c1.Result.Warm || c1.Result.Answer != "first done" {
		t.Errorf("case 1 = %+v (result %+v); want a pass in a new process", c1, c1.Result)
	}
	if c2.Pass || c2.Result == nil || !c2.Result.Warm || c2.Why != "expected "+kitSkill+"; the model invoked "+curSkill {
		t.Errorf("case 2 = %+v (result %+v); want a failure in the warm process naming both skills", c2, c2.Result)
	}
	if c2.Result != nil && (len(c2.Result.Skills) != 1 || c2.Result.Skills[0].Skill != curSkill) {
		t.Errorf("case 2 skills %+v; want only %s (the first case's are not this turn's)", c2.Result.Skills, curSkill)
	}
	// The conversation was reset between the cases.
	main := model.Main()
	if len(main) != 4 {
		t.Fatalf("%d scripted requests, want 4", len(main))
	}
	if !strings.Contains(main[2].Texts(), second) || strings.Contains(main[2].Texts(), first) {
		t.Errorf("the second case's first request does not start a new conversation:\n%s", main[2].Texts())
	}

	// The table: one row per case, the failure said with its reason.
	model = n.startModel(t, callSkill("c3", curSkill), scriptmodel.Say("third done"))
	one := filepath.Join(t.TempDir(), "one.json")
	if err := os.WriteFile(one, []byte(`[{"prompt": "x", "expect": []}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code = runTryCommand(t, n, h, []string{"PLUGBOARD_CLAUDE_BIN=" + claude}, model, "e2e-claude", "--cases", one)
	if code != ExitInvalid || !strings.Contains(out, "FAIL: expected no skill; the model invoked "+curSkill) || !strings.Contains(out, "0 passed, 1 failed") {
		t.Errorf("plugboard try --cases (table) exited %d:\n%s", code, out)
	}
}

// A plugin folder is tried alone (plugboard try DIR): the launch is of that folder, for
// Claude, under a target of its own.
func TestTryAFolder(t *testing.T) {
	n, h, claude := activityHome(t)
	kitSkill := e2eKit + ":" + e2eKitSkill
	dir := filepath.Join(h.pb, "plugins", e2eKit)
	model := n.startModel(t, callSkill("dir", kitSkill), scriptmodel.Say("folder done"))
	out, code := runTryCommand(t, n, h, []string{"PLUGBOARD_CLAUDE_BIN=" + claude}, model, dir, "-p", "write me a brief")
	if code != 0 || !strings.HasPrefix(out, "folder done\n") || !strings.Contains(out, "skills invoked: "+kitSkill+"\n") ||
		!strings.Contains(out, "(dir:"+dir+", claude, a new process,") {
		t.Errorf("plugboard try %s exited %d:\n%s", dir, code, out)
	}
	if rep := activityReport(t, h); len(rep.Skills) != 1 || rep.Skills[0].ByTarget["dir:"+dir] != 1 {
		t.Errorf("activity after trying the folder: %+v", rep.Skills)
	}
}

// PI's cases run in one warm pi in RPC mode, a new session for each case: the model's
// read of a projected SKILL.md is the invocation, and a case whose turn reads another
// skill than the expected one fails.
func TestTryCasesWithPI(t *testing.T) {
	n, h, pbEnv := piActivityHome(t)
	plan := dryRun(t, h.pb, pbEnv, "e2e-pi")
	read := func(label, skill string) scriptmodel.Step {
		location := filepath.Join(plan.Projection, "skills", skill, "SKILL.md")
		calls := &toolCalls{client: "pi"}
		return func(r *scriptmodel.Request) (scriptmodel.Reply, error) {
			return calls.use(r, label, "read", map[string]any{"path": location})
		}
	}
	const first, second = "FIRST-PI-CASE write a brief", "SECOND-PI-CASE write another brief"
	model := n.startModel(t, read("c1", e2eKitSkill), scriptmodel.Say("first done"), read("c2", e2eCurSk), scriptmodel.Say("second done"))
	if err := model.WritePIModels(h.root); err != nil {
		t.Fatal(err)
	}
	cases := filepath.Join(t.TempDir(), "cases.json")
	body := `[{"prompt": "` + first + `", "expect": "` + e2eKitSkill + `"}, {"prompt": "` + second + `", "expect": "` + e2eKitSkill + `"}]`
	if err := os.WriteFile(cases, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := runTryCommand(t, n, h, pbEnv, model, append([]string{"e2e-pi", "--cases", cases, "--json", "--"},
		append(scriptmodel.PIArgs(), "--offline")...)...)
	var got struct {
		Cases          []try.CaseResult
		Passed, Failed int
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != ExitInvalid {
		t.Fatalf("plugboard try --cases exited %d, printed %s: %v", code, out, err)
	}
	if len(got.Cases) != 2 || got.Passed != 1 || got.Failed != 1 {
		t.Fatalf("cases %+v; want one passed and one failed", got.Cases)
	}
	c1, c2 := got.Cases[0], got.Cases[1]
	if !c1.Pass || c1.Result.Warm || c1.Result.Answer != "first done" || c1.Result.Backend != "pi" ||
		len(c1.Result.Skills) != 1 || c1.Result.Skills[0] != (try.Invocation{Skill: e2eKitSkill, Plugin: e2eKit, How: "model"}) {
		t.Errorf("case 1 = %+v, result %+v", c1, c1.Result)
	}
	if c2.Pass || !c2.Result.Warm || c2.Result.Answer != "second done" || c2.Why != "expected "+e2eKitSkill+"; the model invoked "+e2eCurSk {
		t.Errorf("case 2 = %+v, result %+v", c2, c2.Result)
	}
	main := model.Main()
	if len(main) != 4 || !strings.Contains(main[2].Texts(), second) || strings.Contains(main[2].Texts(), first) {
		t.Errorf("the second case did not start a new session (%d requests)", len(main))
	}
}
