package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/budget"
	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/scriptmodel"
	"github.com/plugboard/plugboard/backend/testhome"
)

// codexPromptListing runs the real `codex debug prompt-input` with the Codex home of the
// launch of target (made by a launch with /bin/true for the agent) and returns the skill
// listing it would send the model: the developer text from <skills_instructions> to its
// end.
func codexPromptListing(t *testing.T, h budgetHome, target string) string {
	t.Helper()
	codex := client(t, ".bin/codex")
	env := []string{"HOME=" + h.root, "PATH=" + os.Getenv("PATH")}
	launch := exec.Command(testBinary(t), "launch", "--home", h.pb, "--json", target)
	launch.Env = append(env, "PLUGBOARD_CODEX_BIN=/bin/true")
	launch.Dir = h.project
	if out, err := launch.CombinedOutput(); err != nil {
		t.Fatalf("launch %s with /bin/true: %v\n%s", target, err, out)
	}
	plan := dryRun(t, h.pb, []string{"PLUGBOARD_CODEX_BIN=" + codex}, target)
	home := runtime.StateHome(h.pb, runtime.Codex, plan.Fingerprint)
	n := newE2ENet(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	argv := n.argv(codex, "debug", "prompt-input", "hi")
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(env, runtime.CodexHomeEnv+"="+home)
	cmd.Dir = h.project
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("codex debug prompt-input: %v\n%s", err, out)
	}
	var items []struct {
		Content []struct{ Text string } `json:"content"`
	}
	if i := strings.IndexByte(string(out), '['); i < 0 || json.Unmarshal(out[i:], &items) != nil {
		t.Fatalf("codex debug prompt-input printed %s", out)
	}
	for _, it := range items {
		for _, c := range it.Content {
			if strings.HasPrefix(c.Text, budget.CodexOpen) {
				return c.Text
			}
		}
	}
	return ""
}

// The real Codex lists, for the model, exactly the text plugboard budget predicts for a
// launch of a target: every skill in full when they fit, and, for 400 skills with long
// descriptions, every skill with its description shortened as Codex shares out its
// budget (2% of the context window); the user's own ~/.agents/skills skill is in
// neither.
func TestBudgetPredictsCodexListingEndToEnd(t *testing.T) {
	for _, c := range []struct {
		n, desc int
		mode    string
	}{{5, 120, "fits"}, {400, 300, "shortened"}} {
		h := buildBudgetHome(t, c.n, c.desc)
		testhome.WriteFile(t, filepath.Join(h.pb, "agents", "budget-codex.json"), `{"name": "budget-codex", "backend": "codex", "pluginDirs": ["plugins/bkit"]}`+"\n")
		testhome.WriteFile(t, filepath.Join(h.root, ".agents", "skills", "mine-too", "SKILL.md"), "---\nname: mine-too\ndescription: The user's own.\n---\nbody\n")
		// An offline user's settings: no ChatGPT apps server, no analytics flush.
		testhome.WriteFile(t, filepath.Join(h.root, ".codex", "config.toml"), "[features]\napps = false\n\n[analytics]\nenabled = false\n")
		rep := budgetReport(t, h, "budget-codex", nil)
		if rep.Backend != runtime.Codex || rep.Skills.Mode != c.mode || len(rep.Skills.Listed) != c.n {
			t.Fatalf("%d skills: budget says backend %s, mode %s, %d listed", c.n, rep.Backend, rep.Skills.Mode, len(rep.Skills.Listed))
		}
		got := codexPromptListing(t, h, "budget-codex")
		if got != rep.Skills.Text {
			t.Errorf("%d skills: codex lists\n%s\nbudget predicted\n%s", c.n, clip(got), clip(rep.Skills.Text))
		}
		if strings.Contains(got, "mine-too") {
			t.Errorf("%d skills: codex lists the user's own skill", c.n)
		}
	}
}

// The real Copilot CLI, launched by the real plugboard launch, lists the target's skills
// for the model exactly as plugboard budget predicts them, before its own built-in ones.
func TestBudgetPredictsCopilotListingEndToEnd(t *testing.T) {
	copilot := client(t, ".bin/copilot")
	h := buildBudgetHome(t, 6, 200)
	testhome.WriteFile(t, filepath.Join(h.pb, "agents", "budget-copilot.json"), `{"name": "budget-copilot", "backend": "copilot", "pluginDirs": ["plugins/bkit"]}`+"\n")
	env := []string{"PLUGBOARD_COPILOT_BIN=" + copilot, "XDG_CACHE_HOME=" + copilotCache(t)}
	rep := budgetReport(t, h, "budget-copilot", env)
	if rep.Backend != runtime.Copilot || len(rep.Skills.Listed) != 7 || rep.Skills.Sources["proj"] != "project" { // the project's own skill, and the target's six
		t.Fatalf("budget says backend %s, %d listed", rep.Backend, len(rep.Skills.Listed))
	}
	first := launchBudget(t, h, "budget-copilot", env, func(*scriptmodel.Server) []string {
		return []string{"-p", "hi", "--allow-all-tools", "--no-auto-update"}
	})
	sys := first.SystemText()
	want := strings.TrimSuffix(rep.Skills.Text, budget.CopilotClose)
	i := strings.Index(sys, budget.CopilotOpen)
	if i < 0 || !strings.HasPrefix(sys[i:], want) {
		end := min(len(sys), max(i, 0)+len(want)+200)
		t.Errorf("copilot lists\n%s\nbudget predicted\n%s", clip(sys[max(i, 0):end]), clip(rep.Skills.Text))
	}
}

// clip shortens a long text for a failure message.
func clip(s string) string {
	if len(s) > 3000 {
		return s[:1500] + "\n…\n" + s[len(s)-1500:]
	}
	return s
}
