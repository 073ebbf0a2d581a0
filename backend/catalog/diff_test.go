package catalog

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/snapshot"
)

// change is a Change without its path, for tables.
type change struct{ kind, what, id, detail string }

func TestDiff(t *testing.T) {
	tests := []struct {
		name string
		edit func(t *testing.T, o Options) []string
		want []change // detail: a substring the Detail must contain
	}{
		{"nothing", func(t *testing.T, o Options) []string { return nil }, nil},
		{"skill made invalid", func(t *testing.T, o Options) []string {
			p := filepath.Join(o.PlugboardHome, "plugins", "alpha", "skills", "alpha-only", "SKILL.md")
			writeFile(t, p, "---\nname: alpha-only\n---\n")
			return []string{p}
		}, []change{{Changed, WhatSkill, "alpha:alpha-only", "valid → invalid, description changed, 1 new error"}}},
		{"skill description edited", func(t *testing.T, o Options) []string {
			p := filepath.Join(o.PlugboardHome, "plugins", "alpha", "skills", "alpha-only", "SKILL.md")
			writeFile(t, p, "---\nname: alpha-only\ndescription: Use when the text changed\n---\n")
			return []string{p}
		}, []change{{Changed, WhatSkill, "alpha:alpha-only", "description changed"}}},
		{"skill added and skill removed", func(t *testing.T, o Options) []string {
			skills := filepath.Join(o.PlugboardHome, "plugins", "alpha", "skills")
			writeFile(t, filepath.Join(skills, "fresh", "SKILL.md"), skillOf("fresh"))
			os.RemoveAll(filepath.Join(skills, "alpha-only"))
			return []string{filepath.Join(skills, "fresh"), filepath.Join(skills, "alpha-only")}
		}, []change{{Removed, WhatSkill, "alpha:alpha-only", ""}, {Added, WhatSkill, "alpha:fresh", "valid"}}},
		{"plugin removed", func(t *testing.T, o Options) []string {
			dir := filepath.Join(o.PlugboardHome, "plugins", "legacy-one")
			os.RemoveAll(dir)
			return []string{dir}
		}, []change{{Removed, WhatPlugin, "legacy-one", ""}}},
		{"plugin added", func(t *testing.T, o Options) []string {
			dir := filepath.Join(o.PlugboardHome, "plugins", "newcomer")
			writeFile(t, filepath.Join(dir, "plugin.json"), manifestOf("newcomer"))
			writeFile(t, filepath.Join(dir, "skills", "new-one", "SKILL.md"), skillOf("new-one"))
			return []string{dir}
		}, []change{{Added, WhatPlugin, "newcomer", "valid, 1 skill"}, {Added, WhatSkill, "newcomer:new-one", "valid"}}},
		{"manifest broken", func(t *testing.T, o Options) []string {
			p := filepath.Join(o.PlugboardHome, "plugins", "legacy-one", ".claude-plugin", "plugin.json")
			writeFile(t, p, `{"name": 5}`)
			return []string{p}
		}, []change{{Changed, WhatPlugin, "legacy-one", "valid → invalid"}, {Removed, WhatSkill, "legacy-one:legacy-skill", ""}}},
		{"servers edited", func(t *testing.T, o Options) []string {
			p := filepath.Join(o.PlugboardHome, "plugins", "alpha", "mcp.json")
			writeFile(t, p, `{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json",
				"mcpServers": {"db": {"type": "stdio", "command": "./bin/db", "args": ["--data", "${PLUGIN_DATA}"], "env": {"DB_PASSWORD": "PLANTED-NEW-VALUE"}},
				"api": {"type": "stdio", "command": "./bin/api"}}}`)
			return []string{p}
		}, []change{
			{Changed, WhatServer, "alpha/api", "type streamable-http → stdio, summary changed"},
			{Removed, WhatServer, "alpha/bad", ""},
			{Changed, WhatServer, "alpha/db", "declaration changed"},
		}},
		{"standalone skill shadows a plugin's", func(t *testing.T, o Options) []string {
			dir := filepath.Join(o.Home, ".codex", "skills", "alpha-only")
			writeFile(t, filepath.Join(dir, "SKILL.md"), skillOf("alpha-only"))
			return []string{dir}
		}, []change{{Added, WhatSkill, "alpha-only", "valid"}}},
		{"standalone skill now shadowed", func(t *testing.T, o Options) []string {
			dir := filepath.Join(o.Home, ".cursor", "skills", "codex-skill")
			writeFile(t, filepath.Join(dir, "SKILL.md"), skillOf("codex-skill"))
			return []string{dir}
		}, []change{ // same ID: by path, ~/.codex before ~/.cursor
			{Changed, WhatSkill, "codex-skill", "now shadowed by " + "~/.cursor/skills/codex-skill/SKILL.md"},
			{Added, WhatSkill, "codex-skill", "valid"},
		}},
		{"user server added", func(t *testing.T, o Options) []string {
			p := filepath.Join(o.Home, ".cursor", "mcp.json")
			b, _ := os.ReadFile(p)
			writeFile(t, p, strings.Replace(string(b), `"mcpServers": {`, `"mcpServers": {"extra": {"command": "/usr/bin/extra"},`, 1))
			return []string{p}
		}, []change{{Added, WhatServer, "user/extra", "stdio"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, _ := fullHome(t)
			a := Load(o)
			b := Refresh(a, o, tc.edit(t, o))
			got := Diff(a, b)
			if len(got) != len(tc.want) {
				t.Fatalf("Diff = %d changes, want %d:\n%s", len(got), len(tc.want), lines(got))
			}
			for i, w := range tc.want {
				g := got[i]
				detail := strings.ReplaceAll(w.detail, "~", o.Home)
				if g.Kind != w.kind || g.What != w.what || g.ID != w.id || !strings.Contains(g.Detail, detail) || g.Path == "" {
					t.Errorf("Diff[%d] = %s, want %s %s %s: …%s…", i, g, w.kind, w.what, w.id, detail)
				}
			}
			assertNoSecrets(t, got)
			if again := Diff(a, b); !reflect.DeepEqual(again, got) {
				t.Errorf("Diff is not deterministic:\n%s\nthen\n%s", lines(got), lines(again))
			}
		})
	}
}

func TestDiffFromNothing(t *testing.T) {
	o, _ := fullHome(t)
	c := Load(o)
	if d := Diff(c, c); len(d) != 0 {
		t.Errorf("Diff(c, c) = %s, want nothing", lines(d))
	}
	got := Diff(nil, c)
	if !sort.SliceIsSorted(got, func(i, j int) bool { return got[i].ID < got[j].ID }) {
		t.Errorf("Diff(nil, c) not sorted by ID:\n%s", lines(got))
	}
	count := map[string]int{}
	for _, ch := range got {
		if ch.Kind != Added {
			t.Errorf("Diff(nil, c) has %s", ch)
		}
		count[ch.What]++
	}
	if count[WhatPlugin] != len(c.Plugins) || count[WhatSkill] == 0 || count[WhatServer] == 0 {
		t.Errorf("Diff(nil, c) counts = %v, want %d plugins and some skills and servers", count, len(c.Plugins))
	}
	if d := Diff(c, nil); len(d) == 0 || d[0].Kind != Removed {
		t.Errorf("Diff(c, nil) = %s, want everything removed", lines(d))
	}
}

func TestChangeString(t *testing.T) {
	for _, tc := range []struct {
		c    Change
		want string
	}{
		{Change{Changed, WhatSkill, "alpha:greet", "/p/alpha/skills/greet/SKILL.md", "valid → invalid, 1 new error"},
			"changed skill alpha:greet: valid → invalid, 1 new error (/p/alpha/skills/greet/SKILL.md)"},
		{Change{Kind: Removed, What: WhatPlugin, ID: "old"}, "removed plugin old"},
	} {
		if got := tc.c.String(); got != tc.want {
			t.Errorf("%#v.String() = %q, want %q", tc.c, got, tc.want)
		}
	}
	if got, want := (Counts{Errors: 1, Warnings: 2}).String(), "1 error, 2 warnings"; got != want {
		t.Errorf("Counts.String() = %q, want %q", got, want)
	}
}

func TestSnapshotRows(t *testing.T) {
	o, _ := fullHome(t)
	a := Load(o)
	rows := SnapshotRows(a)
	if len(rows) != len(a.Plugins) {
		t.Fatalf("SnapshotRows = %d rows, want %d", len(rows), len(a.Plugins))
	}
	for i, r := range rows {
		p := a.Plugins[i]
		if r.ID != p.ID || r.Path != p.Path || r.Source != p.Source || r.Valid != p.Valid || r.Errors != p.IssueCounts.Errors ||
			r.Warnings != p.IssueCounts.Warnings || r.Skills != len(p.Skills) || !strings.HasPrefix(r.ContentHash, "sha256:") {
			t.Errorf("row %d = %+v, for plugin %s", i, r, p.ID)
		}
	}
	if again := SnapshotRows(Load(o)); !reflect.DeepEqual(again, rows) {
		t.Errorf("SnapshotRows of an unchanged home differ between scans")
	}
	if alpha := rows[0]; alpha.ID != "alpha" || alpha.Servers != 3 {
		t.Errorf("alpha row = %+v, want 3 servers (valid or not)", alpha)
	}

	// Break alpha's manifest, edit legacy-one's skill, remove empty-folder, add a plugin.
	pl := filepath.Join(o.PlugboardHome, "plugins")
	writeFile(t, filepath.Join(pl, "alpha", "plugin.json"), `{`+schemaV1+`, "name": "Alpha!"}`)
	writeFile(t, filepath.Join(pl, "legacy-one", "skills", "legacy-skill", "SKILL.md"), "---\nname: legacy-skill\ndescription: Use when the text changed\n---\n")
	os.RemoveAll(filepath.Join(pl, "empty-folder"))
	writeFile(t, filepath.Join(pl, "newcomer", "plugin.json"), manifestOf("newcomer"))
	b := Load(o)
	got := DiffSnapshots(snapshot.Snapshot{Plugins: rows}, snapshot.Snapshot{Plugins: SnapshotRows(b)})
	want := []change{
		{Changed, WhatPlugin, "alpha", "valid → invalid"}, // an invalid plugin loads no component: their issues go
		{Removed, WhatPlugin, "empty-folder", ""},
		{Changed, WhatPlugin, "legacy-one", "content changed"},
		{Added, WhatPlugin, "newcomer", "valid, 0 skills, 0 servers"},
	}
	if len(got) != len(want) {
		t.Fatalf("DiffSnapshots = %d changes, want %d:\n%s", len(got), len(want), lines(got))
	}
	for i, w := range want {
		if g := got[i]; g.Kind != w.kind || g.What != w.what || g.ID != w.id || !strings.Contains(g.Detail, w.detail) {
			t.Errorf("DiffSnapshots[%d] = %s, want %s %s %s: …%s…", i, g, w.kind, w.what, w.id, w.detail)
		}
	}
	if !strings.Contains(got[0].Detail, "skills 3 → 0") {
		t.Errorf("alpha detail = %q, want the skill count that moved", got[0].Detail)
	}
}

func lines(cs []Change) string {
	var s []string
	for _, c := range cs {
		s = append(s, c.String())
	}
	return strings.Join(s, "\n")
}
