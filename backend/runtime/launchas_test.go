package runtime

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/assign"
	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/testhome"
)

// A Claude launch takes a package as Claude loads it: a legacy folder's skills are the
// ones Claude lists (folder-named, frontmatter faults tolerated), what Claude leaves out
// is in dropped; a package the specification rejects is dropped with a hint, and once
// the user chose "launch as Claude loads it" it is handed to Claude as it is and to PI
// not at all.
func TestLaunchAsClaudeLoadsIt(t *testing.T) {
	pb := home(t)
	dir := filepath.Join(pb, "plugins", "claude-only")
	testhome.WriteFile(t, filepath.Join(dir, "plugin.json"), `{"name": "other-tool"}`)
	testhome.WriteFile(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), `{"name": "claude-only"}`)
	// Claude names a skill by its folder and tolerates an unquoted colon; PI and the
	// specification would not take this one.
	testhome.WriteFile(t, filepath.Join(dir, "skills", "helper", "SKILL.md"), "---\nname: Helper Skill\ndescription: Use this: when helping\n---\n")
	testhome.WriteFile(t, filepath.Join(dir, "skills", "quiet", "SKILL.md"), "no frontmatter\n")
	testhome.WriteFile(t, filepath.Join(pb, "agents", "solo.json"), `{"name": "solo", "pluginDirs": ["plugins/claude-only"]}`)

	p := build(t, request(pb, "solo"))
	if len(p.Plugins) != 0 || len(p.Dropped) != 1 || !p.Dropped[0].LaunchAs || !strings.Contains(p.Dropped[0].Reason, `choose "launch as Claude loads it"`) || strings.Contains(p.Dropped[0].Reason, "plugboard ") {
		t.Fatalf("without the choice: plugins %+v dropped %+v", p.Plugins, p.Dropped)
	}

	cat := catalog.Load(catalog.Options{Home: filepath.Dir(pb), PlugboardHome: pb})
	if _, _, err := assign.SetLaunchAs(context.Background(), pb, cat, "claude-only", "claude", "test"); err != nil {
		t.Fatal(err)
	}
	p = build(t, request(pb, "solo"))
	if len(p.Plugins) != 1 || p.Plugins[0].How != "as-claude-loads-it" || !slices.Contains(p.Argv, dir) {
		t.Fatalf("with the choice: %+v argv %v", p.Plugins, p.Argv)
	}
	if !slices.Equal(p.Skills, []string{"claude-only:helper"}) {
		t.Errorf("skills = %v, want Claude's own listing", p.Skills)
	}
	if len(p.Dropped) != 1 || p.Dropped[0].Name != "skills/quiet" || !strings.Contains(p.Dropped[0].Reason, "no frontmatter") {
		t.Errorf("dropped = %+v", p.Dropped)
	}

	req := request(pb, "solo")
	req.Backend = PI
	p = build(t, req)
	if len(p.Plugins) != 0 || len(p.Dropped) != 1 || !strings.Contains(p.Dropped[0].Reason, "applies to Claude only") {
		t.Errorf("PI: plugins %+v dropped %+v", p.Plugins, p.Dropped)
	}
}
