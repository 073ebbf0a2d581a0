package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/activity"
	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/scriptmodel"
	"github.com/plugboard/plugboard/backend/store"
)

// End-to-end proof of PI's skill activity (issue 13, item 1): the real pi, started by
// the real plugboard launch against the scripted model, loads the launch's activity
// extension (backend/runtime, piactivity.ts); a read of a projected skill's SKILL.md and
// a /skill:name command are each one row of the store, and plugboard activity reports
// them.

// piActivityHome is the e2e home with the Cursor plugin assigned to agent:e2e-pi by the
// real plugboard assign, and the environment that gives plugboard the real pi and its MCP
// bridge (found beside pi anyway; given, so that dryRun's stand-in launch plans the same).
// The portable package's MCP servers are not acknowledged, so the launches leave them out.
func piActivityHome(t *testing.T) (e2eNet, e2eHome, []string) {
	t.Helper()
	pbEnv := []string{"PLUGBOARD_PI_BIN=" + client(t, ".bin/pi"), "PLUGBOARD_PI_MCP_ADAPTER=" + client(t, "pi-mcp-adapter/index.ts")}
	n := newE2ENet(t)
	h := buildE2EHome(t, "http://127.0.0.1:9/mcp")
	assign := exec.Command(testBinary(t), "assign", "--home", h.pb, "agent:e2e-pi", "--add", e2eCursorID, "--ack-mcp")
	assign.Env = []string{"HOME=" + h.root, "PATH=" + os.Getenv("PATH")}
	if out, err := assign.CombinedOutput(); err != nil {
		t.Fatalf("plugboard assign --add %s: %v\n%s", e2eCursorID, err, out)
	}
	return n, h, pbEnv
}

// piTurn runs "plugboard launch e2e-pi -- … [--mode json] -p PROMPT" with the real pi in
// cwd against the steps, waits for it, checks the script was used up, and returns pi's
// stdout and the model server.
func piTurn(t *testing.T, n e2eNet, h e2eHome, pbEnv []string, cwd string, jsonMode bool, prompt string, steps ...scriptmodel.Step) (string, *scriptmodel.Server) {
	t.Helper()
	model := n.startModel(t, append(steps, scriptmodel.Say("done"))...)
	if err := model.WritePIModels(h.root); err != nil {
		t.Fatal(err)
	}
	args := append(scriptmodel.PIArgs(), "--offline", "--no-session")
	if jsonMode {
		args = append(args, "--mode", "json")
	}
	argv := n.argv(append([]string{testBinary(t), "launch", "--home", h.pb, "e2e-pi", "--"}, append(args, "-p", prompt)...)...)
	env := append(append([]string{"HOME=" + h.root, "PATH=" + os.Getenv("PATH"), "TERM=dumb", "E2E_CURSOR_RECORD=" + h.record},
		pbEnv...), model.ClaudeEnv()...)
	return runTurn(t, "pi -p "+prompt, argv, env, cwd, model), model
}

// piSession is the session id of a pi --mode json run: its first line, the session header.
func piSession(t *testing.T, stdout string) string {
	t.Helper()
	var head struct{ Type, ID string }
	line, _, _ := strings.Cut(stdout, "\n")
	if json.Unmarshal([]byte(line), &head) != nil || head.Type != "session" || head.ID == "" {
		t.Fatalf("pi --mode json did not start with its session header: %.300q", stdout)
	}
	return head.ID
}

