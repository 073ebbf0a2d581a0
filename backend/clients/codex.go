package clients

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/manifest"
)

// CodexManifest is the file Codex reads first for a plugin.
const CodexManifest = ".codex-plugin/plugin.json"

// Issue codes of the Codex model.
const (
	// CodeCodexManifest: codex plugin add refuses the plugin (its manifest, or its name).
	CodeCodexManifest = "codex.manifest-ignored"
	// CodeCodexField: a component path Codex does not follow.
	CodeCodexField = "codex.field-ignored"
	// CodeCodexNotInPrompt: what Codex loads but leaves out of the model's prompt: a skill
	// (pointer /policy/allow_implicit_invocation, on its agents/openai.yaml), or the end
	// of a long description (pointer /description, on its SKILL.md).
	CodeCodexNotInPrompt = "codex.not-in-prompt"
)

// codexSeen is the release every rule below was seen on.
const codexSeen = "codex 0.169.0"

// codexRun names the run a rule was seen on: fixtures "claude/<case>" (testdata/clients/
// claude) or "codex/<case>" (testdata/clients/codex), which TestCodexRealClient runs
// through the real codex.
func codexRun(fixtures ...string) string {
	for i, f := range fixtures {
		fixtures[i] = "testdata/clients/" + f
	}
	return "run of " + codexSeen + " on " + strings.Join(fixtures, ", ")
}

