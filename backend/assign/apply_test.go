package assign

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// applyCases are the rules of A2–A4 and R6, each on the fixture home. file and slot say
// where the target's pluginDirs live; want is that member after the save (nil: absent).
var applyCases = []struct {
	name     string
	target   string
	change   Change
	ack      bool
	err      error    // sentinel the error wraps; nil for success
	code     string   // RuleError.Code
	names    []string // RuleError.Names
	file     string
	slot     int
	want     []string
	wantAcks int
}{
	{name: "add a plugin without MCP needs no ack", target: "agent:bare", change: Change{Add: []string{"notes"}},
		file: "agents/bare.json", slot: -1, want: []string{"plugins/notes"}},
	{name: "add a plugin with MCP needs an ack", target: "agent:bare", change: Change{Add: []string{"tools"}},
		err: ErrAckNeeded, file: "agents/bare.json", slot: -1},
	{name: "add a plugin with MCP, acknowledged", target: "agent:bare", change: Change{Add: []string{"tools"}}, ack: true,
		file: "agents/bare.json", slot: -1, want: []string{"plugins/tools"}, wantAcks: 2},
	{name: "add a plugin whose MCP servers are all invalid needs no ack", target: "agent:bare", change: Change{Add: []string{"mcp-off"}},
		file: "agents/bare.json", slot: -1, want: []string{"plugins/mcp-off"}},
	{name: "add a legacy plugin needs no ack", target: "agent:bare", change: Change{Add: []string{"legacy-one"}},
		file: "agents/bare.json", slot: -1, want: []string{"plugins/legacy-one"}},
	{name: "a plugin already in effect needs no new ack", target: "agent:forms", change: Change{Remove: []string{"legacy-one"}},
		file: "agents/forms.json", slot: -1, want: []string{"plugins/notes", "/abs/first", "plugins/tools", "../elsewhere/plug", "plugins/missing", "/abs/last"}},
	{name: "add an invalid plugin is refused", target: "agent:bare", change: Change{Add: []string{"broken"}},
		err: ErrRule, code: RuleInvalid, names: []string{"broken"}, file: "agents/bare.json", slot: -1},
	{name: "remove an invalid plugin already selected", target: "agent:researcher", change: Change{Remove: []string{"broken"}},
		file: "agents/researcher.json", slot: -1, want: []string{"plugins/notes", "/opt/shared/plugins/house"}},
	{name: "keep an invalid plugin already selected while setting others", target: "agent:researcher", change: Change{Set: []string{"broken", "notes", "legacy-one"}},
		file: "agents/researcher.json", slot: -1, want: []string{"plugins/broken", "/opt/shared/plugins/house", "plugins/notes", "plugins/legacy-one"}},
	{name: "add an id not in the catalog is refused", target: "agent:bare", change: Change{Add: []string{"nope"}},
		err: ErrRule, code: RuleUnknown, names: []string{"nope"}, file: "agents/bare.json", slot: -1},
	{name: "an id that is a path is refused", target: "agent:bare", change: Change{Add: []string{"../notes"}},
		err: ErrRule, code: RuleUnknown, names: []string{"../notes"}, file: "agents/bare.json", slot: -1},
	{name: "remove an unknown plugin already selected, normalising the rest", target: "agent:forms", change: Change{Remove: []string{"missing"}},
		file: "agents/forms.json", slot: -1, want: []string{"plugins/notes", "/abs/first", "plugins/tools", "plugins/legacy-one", "../elsewhere/plug", "/abs/last"}},
	{name: "remove a plugin not assigned is refused", target: "agent:bare", change: Change{Remove: []string{"notes"}},
		err: ErrRule, code: RuleNotPresent, names: []string{"notes"}, file: "agents/bare.json", slot: -1},
	{name: "set keeps unmanaged entries in place", target: "agent:researcher", change: Change{Set: []string{}},
		file: "agents/researcher.json", slot: -1, want: []string{"/opt/shared/plugins/house"}},
	{name: "skill name collision is refused", target: "agent:forms", change: Change{Add: []string{"summarizer"}},
		err: ErrRule, code: RuleCollision, names: []string{"summarize"}, file: "agents/forms.json", slot: -1},
	{name: "namespace collision is refused", target: "agent:researcher", change: Change{Add: []string{"notes-fork"}},
		err: ErrRule, code: RuleCollision, names: []string{"notes"}, file: "agents/researcher.json", slot: -1},
	{name: "MCP server name collision is refused", target: "template:pair/researcher@1", change: Change{Add: []string{"db-tools"}}, ack: true,
		err: ErrRule, code: RuleCollision, names: []string{"db"}, file: "templates/pair.json", slot: 1},
	{name: "two kinds of change are refused", target: "agent:bare", change: Change{Add: []string{"notes"}, Defaults: true},
		err: ErrRule, code: RuleBadChange, file: "agents/bare.json", slot: -1},
	{name: "an empty change is refused", target: "agent:bare",
		err: ErrRule, code: RuleBadChange, file: "agents/bare.json", slot: -1},
	{name: "defaults on an agent are refused", target: "agent:researcher", change: Change{Defaults: true},
		err: ErrRule, code: RuleNoDefaults, file: "agents/researcher.json", slot: -1},
	{name: "a shell binding is read-only", target: "shell:ops-shell", change: Change{Add: []string{"legacy-one"}},
		err: ErrReadOnly, file: "settings.json", slot: -1},
	{name: "the __active__ slot is read-only", target: "template:review/__active__", change: Change{Add: []string{"notes"}},
		err: ErrReadOnly, file: "templates/review.json", slot: 3},
	{name: "an unknown target is not found", target: "agent:nobody", change: Change{Add: []string{"notes"}},
		err: ErrNotFound, file: "agents/bare.json", slot: -1},
}

