package cli

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3" // the test locks the database as another process would

	"github.com/plugboard/plugboard/backend/activity"
	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/scriptmodel"
	"github.com/plugboard/plugboard/backend/store"
	"github.com/plugboard/plugboard/backend/testhome"
)

// End-to-end proof of skill activity (issue 13, items 1 and 2): the real claude, started
// by the real plugboard launch against the scripted model, runs the hooks the launch
// passes; each skill it invokes is one row of the store, and plugboard activity reports it.

// Values the turns carry that must never be stored: the Skill tool's arguments and the
// slash command's arguments.
const (
	activitySecretArgs   = "SECRET-SKILL-ARGS-5c1e"
	activitySecretPrompt = "SECRET-PROMPT-ARGS-9d2f"
)

// activityHome is the e2e home with the Cursor plugin assigned to agent:e2e-claude by the
// real plugboard assign (a history entry: the time the plugin was assigned). The portable
// package's MCP servers are not acknowledged, so the launches leave them out.
func activityHome(t *testing.T) (e2eNet, e2eHome, string) {
	t.Helper()
	claude := client(t, testhome.Claude)
	n := newE2ENet(t)
	h := buildE2EHome(t, "http://127.0.0.1:9/mcp")
	assign := exec.Command(testBinary(t), "assign", "--home", h.pb, "agent:e2e-claude", "--add", e2eCursorID, "--ack-mcp")
	assign.Env = []string{"HOME=" + h.root, "PATH=" + os.Getenv("PATH")}
	if out, err := assign.CombinedOutput(); err != nil {
		t.Fatalf("plugboard assign --add %s: %v\n%s", e2eCursorID, err, out)
	}
	return n, h, claude
}