// The Codex rules, each seen on the fixture(s) named in its source: a plugin lands in
// Codex only through a marketplace, `codex plugin add` copying it into
// ~/.codex/plugins/cache and turning its Claude commands into skills, and the app-server
// (skills/list) and the model's prompt (codex debug prompt-input) then say what loads.
var codexRules = []Rule{
	{ID: "codex.install", Client: Codex, Says: "Codex loads a plugin once it is installed from a marketplace; any folder installs, a manifest or not; with no manifest, or one without a name, the plugin takes its marketplace entry's name (its folder's name, here)", Source: codexRun("claude/no-manifest-uses-folder-name", "claude/no-component-readme-only", "claude/manifest-name-empty-string")},
	{ID: "codex.manifest-location", Client: Codex, Says: "Codex reads the first of: a root plugin.json whose $schema is an Agent Plugins one (https://agent-plugins.org/…), .codex-plugin/plugin.json, .claude-plugin/plugin.json, .cursor-plugin/plugin.json; a root plugin.json without such a $schema is not a manifest; only the first one there is read, even when it fails the install", Source: codexRun("codex/manifest-agent-plugins-first", "codex/manifest-order-codex-claude-cursor", "codex/manifest-order-claude-before-cursor", "codex/manifest-cursor", "claude/root-and-claude-plugin-json", "claude/root-plugin-json-only-ignored", "codex/root-plugin-json-without-schema", "codex/manifest-first-invalid-no-fallback")},
	{ID: "codex.manifest-link", Client: Codex, Says: "a manifest that is a symbolic link (even a dangling one) is not read and no other manifest is: the plugin is installed under its folder's name; a folder at .codex-plugin/plugin.json makes the install fail", Source: codexRun("claude/manifest-symlink-outside", "codex/manifest-link-hides-claude-manifest", "codex/manifest-is-a-folder")},
	{ID: "codex.manifest-json", Client: Codex, Says: "the manifest must be one strict JSON object (no byte-order mark, comment or trailing comma), else the install fails", Source: codexRun("claude/manifest-invalid-json", "claude/manifest-utf8-bom", "claude/manifest-json-comments", "claude/manifest-trailing-comma", "claude/manifest-null", "claude/manifest-json-array", "claude/manifest-empty-file")},
	{ID: "codex.manifest-fields", Client: Codex, Says: "these fields must have their type or the install fails: name a string; version a string (or null) of ASCII letters, digits, . + _ -, not blank, not . or ..; description a string or null; keywords a list of strings; apps a string or null; interface an object (or null) whose displayName, shortDescription, longDescription, developerName, category, websiteUrl, privacyPolicyUrl, termsOfServiceUrl, brandColor, composerIcon, logo and logoDark are strings (or null) and capabilities and screenshots lists of strings; every other field (author, homepage, skills, mcpServers, hooks, …) is not checked", Source: codexRun("claude/manifest-description-number", "claude/manifest-keywords-string", "claude/manifest-name-number", "claude/manifest-version-number", "claude/manifest-version-not-semver", "claude/manifest-author-string", "codex/manifest-apps-not-string", "codex/manifest-interface-field-number", "codex/manifest-version-path")},
	{ID: "codex.plugin-name", Client: Codex, Says: "a plugin name is ASCII letters, digits, '.', '_' and '-', its dots separating non-empty parts (a leading hyphen and uppercase are taken), else the install fails", Source: codexRun("claude/manifest-name-with-spaces", "claude/manifest-name-with-at", "claude/manifest-name-with-dot-start", "claude/manifest-name-uppercase", "claude/manifest-name-dots-underscores", "codex/manifest-name-leading-hyphen")},
	{ID: "codex.namespace", Client: Codex, Says: "skills are named <namespace>:<skill>; the namespace is the manifest's name; a manifest without a name gives the name of the folder Codex installs into: its version, else \"local\"", Source: codexRun("claude/manifest-name-missing", "claude/manifest-empty-object", "claude/manifest-name-empty-string")},
	{ID: "codex.agent-plugins", Client: Codex, Says: "an Agent Plugins root plugin.json is checked against the Agent Plugins 1.0.0 schema (another version, an uppercase name, an author string fail the install); its plugin loads skills/ only: no skills field, and its commands are not turned into skills", Source: codexRun("claude/root-plugin-json-only-ignored", "codex/agent-plugins-name-uppercase", "codex/agent-plugins-commands-not-converted")},
	{ID: "codex.skills-path", Client: Codex, Says: "\"skills\" (one path or a list) replaces skills/; a path is ./ and a path with no .. part that is not the plugin folder itself (./custom/ and ./a//b are taken); other paths are skipped, and when none is left, or the field is not a path or a list of path strings (a number, an object, a list holding a number), skills/ is read; a good path that is missing or a file gives no skill", Source: codexRun("claude/skills-path-string-adds", "claude/skills-path-array-mixed", "claude/skills-path-no-dot-slash", "claude/skills-path-dotdot", "claude/skills-path-inner-dotdot", "claude/skills-path-absolute", "claude/skills-path-number", "claude/skills-path-missing", "claude/skills-path-to-skill-md-file", "codex/skills-path-normalized", "codex/skills-path-list-bad-entry-skipped", "codex/skills-path-list-no-good-entry", "codex/skills-path-list-non-string")},
	{ID: "codex.skills-scan", Client: Codex, Says: "every SKILL.md in the skills folder itself and in folders up to six levels below it is a skill, one below another skill too; dot folders and symbolic links are skipped (the installed copy has no links)", Source: codexRun("claude/skill-nested-with-parent-skill", "claude/skill-md-directly-in-skills-dir", "claude/skill-hidden-folder", "claude/skill-symlink-inside", "claude/skill-lowercase-skill-md", "codex/skills-scan-six-levels")},
	{ID: "codex.skill-frontmatter", Client: Codex, Says: "a SKILL.md starts with a --- line (trailing blanks and CRLF taken, no byte-order mark) and its block ends at a --- line; the block is one YAML mapping, read again with values that hold \": \" (or start with [ { @ ` and are not YAML by themselves) quoted when it is not YAML; it needs a description (a scalar, as written; not blank); name (a scalar; else the folder's name) and description have their white space collapsed; a repeated name, description or metadata, or a metadata that is not a mapping, refuses the skill; a name is at most 64 characters, <namespace>:<name> at most 129; a description is not limited (the prompt shortens one over 1,024 characters)", Source: codexRun("claude/skill-no-description", "claude/skill-no-frontmatter", "claude/skill-utf8-bom", "claude/skill-crlf", "claude/skill-open-fence-spaces", "claude/skill-dashes-mid-line", "claude/skill-colon-in-value", "claude/skill-invalid-yaml", "claude/skill-retry-unquoted-value", "claude/skill-repeated-key", "claude/skill-description-number", "claude/skill-long-description", "claude/skill-name-with-spaces", "codex/skill-name-64-characters", "codex/skill-name-65-characters", "codex/skill-qualified-name-over-129", "codex/skill-duplicate-unknown-key")},
	{ID: "codex.not-in-prompt", Client: Codex, Says: "a skill whose agents/openai.yaml sets policy: allow_implicit_invocation: false loads but is left out of the model's prompt (the key at the top level, or the string \"false\", does nothing)", Source: codexRun("codex/openai-yaml-implicit-invocation-off", "codex/openai-yaml-top-level-key")},
	{ID: "codex.commands", Client: Codex, Says: "codex plugin add turns each commands/**/*.md (lowercase .md, no links, dot folders too) whose frontmatter is YAML with a description into a skill <namespace>:source-command-<path lowercased, other than a-z 0-9 made -, / included>; not when the name passes 64 characters, the skill it writes passes 4,000 bytes, its body uses $ARGUMENTS, $<digit>, !`…` or an @file reference, or two files make one name (both are left out); a \"commands\" path or list of paths (./…, no ..) replaces commands/; a bad path is skipped, and a field that is not a path or a list of path strings converts nothing (it never falls back to commands/)", Source: codexRun("claude/command-file-name-punctuation", "claude/command-md-uppercase", "claude/command-nested", "claude/command-symlinked", "claude/command-without-frontmatter", "claude/command-dmi-no-description", "claude/commands-path-folder-replaces", "claude/commands-path-no-dot-slash", "claude/commands-path-skill-dir", "codex/commands-name-over-64", "codex/commands-skill-over-4000-bytes", "codex/commands-body-placeholders", "codex/commands-colliding-names", "codex/commands-with-codex-manifest")},
}

// codexNames are the manifests Codex looks for, in its order (a root plugin.json only
// with an Agent Plugins $schema).
var codexNames = []string{manifest.PortablePath, CodexManifest, ClaudeManifest, manifest.CursorPath}

// agentPluginsSchemas is the $schema prefix that makes a root plugin.json Codex's manifest.
const agentPluginsSchemas = "https://agent-plugins.org/"

// JudgeCodex says what Codex loads from the plugin folder dir once it is installed from a
// marketplace whose entry is named after the folder.
func JudgeCodex(dir string) Verdict { return judgeCodex(dir, newFiles()) }

// codexPlugin is what Codex makes of a plugin folder before it looks at its skills.
type codexPlugin struct {
	root      string
	name      string         // the name it is installed under
	namespace string         // its skills' prefix
	obj       map[string]any // the manifest's members; nil with none
	agent     bool           // the manifest is an Agent Plugins plugin.json
}

