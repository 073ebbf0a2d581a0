package assign

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/testhome"
)

// The fixture's plugins are what the rules tests assume.
func TestFixtureCatalog(t *testing.T) {
	_, cat := mainHome(t)
	want := map[string]struct {
		valid   bool
		servers int
	}{
		"tools": {true, 2}, "notes": {true, 0}, "notes-fork": {true, 0}, "summarizer": {true, 0},
		"db-tools": {true, 1}, "mcp-off": {true, 0}, "broken": {false, 0}, "legacy-one": {true, 0},
	}
	for _, p := range cat.Plugins {
		w, ok := want[p.ID]
		if !ok || p.Source != "plugboard" {
			continue
		}
		delete(want, p.ID)
		if p.Valid != w.valid || p.ValidServers() != w.servers {
			t.Errorf("plugin %s: valid %v, %d valid servers; want %v, %d (issues %v)", p.ID, p.Valid, p.ValidServers(), w.valid, w.servers, p.AllIssues())
		}
	}
	if len(want) > 0 {
		t.Errorf("plugins missing from the catalog: %v", want)
	}
}

func TestManagedID(t *testing.T) {
	for _, c := range []struct {
		dir, id string
		managed bool
	}{
		{"plugins/x", "x", true},
		{"./plugins/x", "x", true},
		{"plugins/x/", "x", true},
		{"plugins//x", "x", true},
		{"plugins/./x", "x", true},
		{"plugins/a/../x", "x", true},
		{"/abs/plugins/x", "", false},
		{"../plugins/x", "", false},
		{"other/x", "", false},
		{"plugins", "", false},
		{"plugins/", "", false},
		{"plugins/x/sub", "", false},
		{"", "", false},
	} {
		id, ok := managedID(c.dir)
		if id != c.id || ok != c.managed {
			t.Errorf("managedID(%q) = %q, %v; want %q, %v", c.dir, id, ok, c.id, c.managed)
		}
	}
}

func TestTargets(t *testing.T) {
	pb, cat := mainHome(t)
	ts, _ := Targets(pb, cat)
	var ids []string
	got := map[string]Target{}
	for _, x := range ts {
		ids = append(ids, x.ID)
		got[x.ID] = x
	}
	wantIDs := []string{
		"agent:bare", "agent:forms", "agent:keeper", "agent:researcher",
		"shell:main-shell", "shell:ops-shell",
		"template:pair/bare", "template:pair/researcher@0", "template:pair/researcher@1",
		"template:review/__active__", "template:review/bare", "template:review/forms", "template:review/researcher",
	}
	if !eq(ids, wantIDs) {
		t.Fatalf("Targets ids =\n%v\nwant\n%v", ids, wantIDs)
	}
	for _, c := range []struct {
		id, kind                      string
		readOnly, inherits            bool
		managed, unmanaged, effective []string
	}{
		{"agent:researcher", KindAgent, false, false, []string{"notes", "broken"}, []string{"/opt/shared/plugins/house"}, []string{"notes", "broken"}},
		{"agent:forms", KindAgent, false, false, []string{"notes", "tools", "legacy-one", "missing"}, []string{"/abs/first", "../elsewhere/plug", "/abs/last"}, []string{"notes", "tools", "legacy-one", "missing"}},
		{"agent:bare", KindAgent, false, false, []string{}, []string{}, []string{}},
		{"template:review/researcher", KindSlot, false, true, []string{}, []string{}, []string{"notes", "broken"}},
		{"template:review/bare", KindSlot, false, false, []string{"notes"}, []string{"/abs/slot-kept"}, []string{"notes"}},
		{"template:review/forms", KindSlot, false, false, []string{}, []string{}, []string{}},
		{"template:review/__active__", KindActive, true, true, []string{}, []string{}, []string{}},
		{"template:pair/researcher@0", KindSlot, false, true, []string{}, []string{}, []string{"notes", "broken"}},
		{"template:pair/researcher@1", KindSlot, false, false, []string{"tools"}, []string{}, []string{"tools"}},
		{"shell:main-shell", KindShellBinding, true, true, []string{}, []string{}, []string{"notes", "broken"}},
		{"shell:ops-shell", KindShellBinding, true, false, []string{"notes"}, []string{}, []string{"notes"}},
	} {
		x := got[c.id]
		if x.Kind != c.kind || x.ReadOnly != c.readOnly || x.Inherits != c.inherits ||
			!eq(x.Managed, c.managed) || !eq(x.Unmanaged, c.unmanaged) || !eq(x.Effective, c.effective) {
			t.Errorf("%s = kind %s readOnly %v inherits %v managed %v unmanaged %v effective %v\nwant kind %s readOnly %v inherits %v managed %v unmanaged %v effective %v",
				c.id, x.Kind, x.ReadOnly, x.Inherits, x.Managed, x.Unmanaged, x.Effective,
				c.kind, c.readOnly, c.inherits, c.managed, c.unmanaged, c.effective)
		}
		if !strings.HasPrefix(x.Hash, "sha256:") || len(x.Hash) != len("sha256:")+64 {
			t.Errorf("%s hash %q", c.id, x.Hash)
		}
	}
	if r := got["template:review/researcher"]; len(r.Entries) != 0 || r.Ref != "researcher" || r.Name != "review" {
		t.Errorf("inheriting slot = %+v; want no entries, name review, ref researcher", r)
	}
}

