package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/scriptmodel"
	"github.com/plugboard/plugboard/backend/testhome"
)

// Skills and an MCP server of the user's own, where Copilot CLI and Codex look for them
// in a session of their own: a launch must show none of them.
const userSkill, userCopilotSkill, userServer = "user-own-skill", "copilot-own-skill", "userserver"

// copilotBuiltin are the skills Copilot CLI 1.0.102 lists of its own in every session.
var copilotBuiltin = []string{"customize-cloud-agent", "github-pr-media"}

// writeUserOwn puts a skill in ~/.agents/skills, a skill and an MCP server (the e2e
// stdio server, which answers if started) in the user's Copilot home and settings of the
// user's (one whose name says it is a secret) in h.
func writeUserOwn(t *testing.T, h e2eHome) {
	t.Helper()
	root := h.root
	testhome.WriteFile(t, filepath.Join(root, ".agents", "skills", userSkill, "SKILL.md"), "---\nname: "+userSkill+"\ndescription: The user's own skill.\n---\nbody\n")
	testhome.WriteFile(t, filepath.Join(root, ".copilot", "skills", userCopilotSkill, "SKILL.md"), "---\nname: "+userCopilotSkill+"\ndescription: The user's Copilot skill.\n---\nbody\n")
	testhome.WriteFile(t, filepath.Join(root, ".copilot", "mcp-config.json"), fmt.Sprintf(`{"mcpServers": {%q: {"type": "local", "command": %q, "args": [], "tools": ["*"],
  "env": {"E2E_ROLE": "mcp-stdio", "E2E_SERVER": %q, "E2E_RECORD": %q}}}}`+"\n", userServer, filepath.Join(h.kit, "bin", "serve"), userServer, filepath.Join(root, "user-calls.jsonl")))
	testhome.WriteFile(t, filepath.Join(root, ".copilot", "settings.json"), `{"theme": "dark", "githubToken": "not-to-be-copied", "disabledSkills": ["brief"]}`+"\n")
}

// The real GitHub Copilot CLI, started by the real plugboard launch, runs a whole turn
// against the scripted model (its own-provider mode, Anthropic API, offline): the
// skills it lists are exactly the projected ones beside its own built-in ones (none of
// the user's ~/.agents/skills or Copilot home), it invokes each with its skill tool and
// gets the body, and it calls each projected MCP tool (<server>-<tool>), which reaches
// the real servers where the plan put them. The user's settings reach its home less
// the set-deciding ones and the one that may be a secret.
func TestCopilotRunsTheProjectionEndToEnd(t *testing.T) {
	copilot := client(t, ".bin/copilot")
	calls := &toolCalls{client: "copilot"}
	names := []string{e2eKitSkill, e2eCurSk, e2eOldSkill}
	var root string
	script := func(h e2eHome, plan runtime.Plan) []scriptmodel.Step {
		root = h.root
		writeUserOwn(t, h)
		var steps []scriptmodel.Step
		for _, name := range names {
			steps = append(steps, func(r *scriptmodel.Request) (scriptmodel.Reply, error) {
				return calls.use(r, "skill:"+name, "skill", map[string]string{"skill": name})
			})
		}
		use := func(server, tool string, args map[string]string) scriptmodel.Step {
			return func(r *scriptmodel.Request) (scriptmodel.Reply, error) {
				return calls.use(r, server, server+"-"+tool, args)
			}
		}
		steps = append(steps, use(e2eStdio, e2eRecordTool, map[string]string{"note": "copilot"}),
			use(e2eRemote, e2eLookupTool, map[string]string{"query": "copilot"}),
			use(e2eCursorStdio, e2eRecordTool, map[string]string{"note": "copilot"}))
		return append(steps, scriptmodel.Say("done"))
	}
	pbEnv := []string{"PLUGBOARD_COPILOT_BIN=" + copilot, "XDG_CACHE_HOME=" + copilotCache(t)}
	r := launchE2E(t, "e2e-copilot", copilot, pbEnv, script, func(*scriptmodel.Server) []string {
		return []string{"-p", "use every skill and tool", "--allow-all-tools", "--no-auto-update", "-s"}
	})
	if want := []string{e2eKitSkill, e2eCurSk, e2eOldSkill}; !slices.Equal(r.plan.Skills, want) {
		t.Fatalf("plan skills %v, want %v", r.plan.Skills, want)
	}
	if strings.TrimSpace(r.stdout) != "done" {
		t.Errorf("copilot printed %q, want the script's last text", r.stdout)
	}

	// What the model was offered: exactly the planned skills and Copilot's own, and the
	// projected servers' tools and no other server's.
	first := r.model.Main()[0]
	var listed []string
	for _, s := range first.AvailableSkills() {
		listed = append(listed, s.Name)
	}
	want := slices.Concat(r.plan.Skills, copilotBuiltin)
	if slices.Sort(listed); !slices.Equal(listed, slices.Sorted(slices.Values(want))) {
		t.Errorf("copilot listed skills %v; want the plan's %v and its own %v", listed, r.plan.Skills, copilotBuiltin)
	}
	checkServersOffered(t, r, func(n string) string {
		if server, _, ok := strings.Cut(n, "-"); ok && !strings.Contains(server, "_") {
			return server
		}
		return ""
	})
	r.checkMCP(t, "copilot", skillAnswers(t, r, calls))
	checkToolActivity(t, r.h, "agent:e2e-copilot", nil)

	// The launch's Copilot home: the user's settings less the set-deciding and secret ones.
	home := runtime.StateHome(r.h.pb, runtime.Copilot, r.plan.Fingerprint)
	var settings map[string]any
	b, err := os.ReadFile(filepath.Join(home, "settings.json"))
	if err != nil || json.Unmarshal(b, &settings) != nil {
		t.Fatalf("the launch's Copilot settings: %v", err)
	}
	if settings["theme"] != "dark" || settings["githubToken"] != nil || settings["disabledSkills"] != nil ||
		fmt.Sprint(settings["ignoredSkillsLocations"]) != fmt.Sprint([]string{filepath.Join(root, ".agents", "skills")}) {
		t.Errorf("the launch's Copilot settings are %v", settings)
	}
}