// judgeCodex applies the Codex rules to dir: the install (manifest and name), then the
// skills it loads from its skills folders and from its Claude commands.
func judgeCodex(dir string, r *files) Verdict {
	abs, _ := filepath.Abs(dir)
	root, err := r.realpath(abs)
	if err != nil {
		return notPackage("the folder cannot be opened: " + describeRead(err))
	}
	v := Verdict{Package: true}
	p, ok := codexInstall(root, filepath.Base(abs), &v, r)
	if !ok {
		v.finish()
		return v
	}
	v.Loads, v.Plugin = true, p.name
	if p.namespace != p.name {
		v.Why += "; it has no name, so Codex installs the plugin as " + p.name + " and names its skills " + p.namespace + ":…, after the folder it installs into"
	}
	var skills []codexFound
	for _, d := range codexSkillRoots(p, &v) {
		codexScan(root, d, &skills, r)
	}
	v.Skills, v.loaded = make([]string, 0, len(skills)), make([]LoadedSkill, 0, len(skills))
	for _, s := range skills {
		codexAddSkill(p, s, &v, r)
	}
	if !p.agent {
		codexCommands(p, &v, r)
	}
	sort.Strings(v.Skills)
	v.finish()
	return v
}

// codexInstall applies codex.manifest-location and the rules of the manifest it picks: the
// plugin as Codex installs it, or false with v saying why the install fails.
func codexInstall(root, folder string, v *Verdict, r *files) (codexPlugin, bool) {
	p := codexPlugin{root: root}
	file, kind := codexPick(root, r)
	v.Manifest = file
	switch {
	case file == "":
		v.Why = "Codex installs a folder without a manifest under its marketplace entry's name, here the folder's"
	case kind.IsDir() && file == CodexManifest:
		return p, codexRefuse(v, file, "", "%s is a folder: Codex cannot write the manifest it makes for the copy it installs", file)
	case !kind.IsRegular():
		v.Issues.Add(issue.Warning, CodeCodexManifest, file, "", "Codex does not read %s, which is not a plain file (a link is not copied when the plugin is installed), nor any other manifest: the plugin is installed under its folder's name", file)
		v.Why = "Codex reads no manifest: " + file + " is not a plain file"
		v.Manifest = ""
	default:
		v.Why = "Codex reads " + file
		obj, agent, why := codexReadManifest(root, file, r)
		if why != "" {
			return p, codexRefuse(v, file, "", "codex plugin add refuses the plugin: %s", why)
		}
		p.obj, p.agent = obj, agent
	}
	p.name, _ = p.obj["name"].(string)
	p.namespace = p.name
	if p.name == "" {
		p.name, p.namespace = folder, folder
		if p.obj != nil {
			p.namespace = "local"
			if ver, _ := p.obj["version"].(string); ver != "" {
				p.namespace = ver
			}
		}
	}
	if why := codexNameProblem(p.name); why != "" {
		return p, codexRefuse(v, file, "/name", "codex plugin add refuses the plugin name %q: %s", p.name, why)
	}
	return p, true
}

// codexRefuse records that codex plugin add fails, and returns false.
func codexRefuse(v *Verdict, file, pointer, format string, args ...any) bool {
	msg := fmt.Sprintf(format, args...)
	v.Issues.Add(issue.Error, CodeCodexManifest, file, pointer, "%s", msg)
	v.Why = msg
	return false
}

// codexPick returns the manifest Codex reads (codex.manifest-location) and what is there
// (links not followed); "" when there is none.
func codexPick(root string, r *files) (string, fs.FileMode) {
	for _, f := range codexNames {
		kind, there := codexEntry(filepath.Join(root, filepath.FromSlash(f)), r)
		if !there {
			continue
		}
		if f == manifest.PortablePath && (!kind.IsRegular() || !codexAgentPlugins(filepath.Join(root, f), r)) {
			continue // a root plugin.json is Codex's manifest only as an Agent Plugins one
		}
		return f, kind
	}
	return "", 0
}

// codexEntry is the type of the entry at p as its folder lists it (a link is a link), and
// whether there is one.
func codexEntry(p string, r *files) (fs.FileMode, bool) {
	entries, err := r.readDir(filepath.Dir(p))
	if err != nil {
		return 0, false
	}
	name := filepath.Base(p)
	i := sort.Search(len(entries), func(i int) bool { return entries[i].Name() >= name })
	if i == len(entries) || entries[i].Name() != name {
		return 0, false
	}
	return entries[i].Type(), true
}

// codexAgentPlugins reports whether the root plugin.json at p declares an Agent Plugins
// $schema.
func codexAgentPlugins(p string, r *files) bool {
	if r.portable != nil && r.portable.Schema != "" {
		return true // the caller's reading found a supported Agent Plugins $schema
	}
	data, err := capread.ReadFile(p, capread.ManifestMax)
	if err != nil {
		return false
	}
	var head struct {
		Schema any `json:"$schema"`
	}
	if json.Unmarshal(data, &head) != nil {
		return false
	}
	s, _ := head.Schema.(string)
	return strings.HasPrefix(s, agentPluginsSchemas)
}

