package runtime

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/clients"
	"github.com/plugboard/plugboard/backend/clients/oracle"
	"github.com/plugboard/plugboard/backend/testhome"
)

// A Claude plugin whose manifest lists dependencies is loaded only beside them: the plan
// lists its skills when the launch loads every plugin it needs (by name, or name@inline,
// the marketplace of a --plugin-dir plugin) and drops it otherwise, also when what it
// needs is itself left out; and the real claude, given the same folders, loads the same.
func TestClaudeLoadsAPluginOnlyBesideWhatItNeeds(t *testing.T) {
	pb := home(t)
	legacy := func(name, deps string) string {
		dir := filepath.Join(pb, "plugins", name)
		manifest := fmt.Sprintf(`{"name": %q}`, name)
		if deps != "" {
			manifest = fmt.Sprintf(`{"name": %q, "dependencies": %s}`, name, deps)
		}
		testhome.WriteFile(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), manifest)
		testhome.WriteFile(t, filepath.Join(dir, "skills", name+"-skill", "SKILL.md"), "---\nname: "+name+"-skill\ndescription: The skill of "+name+".\n---\nBody.\n")
		return dir
	}
	dirs := []string{
		legacy("needy", `["helper"]`),
		legacy("helper", ""),
		legacy("pinned", `["helper@inline", "needy@^1.0"]`),
		legacy("lonely", `["gone"]`),
		legacy("top", `["lonely"]`),
		legacy("elsewhere", `[{"name": "helper", "marketplace": "team"}]`),
	}
	var rel []string
	for _, d := range dirs {
		rel = append(rel, `"plugins/`+filepath.Base(d)+`"`)
	}
	testhome.WriteFile(t, filepath.Join(pb, "agents", "deps.json"), `{"name": "deps", "pluginDirs": [`+strings.Join(rel, ", ")+`]}`)

	p := build(t, request(pb, "deps"))
	want := []string{"helper:helper-skill", "needy:needy-skill", "pinned:pinned-skill"}
	if got := slices.Sorted(slices.Values(p.Skills)); !slices.Equal(got, want) {
		t.Errorf("plan skills %v, want %v", got, want)
	}
	left := map[string]string{}
	for _, d := range p.Dropped {
		if d.What == "plugin" && d.Code == clients.CodeClaudeNeeds {
			left[d.Plugin] = d.Reason
		}
	}
	for plugin, need := range map[string]string{"lonely": "gone", "top": "lonely", "elsewhere": "helper@team"} {
		if !strings.Contains(left[plugin], "depends on "+need+",") {
			t.Errorf("%s: dropped %q, want it left out for %s", plugin, left[plugin], need)
		}
	}
	if len(left) != 3 {
		t.Errorf("left out %v, want lonely, top and elsewhere", left)
	}

	// The plan gives claude only what it loads; given every folder, the real claude loads
	// the same.
	var planned []string
	for i, a := range p.Argv {
		if a == "--plugin-dir" {
			planned = append(planned, filepath.Base(p.Argv[i+1]))
		}
	}
	for _, pp := range p.Plugins {
		if _, gone := left[pp.ID]; gone != (pp.How == "dropped") {
			t.Errorf("plugin %s: how %q", pp.ID, pp.How)
		}
	}
	if want := []string{"needy", "helper", "pinned"}; !slices.Equal(planned, want) {
		t.Errorf("the plan gives claude %v, want %v", planned, want)
	}
	bin := testhome.AgentBin(t, testhome.Claude)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	in, err := oracle.ClaudeDirs(ctx, bin, dirs...)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(in.Skills, want) {
		t.Errorf("claude %s lists %v, the plan %v", in.Version, in.Skills, want)
	}
	if got := slices.Sorted(slices.Values(in.Plugins)); !slices.Equal(got, []string{"helper", "needy", "pinned"}) {
		t.Errorf("claude loads %v, want helper, needy and pinned", got)
	}
}
