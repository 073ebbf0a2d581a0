package clients

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/clients/oracle"
	"github.com/plugboard/plugboard/backend/testhome"
)

// The Codex fixtures: every folder of testdata/clients/claude (one Claude rule each) and
// of testdata/clients/codex (one Codex rule each). testdata/clients/codex/expected.json
// records what the pinned codex said of each, by version, keyed "claude/<case>" or
// "codex/<case>"; -update-codex rewrites it from the real codex (go test
// ./backend/clients -run TestCodexRealClient -update-codex).
var (
	codexFixtureFolders = []string{"claude", "codex"}
	codexExpected       = filepath.Join("..", "..", "testdata", "clients", "codex", "expected.json")
	updateCodex         = flag.Bool("update-codex", false, "rewrite testdata/clients/codex/expected.json from the real codex")
)

// codexPinned is the codex build/agents pins, and the one the model follows.
const codexPinned = "0.169.0"

// codexFixtureDir is the folder of a fixture key ("codex/manifest-cursor").
func codexFixtureDir(key string) string {
	return filepath.Join("..", "..", "testdata", "clients", filepath.FromSlash(key))
}

// codexFixtureKeys lists every fixture, as "claude/<case>" and "codex/<case>".
func codexFixtureKeys(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, folder := range codexFixtureFolders {
		entries, err := os.ReadDir(codexFixtureDir(folder))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range entries {
			if e.IsDir() {
				out = append(out, folder+"/"+e.Name())
				n++
			}
		}
		if n < 20 {
			t.Fatalf("only %d fixtures in testdata/clients/%s", n, folder)
		}
	}
	return out
}

// readCodexExpected reads expected.json: version → fixture → what that codex loaded.
func readCodexExpected(t *testing.T) map[string]map[string]oracle.CodexLoad {
	t.Helper()
	b, err := os.ReadFile(codexExpected)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]map[string]oracle.CodexLoad
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// codexModelSays puts the model's verdict in the oracle's terms: what installs, under
// which name, the skills, the SKILL.md files refused and the skills kept out of the
// prompt.
func codexModelSays(v Verdict) oracle.CodexLoad {
	got := oracle.CodexLoad{Loads: v.Loads, Skills: v.Alone(), Refused: []oracle.CodexRefusal{}, Hidden: []string{}}
	if v.Loads {
		got.Plugin = v.Plugin
	}
	for _, d := range v.Dropped {
		if d.Rule == "codex.skill-frontmatter" {
			got.Refused = append(got.Refused, oracle.CodexRefusal{Path: d.Path})
		}
	}
	sort.Slice(got.Refused, func(i, j int) bool { return got.Refused[i].Path < got.Refused[j].Path })
	got.Hidden = v.NotInPrompt()
	return got
}

// refusedPaths are the paths of refusals, without codex's reasons.
func refusedPaths(l []oracle.CodexRefusal) []string {
	out := []string{}
	for _, r := range l {
		out = append(out, r.Path)
	}
	return out
}

// agreeCodex fails the test when the model (got, from codexModelSays) and codex (want)
// differ on what loads.
func agreeCodex(t *testing.T, key string, v Verdict, want oracle.CodexLoad) {
	t.Helper()
	got := codexModelSays(v)
	if got.Loads != want.Loads || got.Plugin != want.Plugin || !slices.Equal(got.Skills, nonNil(want.Skills)) {
		t.Errorf("%s: model loads=%v plugin=%q skills=%v (%s); codex loads=%v plugin=%q skills=%v %s",
			key, got.Loads, got.Plugin, got.Skills, v.Why, want.Loads, want.Plugin, want.Skills, want.Error)
	}
	if g, w := refusedPaths(got.Refused), refusedPaths(want.Refused); !slices.Equal(g, w) {
		t.Errorf("%s: model refuses %v, codex %v (%v)", key, g, w, want.Refused)
	}
	if !slices.Equal(got.Hidden, nonNil(want.Hidden)) {
		t.Errorf("%s: model keeps %v out of the prompt, codex %v", key, got.Hidden, want.Hidden)
	}
}