// codexReadManifest reads the manifest file by codex.manifest-json, codex.manifest-fields
// and codex.agent-plugins: its members, whether it is an Agent Plugins one, or why the
// install fails.
func codexReadManifest(root, file string, r *files) (map[string]any, bool, string) {
	if file == manifest.PortablePath && r.portable != nil && r.portable.Schema != "" {
		return codexPortable(r.portable) // the caller has read and checked it
	}
	data, err := capread.ReadFile(filepath.Join(root, filepath.FromSlash(file)), capread.ManifestMax)
	if err != nil {
		return nil, false, file + " cannot be read: " + describeRead(err)
	}
	var obj map[string]any
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		return nil, false, file + " is not one JSON object (Codex reads strict JSON: no byte-order mark, comment or trailing comma)"
	}
	if file == manifest.PortablePath {
		m := manifest.ParsePortable(data)
		return codexPortable(&m)
	}
	if why := codexFieldProblem(obj); why != "" {
		return nil, false, why
	}
	return obj, false, ""
}

// codexPortable applies codex.agent-plugins to an Agent Plugins manifest as the
// specification reads it: its name, or why the install fails.
func codexPortable(m *manifest.Manifest) (map[string]any, bool, string) {
	if !m.Valid {
		return nil, true, "the Agent Plugins plugin.json does not satisfy the Agent Plugins 1.0.0 schema"
	}
	return map[string]any{"name": m.Name}, true, ""
}

// codexInterfaceStrings are the members of a manifest's interface that must be strings.
var codexInterfaceStrings = []string{"displayName", "shortDescription", "longDescription", "developerName", "category", "websiteUrl", "privacyPolicyUrl", "termsOfServiceUrl", "brandColor", "composerIcon", "logo", "logoDark"}

// codexFieldProblem applies codex.manifest-fields: why a field fails the install, or "".
func codexFieldProblem(obj map[string]any) string {
	if n, there := obj["name"]; there {
		if _, ok := n.(string); !ok {
			return "\"name\" must be a string"
		}
	}
	for _, k := range []string{"description", "apps", "version"} {
		if x, there := obj[k]; there && x != nil {
			if _, ok := x.(string); !ok {
				return fmt.Sprintf("%q must be a string", k)
			}
		}
	}
	if ver, ok := obj["version"].(string); ok {
		if why := codexVersionProblem(ver); why != "" {
			return why
		}
	}
	if kw, there := obj["keywords"]; there && !stringList(kw) {
		return "\"keywords\" must be a list of strings"
	}
	in, there := obj["interface"]
	if !there || in == nil {
		return ""
	}
	m, ok := in.(map[string]any)
	if !ok {
		return "\"interface\" must be an object"
	}
	for _, k := range codexInterfaceStrings {
		if x := m[k]; x != nil {
			if _, ok := x.(string); !ok {
				return fmt.Sprintf("\"interface.%s\" must be a string", k)
			}
		}
	}
	for _, k := range []string{"capabilities", "screenshots"} {
		if x := m[k]; x != nil && !stringList(x) {
			return fmt.Sprintf("\"interface.%s\" must be a list of strings", k)
		}
	}
	return ""
}

// stringList reports whether x is a JSON list of strings.
func stringList(x any) bool {
	l, ok := x.([]any)
	if !ok {
		return false
	}
	for _, e := range l {
		if _, ok := e.(string); !ok {
			return false
		}
	}
	return true
}

// codexVersionProblem: a version names the folder Codex installs into.
func codexVersionProblem(ver string) string {
	switch {
	case strings.TrimSpace(ver) == "":
		return "\"version\" must not be blank"
	case ver == "." || ver == "..":
		return "\"version\" must not be . or .. (it names a folder)"
	}
	for _, c := range ver {
		if !(asciiAlnum(c) || strings.ContainsRune(".+_-", c)) {
			return "\"version\" may hold only ASCII letters, digits, '.', '+', '_' and '-'"
		}
	}
	return ""
}

// codexNameProblem applies codex.plugin-name: why name is refused, or "".
func codexNameProblem(name string) string {
	for _, c := range name {
		if !(asciiAlnum(c) || c == '.' || c == '_' || c == '-') {
			return "only ASCII letters, digits, '.', '_' and '-' are allowed"
		}
	}
	for _, part := range strings.Split(name, ".") {
		if part == "" {
			return "dots must separate non-empty parts"
		}
	}
	return ""
}

func asciiAlnum(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// codexSkillRoots applies codex.skills-path: the folders, relative to the plugin, whose
// SKILL.md files are skills.
func codexSkillRoots(p codexPlugin, v *Verdict) []string {
	val, there := p.obj["skills"]
	if p.agent || !there || val == nil {
		return []string{"skills"}
	}
	out, _ := codexFieldPaths(v, val, "skills", ": a path starts with ./, has no .. part and is not the plugin folder itself")
	if len(out) == 0 {
		v.Issues.Add(issue.Warning, CodeCodexField, v.Manifest, "/skills", "\"skills\" names no path Codex follows (it must be a path or a list of path strings): it reads skills/ instead")
		return []string{"skills"}
	}
	return out
}

// codexFieldPaths keeps the paths of the component field (codexPaths) Codex follows
// (codexPath), with a warning at /field for each it skips, why being the rest of its
// sentence; given is how many paths the field names.
func codexFieldPaths(v *Verdict, val any, field, why string) (kept []string, given int) {
	paths := codexPaths(val)
	for _, s := range paths {
		if clean, ok := codexPath(s); ok {
			kept = append(kept, clean)
			continue
		}
		v.Issues.Add(issue.Warning, CodeCodexField, v.Manifest, "/"+field, "Codex skips the %s path %q%s", field, s, why)
	}
	return kept, len(paths)
}

// codexPaths reads a component field: one path, or a list of them; nil for any other
// value, a list holding something other than a string included.
func codexPaths(val any) []string {
	switch x := val.(type) {
	case string:
		return []string{x}
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil
			}
			out = append(out, s)
		}
		return out
	}
	return nil
}

