package runtime

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/catalog"
)

// claudeSettings is the part of a projection's settings.json the tests read.
type claudeSettings struct {
	Hooks map[string][]struct {
		Matcher string `json:"matcher"`
		Hooks   []struct {
			Type    string `json:"type"`
			Command string `json:"command"`
			Timeout int    `json:"timeout"`
		} `json:"hooks"`
	} `json:"hooks"`
}

// A Claude launch passes --settings with the skill-activity hooks, which run this
// plugboard's "activity record" on the projection's index; the index names every skill
// of the plan with its plugin, version and content hash; the target goes to the agent's
// environment, so one projection serves every target with the same set.
func TestClaudeActivityHooks(t *testing.T) {
	pb := home(t)
	req := request(pb, "coder")
	req.Args = []string{"--model", "x"}
	p := build(t, req)
	settingsFile := filepath.Join(p.Projection, ActivitySettingsFile)
	if got := argAfter(p.Argv, "--settings"); !slices.Equal(got, []string{settingsFile}) {
		t.Errorf("--settings = %v, want %s", got, settingsFile)
	}
	if !slices.Equal(p.Argv[len(p.Argv)-2:], req.Args) {
		t.Errorf("the agent's own arguments are not last: %v", p.Argv)
	}
	var s claudeSettings
	readJSON(t, settingsFile, &s)
	wantCmd := ShellQuote([]string{req.Self, "activity", "record", filepath.Join(p.Projection, ActivityIndexFile)})
	for event, matcher := range map[string]string{"PostToolUse": "Skill", "UserPromptExpansion": ""} {
		hs := s.Hooks[event]
		if len(hs) != 1 || hs[0].Matcher != matcher || len(hs[0].Hooks) != 1 {
			t.Errorf("hooks %s = %+v, want one with matcher %q", event, hs, matcher)
			continue
		}
		if h := hs[0].Hooks[0]; h.Type != "command" || h.Command != wantCmd || h.Timeout != activityHookTimeout {
			t.Errorf("hook %s = %+v, want command %s", event, h, wantCmd)
		}
	}
	if len(s.Hooks) != 2 {
		t.Errorf("hooks for %d events, want 2: %+v", len(s.Hooks), s.Hooks)
	}

	ix, err := ReadActivityIndex(filepath.Join(p.Projection, ActivityIndexFile))
	if err != nil {
		t.Fatal(err)
	}
	if ix.Home != pb || ix.Backend != Claude || ix.Fingerprint != p.Fingerprint {
		t.Errorf("index = %+v", ix)
	}
	var names []string
	for name := range ix.Skills {
		names = append(names, name)
	}
	if slices.Sort(names); !slices.Equal(names, p.Skills) {
		t.Errorf("index skills %v, plan skills %v", names, p.Skills)
	}
	for name, want := range map[string]struct{ plugin, version, dir string }{
		"review:check":           {"review", "1.2.0", filepath.Join(p.Projection, "plugins", "review", "skills", "check")},
		"legacy-tools:grep-help": {"legacy-tools", "", filepath.Join(pb, "plugins", "legacy-tools", "skills", "grep-help")},
	} {
		tr, err := hashTree(filepath.Dir(filepath.Dir(want.dir)), want.dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := ix.Skills[name]
		if got.Plugin != want.plugin || got.Hash != "sha256:"+tr.Sum || (want.version != "" && got.Version != want.version) {
			t.Errorf("index %s = %+v, want plugin %s version %s hash of %s", name, got, want.plugin, want.version, want.dir)
		}
	}

	if !slices.Contains(p.EnvKeys, ActivityTargetEnv) || !slices.Contains(p.Env(nil), ActivityTargetEnv+"=agent:coder") {
		t.Errorf("env keys %v: want %s=agent:coder", p.EnvKeys, ActivityTargetEnv)
	}
	slot := build(t, request(pb, "template:team/coder"))
	if slot.Projection != p.Projection || !slot.Reused || !slices.Contains(slot.Env(nil), ActivityTargetEnv+"=template:team/coder") {
		t.Errorf("the slot with coder's set: projection %s reused=%v env %v; want coder's projection, reused, its own target",
			slot.Projection, slot.Reused, slot.Env(nil))
	}
}

// The hook files are sealed with the projection: one edited is made anew.
func TestActivityFilesAreSealed(t *testing.T) {
	pb := home(t)
	first := build(t, request(pb, "coder"))
	var sl seal
	readJSON(t, filepath.Join(first.Projection, sealFile), &sl)
	for _, name := range []string{ActivitySettingsFile, ActivityIndexFile} {
		if !slices.ContainsFunc(sl.Files, func(f sealItem) bool { return f.Path == name }) {
			t.Errorf("the seal does not list %s", name)
		}
		file := filepath.Join(first.Projection, name)
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(`{"hooks": {}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		p := build(t, request(pb, "coder"))
		if p.Reused || !strings.Contains(p.Rebuilt, name+" changed since it was projected") {
			t.Errorf("%s edited: reused=%v rebuilt=%q", name, p.Reused, p.Rebuilt)
		}
		if got, _ := os.ReadFile(file); string(got) != string(want) {
			t.Errorf("%s after the rebuild = %s, want %s", name, got, want)
		}
		if again := build(t, request(pb, "coder")); !again.Reused {
			t.Errorf("%s: the rebuilt projection is not reused: %q", name, again.Rebuilt)
		}
	}
}

// Without the plugboard executable there is no hook to run: no index, and the settings
// hold the skills' read grants alone. A --settings of the agent's own replaces the
// launch's (Claude keeps the last one), which the plan says.
func TestActivityHooksNeedSelfAndTheirOwnSettings(t *testing.T) {
	pb := home(t)
	req := request(pb, "coder")
	req.Self = ""
	p := build(t, req)
	if slices.Contains(p.EnvKeys, ActivityTargetEnv) {
		t.Errorf("without Self: env keys %v", p.EnvKeys)
	}
	if _, err := os.Lstat(filepath.Join(p.Projection, ActivityIndexFile)); !os.IsNotExist(err) {
		t.Errorf("without Self the projection has %s", ActivityIndexFile)
	}
	var st map[string]json.RawMessage
	if b, err := os.ReadFile(filepath.Join(p.Projection, ActivitySettingsFile)); err != nil || json.Unmarshal(b, &st) != nil {
		t.Fatalf("without Self, the settings: %v", err)
	}
	if _, hooks := st["hooks"]; hooks || st["permissions"] == nil {
		t.Errorf("without Self the settings hold %v, want the permissions alone", st)
	}
	for _, args := range [][]string{{"--settings", "mine.json"}, {"--settings={}"}} {
		req := request(pb, "coder")
		req.Args = args
		p := build(t, req)
		if !slices.ContainsFunc(p.Dropped, func(d Drop) bool { return d.What == "hooks" && strings.Contains(d.Reason, "not recorded") }) {
			t.Errorf("agent args %q: no drop says the activity is not recorded: %+v", args, p.Dropped)
		}
	}
}

// ClaudeSkillNames gives, from the catalog alone, the names the plan gives.
func TestClaudeSkillNames(t *testing.T) {
	pb := home(t)
	p := build(t, request(pb, "coder"))
	cat := catalog.Load(catalog.Options{Home: filepath.Dir(pb), PlugboardHome: pb})
	var names []string
	for _, pl := range cat.Plugins {
		if pl.ID == "review" || pl.ID == "legacy-tools" {
			names = append(names, ClaudeSkillNames(&pl, cat.Settings)...)
		}
		if pl.ID == "broken" && len(ClaudeSkillNames(&pl, cat.Settings)) != 0 {
			t.Errorf("an invalid package has skill names: %v", ClaudeSkillNames(&pl, cat.Settings))
		}
	}
	if slices.Sort(names); !slices.Equal(names, p.Skills) {
		t.Errorf("ClaudeSkillNames = %v, plan skills %v", names, p.Skills)
	}
}

// A PI launch loads the activity extension with -e from the projection, beside the
// index it reads: the command that records (this plugboard's "activity record --pi" on
// the index) and every skill of the plan under PI's bare name, with its plugin, version,
// content hash and the SKILL.md PI lists. The target goes to the agent's environment.
// Both files are sealed with the projection, and the extension's content is part of the
// fingerprint: another extension is another projection, never the old one reused.
func TestPIActivityExtension(t *testing.T) {
	pb := home(t)
	req := request(pb, "pi-coder")
	req.Bin = filepath.Join(t.TempDir(), "pi") // not installed: no MCP bridge
	req.Args = []string{"-p", "hello"}
	p := build(t, req)
	ext := filepath.Join(p.Projection, PIActivityExtensionFile)
	if got := argAfter(p.Argv, "-e"); !slices.Equal(got, []string{ext}) {
		t.Errorf("-e = %v, want %s", got, ext)
	}
	if !slices.Equal(p.Argv[len(p.Argv)-2:], req.Args) {
		t.Errorf("the agent's own arguments are not last: %v", p.Argv)
	}
	if b, err := os.ReadFile(ext); err != nil || string(b) != string(piActivityExtension) || !strings.Contains(string(b), `pi.on("tool_result"`) {
		t.Errorf("the projection's extension = %.80q, %v; want piactivity.ts", b, err)
	}
	index := filepath.Join(p.Projection, ActivityIndexFile)
	ix, err := ReadActivityIndex(index)
	if err != nil {
		t.Fatal(err)
	}
	if ix.Home != pb || ix.Backend != PI || ix.Fingerprint != p.Fingerprint ||
		!slices.Equal(ix.Record, []string{req.Self, "activity", "record", "--pi", index}) {
		t.Errorf("index = %+v", ix)
	}
	var names []string
	for name := range ix.Skills {
		names = append(names, name)
	}
	if slices.Sort(names); !slices.Equal(names, p.Skills) || !slices.Equal(names, []string{"check", "explain"}) {
		t.Errorf("index skills %v, plan skills %v", names, p.Skills)
	}
	for _, name := range names {
		dir := filepath.Join(p.Projection, "skills", name)
		tr, err := hashTree(filepath.Dir(dir), dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := ix.Skills[name]
		if got.Plugin != "review" || got.Version != "1.2.0" || got.Hash != "sha256:"+tr.Sum || got.Location != filepath.Join(dir, "SKILL.md") {
			t.Errorf("index %s = %+v, want plugin review 1.2.0, the hash of %s and its SKILL.md", name, got, dir)
		}
		if !slices.Contains(argAfter(p.Argv, "--skill"), filepath.Dir(got.Location)) {
			t.Errorf("index %s: location %s is not a --skill of %v", name, got.Location, p.Argv)
		}
	}
	if !slices.Contains(p.EnvKeys, ActivityTargetEnv) || !slices.Contains(p.Env(nil), ActivityTargetEnv+"=agent:pi-coder") {
		t.Errorf("env keys %v: want %s=agent:pi-coder", p.EnvKeys, ActivityTargetEnv)
	}
	var sl seal
	readJSON(t, filepath.Join(p.Projection, sealFile), &sl)
	for _, name := range []string{PIActivityExtensionFile, ActivityIndexFile} {
		if !slices.ContainsFunc(sl.Files, func(f sealItem) bool { return f.Path == name }) {
			t.Errorf("the seal does not list %s", name)
		}
	}
	if again := build(t, req); !again.Reused || again.Fingerprint != p.Fingerprint {
		t.Errorf("the same launch again: reused=%v fingerprint %s, want %s", again.Reused, again.Fingerprint, p.Fingerprint)
	}

	// Another version of the extension (a new plugboard at the same path).
	old := piActivityExtension
	t.Cleanup(func() { piActivityExtension = old })
	piActivityExtension = append(slices.Clone(old), []byte("// another version\n")...)
	other := build(t, req)
	if other.Fingerprint == p.Fingerprint || other.Projection == p.Projection || other.Reused {
		t.Errorf("another extension: fingerprint %s projection %s reused=%v; want a new projection", other.Fingerprint, other.Projection, other.Reused)
	}
	if b, _ := os.ReadFile(filepath.Join(other.Projection, PIActivityExtensionFile)); string(b) != string(piActivityExtension) {
		t.Errorf("the new projection's extension is not the new version")
	}
	if !strings.HasSuffix(other.Projection, strings.TrimPrefix(other.Fingerprint, "sha256:")[:32]) {
		t.Errorf("projection %s is not named after fingerprint %s", other.Projection, other.Fingerprint)
	}
	if got := argAfter(other.Argv, "-e"); !slices.Equal(got, []string{filepath.Join(other.Projection, PIActivityExtensionFile)}) {
		t.Errorf("-e = %v, want the new projection's extension", got)
	}
	if ix, err := ReadActivityIndex(filepath.Join(other.Projection, ActivityIndexFile)); err != nil || ix.Fingerprint != other.Fingerprint ||
		!strings.HasPrefix(ix.Skills["check"].Location, other.Projection+string(filepath.Separator)) {
		t.Errorf("the new projection's index = %+v, %v", ix, err)
	}

	// Without the plugboard executable there is nothing to record with.
	piActivityExtension = old
	req.Self = ""
	none := build(t, req)
	if slices.Contains(none.Argv, "-e") || slices.Contains(none.EnvKeys, ActivityTargetEnv) {
		t.Errorf("without Self: argv %v env keys %v", none.Argv, none.EnvKeys)
	}
	for _, name := range []string{PIActivityExtensionFile, ActivityIndexFile} {
		if _, err := os.Lstat(filepath.Join(none.Projection, name)); !os.IsNotExist(err) {
			t.Errorf("without Self the projection has %s", name)
		}
	}
}

// UseActivityServer swaps a Claude plan's settings file for the same hooks as HTTP hooks
// to the launcher's recorder, with the token header filled in from the environment; a
// PI plan gets the URL in the environment. The token is in the environment only, never
// in the arguments or the plan's JSON. A plan that does not record is left as it is.
func TestUseActivityServer(t *testing.T) {
	pb := home(t)
	p := build(t, request(pb, "coder"))
	if !p.UseActivityServer("http://127.0.0.1:5", "tok-123") {
		t.Fatal("a Claude plan with hooks was not pointed at the recorder")
	}
	var s claudeSettings
	var hooks struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Type, URL      string
				Headers        map[string]string
				AllowedEnvVars []string
			}
		}
	}
	inline := argAfter(p.Argv, "--settings")
	if len(inline) != 1 || json.Unmarshal([]byte(inline[0]), &s) != nil || json.Unmarshal([]byte(inline[0]), &hooks) != nil {
		t.Fatalf("--settings = %v, want inline JSON", inline)
	}
	for _, event := range []string{"PostToolUse", "UserPromptExpansion"} {
		hs := hooks.Hooks[event]
		if len(hs) != 1 || len(hs[0].Hooks) != 1 {
			t.Fatalf("hooks %s = %+v", event, hs)
		}
		h := hs[0].Hooks[0]
		if h.Type != "http" || h.URL != "http://127.0.0.1:5/claude" || h.Headers[ActivityTokenHeader] != "$"+ActivityTokenEnv ||
			!slices.Equal(h.AllowedEnvVars, []string{ActivityTokenEnv}) {
			t.Errorf("hook %s = %+v", event, h)
		}
	}
	if s.Hooks["PostToolUse"][0].Matcher != "Skill" {
		t.Errorf("PostToolUse matcher %q", s.Hooks["PostToolUse"][0].Matcher)
	}
	b, _ := json.Marshal(p)
	if strings.Contains(strings.Join(p.Argv, " "), "tok-123") || strings.Contains(string(b), "tok-123") ||
		!slices.Contains(p.Env(nil), ActivityTokenEnv+"=tok-123") {
		t.Errorf("the token is not in the environment alone: argv %v", p.Argv)
	}

	pi := build(t, request(pb, "pi-coder"))
	if !pi.UseActivityServer("http://127.0.0.1:5", "tok-123") || !slices.Contains(pi.Env(nil), ActivityURLEnv+"=http://127.0.0.1:5/pi") {
		t.Errorf("a PI plan does not find the recorder in its environment: %v", pi.EnvKeys)
	}

	req := request(pb, "coder")
	req.Args = []string{"--settings", "mine.json"}
	own := build(t, req)
	before := slices.Clone(own.Argv)
	if own.UseActivityServer("http://127.0.0.1:5", "tok") || !slices.Equal(own.Argv, before) {
		t.Errorf("a plan whose own --settings replaces the hooks was changed: %v", own.Argv)
	}
	req.Args, req.Self = nil, ""
	if build(t, req).UseActivityServer("http://127.0.0.1:5", "tok") {
		t.Error("a plan without the plugboard executable (no hooks) was pointed at the recorder")
	}
}