// A scripted read of a projected skill's SKILL.md (by a path relative to the cwd that
// passes through a folder named after a secret) and a user's /skill:name command each
// appear exactly once, with the launch's target, backend "pi" and fingerprint, the
// plugin's id and version and the skill's hash from the projection, and how it was
// invoked. Reads of other files, a read of the SKILL.md that fails and the turns' text
// are not invocations;
// pi's answer on stdout is the model's alone; nothing the turns carried as arguments is
// stored, and nothing waits in the spool.
func TestPIRecordsSkillActivityEndToEnd(t *testing.T) {
	n, h, pbEnv := piActivityHome(t)
	plan := dryRun(t, h.pb, pbEnv, "e2e-pi")
	if i := slices.Index(plan.Argv, filepath.Join(plan.Projection, runtime.PIActivityExtensionFile)); i < 1 || plan.Argv[i-1] != "-e" {
		t.Fatalf("the plan does not load the activity extension: %v", plan.Argv)
	}
	if !slices.Contains(plan.EnvKeys, runtime.ActivityTargetEnv) {
		t.Fatalf("the plan does not give the agent its target: %v", plan.EnvKeys)
	}
	location := filepath.Join(plan.Projection, "skills", e2eKitSkill, "SKILL.md")
	cwd := t.TempDir()
	other := filepath.Join(cwd, "notes.md")
	if err := os.WriteFile(other, []byte("# notes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(cwd, location)
	if err != nil {
		t.Fatal(err)
	}
	readPath := activitySecretArgs + "/../" + rel // resolves to location, as the read tool resolves it

	calls := &toolCalls{client: "pi"}
	read := func(label string, input map[string]any) scriptmodel.Step {
		return func(r *scriptmodel.Request) (scriptmodel.Reply, error) {
			return calls.use(r, label, "read", input)
		}
	}
	stdout, model := piTurn(t, n, h, pbEnv, cwd, false, "use the brief skill",
		func(r *scriptmodel.Request) (scriptmodel.Reply, error) {
			if !slices.ContainsFunc(r.AvailableSkills(), func(s scriptmodel.AvailableSkill) bool { return s.Location == location }) {
				t.Errorf("pi lists no skill at %s: %+v", location, r.AvailableSkills())
			}
			return read("skill", map[string]any{"path": readPath})(r)
		},
		read("other", map[string]any{"path": "notes.md"}),
		read("failed", map[string]any{"path": location, "offset": 1000}), // beyond its end: the read fails
		read("missing", map[string]any{"path": filepath.Join(plan.Projection, "skills", e2eKitSkill, "MISSING.md")}))
	if strings.TrimSpace(stdout) != "done" {
		t.Errorf("pi printed %q, want the script's last text alone", stdout)
	}
	last := model.Main()[len(model.Main())-1]
	for _, c := range calls.all() {
		a := last.Answer(c.id)
		if c.label == "skill" && !strings.Contains(a, skillBody(e2eKitSkill)) {
			t.Errorf("pi's read of %s answered %q; want its body", readPath, a)
		}
		if c.label == "other" && !strings.Contains(a, "# notes") {
			t.Errorf("pi's read of notes.md answered %q", a)
		}
		if c.label == "failed" && !strings.Contains(a, "beyond end of file") {
			t.Errorf("pi's read of %s from line 1000 answered %q; want its error", location, a)
		}
	}

	stdout, model = piTurn(t, n, h, pbEnv, cwd, true, "/skill:"+e2eCurSk+" "+activitySecretPrompt)
	session := piSession(t, stdout)
	if m := model.Main(); !strings.Contains(m[0].Texts(), skillBody(e2eCurSk)) {
		t.Errorf("the skill command did not expand to %s's body", e2eCurSk)
	}
	if _, err := os.Lstat(filepath.Join(h.pb, "state", "activity.spool.jsonl")); !os.IsNotExist(err) {
		t.Errorf("a spool exists after turns with the database free: %v", err)
	}

	want := map[string]string{
		e2eKitSkill: e2eKit + ` 1 {"agent:e2e-pi":1}`,
		e2eCurSk:    e2eCursorID + ` 1 {"agent:e2e-pi":1}`,
	}
	if got := uses(activityReport(t, h)); len(got) != len(want) || got[e2eKitSkill] != want[e2eKitSkill] || got[e2eCurSk] != want[e2eCurSk] {
		t.Errorf("activity skills %v, want %v", got, want)
	}
	// The skills used are not unused; the legacy package's skill, which PI got too, is.
	unused := activityReport(t, h, "e2e-pi").Unused
	if slices.ContainsFunc(unused, func(u activity.Unused) bool { return u.ID == e2eKitSkill || u.ID == e2eCurSk }) ||
		!slices.ContainsFunc(unused, func(u activity.Unused) bool { return u.ID == e2eOldSkill && u.Target == "agent:e2e-pi" }) {
		t.Errorf("unused skills of agent:e2e-pi: %+v; want %s and not the two used", unused, e2eOldSkill)
	}

	ix, err := runtime.ReadActivityIndex(filepath.Join(plan.Projection, runtime.ActivityIndexFile))
	if err != nil {
		t.Fatal(err)
	}
	recs := storedActivity(t, h.pb)
	if len(recs) != 2 {
		t.Fatalf("stored activity %+v; want two rows", recs)
	}
	for i, w := range []struct{ skill, plugin, version, how string }{
		{e2eKitSkill, e2eKit, "1.0.0", store.HowModel},
		{e2eCurSk, e2eCursorID, "0.2.0", store.HowUser},
	} {
		r := recs[i]
		if r.Skill != w.skill || r.Plugin != w.plugin || r.Version != w.version || r.How != w.how || r.Session == "" ||
			r.Target != "agent:e2e-pi" || r.Backend != runtime.PI || r.Fingerprint != plan.Fingerprint ||
			r.Hash == "" || r.Hash != ix.Skills[w.skill].Hash || !strings.HasPrefix(r.Key, "p:") || r.Run != "" {
			t.Errorf("row %d = %+v\nwant skill %s plugin %s version %s how %s, target agent:e2e-pi, backend pi, fingerprint %s, hash %s",
				i, r, w.skill, w.plugin, w.version, w.how, plan.Fingerprint, ix.Skills[w.skill].Hash)
		}
	}
	if recs[1].Session != session {
		t.Errorf("the command's row has session %q, pi's was %q", recs[1].Session, session)
	}
	noSecretsIn(t, filepath.Join(h.pb, "state"), location, rel, "notes.md", "MISSING.md", "use the brief skill")
}