// claudeTurn runs "plugboard launch e2e-claude -- -p PROMPT …" with the real claude
// against the steps, waits for it, checks the turn ended with the script's "done", and
// returns claude's session id (from its init event) and the model server.
func claudeTurn(t *testing.T, n e2eNet, h e2eHome, claude, prompt string, steps ...scriptmodel.Step) (string, *scriptmodel.Server) {
	t.Helper()
	model := n.startModel(t, append(steps, scriptmodel.Say("done"))...)
	argv := n.argv(testBinary(t), "launch", "--home", h.pb, "e2e-claude", "--",
		"-p", prompt, "--output-format", "stream-json", "--verbose", "--allowedTools", "Skill")
	stdout := runTurn(t, "claude -p "+prompt, argv, append([]string{"HOME=" + h.root, "PATH=" + os.Getenv("PATH"), "TERM=dumb",
		"PLUGBOARD_CLAUDE_BIN=" + claude, "E2E_CURSOR_RECORD=" + h.record}, model.ClaudeEnv()...), t.TempDir(), model)
	var session, result string
	for _, line := range strings.Split(stdout, "\n") {
		var ev struct {
			Type, Subtype, Result string
			SessionID             string `json:"session_id"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil {
			continue
		}
		if ev.Type == "system" && ev.Subtype == "init" {
			session = ev.SessionID
		}
		if ev.Type == "result" {
			result = ev.Subtype + ": " + ev.Result
		}
	}
	if session == "" || result != "success: done" {
		t.Fatalf("claude's session %q, result %q\nstdout:\n%s", session, result, stdout)
	}
	return session, model
}

// runTurn runs argv (a plugboard launch of an agent) with env in dir against model, fails
// the test unless it ends well with every step of the script used, and returns its
// stdout.
func runTurn(t *testing.T, label string, argv, env []string, dir string, model *scriptmodel.Server) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = env, dir
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("%.60s ran %v", label, time.Since(start).Round(time.Millisecond))
	if err != nil || model.Err() != nil {
		t.Fatalf("plugboard launch: %v; model: %v\nstdout:\n%s\nstderr:\n%s", err, model.Err(), stdout.String(), stderr.String())
	}
	select {
	case <-model.Done():
	default:
		t.Fatalf("the agent exited with %d steps of the script unused\nstdout:\n%s\nstderr:\n%s", model.Remaining(), stdout.String(), stderr.String())
	}
	return stdout.String()
}

// callSkill is a step that calls the Skill tool for name, with arguments.
func callSkill(id, name string) scriptmodel.Step {
	return func(r *scriptmodel.Request) (scriptmodel.Reply, error) {
		return (&toolCalls{client: "claude"}).use(r, name, "Skill", map[string]string{"skill": name, "args": activitySecretArgs + "-" + id})
	}
}

// activityReport runs the real plugboard activity --json.
func activityReport(t *testing.T, h e2eHome, args ...string) activity.Report {
	t.Helper()
	cmd := exec.Command(testBinary(t), append([]string{"activity", "--json", "--home", h.pb}, args...)...)
	cmd.Env = []string{"HOME=" + h.root, "PATH=" + os.Getenv("PATH")}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("plugboard activity --json: %v\n%s", err, out)
	}
	var rep activity.Report
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("plugboard activity --json printed %s: %v", out, err)
	}
	return rep
}

// uses maps the report's skills to "plugin uses byTarget".
func uses(rep activity.Report) map[string]string {
	out := map[string]string{}
	for _, s := range rep.Skills {
		b, _ := json.Marshal(s.ByTarget)
		out[s.ID] = fmt.Sprintf("%s %d %s", s.Plugin, s.Uses, b)
	}
	return out
}

// A scripted Skill tool call and a user's slash command each appear exactly once, with
// the launch's target, backend and fingerprint, claude's session, the plugin's id and
// version and the skill's hash from the projection, and how it was invoked; nothing the
// turns carried as arguments is stored. The skill nobody used since it was assigned is
// listed as unused.
func TestClaudeRecordsSkillActivityEndToEnd(t *testing.T) {
	n, h, claude := activityHome(t)
	plan := dryRun(t, h.pb, []string{"PLUGBOARD_CLAUDE_BIN=" + claude}, "e2e-claude")
	kitSkill, curSkill, oldSkill := e2eKit+":"+e2eKitSkill, e2eCursor+":"+e2eCurSk, e2eOld+":"+e2eOldSkill
	modelSession, model := claudeTurn(t, n, h, claude, "use the brief skill", callSkill("1", kitSkill))
	if m := model.Main(); !strings.Contains(m[len(m)-1].Texts(), skillBody(e2eKitSkill)) {
		t.Errorf("the Skill call did not load %s's body", kitSkill)
	}
	userSession, model := claudeTurn(t, n, h, claude, "/"+curSkill+" "+activitySecretPrompt)
	if m := model.Main(); !strings.Contains(m[0].Texts(), skillBody(e2eCurSk)) {
		t.Errorf("the slash command did not expand to %s's body", curSkill)
	}
	// Written straight into the database: nothing waits in the spool.
	if _, err := os.Lstat(filepath.Join(h.pb, "state", "activity.spool.jsonl")); !os.IsNotExist(err) {
		t.Errorf("a spool exists after turns with the database free: %v", err)
	}

	want := map[string]string{
		kitSkill: e2eKit + ` 1 {"agent:e2e-claude":1}`,
		curSkill: e2eCursorID + ` 1 {"agent:e2e-claude":1}`,
	}
	for i := range 2 { // the second read imports nothing more
		rep := activityReport(t, h)
		if got := uses(rep); len(got) != len(want) || got[kitSkill] != want[kitSkill] || got[curSkill] != want[curSkill] {
			t.Errorf("read %d: activity skills %v, want %v", i, got, want)
		}
		if len(rep.Tools) != 0 || rep.Tools == nil {
			t.Errorf("read %d: tools %v, want []", i, rep.Tools)
		}
		claudeUnused := slices.DeleteFunc(slices.Clone(rep.Unused), func(u activity.Unused) bool { return u.Target != "agent:e2e-claude" })
		if len(claudeUnused) != 1 || claudeUnused[0].ID != oldSkill || claudeUnused[0].AssignedSince != nil {
			t.Errorf("read %d: unused %+v, want only %s of agent:e2e-claude, assigned before the history", i, rep.Unused, oldSkill)
		}
	}
	if rep := activityReport(t, h, "e2e-pi"); len(rep.Skills) != 0 || len(rep.Unused) == 0 ||
		slices.ContainsFunc(rep.Unused, func(u activity.Unused) bool { return u.Target != "agent:e2e-pi" || strings.Contains(u.ID, ":") }) {
		t.Errorf("activity of agent:e2e-pi (a PI agent, not launched here) = %+v; want its skills, by PI's names, unused", rep)
	}

	// The rows as stored.
	ix, err := runtime.ReadActivityIndex(filepath.Join(plan.Projection, runtime.ActivityIndexFile))
	if err != nil {
		t.Fatal(err)
	}
	recs := storedActivity(t, h.pb)
	if len(recs) != 2 {
		t.Fatalf("stored activity %+v; want two rows", recs)
	}
	for i, w := range []struct{ skill, plugin, version, session, how string }{
		{kitSkill, e2eKit, "1.0.0", modelSession, store.HowModel},
		{curSkill, e2eCursorID, "0.2.0", userSession, store.HowUser},
	} {
		r := recs[i]
		if r.Skill != w.skill || r.Plugin != w.plugin || r.Version != w.version || r.Session != w.session || r.How != w.how ||
			r.Target != "agent:e2e-claude" || r.Backend != runtime.Claude || r.Fingerprint != plan.Fingerprint ||
			r.Hash == "" || r.Hash != ix.Skills[w.skill].Hash || time.Since(r.Time) > 10*time.Minute || r.Key == "" {
			t.Errorf("row %d = %+v\nwant skill %s plugin %s version %s session %s how %s, target agent:e2e-claude, fingerprint %s, hash %s",
				i, r, w.skill, w.plugin, w.version, w.session, w.how, plan.Fingerprint, ix.Skills[w.skill].Hash)
		}
	}
	noSecretsIn(t, filepath.Join(h.pb, "state"))
}

// noSecretsIn fails when a file under dir holds an argument the turns carried (the
// secrets of the Skill call and the slash command, and the others given).
func noSecretsIn(t *testing.T, dir string, others ...string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		for _, s := range append([]string{activitySecretArgs, activitySecretPrompt}, others...) {
			if strings.Contains(string(b), s) {
				t.Errorf("%s holds %q, from the turn's arguments or prompt", p, s)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// storedActivity is every row of the store of the Plugboard home pb, oldest first.
func storedActivity(t *testing.T, pb string) []store.Activity {
	t.Helper()
	st, _, err := store.Open(context.Background(), pb)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	recs, err := st.Activity(context.Background(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// A database locked by another process (BEGIN EXCLUSIVE) loses nothing: the hook spools
// the record and returns, the turn ends normally, and once the lock is released the next
// open of the store imports the record, once.
func TestClaudeActivityLockedDatabaseLosesNothing(t *testing.T) {
	n, h, claude := activityHome(t)
	dbFile := filepath.Join(h.pb, "state", "plugboard.db")
	db, err := sql.Open("sqlite3", "file:"+dbFile+"?_busy_timeout=0")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	kitSkill := e2eKit + ":" + e2eKitSkill
	claudeTurn(t, n, h, claude, "use the brief skill", callSkill("locked", kitSkill))

	spool := filepath.Join(h.pb, "state", "activity.spool.jsonl")
	b, err := os.ReadFile(spool)
	if err != nil {
		t.Fatalf("no spool while the database was locked: %v", err)
	}
	if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != 1 || !strings.Contains(lines[0], `"skill":"`+kitSkill+`"`) {
		t.Fatalf("spool = %q, want one line for %s", lines, kitSkill)
	}
	var rows int
	if err := conn.QueryRowContext(context.Background(), "SELECT count(*) FROM activity").Scan(&rows); err != nil || rows != 0 {
		t.Errorf("rows in the locked database: %d, %v; want 0", rows, err)
	}
	noSecretsIn(t, filepath.Join(h.pb, "state"))
	if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}

	for i := range 2 {
		if got := uses(activityReport(t, h)); len(got) != 1 || got[kitSkill] != e2eKit+` 1 {"agent:e2e-claude":1}` {
			t.Errorf("read %d after the lock: activity skills %v, want %s once", i, got, kitSkill)
		}
	}
	if _, err := os.Lstat(spool); !os.IsNotExist(err) {
		t.Errorf("the spool is still there after the import: %v", err)
	}
}
