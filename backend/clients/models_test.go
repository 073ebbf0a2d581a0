package clients

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/clients/oracle"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/testhome"
)

const portableSchema = `"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"`

func skillMD(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\nbody\n"
}

// A Claude plugin whose repository also carries a foreign root plugin.json (for another
// tool): the specification's manifest rule makes it invalid, Claude loads it.
func TestClaudeIgnoresAForeignRootManifest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "repo")
	testhome.WriteFile(t, filepath.Join(dir, "plugin.json"), `{"name": "Other Tool", "main": "index.js"}`)
	testhome.WriteFile(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), `{"name": "demo"}`)
	testhome.WriteFile(t, filepath.Join(dir, "skills", "write-docs", "SKILL.md"), skillMD("docs-writer", "Writes docs"))
	testhome.WriteFile(t, filepath.Join(dir, "commands", "ship.md"), "---\ndescription: Ship it\n---\n")
	testhome.WriteFile(t, filepath.Join(dir, "agents", "rev.md"), "---\nname: reviewer\ndescription: Reviews\n---\n")
	v := JudgeClaude(dir)
	if !v.Loads || v.Plugin != "demo" || !slices.Equal(v.Skills, []string{"demo:write-docs"}) || v.Manifest != ClaudeManifest {
		t.Fatalf("claude = %+v", v)
	}
	if !strings.Contains(v.Why, "root plugin.json is not Claude's") {
		t.Errorf("why = %q", v.Why)
	}
	if len(v.Commands) != 1 || v.Commands[0].Name != "demo:ship" || v.Commands[0].Description != "Ship it" || v.Commands[0].File != "commands/ship.md" {
		t.Errorf("commands = %+v", v.Commands)
	}
	if len(v.Agents) != 1 || v.Agents[0].Name != "demo:reviewer" || v.Agents[0].File != "agents/rev.md" {
		t.Errorf("agents = %+v", v.Agents)
	}
	if got := v.LoadedSkills(); len(got) != 1 || got[0].Dir != "skills/write-docs" {
		t.Errorf("loaded = %+v", got)
	}
}

func TestClaudeRefusals(t *testing.T) {
	for _, c := range []struct {
		name, body string
		refusedBy  []string // the releases that refuse it; the others load it
	}{
		{"author string", `{"name": "x", "author": "Me"}`, []string{"2.1.197"}},
		{"keywords string", `{"name": "x", "keywords": "a,b"}`, []string{"2.1.197"}},
		{"repository object", `{"name": "x", "repository": {"url": "https://x"}}`, []string{"2.1.197"}},
		{"name with @", `{"name": "a@b"}`, []string{"2.1.328"}},
		{"name with a control character", `{"name": "a\u0001b"}`, []string{"2.1.328"}},
		{"version number", `{"name": "x", "version": 1}`, []string{"2.1.197", "2.1.328"}},
		{"name with spaces", `{"name": "My Plugin"}`, []string{"2.1.197", "2.1.328"}},
		{"path without ./", `{"name": "x", "skills": "custom"}`, []string{"2.1.197", "2.1.328"}},
		{"agents folder", `{"name": "x", "agents": "./agents/"}`, []string{"2.1.197", "2.1.328"}},
		{"not json", `{"name": "x",}`, []string{"2.1.197", "2.1.328"}},
	} {
		dir := t.TempDir()
		testhome.WriteFile(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), c.body)
		for _, r := range claudeReleases {
			v := JudgeClaudeAs(dir, r.version)
			refused := !v.Loads && v.Issues.HasErrors() && v.Issues[0].Code == CodeClaudeManifest
			if refused != slices.Contains(c.refusedBy, r.version) {
				t.Errorf("%s, claude %s: loads=%v issues=%v", c.name, r.version, v.Loads, v.Issues)
			}
		}
	}
	dir := t.TempDir()
	testhome.WriteFile(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), `{"name": "My Plugin"}`)
	if v := JudgeClaude(dir); !strings.Contains(v.Issues[0].Message, `"my-plugin"`) {
		t.Errorf("a name with spaces gets a kebab-case suggestion: %v", v.Issues)
	}
	testhome.WriteFile(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), `{"name": "Café Tools"}`)
	if v := JudgeClaude(dir); !strings.Contains(v.Issues[0].Message, `"cafe-tools"`) {
		t.Errorf("suggestions keep letters (café → cafe): %v", v.Issues)
	}
}