func TestApplyRules(t *testing.T) {
	for _, c := range applyCases {
		t.Run(c.name, func(t *testing.T) {
			pb, cat := mainHome(t)
			file := filepath.Join(pb, c.file)
			before := readFile(t, file)
			out, err := Apply(pb, cat, c.target, c.change, "", c.ack)
			if c.err == nil {
				if err != nil {
					t.Fatalf("Apply(%s, %+v) = %v; want success", c.target, c.change, err)
				}
				got, present := dirsIn(t, file, c.slot)
				if !present || !eq(got, c.want) {
					t.Errorf("pluginDirs after Apply = %q (present %v); want %q", got, present, c.want)
				}
				if len(out.Acknowledged) != c.wantAcks || !out.Written || out.AfterHash == out.BeforeHash {
					t.Errorf("Outcome = %+v; want %d acknowledged servers, written, a new hash", out, c.wantAcks)
				}
				return
			}
			if !errors.Is(err, c.err) {
				t.Fatalf("Apply(%s, %+v) = %v; want %v", c.target, c.change, err, c.err)
			}
			if !bytes.Equal(readFile(t, file), before) {
				t.Errorf("a refused change wrote %s", c.file)
			}
			var re *RuleError
			if c.code != "" && (!errors.As(err, &re) || re.Code != c.code || (c.names != nil && !eq(re.Names, c.names))) {
				t.Errorf("Apply = %#v; want RuleError code %s names %v", err, c.code, c.names)
			}
		})
	}
}

