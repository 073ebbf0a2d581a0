package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/scriptmodel"
	"github.com/plugboard/plugboard/backend/testhome"
	"github.com/plugboard/plugboard/backend/try"
)

// plugboard try runs one turn of the real Codex and the real Copilot CLI on the
// launch's projection against the scripted model: the answer is the script's, the
// skill the model used is the one reported (Codex: its read of the SKILL.md in its
// launch home; Copilot CLI: its skill tool), and the MCP tool it called is reported from
// the relay's record, with the plugin each belongs to.
func TestTryWithCodexAndCopilot(t *testing.T) {
	for _, backend := range []string{runtime.Codex, runtime.Copilot} {
		t.Run(backend, func(t *testing.T) {
			bin := client(t, ".bin/"+backend)
			n := newE2ENet(t)
			h := buildE2EHome(t, "http://127.0.0.1:9/mcp")
			target := "e2e-" + backend
			assign := exec.Command(testBinary(t), "assign", "--home", h.pb, "agent:"+target, "--add", e2eCursorID, "--ack-mcp")
			assign.Env = []string{"HOME=" + h.root, "PATH=" + os.Getenv("PATH")}
			if out, err := assign.CombinedOutput(); err != nil {
				t.Fatalf("plugboard assign: %v\n%s", err, out)
			}
			ack := exec.Command(testBinary(t), "ack", "--home", h.pb, "agent:"+target)
			ack.Env = assign.Env
			if out, err := ack.CombinedOutput(); err != nil {
				t.Fatalf("plugboard ack: %v\n%s", err, out)
			}
			pbEnv := []string{"PLUGBOARD_" + strings.ToUpper(backend) + "_BIN=" + bin, "XDG_CACHE_HOME=" + copilotCache(t)}
			plan := dryRun(t, h.pb, pbEnv, target)
			calls := &toolCalls{client: backend}
			use := func(label, tool string, input any) scriptmodel.Step {
				return func(r *scriptmodel.Request) (scriptmodel.Reply, error) { return calls.use(r, label, tool, input) }
			}
			var steps []scriptmodel.Step
			args := []string{target, "-p", "write me a brief", "--json"}
			if backend == runtime.Codex {
				home := runtime.StateHome(h.pb, runtime.Codex, plan.Fingerprint)
				steps = []scriptmodel.Step{use("skill", "exec_command", map[string]string{"cmd": "cat " + filepath.Join(home, "skills", e2eKitSkill, "SKILL.md")}),
					use("tool", "mcp__"+e2eStdio+"__"+e2eRecordTool, map[string]string{"note": "try"})}
				// Codex's own sandbox cannot start in the test's network namespace.
				args = append(args, "--", "-s", "danger-full-access")
			} else {
				steps = []scriptmodel.Step{use("skill", "skill", map[string]string{"skill": e2eKitSkill}),
					use("tool", e2eStdio+"-"+e2eRecordTool, map[string]string{"note": "try"})}
			}
			model := n.startModel(t, append(steps, scriptmodel.Say("the brief is done"))...)
			testhome.WriteFile(t, filepath.Join(h.root, ".codex", "config.toml"), model.CodexConfig()+"\n[features]\napps = false\n\n[analytics]\nenabled = false\n")
			out, code := runTryCommand(t, n, h, pbEnv, model, args...)
			if code != 0 {
				t.Fatalf("plugboard try exited %d\n%s", code, out)
			}
			var res try.Result
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("plugboard try --json printed %s: %v", out, err)
			}
			want := try.Invocation{Skill: e2eKitSkill, Plugin: e2eKit, How: "model"}
			if res.Answer != "the brief is done" || res.Backend != backend || len(res.Skills) != 1 || res.Skills[0] != want {
				t.Errorf("try result %+v; want the answer and %+v", res, want)
			}
			if !slices.ContainsFunc(res.Tools, func(c try.ToolCall) bool {
				return c.Server == e2eStdio && c.Plugin == e2eKit && c.Tool == e2eRecordTool && !c.Failed
			}) {
				t.Errorf("try tools %+v; want %s/%s of %s", res.Tools, e2eStdio, e2eRecordTool, e2eKit)
			}
		})
	}
}