// The installed version picks the rules: the newest release not newer than it, the
// oldest for an older one, the newest with none; and the verdict says which.
func TestClaudeReleaseFor(t *testing.T) {
	for installed, want := range map[string]string{"": "2.1.328", "2.1.100": "2.1.197", "2.1.197": "2.1.197",
		"2.1.300": "2.1.197", "2.1.328": "2.1.328", "2.1.332": "2.1.328", "2.10.0": "2.1.328", "3.0.0-beta.1": "2.1.328"} {
		if got := ClaudeModelled(installed); got != want {
			t.Errorf("installed %q: rules of %s, want %s", installed, got, want)
		}
	}
	for _, c := range []struct {
		installed map[string]string
		client    string
		want      string
	}{
		{nil, Claude, "model of claude 2.1.328, claude not installed"},
		{map[string]string{Claude: "2.1.300"}, Claude, "model of claude 2.1.197, claude 2.1.300 installed"},
		{map[string]string{Claude: ""}, Claude, "model of claude 2.1.328, claude installed (version not known)"},
		{map[string]string{Codex: "0.171.0"}, Codex, "model of codex 0.169.0, codex 0.171.0 installed"},
		{nil, Cursor, "model of cursor, cursor not installed"},
	} {
		if got := JudgedBy(c.client, c.installed); got != c.want {
			t.Errorf("JudgedBy(%s, %v) = %q, want %q", c.client, c.installed, got, c.want)
		}
	}
	dir := t.TempDir()
	testhome.WriteFile(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), `{"name": "x", "author": "Me"}`)
	testhome.WriteFile(t, filepath.Join(dir, "skills", "a", "SKILL.md"), skillMD("a", "A"))
	if s := JudgeWith(dir, Options{Installed: map[string]string{Claude: "2.1.197"}}); s.Claude.Loads || !strings.HasPrefix(s.Claude.JudgedBy, "model of claude 2.1.197,") {
		t.Errorf("with claude 2.1.197 installed its rules refuse a string author: %+v", s.Claude)
	}
	if s := JudgeWith(dir, Options{}); !s.Claude.Loads {
		t.Errorf("with no claude installed the newest rules load a string author: %+v", s.Claude)
	}
}

func TestCodex(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tool")
	testhome.WriteFile(t, filepath.Join(dir, CodexManifest), `{"name": "tool", "skills": "./skills/"}`)
	testhome.WriteFile(t, filepath.Join(dir, "skills", "a", "SKILL.md"), skillMD("alpha", "A"))
	testhome.WriteFile(t, filepath.Join(dir, "skills", "group", "b", "SKILL.md"), skillMD("b", "B"))
	testhome.WriteFile(t, filepath.Join(dir, "skills", "nodesc", "SKILL.md"), "---\nname: nodesc\n---\n")
	testhome.WriteFile(t, filepath.Join(dir, "skills", ".hidden", "SKILL.md"), skillMD("hidden", "H"))
	v := JudgeCodex(dir)
	// Named by frontmatter (not the folder), nested found, no description dropped.
	if !v.Loads || !slices.Equal(v.Skills, []string{"tool:alpha", "tool:b"}) || len(v.Dropped) != 1 {
		t.Fatalf("codex = %+v", v)
	}
	// codex 0.169.0 (testdata/clients/codex, TestCodexRealClient): a list of skills paths
	// loads; a path without ./ is skipped and skills/ is read instead; any folder installs.
	testhome.WriteFile(t, filepath.Join(dir, CodexManifest), `{"name": "tool", "skills": ["./skills/"]}`)
	if v := JudgeCodex(dir); !v.Loads || !slices.Equal(v.Skills, []string{"tool:alpha", "tool:b"}) {
		t.Errorf("a list of skills paths loads: %+v", v)
	}
	testhome.WriteFile(t, filepath.Join(dir, CodexManifest), `{"name": "tool", "skills": "skills"}`)
	if v := JudgeCodex(dir); !v.Loads || !slices.Equal(v.Skills, []string{"tool:alpha", "tool:b"}) || !slices.ContainsFunc(v.Issues, func(i issue.Issue) bool { return i.Code == CodeCodexField }) {
		t.Errorf("a path without ./ is skipped with a warning, and skills/ is read: %+v", v)
	}
	if v := JudgeCodex(t.TempDir()); !v.Package || len(v.Skills) != 0 {
		t.Errorf("an empty folder installs, with no skill: %+v", v)
	}
}