// codexFound is a SKILL.md found in a plugin: its folder relative to the plugin, and
// whether that folder has an agents folder (where agents/openai.yaml would be).
type codexFound struct {
	dir    string
	abs    string // the folder's path
	file   string // its SKILL.md's
	agents bool
}

// codexScan applies codex.skills-scan to the skills folder rel of the plugin in root,
// adding every SKILL.md it finds to found.
func codexScan(root, rel string, found *[]codexFound, r *files) {
	full := filepath.Join(root, filepath.FromSlash(rel))
	if kind, there := codexEntry(full, r); there && kind.IsDir() {
		codexScanDir(rel, full, child(full, "SKILL.md"), 0, found, r)
	}
}

// codexScanDir scans the folder rel (full, its path; file, the path of a SKILL.md in it),
// depth levels below a skills folder.
func codexScanDir(rel, full, file string, depth int, found *[]codexFound, r *files) {
	entries, err := r.readDir(full)
	if err != nil {
		return
	}
	if depth == 0 && *found == nil {
		*found = make([]codexFound, 0, len(entries)) // a skills folder: nearly every entry is a skill
	}
	skill, agents := false, false
	for i, e := range entries {
		switch name := e.Name(); {
		case e.Type()&fs.ModeSymlink != 0 || strings.HasPrefix(name, "."):
		case name == "SKILL.md" && e.Type().IsRegular():
			skill = true
		case e.IsDir():
			agents = agents || name == "agents"
			if depth < 6 {
				var sub, subFile string
				if depth == 0 { // the skills folder, whose paths Claude's and PI's models made
					p := r.pathsOf(full, entries)[i]
					sub, subFile = p[0], p[1]
				} else {
					sub, subFile = skillPaths(full, name)
				}
				codexScanDir(rel+"/"+name, sub, subFile, depth+1, found, r)
			}
		}
	}
	if skill {
		*found = append(*found, codexFound{dir: rel, abs: full, file: file, agents: agents})
	}
}

// codexAddSkill applies codex.skill-frontmatter and codex.not-in-prompt to one SKILL.md.
func codexAddSkill(p codexPlugin, s codexFound, v *Verdict, r *files) {
	name, desc, reason := codexSkillFile(s.abs, s.file, r)
	if reason == "" {
		reason = codexQualified(p.namespace, name)
	}
	if reason != "" {
		v.drop(path.Join(s.dir, "SKILL.md"), "codex.skill-frontmatter", "%s", reason)
		return
	}
	full := p.namespace + ":" + name
	v.Skills = append(v.Skills, full)
	v.loaded = append(v.loaded, LoadedSkill{Name: full, Dir: s.dir})
	if len(desc) > 1024 {
		codexNoteSkill(v, path.Join(s.dir, "SKILL.md"), full, collapse(desc))
	}
	if s.agents && codexImplicitOff(s.abs, r) {
		v.Issues.Add(issue.Info, CodeCodexNotInPrompt, path.Join(s.dir, "agents", "openai.yaml"), "/policy/allow_implicit_invocation", "Codex loads %s but leaves it out of the model's prompt (policy.allow_implicit_invocation: false): the model uses it only when asked for it by name", full)
	}
}

