package clientask

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/clients"
	"github.com/plugboard/plugboard/backend/store"
	"github.com/plugboard/plugboard/backend/testhome"
)

// home makes a Plugboard home with three managed packages: one every Claude release
// loads alike, one with a string author (2.1.197 refuses it, 2.1.328 loads it) and one
// with nothing Claude loads (2.1.197 loads it empty, 2.1.328 skips it).
func home(t *testing.T) catalog.Options {
	t.Helper()
	h := t.TempDir()
	pb := filepath.Join(h, ".plugboard")
	plugins := filepath.Join(pb, "plugins")
	skill := "---\nname: hello\ndescription: Says hello.\n---\nHi\n"
	testhome.WriteFile(t, filepath.Join(plugins, "plain", ".claude-plugin", "plugin.json"), `{"name": "plain"}`)
	testhome.WriteFile(t, filepath.Join(plugins, "plain", "skills", "hello", "SKILL.md"), skill)
	testhome.WriteFile(t, filepath.Join(plugins, "author", ".claude-plugin", "plugin.json"), `{"name": "author", "author": "Me"}`)
	testhome.WriteFile(t, filepath.Join(plugins, "author", "skills", "hello", "SKILL.md"), skill)
	testhome.WriteFile(t, filepath.Join(plugins, "empty", "README.md"), "Nothing here.\n")
	return catalog.Options{Home: h, PlugboardHome: pb}
}

// counting wraps bin in a script that appends a line to log at each start.
func counting(t *testing.T, bin string) (wrapper, log string) {
	t.Helper()
	dir := t.TempDir()
	wrapper, log = filepath.Join(dir, "claude"), filepath.Join(dir, "runs")
	testhome.WriteFile(t, wrapper, "#!/bin/sh\necho run >> "+log+"\nexec "+bin+" \"$@\"\n")
	if err := os.Chmod(wrapper, 0o755); err != nil {
		t.Fatal(err)
	}
	return wrapper, log
}

func runs(t *testing.T, log string) int {
	b, _ := os.ReadFile(log)
	return strings.Count(string(b), "run\n")
}

func byPlugin(rs []Result) map[string]Result {
	m := map[string]Result{}
	for _, r := range rs {
		m[r.Plugin] = r
	}
	return m
}

// The installed claude 2.1.328 agrees with the model of 2.1.328 on every package; beside
// the model of 2.1.197 (an older claude's rules) it disagrees on exactly the two packages
// whose verdict changed, and says how. Packages are asked in batches. The answers are
// kept: a second Ask runs no client and answers the same from the store; an edited
// package is asked again.
func TestAskClaude(t *testing.T) {
	bin, log := counting(t, testhome.AgentBin(t, testhome.ClaudeNewest))
	o := home(t)
	st, _, err := store.Open(context.Background(), o.PlugboardHome)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a := &Asker{Store: st}
	c := Client{Name: clients.Claude, Bin: bin, Version: "2.1.328"}

	o.Installed = map[string]string{clients.Claude: "2.1.328"}
	var last Progress
	rs, err := a.Ask(context.Background(), c, catalog.Load(o), func(p Progress) { last = p })
	if err != nil {
		t.Fatal(err)
	}
	// plain and author load by the model: one run for both; empty, which it says does not
	// load, a run of its own
	if last != (Progress{Client: "claude", Version: "2.1.328", Done: 3, Total: 3, Asked: 3}) || runs(t, log) != 2 {
		t.Errorf("progress %+v after %d runs, want 3 of 3 asked in 2 runs", last, runs(t, log))
	}
	got := byPlugin(rs)
	for id, r := range got {
		if r.Error != "" || r.Answer == nil || len(r.Differs) != 0 || r.Cached {
			t.Errorf("%s: %+v (answer %+v), want an answer that agrees", id, r, r.Answer)
		}
	}
	if a := got["plain"].Answer; a == nil || !a.Loads || !slices.Equal(a.Skills, []string{"plain:hello"}) || got["empty"].Answer.Loads {
		t.Errorf("answers: plain %+v, empty %+v", got["plain"].Answer, got["empty"].Answer)
	}

	o.Installed = map[string]string{clients.Claude: "2.1.197"}
	rs, err = a.Ask(context.Background(), c, catalog.Load(o), nil)
	if err != nil {
		t.Fatal(err)
	}
	got = byPlugin(rs)
	if runs(t, log) != 2 || !got["plain"].Cached || !got["author"].Cached {
		t.Errorf("unchanged packages were asked again: %d runs, %+v", runs(t, log), rs)
	}
	if d := got["plain"].Differs; len(d) != 0 {
		t.Errorf("plain: %v", d)
	}
	if d := got["author"].Differs; len(d) != 1 || !strings.Contains(d[0], "the model says it does not load") || !strings.Contains(d[0], "claude 2.1.328 here loads it as author with 1 skill") {
		t.Errorf("author: %v", d)
	}
	if d := got["empty"].Differs; len(d) != 1 || !strings.Contains(d[0], "the model says it loads") || !strings.Contains(d[0], "claude 2.1.328 here skips it") {
		t.Errorf("empty: %v", d)
	}

	testhome.WriteFile(t, filepath.Join(o.PlugboardHome, "plugins", "plain", "skills", "more", "SKILL.md"), "---\nname: more\ndescription: More.\n---\n")
	rs, err = a.Ask(context.Background(), c, catalog.Load(o), nil)
	if err != nil {
		t.Fatal(err)
	}
	got = byPlugin(rs)
	if runs(t, log) != 3 || got["plain"].Cached || !slices.Equal(got["plain"].Answer.Skills, []string{"plain:hello", "plain:more"}) {
		t.Errorf("after an edit: %d runs, plain %+v", runs(t, log), got["plain"].Answer)
	}
}