func TestAckLists(t *testing.T) {
	pb, cat := mainHome(t)
	_, err := Apply(pb, cat, "agent:bare", Change{Add: []string{"tools"}}, "", false)
	var ae *AckError
	if !errors.As(err, &ae) {
		t.Fatalf("Apply = %v; want *AckError", err)
	}
	want := []Ack{{Plugin: "tools", Server: "api", Type: "streamable-http"}, {Plugin: "tools", Server: "db", Type: "stdio"}}
	if len(ae.Servers) != 2 {
		t.Fatalf("servers = %+v", ae.Servers)
	}
	for i, s := range ae.Servers {
		if s.Plugin != want[i].Plugin || s.Server != want[i].Server || s.Type != want[i].Type {
			t.Errorf("server %d = %+v; want %+v", i, s, want[i])
		}
	}
	if o := ae.Servers[0].Summary.Origin; o != "https://127.0.0.1:9" {
		t.Errorf("remote summary origin = %q", o)
	}
	if s := ae.Servers[1].Summary; s.Executable != "node" || len(s.EnvKeys) != 1 || s.EnvKeys[0] != "DB_PASSWORD" {
		t.Errorf("stdio summary = %+v", s)
	}
	out, err := Apply(pb, cat, "agent:bare", Change{Add: []string{"tools"}}, "", true)
	if err != nil || len(out.Acknowledged) != 2 || out.Acknowledged[1].Server != "db" {
		t.Errorf("Apply with ack = %+v, %v; want both servers acknowledged", out.Acknowledged, err)
	}
}

func TestCollisionNamesPlugins(t *testing.T) {
	pb, cat := mainHome(t)
	_, err := Apply(pb, cat, "agent:forms", Change{Add: []string{"summarizer", "notes-fork", "db-tools"}}, "", true)
	var re *RuleError
	if !errors.As(err, &re) {
		t.Fatalf("Apply = %v; want *RuleError", err)
	}
	want := []Collision{
		{Kind: CollisionMCP, Name: "db", Plugins: []string{"db-tools", "tools"}},
		{Kind: CollisionNamespace, Name: "notes", Plugins: []string{"notes", "notes-fork"}},
		{Kind: CollisionSkill, Name: "summarize", Plugins: []string{"summarizer", "tools"}},
	}
	if len(re.Collisions) != len(want) {
		t.Fatalf("collisions = %+v; want %+v", re.Collisions, want)
	}
	for i := range want {
		if g := re.Collisions[i]; g.Kind != want[i].Kind || g.Name != want[i].Name || !eq(g.Plugins, want[i].Plugins) {
			t.Errorf("collision %d = %+v; want %+v", i, g, want[i])
		}
	}
	if !eq(re.Names, []string{"db", "notes", "summarize"}) {
		t.Errorf("names = %v", re.Names)
	}
}

// A target whose file is not valid JSON is not listed, so a save or an acknowledgment to
// it is "no such target" — and that error names every file that cannot be read, with its
// line, since one of them may declare it. A missing id in a home without such a file says
// only that. A launch (runtime.Build) adds the same files (runtime TestTargets).
func TestNotFoundNamesFilesThatCannotBeRead(t *testing.T) {
	pb, cat := mainHome(t)
	plain := func() error {
		_, err := Apply(pb, cat, "agent:keeper", Change{Add: []string{"notes"}}, "", false)
		return err
	}
	if err := plain(); err != nil {
		t.Fatalf("agent:keeper before the damage: %v", err)
	}
	if _, err := Apply(pb, cat, "agent:nobody", Change{Add: []string{"notes"}}, "", false); !errors.Is(err, ErrNotFound) || strings.Contains(err.Error(), "may be declared") {
		t.Errorf("a missing id in a readable home: %v", err)
	}
	keeper := filepath.Join(pb, "agents", "keeper.json")
	data := readFile(t, keeper)
	os.WriteFile(keeper, bytes.Replace(data, []byte(`"name"`), []byte(`,"name"`), 1), 0o644)
	err := plain()
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), keeper+":") || !strings.Contains(err.Error(), "is not valid JSON") {
		t.Errorf("agent:keeper with its file damaged: %v; want ErrNotFound naming %s and its line", err, keeper)
	}
	if _, _, err := Acknowledge(context.Background(), pb, "agent:keeper", []Ack{{Plugin: "tools", Server: "db"}}, "cli"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), keeper+":") {
		t.Errorf("Acknowledge to the damaged target: %v", err)
	}
	if bad := Unusable(pb); !strings.Contains(bad, keeper+":") {
		t.Errorf("Unusable = %q, want %s", bad, keeper)
	}
}