// copilotCache is where Copilot CLI unpacks itself (its first run unpacks about 200 MB
// under $XDG_CACHE_HOME/copilot): one folder for every test of a run.
func copilotCache(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(os.TempDir(), "plugboard-test-copilot-cache")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// checkToolActivity checks that each projected tool the turn called is one call of the
// target in plugboard activity (recorded by the relays, which the client starts with the
// launch's environment), and that the skill uses recorded are skills, one each (Codex's
// hook), or none (Copilot CLI: docs/launch.md says why).
func checkToolActivity(t *testing.T, h e2eHome, target string, skills []string) {
	t.Helper()
	rep := activityReport(t, h)
	got := toolUses(rep)
	for _, w := range []string{
		fmt.Sprintf(`%s %s %s 1 0 {"%s":1}`, e2eStdio, e2eKit, e2eRecordTool, target),
		fmt.Sprintf(`%s %s %s 1 0 {"%s":1}`, e2eCursorStdio, e2eCursorID, e2eRecordTool, target),
		fmt.Sprintf(`%s %s %s 1 0 {"%s":1}`, e2eRemote, e2eKit, e2eLookupTool, target),
	} {
		if !slices.Contains(got, w) {
			t.Errorf("activity tools %q; want %q", got, w)
		}
	}
	got2 := uses(rep)
	if len(got2) != len(skills) {
		t.Errorf("skill uses recorded %v; want %v", got2, skills)
	}
	for _, s := range skills {
		if u := got2[s]; !strings.HasSuffix(u, ` 1 {"`+target+`":1}`) {
			t.Errorf("activity of %s: %q; want one use by %s (all: %v)", s, u, target, got2)
		}
	}
}

// checkServersOffered checks that the tools the first request offers belong to exactly
// the plan's servers; server names a tool's server from its name (or "" for a tool of
// the client's own).
func checkServersOffered(t *testing.T, r e2eRun, server func(tool string) string) {
	t.Helper()
	first := r.model.Main()[0]
	var servers []string
	for _, n := range first.ToolNames() {
		if s := server(n); s != "" {
			servers = append(servers, s)
		}
	}
	slices.Sort(servers)
	if servers = slices.Compact(servers); !slices.Equal(servers, r.plan.Servers) {
		t.Errorf("%s offered the tools of servers %v; the plan has %v (tools: %v)", r.plan.Backend, servers, r.plan.Servers, first.ToolNames())
	}
}

// skillAnswers checks that the answer to each scripted skill use holds the skill's body,
// and returns the answers to the other calls by label, for checkMCP.
func skillAnswers(t *testing.T, r e2eRun, calls *toolCalls) map[string]string {
	t.Helper()
	last := r.last(t)
	answers := map[string]string{}
	for _, c := range calls.all() {
		a := last.Answer(c.id)
		if name, ok := strings.CutPrefix(c.label, "skill:"); ok {
			if !strings.Contains(a, skillBody(name)) {
				t.Errorf("%s's use of the %s skill answered %q; want its body", r.plan.Backend, name, a)
			}
			continue
		}
		answers[c.label] = a
	}
	return answers
}
