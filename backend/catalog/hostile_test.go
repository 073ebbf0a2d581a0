package catalog

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/pathsafe"
	"github.com/plugboard/plugboard/backend/testhome"
)

const schemaV1 = `"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"`

// writeFile writes a file of a test home (testhome.WriteFile).
func writeFile(t testing.TB, p, body string) { t.Helper(); testhome.WriteFile(t, p, body) }

func manifestOf(name string) string { return "{" + schemaV1 + `, "name": "` + name + `"}` }

func skillOf(name string) string {
	return "---\nname: " + name + "\ndescription: Use when testing " + name + "\n---\nBody\n"
}

// TestContainmentBoundaries: a symlink out of the plugin at each boundary of spec §4.1
// fails exactly that boundary.
func TestContainmentBoundaries(t *testing.T) {
	base, _ := pathsafe.Root(t.TempDir())
	outside := filepath.Join(base, "outside")
	writeFile(t, filepath.Join(outside, "plugin.json"), manifestOf("outside"))
	writeFile(t, filepath.Join(outside, "skills", "ok", "SKILL.md"), skillOf("ok"))
	writeFile(t, filepath.Join(outside, "SKILL.md"), skillOf("escaped"))
	writeFile(t, filepath.Join(outside, "mcp.json"), `{"$schema":"https://agent-plugins.org/schemas/1.0.0/mcp.schema.json","mcpServers":{}}`)
	os.MkdirAll(filepath.Join(outside, "bin"), 0o755)

	mk := func(name string) string {
		root := filepath.Join(base, name)
		writeFile(t, filepath.Join(root, "plugin.json"), manifestOf(name))
		writeFile(t, filepath.Join(root, "skills", "good", "SKILL.md"), skillOf("good"))
		return root
	}
	manifestOut := filepath.Join(base, "manifest-out")
	os.MkdirAll(manifestOut, 0o755)
	os.Symlink(filepath.Join(outside, "plugin.json"), filepath.Join(manifestOut, "plugin.json"))

	skillsOut := mk("skills-out")
	os.RemoveAll(filepath.Join(skillsOut, "skills"))
	os.Symlink(filepath.Join(outside, "skills"), filepath.Join(skillsOut, "skills"))

	skillMDOut := mk("skillmd-out")
	os.MkdirAll(filepath.Join(skillMDOut, "skills", "escaped"), 0o755)
	os.Symlink(filepath.Join(outside, "SKILL.md"), filepath.Join(skillMDOut, "skills", "escaped", "SKILL.md"))

	mcpOut := mk("mcp-out")
	os.Symlink(filepath.Join(outside, "mcp.json"), filepath.Join(mcpOut, "mcp.json"))

	cmdOut := mk("command-out")
	os.Symlink(filepath.Join(outside, "bin"), filepath.Join(cmdOut, "bin"))
	writeFile(t, filepath.Join(cmdOut, "mcp.json"), `{"$schema":"https://agent-plugins.org/schemas/1.0.0/mcp.schema.json","mcpServers":{
		"escaping":{"type":"stdio","command":"./bin/server"},
		"cwd-escaping":{"type":"stdio","command":"server","cwd":"./bin"},
		"fine":{"type":"stdio","command":"server"}}}`)

	tests := []struct {
		name         string
		root         string
		valid        bool
		skills       []string // valid skill names
		mcpValid     bool
		servers      []string
		wantCodePart string
	}{
		{"manifest", manifestOut, false, nil, false, nil, "manifest.escapes-root"},
		{"skills folder", skillsOut, true, nil, false, nil, CodeSkillsEscapes},
		{"SKILL.md", skillMDOut, true, []string{"good"}, false, nil, "skill.escapes-root"},
		{"mcp.json", mcpOut, true, []string{"good"}, false, nil, "mcp."},
		{"command and cwd", cmdOut, true, []string{"good"}, true, []string{"fine"}, "mcp.command-escapes"},
	}
	for _, tc := range tests {
		p := Inspect(tc.root, base)
		var skills, servers []string
		for _, s := range p.Skills {
			if s.Valid {
				skills = append(skills, s.Name)
			}
		}
		mcpValid := p.MCP != nil && p.MCP.Valid
		if mcpValid {
			for _, s := range p.MCP.Servers {
				if s.Valid {
					servers = append(servers, s.Name)
				}
			}
		}
		all := codesOf(p.AllIssues())
		if p.Valid != tc.valid || !sameSet(skills, tc.skills) || mcpValid != tc.mcpValid || !sameSet(servers, tc.servers) || !strings.Contains(all, tc.wantCodePart) {
			t.Errorf("%s: valid=%v skills=%v mcp=%v servers=%v codes=%s; want valid=%v skills=%v mcp=%v servers=%v code %s",
				tc.name, p.Valid, skills, mcpValid, servers, all, tc.valid, tc.skills, tc.mcpValid, tc.servers, tc.wantCodePart)
		}
	}
}