// Only Claude, Codex and PI can be asked; another client is an error that says so, not a
// silent empty answer.
func TestAskOtherClient(t *testing.T) {
	_, err := (&Asker{}).Ask(context.Background(), Client{Name: clients.Cursor, Bin: "cursor-agent", Version: "1.0"}, &catalog.Catalog{}, nil)
	if err == nil || !strings.Contains(err.Error(), "claude, codex and pi are") {
		t.Errorf("Ask(cursor) = %v", err)
	}
}

// The digest follows the content and the folder's name, not the folder's place.
func TestDigest(t *testing.T) {
	a := filepath.Join(t.TempDir(), "p")
	b := filepath.Join(t.TempDir(), "p")
	c := filepath.Join(t.TempDir(), "q")
	for _, d := range []string{a, b, c} {
		testhome.WriteFile(t, filepath.Join(d, "skills", "s", "SKILL.md"), "x")
	}
	da, _ := Digest(a)
	db, _ := Digest(b)
	dc, _ := Digest(c)
	if da == "" || da != db || da == dc {
		t.Errorf("digests %s %s %s: same content and name alike, another name not", da, db, dc)
	}
	testhome.WriteFile(t, filepath.Join(b, "skills", "s", "SKILL.md"), "y")
	if db2, _ := Digest(b); db2 == db {
		t.Errorf("an edit left the digest as it was")
	}
}

