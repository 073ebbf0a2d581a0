package clients

import (
	"encoding/json"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/backend/issue"
)

// CodexManifest is the file Codex reads first for a plugin.
const CodexManifest = ".codex-plugin/plugin.json"

// Issue codes of the Codex model.
const (
	CodeCodexManifest = "codex.manifest-ignored"
	CodeCodexField    = "codex.field-ignored"
)

const codexSrc = "openai/codex codex-rs "

// The Codex rules, read from its source (not run here: no Codex binary is packaged).
var codexRules = []Rule{
	{ID: "codex.manifest-location", Client: Codex, Says: "Codex reads .codex-plugin/plugin.json, else .claude-plugin/plugin.json", Source: codexSrc + "core-plugins/src/manifest.rs (DISCOVERABLE_PLUGIN_MANIFEST_PATHS) @19b965ad"},
	{ID: "codex.manifest-parse", Client: Codex, Says: "a manifest that is not a JSON object, or whose skills/mcpServers/apps is not a single string, is ignored with a warning", Source: codexSrc + "core-plugins/src/manifest.rs @19b965ad"},
	{ID: "codex.name", Client: Codex, Says: "the plugin is named by the manifest's name, else its folder; skills are named plugin:<name>", Source: codexSrc + "core-plugins/src/manifest.rs, utils/plugins/src/plugin_namespace.rs @19b965ad"},
	{ID: "codex.paths", Client: Codex, Says: "component paths must start with ./ and have no ..; a path breaking this is ignored and the rest of the manifest loads", Source: codexSrc + "core-plugins/src/manifest.rs @19b965ad"},
	{ID: "codex.skills-scan", Client: Codex, Says: "every SKILL.md below the skills folder (up to 6 levels, not in dot folders) is a skill", Source: codexSrc + "core-skills/src/loader.rs @c9d127c"},
	{ID: "codex.skill-frontmatter", Client: Codex, Says: "a skill needs --- frontmatter that is valid YAML with a non-empty description of at most 1024 characters; the name (frontmatter, else folder) may differ from the folder; plugin:name at most 64 characters", Source: codexSrc + "core-skills/src/loader.rs @c9d127c"},
}

// JudgeCodex says what Codex loads from the plugin folder dir.
func JudgeCodex(dir string) Verdict { return judgeCodex(dir, newFiles()) }

func judgeCodex(dir string, r *files) Verdict {
	abs, _ := filepath.Abs(dir)
	root, err := r.realpath(abs)
	if err != nil {
		return notPackage("the folder cannot be opened: " + describeRead(err))
	}
	file := ""
	for _, f := range []string{CodexManifest, ClaudeManifest} {
		if r.isFile(filepath.Join(root, filepath.FromSlash(f))) {
			file = f
			break
		}
	}
	if file == "" {
		return notPackage("not a Codex plugin: Codex looks for .codex-plugin/plugin.json or .claude-plugin/plugin.json")
	}
	v := Verdict{Package: true, Manifest: file, Why: "Codex reads " + file}
	if file == ClaudeManifest {
		v.Why += " (it has no .codex-plugin/plugin.json)"
	}
	data, err := capread.ReadFile(filepath.Join(root, filepath.FromSlash(file)), capread.ManifestMax)
	var obj map[string]any
	if err == nil {
		err = json.Unmarshal(data, &obj)
	}
	if err != nil || obj == nil {
		v.Issues.Add(issue.Error, CodeCodexManifest, file, "", "Codex ignores %s: it is not a JSON object", file)
		v.Why = "Codex ignores the manifest: it is not a JSON object"
		v.finish()
		return v
	}
	skillsDir := "skills"
	for _, k := range []string{"skills", "mcpServers", "apps"} {
		val, present := obj[k]
		if !present {
			continue
		}
		s, ok := val.(string)
		if !ok {
			v.Issues.Add(issue.Error, CodeCodexManifest, file, "/"+k, "Codex ignores %s: %q must be one path string such as \"./%s\"", file, k, k)
			v.Why = "Codex ignores the manifest: \"" + k + "\" is not a single path string"
			v.finish()
			return v
		}
		if !strings.HasPrefix(s, "./") || s == "./" || hasDotDot(s) {
			v.Issues.Add(issue.Warning, CodeCodexField, file, "/"+k, "Codex ignores %q: the path must start with ./ and stay inside the plugin", k)
			if k == "skills" {
				skillsDir = ""
			}
			continue
		}
		if k == "skills" {
			skillsDir = path.Clean(strings.TrimPrefix(s, "./"))
		}
	}
	name, _ := obj["name"].(string)
	if strings.TrimSpace(name) == "" {
		name = filepath.Base(abs)
	}
	v.Loads, v.Plugin = true, name
	if skillsDir != "" {
		codexScan(root, skillsDir, 1, &v, r)
	}
	sort.Strings(v.Skills)
	v.finish()
	return v
}

// codexScan applies codex.skills-scan below rel.
func codexScan(root, rel string, depth int, v *Verdict, r *files) {
	if depth > 6 {
		return
	}
	entries, err := r.readDir(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return
	}
	for _, e := range entries {
		p := path.Join(rel, e.Name())
		full := filepath.Join(root, filepath.FromSlash(p))
		switch {
		case strings.HasPrefix(e.Name(), "."):
		case e.Name() == "SKILL.md" && r.isFile(full):
			codexSkill(root, rel, v, r)
		case r.isDir(full):
			codexScan(root, p, depth+1, v, r)
		}
	}
}

// codexSkill applies codex.skill-frontmatter to the skill in folder rel.
func codexSkill(root, rel string, v *Verdict, r *files) {
	name, reason := codexSkillName(filepath.Join(root, filepath.FromSlash(rel)), r)
	if reason != "" {
		v.drop(rel, "codex.skill-frontmatter", "%s", reason)
		return
	}
	if v.Plugin != "" {
		name = v.Plugin + ":" + name
	}
	if len([]rune(name)) > 64 {
		v.drop(rel, "codex.skill-frontmatter", "the name %s is longer than 64 characters with the plugin prefix", name)
		return
	}
	v.Skills = append(v.Skills, name)
	v.loaded = append(v.loaded, LoadedSkill{Name: name, Dir: rel})
}

// codexSkillName reads a skill folder as Codex does: its name, or why it is not loaded.
func codexSkillName(dir string, r *files) (name, reason string) {
	data, err := r.read(filepath.Join(dir, "SKILL.md"))
	if err != nil {
		return "", "SKILL.md cannot be read: " + describeRead(err)
	}
	s := r.lf(data)
	if !strings.HasPrefix(s, "---\n") {
		return "", "missing YAML frontmatter (the file must start with a --- line)"
	}
	block, ok := fenced(s)
	if !ok {
		return "", "missing YAML frontmatter (no closing --- line)"
	}
	m, err := r.parseYAML(block)
	if err != nil {
		return "", "the frontmatter is not valid YAML: " + firstLine(err.Error())
	}
	desc, _ := m["description"].(string)
	switch {
	case strings.TrimSpace(desc) == "":
		return "", "missing field description"
	case len([]rune(desc)) > 1024:
		return "", "the description is longer than 1024 characters"
	}
	name, _ = m["name"].(string)
	if strings.TrimSpace(name) == "" {
		name = filepath.Base(dir)
	}
	return strings.Join(strings.Fields(name), " "), ""
}
