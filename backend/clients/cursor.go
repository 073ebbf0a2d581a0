package clients

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/manifest"
)

// Issue codes of the Cursor model.
const (
	CodeCursorManifest = "cursor.manifest-refused"
	CodeCursorField    = "cursor.unknown-field"
	CodeCursorSkill    = "cursor.skill-name"
)

const cursorSchema = "cursor/plugins schemas/plugin.schema.json @195d935"

// The Cursor rules, from Cursor's published plugin schema and docs (no Cursor client runs
// here, so none of these was observed; each says where it was read).
var cursorRules = []Rule{
	{ID: "cursor.manifest-location", Client: Cursor, Says: "Cursor reads .cursor-plugin/plugin.json; a folder with only a root plugin.json is an Agent Plugins package, from which Cursor loads skills and MCP", Source: "cursor.com/docs/plugins/building; " + cursorSchema},
	{ID: "cursor.manifest-name", Client: Cursor, Says: "the manifest needs a name of lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit", Source: cursorSchema},
	{ID: "cursor.manifest-closed", Client: Cursor, Says: "the manifest schema is closed: an unknown field fails Cursor's plugin validator", Source: cursorSchema + " (additionalProperties: false)"},
	{ID: "cursor.skills", Client: Cursor, Says: "skills are <skills folder>/<name>/SKILL.md with a name and a description in their frontmatter; the \"skills\" field replaces skills/", Source: "cursor/plugins create-plugin/skills/review-plugin-submission/SKILL.md @195d935"},
	{ID: "cursor.skill-name", Client: Cursor, Says: "Cursor's docs say a skill's name must match its folder", Source: "cursor.com/docs/skills (as quoted; enforcement not verified)"},
}

var cursorName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$`) })

// cursorFields are the members Cursor's plugin schema allows.
var cursorFields = map[string]bool{"$schema": true, "name": true, "displayName": true, "description": true, "version": true, "license": true,
	"category": true, "publisher": true, "homepage": true, "repository": true, "logo": true, "keywords": true, "tags": true, "author": true,
	"minClientVersions": true, "commands": true, "agents": true, "skills": true, "rules": true, "hooks": true, "mcpServers": true, "variables": true}

// JudgeCursor says what Cursor loads from the plugin folder dir.
func JudgeCursor(dir string) Verdict { return judgeCursor(dir, newFiles()) }

func judgeCursor(dir string, r *files) Verdict {
	abs, _ := filepath.Abs(dir)
	root, err := r.realpath(abs)
	if err != nil {
		return notPackage("the folder cannot be opened: " + describeRead(err))
	}
	skillDirs := []string{"skills"}
	v := Verdict{Package: true}
	switch {
	case r.isFile(filepath.Join(root, filepath.FromSlash(manifest.CursorPath))):
		v.Manifest, v.Why = manifest.CursorPath, "Cursor reads .cursor-plugin/plugin.json"
		data, err := capread.ReadFile(filepath.Join(root, filepath.FromSlash(manifest.CursorPath)), capread.ManifestMax)
		var obj map[string]any
		if err == nil {
			err = json.Unmarshal(data, &obj)
		}
		name, _ := obj["name"].(string)
		if err != nil || obj == nil || !cursorName().MatchString(name) {
			msg := "it is not a JSON object"
			if err == nil && obj != nil {
				msg = "\"name\" must be lowercase letters, digits, dots and hyphens, such as \"" + SuggestKebab(name) + "\""
			}
			v.Issues.Add(issue.Error, CodeCursorManifest, manifest.CursorPath, "/name", "Cursor refuses the plugin: %s", msg)
			v.Why = "Cursor refuses the manifest: " + msg
			v.finish()
			return v
		}
		for _, k := range sortedKeys(obj) {
			if !cursorFields[k] {
				v.Issues.Add(issue.Warning, CodeCursorField, manifest.CursorPath, "/"+k, "%q is not in Cursor's plugin schema, whose validator refuses unknown fields; remove it", k)
			}
		}
		v.Plugin = name
		if m := manifest.LoadCursor(root); m.Valid {
			skillDirs = m.SkillsDirs
		}
	case r.isFile(filepath.Join(root, manifest.PortablePath)):
		m := r.portable
		if m == nil {
			loaded := manifest.LoadPortable(root)
			m = &loaded
		}
		if !m.Valid {
			return notPackage("not a Cursor plugin: the root plugin.json is not a valid Agent Plugins manifest and there is no .cursor-plugin/plugin.json")
		}
		v.Manifest, v.Why, v.Plugin = manifest.PortablePath, "an Agent Plugins package: Cursor loads its skills and MCP", m.Name
	default:
		return notPackage("not a Cursor plugin: there is no .cursor-plugin/plugin.json or Agent Plugins plugin.json")
	}
	v.Loads = true
	sds := skillDirsOf(root, r, skillDirs...)
	v.Skills, v.loaded = make([]string, 0, len(sds)), make([]LoadedSkill, 0, len(sds))
	for _, sd := range sds {
		name, reason := cursorSkill(sd.file, r)
		if reason != "" {
			v.drop(sd.rel, "cursor.skills", "%s", reason)
			continue
		}
		if folder := filepath.Base(sd.dir); name != folder {
			v.Issues.Add(issue.Warning, CodeCursorSkill, sd.rel+"/SKILL.md", "/name", "name %q differs from its folder %q; Cursor's docs require them to match: set name: %s", name, folder, folder)
		}
		v.Skills = append(v.Skills, name)
		v.loaded = append(v.loaded, LoadedSkill{Name: name, Dir: sd.rel})
	}
	sort.Strings(v.Skills)
	v.finish()
	return v
}

// cursorSkill reads a skill's name from its SKILL.md, file, or why Cursor would not load it.
func cursorSkill(file string, r *files) (name, reason string) {
	data, err := r.read(file)
	if err != nil {
		return "", "SKILL.md cannot be read: " + describeRead(err)
	}
	f := piFrontmatter(data, r)
	switch {
	case f.err != nil:
		return "", "the frontmatter is not valid YAML: " + firstLine(f.err.Error())
	case !f.found:
		return "", "no frontmatter: Cursor needs a name and a description"
	}
	name, _ = f.str("name")
	desc, _ := f.str("description")
	if strings.TrimSpace(name) == "" || strings.TrimSpace(desc) == "" {
		return "", "Cursor needs both a name and a description in the frontmatter"
	}
	return name, ""
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