// Entries are shown as written, with their catalog state; entry problems are issues.
func TestTargetEntries(t *testing.T) {
	pb, cat := mainHome(t)
	_, issues := Targets(pb, cat)
	forms := target(t, pb, cat, "agent:forms").Entries
	wantEntries := []Entry{
		{Dir: "./plugins/notes", ID: "notes", Managed: true, Known: true, Valid: true},
		{Dir: "/abs/first"},
		{Dir: "plugins/tools/", ID: "tools", Managed: true, Known: true, Valid: true},
		{Dir: "plugins//legacy-one", ID: "legacy-one", Managed: true, Known: true, Valid: true},
		{Dir: "../elsewhere/plug"},
		{Dir: "plugins/missing", ID: "missing", Managed: true},
		{Dir: "plugins/notes", ID: "notes", Managed: true, Known: true, Valid: true},
		{Dir: "/abs/last"},
	}
	if len(forms) != len(wantEntries) {
		t.Fatalf("forms entries = %+v", forms)
	}
	for i := range forms {
		if forms[i] != wantEntries[i] {
			t.Errorf("forms entry %d = %+v; want %+v", i, forms[i], wantEntries[i])
		}
	}
	if e := target(t, pb, cat, "agent:researcher").Entries[2]; !e.Known || e.Valid {
		t.Errorf("invalid catalog entry = %+v; want known, not valid", e)
	}
	// Entry problems are reported.
	codes := map[string]string{}
	for _, i := range issues {
		codes[i.Code] += i.Pointer + " "
	}
	for code, ptr := range map[string]string{CodeNotManaged: "/pluginDirs/4", CodeUnknownPlugin: "/pluginDirs/5", CodeDuplicateEntry: "/pluginDirs/6"} {
		if !strings.Contains(codes[code], ptr) {
			t.Errorf("issues %v: want %s at %s", issues, code, ptr)
		}
	}
}

