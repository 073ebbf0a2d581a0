package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/scriptmodel"
	"github.com/plugboard/plugboard/backend/testhome"
)

// The real claude, started by the real plugboard launch in a project folder of its own
// (so the projection is outside its working directory), on testdata/runtime/grants: the
// skill refkit:lookup lists refs and data.txt (accepted) and .env, ../outside and missing
// (refused). The scripted model invokes the skill, then reads a file in the granted refs
// entry, the refused .env inside the skill folder, and a file outside every grant, and
// writes into the granted folder. Without a permission prompt (claude -p has none to
// show), the granted read succeeds and the model sees its content; the read of the
// refused entry, the read outside every grant and the write are denied, and nothing is
// written; the skill the model received carries the refusal note.
func TestClaudeHonoursSkillPathsEndToEnd(t *testing.T) {
	claude := client(t, testhome.Claude)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pb := filepath.Join(root, ".plugboard")
	if err := os.CopyFS(pb, os.DirFS(testhome.Testdata(filepath.Join("runtime", "grants")))); err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(root, "project")
	outside := filepath.Join(root, "elsewhere", "notes.txt")
	testhome.WriteFile(t, filepath.Join(project, "README.md"), "a project\n")
	testhome.WriteFile(t, outside, "OUTSIDE-51d2\n")
	env := []string{"PLUGBOARD_CLAUDE_BIN=" + claude}
	plan := dryRun(t, pb, env, "reader")
	var folder, refs string
	for _, g := range plan.Grants {
		switch g.Kind {
		case runtime.GrantSkillFolder:
			folder = g.Path
		case runtime.GrantPathsEntry:
			if filepath.Base(g.Path) == "refs" {
				refs = g.Path
			}
		}
	}
	if folder == "" || refs == "" || len(plan.Refused) != 3 {
		t.Fatalf("plan grants %+v, refused %+v", plan.Grants, plan.Refused)
	}
	written := filepath.Join(folder, "written-by-the-agent.txt")

	calls := &toolCalls{client: "claude"}
	use := func(label, tool string, input any) scriptmodel.Step {
		return func(r *scriptmodel.Request) (scriptmodel.Reply, error) { return calls.use(r, label, tool, input) }
	}
	n := newE2ENet(t)
	model := n.startModel(t,
		use("skill", "Skill", map[string]string{"skill": "refkit:lookup"}),
		use("granted", "Read", map[string]string{"file_path": filepath.Join(refs, "facts.md")}),
		use("refused", "Read", map[string]string{"file_path": filepath.Join(folder, ".env")}),
		use("ungranted", "Read", map[string]string{"file_path": outside}),
		use("write", "Write", map[string]string{"file_path": written, "content": "no\n"}),
		scriptmodel.Say("done"))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	argv := n.argv(testBinary(t), "launch", "--home", pb, "reader", "--", "-p", "look it up", "--output-format", "stream-json", "--verbose")
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(append([]string{"HOME=" + root, "PATH=" + os.Getenv("PATH"), "TERM=dumb"}, env...), model.ClaudeEnv()...)
	cmd.Dir = project
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || model.Err() != nil {
		t.Fatalf("plugboard launch: %v; model: %v\nstdout:\n%s\nstderr:\n%s", err, model.Err(), stdout.String(), stderr.String())
	}
	select {
	case <-model.Done():
	default:
		t.Fatalf("the agent exited with %d steps of the script unused\nstdout:\n%s", model.Remaining(), stdout.String())
	}

	main := model.Main()
	last := main[len(main)-1]
	results := map[string]scriptmodel.Block{}
	for _, b := range last.ToolResults() {
		for _, c := range calls.all() {
			if c.id == b.ToolUseID {
				results[c.label] = b
			}
		}
	}
	text := func(b scriptmodel.Block) string { return b.Content.Text() }
	if b, ok := results["granted"]; !ok || b.IsError || !strings.Contains(text(b), "FACT-7c1e") {
		t.Errorf("the read in the granted entry: %+v", b)
	}
	for _, label := range []string{"refused", "ungranted", "write"} {
		b, ok := results[label]
		if !ok || !b.IsError {
			t.Errorf("the %s call was not denied: %+v", label, b)
		}
		if strings.Contains(text(b), "never-shared") || strings.Contains(text(b), "OUTSIDE-51d2") {
			t.Errorf("the %s call's result holds the file's content: %q", label, text(b))
		}
	}
	if _, err := os.Lstat(written); !os.IsNotExist(err) {
		t.Errorf("the agent wrote into the projection (%v)", err)
	}
	// The skill the model received, after the Skill call, ends with the refusal note.
	var all strings.Builder
	for _, m := range last.Body.Messages {
		for _, b := range m.Content {
			all.WriteString(b.Text)
			all.WriteString(b.Content.Text())
		}
	}
	for _, want := range []string{runtime.RefusalMarker, `".env" (`, `"../outside" (`, `"missing" (`} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("the conversation holds no %q", want)
		}
	}
	for label, b := range results {
		t.Logf("%s: is_error %v: %.160s", label, b.IsError, text(b))
	}
}
