package assign

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func ruleCode(err error) string {
	var r *RuleError
	if errors.As(err, &r) {
		return r.Code
	}
	return ""
}

func hasTarget(t *testing.T, pb string, id string) bool {
	t.Helper()
	ts, _ := Targets(pb, loadCatalog(t, pb))
	for _, x := range ts {
		if x.ID == id {
			return true
		}
	}
	return false
}

func revertOf(t *testing.T, pb string, id int64) (Saved, error) {
	t.Helper()
	return SaveAndRecord(context.Background(), pb, loadCatalog(t, pb), Request{RevertOf: id, Actor: "cli"})
}

// A new agent is a file the scan lists, starting from another agent's set when asked,
// recorded in the history and reverted by removing it; a second revert says it was.
func TestNewAgentAndRevert(t *testing.T) {
	pb, cat := mainHome(t)
	ctx := context.Background()
	saved, err := NewAgent(ctx, pb, cat, "coder", "pi", "forms", "cli")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(pb, "agents", "coder.json")
	if saved.Target != "agent:coder" || len(saved.Files) != 1 || saved.Files[0].Path != p || saved.Files[0].Change != "created" || saved.History == 0 {
		t.Fatalf("NewAgent = %+v", saved)
	}
	want := "{\n  \"name\": \"coder\",\n  \"backend\": \"pi\",\n  \"pluginDirs\": [\n    \"./plugins/notes\",\n    \"/abs/first\",\n    \"plugins/tools/\",\n    \"plugins//legacy-one\",\n    \"../elsewhere/plug\",\n    \"plugins/missing\",\n    \"plugins/notes\",\n    \"/abs/last\"\n  ]\n}\n"
	if got := string(readFile(t, p)); got != want {
		t.Errorf("agents/coder.json =\n%s\nwant\n%s", got, want)
	}
	tg := target(t, pb, loadCatalog(t, pb), "agent:coder")
	if tg.Backend != "pi" || len(tg.Entries) != 8 {
		t.Errorf("agent:coder = %+v", tg)
	}
	if _, err := NewAgent(ctx, pb, cat, "coder", "", "", "cli"); ruleCode(err) != RuleNameTaken {
		t.Errorf("a second coder: %v, want %s", err, RuleNameTaken)
	}
	for _, bad := range []string{"", "a/b", "-x", "has space", strings.Repeat("x", 65)} {
		if _, err := NewAgent(ctx, pb, cat, bad, "", "", "cli"); ruleCode(err) != RuleBadName {
			t.Errorf("NewAgent(%q) = %v, want %s", bad, err, RuleBadName)
		}
	}
	if _, err := NewAgent(ctx, pb, cat, "x", "emacs", "", "cli"); ruleCode(err) != RuleBadBackend {
		t.Errorf("backend emacs: %v, want %s", err, RuleBadBackend)
	}
	if _, err := NewAgent(ctx, pb, cat, "x", "", "nobody", "cli"); ruleCode(err) != RuleNoAgent || !strings.Contains(err.Error(), "the agents are bare, coder, forms, keeper, researcher") {
		t.Errorf("from nobody: %v", err)
	}

	r, err := revertOf(t, pb, saved.History)
	if err != nil || len(r.Files) != 1 || r.Files[0].Change != "removed" || r.History == 0 {
		t.Fatalf("revert = %+v, %v", r, err)
	}
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) || hasTarget(t, pb, "agent:coder") {
		t.Errorf("after the revert agents/coder.json is still there (%v)", err)
	}
	if _, err := revertOf(t, pb, saved.History); ruleCode(err) != RuleAlreadyReverted || !strings.Contains(err.Error(), "already reverted by entry") {
		t.Errorf("second revert = %v, want %s", err, RuleAlreadyReverted)
	}
}