func TestTargetsBrokenFiles(t *testing.T) {
	pb := fixture(t, "broken-files")
	if err := syscall.Mkfifo(filepath.Join(pb, "agents", "fifo.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(pb, "agents", "folder.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	cat := loadCatalog(t, pb)
	ts, issues := Targets(pb, cat)
	var ids []string
	for _, x := range ts {
		ids = append(ids, x.ID)
		if x.ID == "agent:bad-dirs" && !x.ReadOnly {
			t.Errorf("agent with a broken pluginDirs is writable")
		}
	}
	want := []string{"agent:bad-dirs", "agent:nameless", "agent:twin", "shell:ok", "template:no-ref/ghost", "template:no-ref/twin"}
	if !eq(ids, want) {
		t.Errorf("Targets ids = %v; want %v", ids, want)
	}
	wantIssues := []struct{ code, file, pointer string }{
		{CodeUnreadable, "agents/fifo.json", ""},
		{CodeInvalid, "agents/syntax.json", ""},
		{CodeInvalid, "agents/array.json", ""},
		{CodeInvalid, "agents/bad-dirs.json", "/pluginDirs"},
		{CodeDuplicate, "agents/dup-two.json", ""},
		{CodeNameMissing, "agents/nameless.json", "/name"},
		{CodeUnknownPlugin, "agents/nameless.json", "/pluginDirs/0"},
		{CodeInvalid, "templates/not-list.json", "/agents"},
		{CodeInvalid, "templates/no-ref.json", "/agents/0"},
		{CodeInvalid, "templates/no-ref.json", "/agents/2/pluginDirs"},
		{CodeUnknownAgent, "templates/no-ref.json", "/agents/1/ref"},
		{CodeInvalid, "settings.json", "/shellBindings/bad"},
	}
	for _, w := range wantIssues {
		found := false
		for _, i := range issues {
			found = found || i.Code == w.code && i.Path == filepath.Join(pb, w.file) && i.Pointer == w.pointer
		}
		if !found {
			t.Errorf("no issue %s at %s%s in\n%v", w.code, w.file, w.pointer, issues)
		}
	}
	if len(issues) != len(wantIssues) {
		t.Errorf("%d issues, want %d:\n%v", len(issues), len(wantIssues), issues)
	}
	for _, i := range issues {
		if i.Code == CodeInvalid && strings.HasSuffix(i.Path, "syntax.json") && i.Line == 0 {
			t.Errorf("syntax error without a line: %v", i)
		}
	}
}

// An agent's "backend" member is shown on it and on the slots that run it.
func TestTargetBackend(t *testing.T) {
	pb := testhome.CopyTestdata(t, filepath.Join("runtime", "home"))
	cat := loadCatalog(t, pb)
	if got := target(t, pb, cat, "agent:pi-coder").Backend; got != "pi" {
		t.Errorf("agent:pi-coder backend = %q", got)
	}
	if got := target(t, pb, cat, "agent:coder").Backend; got != "" {
		t.Errorf("agent:coder backend = %q, want none", got)
	}
	rewrite := filepath.Join(pb, "agents", "coder.json")
	b, _ := os.ReadFile(rewrite)
	os.WriteFile(rewrite, []byte(strings.Replace(string(b), `"profile": "default"`, `"profile": "default", "backend": "pi"`, 1)), 0o644)
	if got := target(t, pb, cat, "template:team/coder").Backend; got != "pi" {
		t.Errorf("slot backend = %q, want its agent's", got)
	}
}

// Lookup gives every target as Targets lists it, and the agent a slot or binding runs,
// whatever the catalog (a launch passes an empty one), in a home of templates, slots and
// shell bindings and in one of duplicate, nameless and broken files.
func TestLookupAgreesWithTargets(t *testing.T) {
	for _, name := range []string{"home", "broken-files"} {
		pb := fixture(t, name)
		for _, cat := range []*catalog.Catalog{loadCatalog(t, pb), {PlugboardHome: pb}} {
			all, _ := Targets(pb, cat)
			if len(all) == 0 {
				t.Fatalf("%s: no targets", name)
			}
			for _, want := range all {
				got, agent, ok := Lookup(pb, want.ID, cat)
				if !ok || !reflect.DeepEqual(*got, want) {
					t.Errorf("%s: Lookup(%s) = %+v, %v; Targets lists %+v", name, want.ID, got, ok, want)
					continue
				}
				var wantAgent *Target
				for i := range all {
					if all[i].Kind == KindAgent && (want.Kind == KindAgent && all[i].ID == want.ID || want.Kind != KindAgent && all[i].Name == want.Ref) {
						wantAgent = &all[i]
					}
				}
				if (agent == nil) != (wantAgent == nil) || agent != nil && !reflect.DeepEqual(*agent, *wantAgent) {
					t.Errorf("%s: Lookup(%s)'s agent = %+v, want %+v", name, want.ID, agent, wantAgent)
				}
			}
			if _, _, ok := Lookup(pb, "agent:nobody-declares-this", cat); ok {
				t.Errorf("%s: Lookup found a target no file declares", name)
			}
		}
	}
}

// Of two agent files declaring one name, the first is the agent (the second is a
// duplicate-target issue), for the slots and bindings that run it as much as for the
// target list: a slot that inherits takes the first file's backend and plugins.
func TestDuplicateAgentFirstFileWinsForSlots(t *testing.T) {
	pb := t.TempDir()
	files := map[string]string{
		"agents/a-first.json":  `{"name": "twin", "backend": "pi", "pluginDirs": ["plugins/first"]}`,
		"agents/b-second.json": `{"name": "twin", "backend": "claude", "pluginDirs": ["plugins/second"]}`,
		"templates/team.json":  `{"name": "team", "agents": [{"ref": "twin"}]}`,
	}
	for rel, body := range files {
		if err := os.MkdirAll(filepath.Join(pb, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pb, rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cat := &catalog.Catalog{PlugboardHome: pb}
	agent, slot := target(t, pb, cat, "agent:twin"), target(t, pb, cat, "template:team/twin")
	if agent.Backend != "pi" || !eq(agent.Effective, []string{"first"}) {
		t.Errorf("agent:twin = backend %q, plugins %v; want the first file's", agent.Backend, agent.Effective)
	}
	if slot.Backend != "pi" || !eq(slot.Effective, []string{"first"}) {
		t.Errorf("template:team/twin = backend %q, plugins %v; want the first file's agent's", slot.Backend, slot.Effective)
	}
	if _, a, _ := Lookup(pb, "template:team/twin", cat); a == nil || a.File != filepath.Join(pb, "agents", "a-first.json") {
		t.Errorf("Lookup's agent of the slot = %+v; want the first file's", a)
	}
}