// NotInPrompt are the skills of v the client loads but keeps out of the model's prompt
// (Codex: agents/openai.yaml policy.allow_implicit_invocation: false), sorted.
func (v Verdict) NotInPrompt() []string {
	out := []string{}
	for _, i := range v.Issues {
		if i.Code != CodeCodexNotInPrompt || i.Pointer != "/policy/allow_implicit_invocation" {
			continue
		}
		dir := path.Dir(path.Dir(i.Path)) // <skill>/agents/openai.yaml
		for _, s := range v.LoadedSkills() {
			if s.Dir == dir {
				out = append(out, s.Name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// codexNoteSkill notes what the prompt does to a loaded skill's description.
func codexNoteSkill(v *Verdict, file, name, desc string) {
	if n := utf8.RuneCountInString(desc); n > 1024 {
		v.Issues.Add(issue.Info, CodeCodexNotInPrompt, file, "/description", "Codex shows the model only the first 1,021 of the %d characters of %s's description, then \"...\"", n, name)
	}
}

// codexQualified checks the length of <namespace>:<name>.
func codexQualified(namespace, name string) string {
	if n := utf8.RuneCountInString(namespace) + 1 + utf8.RuneCountInString(name); n > 129 {
		return fmt.Sprintf("%s:%s is %d characters; Codex allows at most 129", namespace, name, n)
	}
	return ""
}

// codexImplicitOff applies codex.not-in-prompt: whether the skill in dir sets
// policy.allow_implicit_invocation to false in agents/openai.yaml.
func codexImplicitOff(dir string, r *files) bool {
	file := filepath.Join(dir, "agents", "openai.yaml")
	if !r.isFile(file) {
		return false
	}
	data, err := r.read(file)
	if err != nil {
		return false
	}
	var doc struct {
		Policy struct {
			Implicit yaml.Node `yaml:"allow_implicit_invocation"`
		} `yaml:"policy"`
	}
	if yaml.Unmarshal(data, &doc) != nil {
		return false
	}
	n := doc.Policy.Implicit
	return n.Kind == yaml.ScalarNode && n.Tag == "!!bool" && strings.EqualFold(n.Value, "false")
}

// codexSkillName reads the skill folder dir as Codex reads a standalone skill (in
// ~/.codex/skills or ~/.agents/skills): its name, or why it is not loaded.
func codexSkillName(dir string, r *files) (name, reason string) {
	name, _, reason = codexSkillFile(dir, child(dir, "SKILL.md"), r)
	return name, reason
}

// codexSkillFile applies codex.skill-frontmatter to file, dir's SKILL.md: the skill's
// name and description (as written), or why Codex refuses it.
func codexSkillFile(dir, file string, r *files) (name, desc, reason string) {
	data, err := r.read(file)
	if err != nil {
		return "", "", "SKILL.md cannot be read: " + describeRead(err)
	}
	if !utf8.Valid(data) {
		return "", "", "SKILL.md is not UTF-8 text"
	}
	block, ok := codexBlock(r.lf(data))
	if !ok {
		return "", "", "missing YAML frontmatter delimited by --- lines"
	}
	fm, err := codexParse(block, true, r)
	if err != nil {
		return "", "", err.Error()
	}
	desc = fm.description
	if strings.TrimSpace(desc) == "" {
		return "", "", "missing field description"
	}
	name = collapse(fm.name)
	if name == "" {
		name = filepath.Base(dir)
	}
	if n := utf8.RuneCountInString(name); n > 64 {
		return "", "", fmt.Sprintf("the name %q is %d characters; Codex allows at most 64", name, n)
	}
	return name, desc, ""
}

// collapse trims s and makes each run of white space one space, as Codex does to names
// and descriptions.
func collapse(s string) string {
	if collapsed(s) {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// collapsed reports whether s is as collapse leaves it: ASCII with single spaces between
// words and none at either end (nearly every name), so that nothing is copied.
func collapsed(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
			return false
		case c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' '):
			return false
		}
	}
	return true
}

// codexBlock returns the frontmatter block of text (LF line ends): the lines between an
// opening "---" line and the next "---" line (blanks after either taken); false when
// there is no block or it is empty.
func codexBlock(text string) (string, bool) {
	first, rest, found := strings.Cut(text, "\n")
	if !found || strings.TrimRight(first, " \t") != "---" {
		return "", false
	}
	for at := 0; at < len(rest); {
		end := strings.IndexByte(rest[at:], '\n')
		if end < 0 {
			end = len(rest) - at
		}
		if strings.TrimRight(rest[at:at+end], " \t") == "---" {
			block := strings.TrimSuffix(rest[:at], "\n")
			return block, strings.TrimSpace(block) != ""
		}
		at += end + 1
	}
	return "", false
}

// codexFront is what Codex reads of a frontmatter block.
type codexFront struct{ name, description string }

// codexParse reads a frontmatter block as Codex does: one YAML mapping whose name and
// description are scalars (their text as written), each key of name, description and
// metadata once, metadata a mapping. With retry, a block that is not YAML is read again
// with its unsafe values quoted (codexQuoteValues).
func codexParse(block string, retry bool, r *files) (codexFront, error) {
	if fm, ok := codexQuick(block, r); ok {
		return fm, nil
	}
	doc, err := codexYAML(block)
	if err != nil && retry {
		if again, ok := codexQuoteValues(block); ok {
			if d, err2 := codexYAML(again); err2 == nil {
				doc, err = d, nil
			}
		}
	}
	if err != nil {
		return codexFront{}, fmt.Errorf("invalid YAML: %s", firstLine(strings.TrimPrefix(err.Error(), "yaml: ")))
	}
	if doc.Kind != yaml.MappingNode {
		if doc.Kind == 0 || doc.Tag == "!!null" {
			return codexFront{}, fmt.Errorf("missing field description")
		}
		return codexFront{}, fmt.Errorf("invalid YAML: the frontmatter is not a mapping")
	}
	var fm codexFront
	seen := map[string]bool{}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		key, val := doc.Content[i].Value, codexDeref(doc.Content[i+1])
		switch key {
		case "name", "description", "metadata":
		default:
			continue
		}
		if seen[key] {
			return codexFront{}, fmt.Errorf("invalid YAML: duplicate field %s", key)
		}
		seen[key] = true
		if err := codexField(&fm, key, val); err != nil {
			return codexFront{}, err
		}
	}
	return fm, nil
}

// codexQuick reads a block from the parse the models share (files.parseYAML, a fast
// path for plain frontmatter), when that parse says all Codex would: the block is one
// YAML document, names each of name, description and metadata at most once, and they are
// text (or null) and a mapping. Otherwise the block is read again as a YAML tree.
func codexQuick(block string, r *files) (codexFront, bool) {
	if multiDocument(block) || codexRepeats(block) {
		return codexFront{}, false
	}
	m, err := r.parseYAML(block)
	if err != nil {
		return codexFront{}, false
	}
	name, okName := m["name"].(string)
	desc, okDesc := m["description"].(string)
	meta := m["metadata"]
	_, okMeta := meta.(map[string]any)
	if !okName && m["name"] != nil || !okDesc && m["description"] != nil || !okMeta && meta != nil {
		return codexFront{}, false
	}
	return codexFront{name: name, description: desc}, true
}

// codexRepeats reports whether the block may set name, description or metadata twice
// (or is a flow mapping, which this look does not read).
func codexRepeats(block string) bool {
	if strings.HasPrefix(strings.TrimSpace(block), "{") {
		return true
	}
	var seen [3]bool
	for rest := block; rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if k := codexKnownKey(line); k >= 0 {
			if seen[k] {
				return true
			}
			seen[k] = true
		}
	}
	return false
}

// codexKnownKeys are the frontmatter keys Codex reads, which it allows once each.
var codexKnownKeys = [3]string{"name", "description", "metadata"}

// codexKnownKey returns which of codexKnownKeys a top-level line sets (the key plain or
// quoted), or -1.
func codexKnownKey(line string) int {
	if line == "" {
		return -1
	}
	if q := line[0]; q == '"' || q == '\'' {
		line = line[1:]
	}
	for i, k := range codexKnownKeys {
		rest, ok := strings.CutPrefix(line, k)
		if !ok {
			continue
		}
		if rest != "" && (rest[0] == '"' || rest[0] == '\'') {
			rest = rest[1:]
		}
		if strings.HasPrefix(strings.TrimLeft(rest, " \t"), ":") {
			return i
		}
	}
	return -1
}

// codexField reads one known member of the frontmatter.
func codexField(fm *codexFront, key string, val *yaml.Node) error {
	null := val.Kind == yaml.ScalarNode && val.Tag == "!!null"
	if key == "metadata" {
		if val.Kind != yaml.MappingNode && !null {
			return fmt.Errorf("invalid YAML: metadata must be a mapping")
		}
		return nil
	}
	if val.Kind != yaml.ScalarNode {
		return fmt.Errorf("invalid YAML: %s must be text, not a list or a mapping", key)
	}
	if null {
		return nil
	}
	if key == "name" {
		fm.name = val.Value
	} else {
		fm.description = val.Value
	}
	return nil
}

// codexDeref follows an alias to its node.
func codexDeref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// codexYAML parses a block as one YAML document and returns its content node (Kind 0
// for an empty document).
func codexYAML(block string) (*yaml.Node, error) {
	if multiDocument(block) {
		return nil, fmt.Errorf("the frontmatter holds more than one YAML document")
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(block), &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return &yaml.Node{}, nil
	}
	return codexDeref(doc.Content[0]), nil
}

// codexValueLine is a "key: value" line (a list item's too), the key plain or quoted.
var codexValueLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\s*(?:-\s+)?(?:"[^"]*"|'[^']*'|[^\s#'"][^:#]*?)):[ \t]+(.*)$`)
})