// The model agrees with what the pinned codex said of every fixture (recorded).
func TestCodexFixtures(t *testing.T) {
	want := readCodexExpected(t)[codexPinned]
	if modelled[Codex] != codexPinned {
		t.Errorf("the Codex model follows %s, the pinned codex is %s", modelled[Codex], codexPinned)
	}
	for _, key := range codexFixtureKeys(t) {
		w, ok := want[key]
		if !ok {
			t.Errorf("%s has no recorded outcome for codex %s; run TestCodexRealClient with -update-codex", key, codexPinned)
			continue
		}
		agreeCodex(t, key, JudgeCodex(codexFixtureDir(key)), w)
	}
}

// The recording is the real codex's: every fixture is installed in the pinned codex
// again, and both the recording and the model must match what it says now.
func TestCodexRealClient(t *testing.T) {
	bin := testhome.AgentBin(t, ".bin/codex")
	all := readCodexExpected(t)
	got := runCodexFixtures(t, bin)
	if *updateCodex {
		all[codexPinned] = got
		b, _ := json.MarshalIndent(all, "", "  ")
		if err := os.WriteFile(codexExpected, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := all[codexPinned]
	for _, key := range codexFixtureKeys(t) {
		g := got[key]
		if w, _ := json.Marshal(want[key]); string(w) != mustJSON(g) {
			t.Errorf("%s: recorded %s, the real codex %s now says %s", key, w, codexPinned, mustJSON(g))
		}
		agreeCodex(t, key, JudgeCodex(codexFixtureDir(key)), g)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// runCodexFixtures installs every fixture in the codex at bin, which must be the pinned
// version, two at a time, and returns what it loaded from each.
func runCodexFixtures(t *testing.T, bin string) map[string]oracle.CodexLoad {
	t.Helper()
	return askEach(t, codexFixtureKeys(t), func(ctx context.Context, key string) (oracle.CodexLoad, error) {
		load, err := oracle.CodexPlugin(ctx, bin, codexFixtureDir(key))
		if err == nil && load.Loads && load.Version != codexPinned {
			err = fmt.Errorf("%s is codex %q, not %s: make deps-agents installs the pinned version", bin, load.Version, codexPinned)
		}
		return load, err
	})
}

// Asked about many folders at once (one marketplace, one app-server, one prompt), the
// real codex says of each folder it answers for what it says of that folder alone (the
// recording), and it answers for every folder whose manifest name no earlier folder of
// the batch took.
func TestCodexEachAgreesWithAlone(t *testing.T) {
	bin := testhome.AgentBin(t, ".bin/codex")
	want := readCodexExpected(t)[codexPinned]
	keys := codexFixtureKeys(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	answered, loaded := 0, 0
	for start := 0; start < len(keys); start += 60 {
		batch := keys[start:min(start+60, len(keys))]
		dirs := make([]string, len(batch))
		for i, key := range batch {
			dirs[i] = codexFixtureDir(key)
		}
		got, err := oracle.CodexEach(ctx, bin, dirs)
		if err != nil {
			t.Fatal(err)
		}
		taken := map[string]bool{}
		for i, key := range batch {
			w := want[key]
			g, ok := got[dirs[i]]
			if !ok {
				if !w.Loads || !taken[w.Plugin] {
					t.Errorf("%s: the batch gave no answer, yet alone it %s", key, mustJSON(w))
				}
				continue
			}
			answered++
			if w.Loads {
				loaded++
				taken[w.Plugin] = true
			}
			if mustJSON(g) != mustJSON(w) {
				t.Errorf("%s: in a batch codex says %s, alone %s", key, mustJSON(g), mustJSON(w))
			}
		}
	}
	t.Logf("%d of %d folders answered in batches of 60, %d of them loaded", answered, len(keys), loaded)
	if loaded < 20 {
		t.Errorf("only %d folders loaded in a batch; the test proves nothing", loaded)
	}
}

// Standalone skills: codex lists the folders of testdata/clients/codex/standalone-skills
// placed in ~/.agents/skills as JudgeSkill's Codex verdict names them, refuses the
// others, and has its five system skills in ~/.codex/skills/.system.
func TestCodexStandaloneSkills(t *testing.T) {
	bin := testhome.AgentBin(t, ".bin/codex")
	base := codexFixtureDir("codex/standalone-skills")
	entries, err := os.ReadDir(base)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	wantSkills, wantRefused := []string{}, []string{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		d := filepath.Join(base, e.Name())
		dirs = append(dirs, d)
		if v := JudgeSkill(d).Codex; v.Loads {
			wantSkills = append(wantSkills, v.Skills...)
		} else {
			wantRefused = append(wantRefused, e.Name()+"/SKILL.md")
		}
	}
	sort.Strings(wantSkills)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, under := range oracle.CodexSkillsRoots {
		set, err := oracle.CodexSkills(ctx, bin, under, dirs)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(set.Skills, wantSkills) || !slices.Equal(refusedPaths(set.Refused), wantRefused) {
			t.Errorf("in ~/%s codex lists %v and refuses %v; the model %v and %v", under, set.Skills, set.Refused, wantSkills, wantRefused)
		}
		if strings.Join(set.System, ",") != "imagegen,openai-docs,review-agent,skill-creator,skill-installer" {
			t.Errorf("codex's system skills are %v", set.System)
		}
	}
}

// Asked what it loads, the real codex runs nothing of the package: not its hooks, not
// its MCP server (which debug prompt-input would start were its name not taken), not a
// skill's declared MCP dependency. Each would leave a marker file.
func TestCodexOracleRunsNothing(t *testing.T) {
	bin := testhome.AgentBin(t, ".bin/codex")
	markers := t.TempDir()
	dir := filepath.Join(t.TempDir(), "hostile")
	touch := func(name string) string { return "touch " + filepath.Join(markers, name) }
	testhome.WriteFile(t, filepath.Join(dir, ".codex-plugin", "plugin.json"), `{"name": "hostile", "mcpServers": "./.mcp.json", "hooks": "./hooks/hooks.json"}`)
	testhome.WriteFile(t, filepath.Join(dir, "skills", "s", "SKILL.md"), "---\nname: s\ndescription: A skill.\n---\nBody\n")
	testhome.WriteFile(t, filepath.Join(dir, "skills", "s", "agents", "openai.yaml"), "dependencies:\n  tools:\n    - type: mcp\n      value: dep\n      transport: stdio\n      command: "+touch("dependency")+"\n")
	testhome.WriteFile(t, filepath.Join(dir, "hooks", "hooks.json"), `{"hooks": {
		"SessionStart": [{"hooks": [{"type": "command", "command": "`+touch("session-start")+`"}]}],
		"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "`+touch("prompt")+`"}]}]}}`)
	testhome.WriteFile(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers": {
		"local": {"command": "sh", "args": ["-c", "`+touch("mcp")+`"]},
		"dotted.name": {"command": "sh", "args": ["-c", "`+touch("mcp-dotted")+`"]}}}`)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	load, err := oracle.CodexPlugin(ctx, bin, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !load.Loads || load.Plugin != "hostile" || strings.Join(load.Skills, ",") != "hostile:s" {
		t.Errorf("the answer = %+v, want hostile loaded with hostile:s", load)
	}
	entries, _ := os.ReadDir(markers)
	for _, e := range entries {
		t.Errorf("package code ran: %s", e.Name())
	}
}

// A folder whose name codex would not take as a marketplace entry's ("owner+repo", as a
// checkout may be named) is still asked about: the oracle names the entry without those
// characters and codex installs it under its manifest's name.
func TestCodexFolderNameNotAnEntryName(t *testing.T) {
	bin := testhome.AgentBin(t, ".bin/codex")
	dir := filepath.Join(t.TempDir(), "owner+repo")
	testhome.WriteFile(t, filepath.Join(dir, ".codex-plugin", "plugin.json"), `{"name": "tidy"}`)
	testhome.WriteFile(t, filepath.Join(dir, "skills", "s", "SKILL.md"), "---\nname: s\ndescription: A skill.\n---\nBody\n")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	load, err := oracle.CodexPlugin(ctx, bin, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !load.Loads || load.Plugin != "tidy" || strings.Join(load.Skills, ",") != "tidy:s" {
		t.Errorf("codex says %+v, want tidy loaded with tidy:s", load)
	}
	agreeCodex(t, "owner+repo", JudgeCodex(dir), load)
}