// PI is handed every skill folder of each package with --skill, many packages a run:
// what it lists agrees with the PI model, a skill without a description is not loaded,
// and two packages with a skill of one name are asked in different runs (PI keeps the
// first of two alike), so each gets its own answer.
func TestAskPI(t *testing.T) {
	bin, log := counting(t, testhome.AgentBin(t, ".bin/pi"))
	h := t.TempDir()
	pb := filepath.Join(h, ".plugboard")
	skill := func(name, desc string) string {
		return "---\nname: " + name + "\ndescription: " + desc + "\n---\nBody\n"
	}
	testhome.WriteFile(t, filepath.Join(pb, "plugins", "two", "skills", "alpha", "SKILL.md"), skill("alpha", "A."))
	testhome.WriteFile(t, filepath.Join(pb, "plugins", "two", "skills", "beta", "SKILL.md"), skill("beta", "B."))
	testhome.WriteFile(t, filepath.Join(pb, "plugins", "two", "skills", "mute", "SKILL.md"), "---\nname: mute\n---\n")
	testhome.WriteFile(t, filepath.Join(pb, "plugins", "same-a", "skills", "shared", "SKILL.md"), skill("shared", "From a."))
	testhome.WriteFile(t, filepath.Join(pb, "plugins", "same-b", "skills", "shared", "SKILL.md"), skill("shared", "From b."))
	cat := catalog.Load(catalog.Options{Home: h, PlugboardHome: pb, Installed: map[string]string{clients.PI: "0.73.1"}})
	rs, err := (&Asker{}).Ask(context.Background(), Client{Name: clients.PI, Bin: bin, Version: "0.73.1"}, cat, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := byPlugin(rs)
	for id, want := range map[string]string{"two": "alpha,beta", "same-a": "shared", "same-b": "shared"} {
		r := got[id]
		if r.Error != "" || r.Answer == nil || strings.Join(r.Answer.Skills, ",") != want || len(r.Differs) != 0 || r.Answer.Version != "0.73.1" {
			t.Errorf("%s: %+v %+v, want %s agreeing", id, r, r.Answer, want)
		}
	}
	if n := runs(t, log); n != 2 {
		t.Errorf("%d runs of pi, want 2 (same-a and same-b apart)", n)
	}
}

// The installed codex is asked about many packages in one run, through one private
// marketplace: a Claude plugin (whose command codex turns into a skill), an Agent Plugins
// package and one codex refuses agree with the Codex model, all from one app-server and
// one prompt-input run; a package whose name the first took is asked alone; a second Ask
// answers from the store and runs nothing.
func TestAskCodex(t *testing.T) {
	bin, log := counting(t, testhome.AgentBin(t, ".bin/codex"))
	h := t.TempDir()
	pb := filepath.Join(h, ".plugboard")
	plugins := filepath.Join(pb, "plugins")
	testhome.WriteFile(t, filepath.Join(plugins, "tools", ".claude-plugin", "plugin.json"), `{"name": "tools"}`)
	testhome.WriteFile(t, filepath.Join(plugins, "tools", "skills", "hello", "SKILL.md"), "---\nname: hello\ndescription: Says hello.\n---\n")
	testhome.WriteFile(t, filepath.Join(plugins, "tools", "commands", "ship.md"), "---\ndescription: Ships it.\n---\nShip it.\n")
	testhome.WriteFile(t, filepath.Join(plugins, "portable", "plugin.json"), `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "portable", "version": "1.0.0", "description": "A portable package."}`)
	testhome.WriteFile(t, filepath.Join(plugins, "portable", "skills", "greet", "SKILL.md"), "---\nname: greet\ndescription: Greets.\n---\n")
	testhome.WriteFile(t, filepath.Join(plugins, "twin", ".claude-plugin", "plugin.json"), `{"name": "tools"}`)
	testhome.WriteFile(t, filepath.Join(plugins, "twin", "skills", "bye", "SKILL.md"), "---\nname: bye\ndescription: Says bye.\n---\n")
	testhome.WriteFile(t, filepath.Join(plugins, "broken", ".claude-plugin", "plugin.json"), `{"name": "broken", "version": 2}`)
	// a skill codex loads but keeps out of the model's prompt: asked alone, kept in the answer
	testhome.WriteFile(t, filepath.Join(plugins, "quiet", ".claude-plugin", "plugin.json"), `{"name": "quiet"}`)
	testhome.WriteFile(t, filepath.Join(plugins, "quiet", "skills", "shy", "SKILL.md"), "---\nname: shy\ndescription: Speaks when asked.\n---\n")
	testhome.WriteFile(t, filepath.Join(plugins, "quiet", "skills", "shy", "agents", "openai.yaml"), "policy:\n  allow_implicit_invocation: false\n")
	st, _, err := store.Open(context.Background(), pb)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cat := catalog.Load(catalog.Options{Home: h, PlugboardHome: pb, Installed: map[string]string{clients.Codex: "0.169.0"}})
	a := &Asker{Store: st}
	c := Client{Name: clients.Codex, Bin: bin, Version: "0.169.0"}
	for round := range 2 {
		rs, err := a.Ask(context.Background(), c, cat, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := byPlugin(rs)
		for id, want := range map[string]string{"tools": "tools:hello,tools:source-command-ship", "portable": "portable:greet", "twin": "tools:bye", "broken": "", "quiet": "quiet:shy"} {
			r := got[id]
			if r.Error != "" || r.Answer == nil || strings.Join(r.Answer.Skills, ",") != want || r.Answer.Loads != (id != "broken") || len(r.Differs) != 0 || r.Cached != (round == 1) {
				t.Errorf("round %d, %s: %+v %+v, want %q agreeing", round, id, r, r.Answer, want)
			}
		}
		if w := got["broken"].Answer; w == nil || len(w.Warnings) != 1 || !strings.Contains(w.Warnings[0], "plugin version") {
			t.Errorf("broken: codex's reason is not kept: %+v", w)
		}
		if q := got["quiet"].Answer; q == nil || strings.Join(q.Hidden, ",") != "quiet:shy" {
			t.Errorf("round %d, quiet: codex keeps shy out of the prompt, the answer says %+v", round, q)
		}
		// the model and codex agree on it; an answer that said otherwise would differ
		other := *got["quiet"].Answer
		other.Hidden = nil
		if d := Compare(catPlugin(cat, "quiet"), &other); len(d) != 1 || !strings.HasPrefix(d[0], "kept out of the model's prompt: the model lists quiet:shy, which codex 0.169.0 here does not") {
			t.Errorf("quiet with nothing hidden: differs %q", d)
		}
		// two packages named tools: one run (app-server and prompt-input) for three of
		// them, one for the second tools; quiet, with a skill out of the prompt, alone
		// (the second round asks nothing: the count stays)
		if n := runs(t, log); n != 6 {
			t.Errorf("round %d: codex ran %d times, want 6 (three runs of 2)", round, n)
		}
	}
}

// The standalone skill folders of the user's skill folders are asked too, one run a
// root: claude about ~/.claude/skills, codex about ~/.agents/skills and ~/.codex/skills.
// A folder each lists agrees with the model, so does one each refuses (no description:
// claude's is asked alone, as its listing does not say what it left out; codex names
// it); a second ask answers from the store and runs nothing.
func TestAskSkills(t *testing.T) {
	h := t.TempDir()
	pb := filepath.Join(h, ".plugboard")
	good := func(name string) string {
		return "---\nname: " + name + "\ndescription: Does " + name + ".\n---\nBody\n"
	}
	for _, root := range []string{".claude/skills", ".agents/skills", ".codex/skills"} {
		base := strings.TrimPrefix(filepath.Dir(root), ".")
		testhome.WriteFile(t, filepath.Join(h, root, base+"-one", "SKILL.md"), good(base+"-one"))
		testhome.WriteFile(t, filepath.Join(h, root, base+"-two", "SKILL.md"), good(base+"-two"))
		testhome.WriteFile(t, filepath.Join(h, root, base+"-bare", "SKILL.md"), "---\nname: "+base+"-bare\n---\nNo description.\n")
	}
	st, _, err := store.Open(context.Background(), pb)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a := &Asker{Store: st}
	cat := catalog.Load(catalog.Options{Home: h, PlugboardHome: pb})
	for _, tc := range []struct {
		client, bin string
		roots       []string
		runs        int // client starts the first time
	}{
		{clients.Claude, testhome.ClaudeNewest, []string{".claude"}, 2 + 1 + 1}, // a run without skills for the built-ins, each run once
		{clients.Codex, ".bin/codex", []string{".agents", ".codex"}, 2 * 2},     // app-server and prompt-input, one run a root: codex names the folder it refuses
	} {
		bin, log := counting(t, testhome.AgentBin(t, tc.bin))
		c := Client{Name: tc.client, Bin: bin, Version: map[string]string{clients.Claude: "2.1.328", clients.Codex: "0.169.0"}[tc.client]}
		for round := range 2 {
			rs, err := a.AskSkills(context.Background(), c, cat)
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) != 3*len(tc.roots) {
				t.Fatalf("%s: %d answers, want %d: %+v", tc.client, len(rs), 3*len(tc.roots), rs)
			}
			for _, r := range rs {
				folder := filepath.Base(r.Path)
				wantLoads := !strings.HasSuffix(folder, "-bare")
				if r.Error != "" || r.Answer == nil || r.Plugin != "" || r.Skill != filepath.Join(r.Path, "SKILL.md") || r.Answer.Loads != wantLoads || len(r.Differs) != 0 || r.Cached != (round == 1) {
					t.Errorf("%s round %d, %s: %+v %+v", tc.client, round, folder, r, r.Answer)
				}
			}
			if n := runs(t, log); n != tc.runs {
				t.Errorf("%s round %d: %d client starts, want %d", tc.client, round, n, tc.runs)
			}
		}
	}
}

// catPlugin is the catalog's plugin id.
func catPlugin(cat *catalog.Catalog, id string) *catalog.Plugin {
	for i := range cat.Plugins {
		if cat.Plugins[i].ID == id {
			return &cat.Plugins[i]
		}
	}
	return nil
}