// codexQuoteValues rewrites a block that is not YAML as Codex does before reading it
// again: on each key: value line, the value (without a # comment) is double-quoted when
// it holds ": " or starts with @ or `, or starts with [ or { and is not YAML by itself; a
// value that starts with a quote is left. False when no line changes.
func codexQuoteValues(block string) (string, bool) {
	lines := strings.Split(block, "\n")
	changed := false
	for i, line := range lines {
		m := codexValueLine().FindStringSubmatch(line)
		if m == nil {
			continue
		}
		val := strings.TrimSpace(codexUncomment(m[2]))
		if val == "" || val[0] == '"' || val[0] == '\'' || !codexUnsafe(val) {
			continue
		}
		lines[i] = m[1] + `: "` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(val) + `"`
		changed = true
	}
	return strings.Join(lines, "\n"), changed
}

// codexUncomment cuts a value at a # that follows a blank.
func codexUncomment(s string) string {
	for i := 1; i < len(s); i++ {
		if s[i] == '#' && (s[i-1] == ' ' || s[i-1] == '\t') {
			return s[:i]
		}
	}
	return s
}

// codexUnsafe: a value the retry quotes.
func codexUnsafe(val string) bool {
	switch {
	case strings.Contains(val, ": ") || strings.Contains(val, ":\t"):
		return true
	case val[0] == '@' || val[0] == '`':
		return true
	case val[0] == '[' || val[0] == '{':
		var n yaml.Node
		return yaml.Unmarshal([]byte(val), &n) != nil
	}
	return false
}

// codexCommand is a Claude command file codex plugin add may turn into a skill: the file
// and the path its skill is named after (relative to the commands folder, or the file's
// name), both slash form.
type codexCommand struct{ file, named string }

// codexCommands applies codex.commands to the plugin.
func codexCommands(p codexPlugin, v *Verdict, r *files) {
	var cmds []codexCommand
	for _, src := range codexCommandSources(p, v) {
		full := filepath.Join(p.root, filepath.FromSlash(src))
		kind, there := codexEntry(full, r)
		switch {
		case !there || kind&fs.ModeSymlink != 0:
		case kind.IsDir():
			codexCommandFiles(p.root, src, "", &cmds, r)
		case kind.IsRegular() && strings.HasSuffix(src, ".md"):
			cmds = append(cmds, codexCommand{file: src, named: path.Base(src)})
		}
	}
	slugs := map[string][]codexCommand{}
	var order []string
	for _, c := range codexUnique(cmds) {
		slug := codexSlug(strings.TrimSuffix(c.named, ".md"))
		if slugs[slug] == nil {
			order = append(order, slug)
		}
		slugs[slug] = append(slugs[slug], c)
	}
	for _, slug := range order {
		same := slugs[slug]
		if len(same) > 1 {
			for _, c := range same {
				v.drop(c.file, "codex.commands", "another command makes the same skill name source-command-%s: Codex converts neither", slug)
			}
			continue
		}
		codexConvert(p, same[0], slug, v, r)
	}
}