// TestHostileInputs: every kind of bad input becomes an issue on its own package, the
// rest of the catalog loads, and a 100 MB manifest is never read into memory.
func TestHostileInputs(t *testing.T) {
	home, _ := pathsafe.Root(t.TempDir())
	pb := filepath.Join(home, ".plugboard")
	plugins := filepath.Join(pb, "plugins")
	p := func(name string) string { return filepath.Join(plugins, name) }

	writeFile(t, filepath.Join(p("good"), "plugin.json"), manifestOf("good"))
	writeFile(t, filepath.Join(p("good"), "skills", "fine", "SKILL.md"), skillOf("fine"))

	os.MkdirAll(p("huge"), 0o755)
	f, _ := os.Create(filepath.Join(p("huge"), "plugin.json"))
	f.Truncate(100 << 20)
	f.Close()

	writeFile(t, filepath.Join(p("bad-utf8"), "plugin.json"), "{"+schemaV1+", \"name\": \"x\xff\xfe\"}")
	writeFile(t, filepath.Join(p("deep-json"), "plugin.json"), strings.Repeat("[", 100000)+strings.Repeat("]", 100000))

	writeFile(t, filepath.Join(p("yaml-bomb"), "plugin.json"), manifestOf("yaml-bomb"))
	bomb := "---\nname: bomb\ndescription: x\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
	for i, prev := 0, "a"; i < 9; i++ {
		cur := string(rune('b' + i))
		bomb += cur + ": &" + cur + " [*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + "]\n"
		prev = cur
	}
	writeFile(t, filepath.Join(p("yaml-bomb"), "skills", "bomb", "SKILL.md"), bomb+"---\n")
	writeFile(t, filepath.Join(p("yaml-bomb"), "skills", "deep", "SKILL.md"), "---\nname: deep\ndescription: "+strings.Repeat("[", 100000)+"\n---\n")

	os.MkdirAll(p("loops"), 0o755)
	os.Symlink("plugin.json", filepath.Join(p("loops"), "plugin.json"))
	os.Symlink("loop-b", filepath.Join(plugins, "loop-a"))
	os.Symlink("loop-a", filepath.Join(plugins, "loop-b"))

	writeFile(t, filepath.Join(p("loop-skill"), "plugin.json"), manifestOf("loop-skill"))
	os.MkdirAll(filepath.Join(p("loop-skill"), "skills", "s"), 0o755)
	os.Symlink("SKILL.md", filepath.Join(p("loop-skill"), "skills", "s", "SKILL.md"))
	os.Symlink("..", filepath.Join(p("loop-skill"), "skills", "up"))

	writeFile(t, filepath.Join(p("unreadable"), "plugin.json"), manifestOf("unreadable"))
	os.Chmod(filepath.Join(p("unreadable"), "plugin.json"), 0)

	fifo := filepath.Join(p("fifo"), "plugin.json")
	os.MkdirAll(filepath.Dir(fifo), 0o755)
	if err := mkfifo(fifo); err != nil {
		t.Logf("no FIFO case: %v", err)
	}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c := Load(Options{Home: home, PlugboardHome: pb})
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("loading the hostile home allocated %d MB; every read must be capped", alloc>>20)
	}

	want := map[string]string{
		"good":       "",
		"huge":       "manifest.unreadable",
		"bad-utf8":   "manifest.invalid-json",
		"deep-json":  "manifest.invalid-json",
		"yaml-bomb":  "skill.",
		"loops":      "manifest.unreadable",
		"loop-skill": "skill.",
		"fifo":       "manifest.not-regular",
	}
	if os.Geteuid() != 0 {
		want["unreadable"] = "manifest.unreadable" // root reads a mode-0 file regardless
	}
	for id, code := range want {
		pl := findPlugin(c, id)
		if pl == nil {
			t.Errorf("%s: not catalogued", id)
			continue
		}
		codes := codesOf(pl.AllIssues())
		if code == "" && codes != "" || code != "" && !strings.Contains(codes, code) {
			t.Errorf("%s: issues %q, want %q", id, codes, code)
		}
	}
	if g := findPlugin(c, "good"); g == nil || !g.Valid || g.ValidSkills() != 1 {
		t.Errorf("the good plugin must load beside the hostile ones: %+v", g)
	}
	if yb := findPlugin(c, "yaml-bomb"); yb == nil || yb.ValidSkills() != 0 || len(yb.Skills) != 2 {
		t.Errorf("yaml-bomb: both skills must be reported invalid: %+v", yb)
	}
	checkAllIssues(t, c)
}
