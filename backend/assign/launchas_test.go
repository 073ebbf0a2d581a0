package assign

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/settings"
	"github.com/plugboard/plugboard/backend/store"
	"github.com/plugboard/plugboard/backend/testhome"
)

// claudeOnly adds plugins/claude-only: a Claude plugin whose repository also carries a
// foreign root plugin.json, which the specification rejects and Claude loads.
func claudeOnly(t *testing.T, pb string) {
	t.Helper()
	dir := filepath.Join(pb, "plugins", "claude-only")
	testhome.WriteFile(t, filepath.Join(dir, "plugin.json"), `{"name": "other-tool"}`)
	testhome.WriteFile(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), `{"name": "claude-only"}`)
	testhome.WriteFile(t, filepath.Join(dir, "skills", "helper", "SKILL.md"), "---\nname: helper\ndescription: Helps\n---\n")
}

func TestLaunchAsClaude(t *testing.T) {
	ctx := context.Background()
	pb := fixture(t, "home")
	claudeOnly(t, pb)
	cat := loadCatalog(t, pb)
	agent := target(t, pb, cat, "agent:bare")

	// Invalid by the specification: refused, naming the choice.
	_, err := Apply(pb, cat, agent.ID, Change{Add: []string{"claude-only"}}, agent.Hash, false)
	var rule *RuleError
	if !errors.As(err, &rule) || rule.Code != RuleInvalid {
		t.Fatalf("adding a spec-invalid plugin = %v, want refused", err)
	}
	// The choice is refused for a valid plugin and for one Claude would not load.
	if _, _, err := SetLaunchAs(ctx, pb, cat, "notes", "claude", "test"); !errors.As(err, &rule) || rule.Code != RuleLaunchAsValid {
		t.Errorf("launch-as on a valid plugin = %v", err)
	}
	refused := filepath.Join(pb, "plugins", "refused")
	testhome.WriteFile(t, filepath.Join(refused, "plugin.json"), `{"name": "x"}`)
	testhome.WriteFile(t, filepath.Join(refused, ".claude-plugin", "plugin.json"), `{"name": "refused", "version": 1}`)
	cat = loadCatalog(t, pb)
	if _, _, err := SetLaunchAs(ctx, pb, cat, "refused", "claude", "test"); !errors.As(err, &rule) || rule.Code != RuleLaunchAsRefused || !strings.Contains(rule.Reason, "version") {
		t.Errorf("launch-as on a plugin Claude refuses too = %v", err)
	}
	if _, _, err := SetLaunchAs(ctx, pb, cat, "claude-only", "cursor", "test"); !errors.As(err, &rule) || rule.Code != RuleLaunchAsClient {
		t.Errorf("launch-as cursor = %v", err)
	}

	before := string(readFile(t, settings.Path(pb)))
	hid, warnings, err := SetLaunchAs(ctx, pb, cat, "claude-only", "claude", "test")
	if err != nil || hid == 0 || len(warnings) > 0 {
		t.Fatalf("SetLaunchAs = %d %v %v", hid, warnings, err)
	}
	after := string(readFile(t, settings.Path(pb)))
	if !strings.Contains(after, `"launchAs"`) || !strings.HasPrefix(after, before[:strings.Index(before, "}")-1]) {
		t.Errorf("settings.json keeps its other members and gains launchAs:\n%s\nwas\n%s", after, before)
	}
	cat = loadCatalog(t, pb)
	if cat.Settings.LaunchAsClient("claude-only") != "claude" {
		t.Fatalf("the catalog's settings lack the choice: %+v", cat.Settings)
	}
	agent = target(t, pb, cat, "agent:bare")
	out, err := Apply(pb, cat, agent.ID, Change{Add: []string{"claude-only"}}, agent.Hash, false)
	if err != nil || !slices.Contains(out.After, "claude-only") {
		t.Fatalf("with the choice the plugin is assignable: %v %+v", err, out)
	}

	// The history shows the choice; a revert takes it back.
	st, _, err := store.Open(ctx, pb)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := st.History(ctx, LaunchAsTarget+"claude-only", 10)
	st.Close()
	if len(entries) != 1 || entries[0].ID != hid || !slices.Equal(entries[0].After, []string{"claude"}) || len(entries[0].Before) != 0 || entries[0].Actor != "test" {
		t.Fatalf("history = %+v", entries)
	}
	if _, _, err := Revert(ctx, pb, cat, hid, false); err != nil {
		t.Fatal(err)
	}
	if st, _, _ := settings.Read(pb); st.LaunchAsClient("claude-only") != "" {
		t.Errorf("revert left the choice on: %+v", st.LaunchAs)
	}
}

// A settings.json that cannot be read cleanly is never written over (nothing is lost).
func TestLaunchAsRefusesBrokenSettings(t *testing.T) {
	pb := fixture(t, "home")
	claudeOnly(t, pb)
	testhome.WriteFile(t, settings.Path(pb), `{"skillPluginPaths": "not a list", "skillsEnabled": {"x": false}}`)
	cat := loadCatalog(t, pb)
	_, _, err := SetLaunchAs(context.Background(), pb, cat, "claude-only", "claude", "test")
	if err == nil || !strings.Contains(err.Error(), "not rewritten") {
		t.Fatalf("SetLaunchAs over a broken settings.json = %v", err)
	}
	if got := string(readFile(t, settings.Path(pb))); !strings.Contains(got, "not a list") {
		t.Errorf("settings.json was rewritten: %s", got)
	}
}