// codexUnique drops a file named twice.
func codexUnique(cmds []codexCommand) []codexCommand {
	seen := map[string]bool{}
	out := cmds[:0:0]
	for _, c := range cmds {
		if !seen[c.file] {
			seen[c.file] = true
			out = append(out, c)
		}
	}
	return out
}

// codexCommandSources are the command files and folders, relative to the plugin: the
// manifest's "commands" paths, else commands/.
func codexCommandSources(p codexPlugin, v *Verdict) []string {
	val, there := p.obj["commands"]
	if !there || val == nil {
		return []string{"commands"}
	}
	out, given := codexFieldPaths(v, val, "commands", " (and does not read commands/ instead): a path starts with ./ and has no .. part")
	if given == 0 {
		v.Issues.Add(issue.Warning, CodeCodexField, v.Manifest, "/commands", "Codex converts no command: \"commands\" is neither a path nor a list of path strings, and it does not read commands/ instead")
	}
	return out
}

// codexPath checks a component path of the manifest: "./" and a path with no ".." part
// that is not the plugin folder itself; it returns the path cleaned.
func codexPath(s string) (string, bool) {
	rest, ok := strings.CutPrefix(s, "./")
	if !ok {
		return "", false
	}
	for _, part := range strings.Split(rest, "/") {
		if part == ".." {
			return "", false
		}
	}
	clean := path.Clean(rest)
	return clean, clean != "." && !path.IsAbs(clean)
}

// codexCommandFiles adds every .md file below the folder dir (relative to the plugin),
// named by its path below base.
func codexCommandFiles(root, dir, below string, cmds *[]codexCommand, r *files) {
	entries, err := r.readDir(filepath.Join(root, filepath.FromSlash(path.Join(dir, below))))
	if err != nil {
		return
	}
	for _, e := range entries {
		named := path.Join(below, e.Name())
		switch {
		case e.Type()&fs.ModeSymlink != 0:
		case e.IsDir():
			codexCommandFiles(root, dir, named, cmds, r)
		case e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".md"):
			*cmds = append(*cmds, codexCommand{file: path.Join(dir, named), named: named})
		}
	}
}

// codexSlug is the command's skill name part: lowercase letters and digits, every other
// run made one hyphen, none at either end.
func codexSlug(named string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(named) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(c)
			dash = false
			continue
		}
		dash = true
	}
	return b.String()
}

// codexPlaceholders are what a command body uses that a skill cannot: its arguments, a
// shell command's output, a file's content.
var codexPlaceholders = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("\\$ARGUMENTS|\\$[0-9]|![ \\t]*`|(?:^|\\s)@\\S")
})

// codexConvert applies codex.commands to one command file whose skill would be
// source-command-<slug>.
func codexConvert(p codexPlugin, c codexCommand, slug string, v *Verdict, r *files) {
	name := "source-command-" + slug
	data, err := r.read(filepath.Join(p.root, filepath.FromSlash(c.file)))
	if err != nil {
		v.drop(c.file, "codex.commands", "the command cannot be read: %s", describeRead(err))
		return
	}
	text := r.lf(data)
	block, ok := codexBlock(text)
	var fm codexFront
	if ok {
		fm, err = codexParse(block, false, r)
	}
	desc := strings.TrimSpace(fm.description)
	why := ""
	switch {
	case slug == "":
		why = "its file name has no letter or digit to name a skill after"
	case !ok || err != nil:
		why = "it has no frontmatter that is YAML"
	case desc == "":
		why = "it has no description"
	case utf8.RuneCountInString(name) > 64:
		why = fmt.Sprintf("its skill name %s would pass 64 characters", name)
	}
	body := codexBody(text)
	if why == "" {
		if m := codexPlaceholders().FindString(body); m != "" {
			why = fmt.Sprintf("its body uses %q, which a skill cannot fill in", strings.TrimSpace(m))
		} else if n := codexSkillSize(name, desc, strings.TrimSuffix(c.named, ".md"), body); n > 4000 {
			why = fmt.Sprintf("the skill Codex would write is %d bytes; it writes none over 4,000", n)
		}
	}
	if why != "" {
		v.drop(c.file, "codex.commands", "codex plugin add does not turn this command into a skill: %s", why)
		return
	}
	full := p.namespace + ":" + name
	if reason := codexQualified(p.namespace, name); reason != "" {
		v.drop(c.file, "codex.skill-frontmatter", "%s", reason)
		return
	}
	v.Skills = append(v.Skills, full)
}

// codexBody is a command's text after its frontmatter, trimmed.
func codexBody(text string) string {
	first, rest, _ := strings.Cut(text, "\n")
	if strings.TrimRight(first, " \t") != "---" {
		return strings.TrimSpace(text)
	}
	for rest != "" {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if strings.TrimRight(line, " \t") == "---" {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

// codexSkillSize is the size in bytes of the SKILL.md codex plugin add writes for a
// command: a frontmatter with the name and the description (quoted), a heading, a
// sentence naming the command (its path without .md, / as -), and the body.
func codexSkillSize(name, desc, command, body string) int {
	if body == "" {
		body = "No command template body was found."
	}
	quoted := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(desc)
	s := "---\nname: \"" + name + "\"\ndescription: \"" + quoted + "\"\n---\n\n# " + name +
		"\n\nUse this skill when the user asks to run the migrated source command `" + strings.ReplaceAll(command, "/", "-") +
		"`.\n\n## Command Template\n\n" + body + "\n"
	return len(s)
}