// A copy keeps the whole file but the name; a file of the name that says another name
// makes the copy take NAME-2.json.
func TestCopyAgent(t *testing.T) {
	pb, cat := mainHome(t)
	if err := os.WriteFile(filepath.Join(pb, "agents", "k2.json"), []byte(`{"name": "other"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	saved, err := CopyAgent(context.Background(), pb, cat, "keeper", "k2", "desktop")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(pb, "agents", "k2-2.json")
	if saved.Files[0].Path != p {
		t.Fatalf("copy written to %s, want %s", saved.Files[0].Path, p)
	}
	src := strings.Replace(string(readFile(t, filepath.Join(pb, "agents", "keeper.json"))), `"name": "keeper"`, `"name": "k2"`, 1)
	if got := string(readFile(t, p)); got != src {
		t.Errorf("copy =\n%s\nwant the source with its name changed:\n%s", got, src)
	}
}

// A rename moves the file named after the agent, changes only its name, makes the
// template slots and shell bindings that ran it follow, and carries its
// acknowledgments; its revert puts every file back as it was.
func TestRenameAgentFollowsReferences(t *testing.T) {
	pb, cat := mainHome(t)
	ctx := context.Background()
	out, err := Apply(pb, cat, "agent:researcher", Change{Add: []string{"tools"}}, "", true)
	if err != nil {
		t.Fatal(err)
	}
	if _, w := Record(ctx, pb, "agent:researcher", out, 0, "cli"); len(w) > 0 {
		t.Fatal(w)
	}
	before := map[string]string{}
	for _, f := range []string{"agents/researcher.json", "templates/pair.json", "templates/review.json", "settings.json"} {
		before[f] = string(readFile(t, filepath.Join(pb, f)))
	}
	saved, err := RenameAgent(ctx, pb, loadCatalog(t, pb), "researcher", "scholar", "cli")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(pb, "agents", "researcher.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the old file stays (%v)", err)
	}
	got := string(readFile(t, filepath.Join(pb, "agents", "scholar.json")))
	if want := strings.Replace(before["agents/researcher.json"], `"name": "researcher"`, `"name": "scholar"`, 1); got != want {
		t.Errorf("scholar.json =\n%s\nwant\n%s", got, want)
	}
	for _, f := range []string{"templates/pair.json", "templates/review.json"} {
		if b := string(readFile(t, filepath.Join(pb, f))); strings.Contains(b, `"researcher"`) || !strings.Contains(b, `"ref": "scholar"`) {
			t.Errorf("%s still names researcher:\n%s", f, b)
		}
	}
	c := loadCatalog(t, pb)
	for _, id := range []string{"agent:scholar", "template:review/scholar"} {
		if !hasTarget(t, pb, id) {
			t.Errorf("no %s after the rename", id)
		}
	}
	if set, _ := Acknowledged(ctx, pb, "agent:scholar"); len(set) != 2 {
		t.Errorf("agent:scholar has %d acknowledgments, want researcher's 2", len(set))
	}
	// Bringing tools back to the renamed agent does not ask again: its servers, as
	// they run now, were acknowledged for it.
	if _, err := Apply(pb, c, "agent:scholar", Change{Remove: []string{"tools"}}, "", false); err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(pb, loadCatalog(t, pb), "agent:scholar", Change{Add: []string{"tools"}}, "", false); err != nil {
		t.Errorf("adding tools back asks again: %v", err)
	}
	if _, err := Apply(pb, loadCatalog(t, pb), "agent:scholar", Change{Remove: []string{"tools"}}, "", false); err != nil {
		t.Fatal(err)
	}

	// The agent file changed after the rename (tools removed): the revert refuses.
	if _, err := revertOf(t, pb, saved.History); !errors.Is(err, ErrStale) {
		t.Fatalf("revert over a changed file = %v, want stale", err)
	}
	if err := os.WriteFile(filepath.Join(pb, "agents", "scholar.json"), []byte(got), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := revertOf(t, pb, saved.History); err != nil {
		t.Fatal(err)
	}
	for f, want := range before {
		if b := string(readFile(t, filepath.Join(pb, f))); b != want {
			t.Errorf("after the revert %s =\n%s\nwant\n%s", f, b, want)
		}
	}
	if _, err := os.Stat(filepath.Join(pb, "agents", "scholar.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the renamed file stays after the revert (%v)", err)
	}
}

// A removed agent is gone from the targets, its slots are named in the warnings, and
// its revert brings the file back byte for byte.
func TestRemoveAgent(t *testing.T) {
	pb, cat := mainHome(t)
	p := filepath.Join(pb, "agents", "bare.json")
	was := string(readFile(t, p))
	saved, err := RemoveAgent(context.Background(), pb, cat, "bare", "cli")
	if err != nil {
		t.Fatal(err)
	}
	if len(saved.Warnings) == 0 || !strings.Contains(strings.Join(saved.Warnings, "\n"), "template:review/bare still runs agent bare") {
		t.Errorf("warnings = %q, want the slots that ran bare", saved.Warnings)
	}
	if hasTarget(t, pb, "agent:bare") {
		t.Error("agent:bare is still listed")
	}
	if _, err := revertOf(t, pb, saved.History); err != nil {
		t.Fatal(err)
	}
	if got := string(readFile(t, p)); got != was {
		t.Errorf("restored bare.json =\n%s\nwant\n%s", got, was)
	}
}

// A slot added to a new template makes the template; added to an existing one, it goes
// last and inherits; removed, the template keeps its other slots.
func TestSlots(t *testing.T) {
	pb, cat := mainHome(t)
	ctx := context.Background()
	saved, err := AddSlot(ctx, pb, cat, "duo", "bare", "cli")
	if err != nil || saved.Target != "template:duo/bare" {
		t.Fatalf("AddSlot(duo) = %+v, %v", saved, err)
	}
	if !hasTarget(t, pb, "template:duo/bare") {
		t.Error("no template:duo/bare")
	}
	saved, err = AddSlot(ctx, pb, loadCatalog(t, pb), "review", "keeper", "cli")
	if err != nil || saved.Target != "template:review/keeper" {
		t.Fatalf("AddSlot(review) = %+v, %v", saved, err)
	}
	tg := target(t, pb, loadCatalog(t, pb), "template:review/keeper")
	if !tg.Inherits {
		t.Errorf("the new slot does not inherit: %+v", tg)
	}
	if _, err := AddSlot(ctx, pb, loadCatalog(t, pb), "review", "nobody", "cli"); ruleCode(err) != RuleNoAgent {
		t.Errorf("a slot for no agent: %v", err)
	}
	if _, err := RemoveSlot(ctx, pb, loadCatalog(t, pb), "template:review/keeper", "cli"); err != nil {
		t.Fatal(err)
	}
	if hasTarget(t, pb, "template:review/keeper") || !hasTarget(t, pb, "template:review/researcher") {
		t.Error("RemoveSlot removed the wrong slot")
	}
	if _, err := RemoveSlot(ctx, pb, loadCatalog(t, pb), "agent:bare", "cli"); ruleCode(err) != RuleBadChange {
		t.Errorf("RemoveSlot(agent) = %v", err)
	}
}

// An operation computed from a file that changed before the write writes nothing.
func TestFilesStaleWritesNothing(t *testing.T) {
	pb, cat := mainHome(t)
	h := read(pb, indexPlugins(cat))
	p := filepath.Join(pb, "agents", "bare.json")
	other := filepath.Join(pb, "agents", "new.json")
	if err := os.WriteFile(p, []byte(`{"name": "bare", "edited": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	err := writeFiles(h, []change{{path: other, after: []byte("{}")}, {path: p, before: h.agents["bare"].data}})
	if !errors.Is(err, ErrStale) {
		t.Fatalf("writeFiles = %v, want stale", err)
	}
	if _, err := os.Stat(other); !errors.Is(err, os.ErrNotExist) {
		t.Error("a stale operation wrote its other file")
	}
}