func TestCursor(t *testing.T) {
	dir := t.TempDir()
	testhome.WriteFile(t, filepath.Join(dir, ".cursor-plugin", "plugin.json"), `{"name": "cur", "skills": "./my-skills", "extra": 1}`)
	testhome.WriteFile(t, filepath.Join(dir, "my-skills", "one", "SKILL.md"), skillMD("one", "One"))
	testhome.WriteFile(t, filepath.Join(dir, "my-skills", "two", "SKILL.md"), skillMD("deux", "Two"))
	testhome.WriteFile(t, filepath.Join(dir, "skills", "ignored", "SKILL.md"), skillMD("ignored", "I"))
	v := JudgeCursor(dir)
	if !v.Loads || !slices.Equal(v.Skills, []string{"deux", "one"}) {
		t.Fatalf("cursor = %+v", v)
	}
	codes := ""
	for _, i := range v.Issues {
		codes += i.Code + " "
	}
	if !strings.Contains(codes, CodeCursorField) || !strings.Contains(codes, CodeCursorSkill) {
		t.Errorf("issues = %v", v.Issues)
	}
	testhome.WriteFile(t, filepath.Join(dir, ".cursor-plugin", "plugin.json"), `{"name": "Cur Plugin"}`)
	if v := JudgeCursor(dir); v.Loads || v.Issues[0].Code != CodeCursorManifest {
		t.Errorf("a name breaking Cursor's rule is refused: %+v", v)
	}
	port := t.TempDir()
	testhome.WriteFile(t, filepath.Join(port, "plugin.json"), `{`+portableSchema+`, "name": "port"}`)
	testhome.WriteFile(t, filepath.Join(port, "skills", "s", "SKILL.md"), skillMD("s", "S"))
	if v := JudgeCursor(port); !v.Loads || v.Manifest != "plugin.json" || !slices.Equal(v.Skills, []string{"s"}) {
		t.Errorf("Cursor loads an Agent Plugins package: %+v", v)
	}
}

func TestJudgeSkill(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my-skill")
	testhome.WriteFile(t, filepath.Join(dir, "SKILL.md"), skillMD("other-name", "Does things"))
	s := JudgeSkill(dir)
	if !slices.Equal(s.Claude.Skills, []string{"my-skill"}) || !slices.Equal(s.PI.Skills, []string{"other-name"}) ||
		!slices.Equal(s.Codex.Skills, []string{"other-name"}) || !slices.Equal(s.Cursor.Skills, []string{"other-name"}) {
		t.Errorf("JudgeSkill = %+v", s)
	}
	testhome.WriteFile(t, filepath.Join(dir, "SKILL.md"), "\ufeff"+skillMD("my-skill", "Does things"))
	s = JudgeSkill(dir)
	if s.PI.Loads || !strings.Contains(s.PI.Dropped[0].Reason, "byte-order mark") {
		t.Errorf("a BOM is named as a BOM: %+v", s.PI)
	}
}

// piBin is the real pi, installed by make deps-agents; under CI a missing one fails.
func piBin(t *testing.T) string { return testhome.AgentBin(t, ".bin/pi") }

// The PI model agrees with the real pi on every skill fixture: each skill folder handed
// with --skill, as a launch does.
func TestPIRealClient(t *testing.T) {
	bin := piBin(t)
	dirsOf := map[string][]string{}
	var names []string
	for _, name := range fixtureNames(t) {
		if !strings.HasPrefix(name, "skill") {
			continue
		}
		root, _ := filepath.EvalSymlinks(filepath.Join(fixtures, name))
		var dirs []string
		for _, d := range skillDirsOf(root, newFiles()) {
			dirs = append(dirs, d.dir)
		}
		if len(dirs) == 0 {
			continue
		}
		dirsOf[name] = dirs
		names = append(names, name)
	}
	// two at a time, as the other real clients are asked
	got := askEach(t, names, func(ctx context.Context, name string) ([]string, error) {
		return oracle.PI(ctx, bin, dirsOf[name])
	})
	for _, name := range names {
		if v := JudgePI(filepath.Join(fixtures, name)); !slices.Equal(v.Skills, got[name]) {
			t.Errorf("%s: model %v (dropped %v), pi %v", name, v.Skills, v.Dropped, got[name])
		}
	}
	n := len(names)
	if n < 20 {
		t.Fatalf("only %d skill fixtures were run through pi", n)
	}
}
