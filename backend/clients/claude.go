package clients

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/skill"
)

// ClaudeManifest is the file Claude Code reads for a plugin's name and components.
const ClaudeManifest = ".claude-plugin/plugin.json"

// claudeSeen is the client version the observed rules were seen on.
const claudeSeen = "claude 2.1.197"

// Issue codes of the Claude model. Stable: tools match on them.
const (
	CodeClaudeManifest = "claude.manifest-refused"
	CodeClaudePath     = "claude.path-not-found"
	CodeClaudeDisabled = "claude.plugin-disabled"
	CodeClaudeNeeds    = "claude.needs-plugins"
)

// The Claude Code rules. Each observed rule names the fixture it was seen on
// (testdata/clients/claude/<case>), which TestClaudeFixtures runs through the real claude.
var claudeRules = []Rule{
	{ID: "claude.manifest-location", Client: Claude, Says: "Claude reads .claude-plugin/plugin.json; a root plugin.json (Agent Plugins or any other) is ignored", Source: claudeSeen + ": root-plugin-json-ignored, root-and-claude-manifest"},
	{ID: "claude.no-manifest", Client: Claude, Says: "without .claude-plugin/plugin.json the plugin is named after its folder and loads from the standard layout", Source: claudeSeen + ": no-manifest-folder-name"},
	{ID: "claude.manifest-json", Client: Claude, Says: "a manifest that cannot be read or is not a JSON object refuses the whole plugin", Source: claudeSeen + ": manifest-invalid-json"},
	{ID: "claude.manifest-fields", Client: Claude, Says: "a manifest field of the wrong type or form refuses the whole plugin: name a non-empty string without spaces (a tab is taken); $schema, displayName, version, description, license, repository strings; author an object with a non-empty string name and string email and url; homepage a URL as a browser parses it (any scheme; http, https, ws, wss and ftp need a host; a port up to 65535; a number-ended host a valid IPv4 address); keywords a list of strings; defaultEnabled true or false; settings an object; dependencies a list of plugin names (name or name@marketplace) or {name, marketplace} objects; userConfig options with a type, title and description; channels with a server; monitors with a name, command and description", Source: claudeSeen + ": manifest-homepage-port-too-big, manifest-homepage-scp-like, manifest-homepage-percent-host, manifest-homepage-bad-ipv4, manifest-homepage-trailing-nbsp, manifest-userconfig-no-title, manifest-userconfig-valid, manifest-channels-no-server, manifest-monitors-no-command, manifest-experimental-string, manifest-author-string, manifest-author-name-empty, manifest-author-email-number, manifest-keywords-string, manifest-repository-object, manifest-name-spaces, manifest-name-with-tab, manifest-version-number, manifest-homepage-not-url, manifest-homepage-no-host, manifest-homepage-file-url, manifest-schema-number, manifest-displayname-number, manifest-defaultenabled-string, manifest-settings-string, manifest-dependencies-string, manifest-dependencies-bad-name"},
	{ID: "claude.manifest-paths", Client: Claude, Says: "component paths (skills, commands, agents, hooks, mcpServers, outputStyles, lspServers, themes, workflows) must start with ./; agents name .md files, hooks and lspServers .json files, mcpServers .json, .mcpb or .dxt files (or an https URL of a .mcpb or .dxt); a \"commands\" object maps each name to either a source path or inline content, not both; an inline MCP server is an object of a known type (stdio with a command, http, sse or ws with a url) whose members have their types; inline hooks map events Claude knows (case matters) to matchers with hooks of a known type; an inline LSP server has a command and extensionToLanguage and no other member than its schema's; otherwise the whole plugin is refused; .. is not refused (a skills path may leave the plugin)", Source: claudeSeen + ": hooks-inline-event-case, hooks-inline-hook-without-type, hooks-inline-matcher-without-hooks, lspservers-inline-no-extensions, lspservers-inline-unknown-member, lspservers-inline-valid, mcpservers-inline-timeout-unsafe, mcpservers-inline-tool-permission, commands-object-empty-source, commands-object-allowedtools-string, path-without-dot-slash, agents-folder, hooks-path-not-json, lspservers-path-not-json, mcpservers-path-not-json, mcpservers-path-mcpb, mcpservers-url-mcpb, mcpservers-inline-empty, mcpservers-inline-type-unknown, commands-object-no-source, commands-object-source-and-content"},
	{ID: "claude.default-enabled", Client: Claude, Says: "\"defaultEnabled\": false leaves the plugin off", Source: claudeSeen + ": default-enabled-false"},
	{ID: "claude.dependencies", Client: Claude, Says: "a plugin whose \"dependencies\" name other plugins is loaded only when those plugins are loaded too (given with --plugin-dir beside it, or enabled); alone it is left out; naming itself needs nothing", Source: claudeSeen + ": manifest-dependencies-unmet, manifest-dependencies-empty, manifest-dependencies-self"},
	{ID: "claude.skills-default", Client: Claude, Says: "skills/<folder>/SKILL.md are skills named plugin:<folder>, whatever their frontmatter name; deeper folders, loose .md files and skill.md are not skills", Source: claudeSeen + ": skill-name-differs-from-folder, skill-nested-two-levels, skill-loose-md-file, skill-lowercase-skill-md"},
	{ID: "claude.skill-id", Client: Claude, Says: "in a skill id every character other than letters, digits, _ and - becomes a hyphen (.hidden → -hidden), counted in UTF-16 code units (an emoji becomes two); two folders that end up with one id are both listed", Source: claudeSeen + ": skill-folder-name-punctuation, skill-hidden-folder, skill-folder-emoji"},
	{ID: "claude.skill-folder-named", Client: Claude, Says: "a path that names a skill folder itself (a \"skills\" entry, skills/SKILL.md, a root SKILL.md without skills/) is named by its frontmatter name, trimmed", Source: claudeSeen + ": skills-path-skill-folder-name-differs, skill-md-directly-in-skills-dir, root-skill-md, skills-path-name-padded"},
	{ID: "claude.skills-custom", Client: Claude, Says: "\"skills\" paths are loaded in addition to skills/: a folder holding SKILL.md is one skill, any other folder is a folder of skills", Source: claudeSeen + ": custom-skills-array; the manifest schema's field description"},
	{ID: "claude.frontmatter", Client: Claude, Says: "CRLF, a long description, an unquoted colon or bracket in a value are tolerated: a block that is not YAML is read again with the values of its key: value lines quoted where they hold one of {}[]*&#!|>%@` or \": \" (keys of letters, _ and - only; values already quoted or a flow list are left) and each tab that starts a line made two spaces; white space after the opening ---; the block ends at the first --- after it, even mid-line; a repeated key, at any depth (its last value stands); a key that is not text (1:) is text; a date, even tagged !!timestamp, is text; bytes that are not UTF-8 read as U+FFFD; a value is trimmed as JavaScript trims (U+FEFF too); the retry does not quote a line that ends in CR; a byte-order mark, a missing or unclosed block, a second document after ..., a quoted value run onto a line indented no deeper than its key, or a block still not YAML leave no frontmatter", Source: claudeSeen + ": skill-crlf, skill-crlf-retry, skill-colon-in-value, skill-invalid-yaml, skill-invalid-utf8, skill-utf8-bom, skill-description-bom-only, skill-tab-indented-line, skill-tab-nested-map, skill-retry-*, skill-open-fence-spaces, skill-dashes-mid-line, skill-repeated-key, skill-nested-repeated-key, skill-numeric-key, skill-explicit-timestamp, skill-second-document, skill-quoted-continuation-*, skills-path-name-date"},
	{ID: "claude.skill-description", Client: Claude, Says: "a skill without a description (or when_to_use) is not listed among the session's skills; a number or boolean there counts as its text; so is a SKILL.md folder under commands", Source: claudeSeen + ": skill-no-description, skill-no-frontmatter, skill-empty-frontmatter, skill-description-number, commands-skill-no-description"},
	{ID: "claude.user-invocable", Client: Claude, Says: "a skill whose user-invocable is there and not true (or \"true\"): false, \"false\", yes, no, empty, is loaded for the model but not listed among the session's skills", Source: claudeSeen + ": user-invocable-false, skill-user-invocable-yes, skill-user-invocable-empty"},
	{ID: "claude.commands", Client: Claude, Says: "commands/**/*.md (.md in any case; a link, to a file or a folder, is not followed) are slash commands plugin:<path with : for />, not skills; a folder with SKILL.md (in any case) under commands is a skill; a \"commands\" field replaces commands/ and may map names to files; a path it names twice is loaded once", Source: claudeSeen + ": command-*, commands-path-*"},
	{ID: "claude.workflows", Client: Claude, Says: "workflows/*.js that export a meta with a name are listed among the skills as plugin:<name>; a \"workflows\" field turns that folder off and its own paths are not listed", Source: claudeSeen + ": workflows-meta; anthropics/claude-plugins-official code-modernization, claude-security"},
	{ID: "claude.command-dmi", Client: Claude, Says: "a command with disable-model-invocation: true (or \"true\") and a description is listed among the skills as well as the slash commands; one without a description is only a slash command; one whose user-invocable is not true is in neither", Source: claudeSeen + ": command-disable-model-invocation, command-dmi-string, command-dmi-no-description, command-user-invocable-no; anthropics/claude-plugins-official cwc-makers"},
	{ID: "claude.agents", Client: Claude, Says: "agents/**/*.md are agents named plugin:<frontmatter name, else file name>; an \"agents\" field (files) replaces agents/", Source: claudeSeen + ": agent-*, agents-path-*"},
	{ID: "claude.missing-path", Client: Claude, Says: "a component path that does not exist is reported and skipped; the plugin still loads", Source: claudeSeen + ": agents-path-missing-file, hooks-path-missing"},
}

// claudeManifest is what Claude takes from .claude-plugin/plugin.json.
type claudeManifest struct {
	name            string
	skills          []string // custom skills paths, slash form without ./
	commands        []string // nil: commands/ ; set: these instead
	commandsSet     bool
	commandMap      map[string]string // name → file, from the object form
	agents          []string
	agentsSet       bool
	workflows       []string // nil: workflows/ ; set: these instead
	disabledDefault bool
	needs           []string // the plugins it depends on (name or name@marketplace)
	hookFiles       []string // the "hooks" paths that name files, slash form without ./
	rel             claudeRelease
}

// JudgeClaude says what `claude --plugin-dir dir` loads, by the rules of the newest
// modelled Claude Code.
func JudgeClaude(dir string) Verdict { return JudgeClaudeAs(dir, "") }

// JudgeClaudeAs says what `claude --plugin-dir dir` loads when version is the Claude Code
// installed ("" for none): see claudeReleaseFor.
func JudgeClaudeAs(dir, version string) Verdict {
	return judgeClaude(dir, newFiles(), claudeReleaseFor(version))
}

func judgeClaude(dir string, r *files, rel claudeRelease) Verdict {
	abs, _ := filepath.Abs(dir)
	root, err := r.realpath(abs)
	if err != nil {
		return notPackage("the folder cannot be opened: " + describeRead(err))
	}
	v := Verdict{Package: true}
	m := claudeManifest{name: filepath.Base(abs), rel: rel}
	if r.exists(filepath.Join(root, filepath.FromSlash(ClaudeManifest))) {
		v.Manifest = ClaudeManifest
		v.Why = "Claude reads .claude-plugin/plugin.json"
		if r.exists(filepath.Join(root, "plugin.json")) {
			v.Why += "; the root plugin.json is not Claude's and is ignored"
		}
		var ok bool
		if m, ok = readClaudeManifest(root, &v, rel); !ok {
			v.Loads = false
			v.finish()
			return v
		}
	} else {
		v.Why = "no .claude-plugin/plugin.json: Claude names the plugin after its folder"
		if r.exists(filepath.Join(root, "plugin.json")) {
			v.Why += " and ignores the root plugin.json"
		}
		if rel.needsComponent && !slices.ContainsFunc(claudeComponents, func(c string) bool { return r.exists(filepath.Join(root, c)) }) {
			v.Why = "no .claude-plugin/plugin.json and nothing Claude loads (skills/, commands/, agents/, hooks/, .mcp.json, …): Claude " + rel.version + " skips the folder without a word"
			v.finish()
			return v
		}
	}
	if rel.hookFiles != nil && !claudeHookFiles(root, &v, m, r) {
		v.finish()
		return v
	}
	v.Plugin = m.name
	if m.disabledDefault {
		v.Issues.Add(issue.Warning, CodeClaudeDisabled, ClaudeManifest, "/defaultEnabled", "\"defaultEnabled\": false: Claude leaves this plugin off until the user enables it")
		v.Why = "the manifest sets \"defaultEnabled\": false, so Claude leaves the plugin off"
		v.finish()
		return v
	}
	claudeSkills(root, &v, m, r)
	claudeCommands(root, &v, m, r)
	claudeAgents(root, &v, m, r)
	claudeWorkflows(root, &v, m, r)
	sort.Strings(v.Skills)
	v.Loads = true
	if len(m.needs) > 0 {
		// Alone it is left out; beside what it needs, it loads what the lists say.
		v.Loads, v.Needs = false, m.needs
		v.Issues.Add(issue.Warning, CodeClaudeNeeds, ClaudeManifest, "/dependencies", "Claude loads this plugin only when the plugins it depends on are loaded too: %s; give them to the same launch", strings.Join(m.needs, ", "))
		v.Why = "it depends on " + strings.Join(m.needs, ", ") + ": Claude loads it only beside them"
	}
	v.finish()
	return v
}

// readClaudeManifest applies claude.manifest-json, -fields and -paths.
func readClaudeManifest(root string, v *Verdict, rel claudeRelease) (claudeManifest, bool) {
	m := claudeManifest{rel: rel}
	refuse := func(ptr, format string, args ...any) (claudeManifest, bool) {
		msg := sprintf(format, args...)
		v.Issues = append(v.Issues, issue.Issue{Severity: issue.Error, Code: CodeClaudeManifest, Path: ClaudeManifest, Pointer: ptr, Line: 1,
			Message: "Claude Code refuses the whole plugin: " + msg})
		v.Why = "Claude refuses the manifest: " + msg
		return m, false
	}
	data, err := capread.ReadFile(filepath.Join(root, filepath.FromSlash(ClaudeManifest)), capread.ManifestMax)
	if err != nil {
		return refuse("", "%s cannot be read (%s)", ClaudeManifest, capread.Describe(err))
	}
	if rel.skipBOM {
		data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	}
	var raw any
	if err := json.Unmarshal(data, &raw); err != nil {
		return refuse("", "%s is not valid JSON (%v); fix the syntax", ClaudeManifest, err)
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		return refuse("", "%s must hold a JSON object", ClaudeManifest)
	}
	for _, f := range claudeFields {
		val, present := obj[f.key]
		if !present || rel.unchecked[f.key] {
			continue
		}
		check := f.check
		if c := rel.checks[f.key]; c != nil {
			check = c
		}
		if msg := check(val); msg != "" {
			return refuse("/"+f.key, "%q %s", f.key, msg)
		}
	}
	name, ok := obj["name"].(string)
	if !ok {
		return refuse("/name", "it has no \"name\"; add a kebab-case name such as \"my-plugin\"")
	}
	m.name = name
	m.skills = pathList(obj["skills"])
	switch c := obj["commands"].(type) {
	case nil:
	case map[string]any:
		m.commandsSet, m.commandMap = true, map[string]string{}
		for k, e := range c {
			src := ""
			if eo, ok := e.(map[string]any); ok {
				src, _ = eo["source"].(string)
			}
			m.commandMap[k] = strings.TrimPrefix(src, "./")
		}
	default:
		m.commandsSet, m.commands = true, pathList(c)
	}
	if h, ok := obj["hooks"].(string); ok {
		m.hookFiles = pathList(h)
	} else if l, ok := obj["hooks"].([]any); ok {
		for _, e := range l {
			if s, ok := e.(string); ok {
				m.hookFiles = append(m.hookFiles, pathList(s)...)
			}
		}
	}
	if a, present := obj["agents"]; present {
		m.agentsSet, m.agents = true, pathList(a)
	}
	if w, present := obj["workflows"]; present {
		m.workflows = pathList(w)
		if m.workflows == nil {
			m.workflows = []string{}
		}
	}
	if d, ok := obj["defaultEnabled"].(bool); ok && !d {
		m.disabledDefault = true
	}
	if deps, ok := obj["dependencies"].([]any); ok {
		for _, d := range deps {
			need := ""
			switch x := d.(type) {
			case string:
				need = claudeVersionPin().ReplaceAllString(x, "")
			case map[string]any:
				need, _ = x["name"].(string)
				if mk, ok := x["marketplace"].(string); ok {
					need += "@" + mk
				}
			}
			// A plugin that names itself (in its own marketplace, inline for
			// --plugin-dir) has what it needs.
			if plugin, market, _ := strings.Cut(need, "@"); plugin != m.name || market != "" && market != "inline" {
				m.needs = append(m.needs, need)
			}
		}
		slices.Sort(m.needs)
		m.needs = slices.Compact(m.needs)
	}
	return m, true
}

// claudeField is one manifest member's check: "" when Claude accepts the value, else what
// is wrong, for "<key> <what>".
type claudeField struct {
	key   string
	check func(any) string
}

var claudeFields = []claudeField{
	{"name", claudeName},
	{"$schema", isStr},
	{"displayName", isStr},
	{"version", isStr},
	{"description", isStr},
	{"license", isStr},
	{"repository", func(v any) string {
		if _, ok := v.(string); !ok {
			return "must be a URL string such as \"https://github.com/owner/repo\", not " + kindOf(v)
		}
		return ""
	}},
	{"homepage", func(v any) string {
		s, ok := v.(string)
		if !ok {
			return "must be a URL string"
		}
		if !isURL(s) {
			return "must be a full URL such as \"https://example.com\""
		}
		return ""
	}},
	{"author", func(v any) string {
		o, ok := v.(map[string]any)
		if !ok {
			return "must be an object such as {\"name\": \"Your Name\"}, not " + kindOf(v)
		}
		if name, ok := o["name"].(string); !ok || name == "" {
			return "must have a non-empty string \"name\""
		}
		for _, k := range []string{"email", "url"} {
			if e, ok := o[k]; ok {
				if _, ok := e.(string); !ok {
					return "\"" + k + "\" must be a string, not " + kindOf(e)
				}
			}
		}
		return ""
	}},
	{"keywords", func(v any) string {
		l, ok := v.([]any)
		if !ok {
			return "must be a list of strings such as [\"git\"], not " + kindOf(v)
		}
		for _, e := range l {
			if _, ok := e.(string); !ok {
				return "must hold only strings"
			}
		}
		return ""
	}},
	{"defaultEnabled", isBool},
	{"settings", func(v any) string {
		if _, ok := v.(map[string]any); !ok {
			return "must be an object of settings, not " + kindOf(v)
		}
		return ""
	}},
	{"dependencies", claudeDependencies},
	{"skills", componentPaths("")},
	{"commands", func(v any) string {
		if o, ok := v.(map[string]any); ok {
			return claudeCommandMap(o)
		}
		return componentPaths("")(v)
	}},
	{"agents", componentPaths(".md")},
	{"outputStyles", componentPaths("")},
	{"themes", componentPaths("")},
	{"workflows", componentPaths("")},
	{"hooks", objectOrPaths(claudeHooks, ".json")},
	{"mcpServers", objectOrPaths(claudeMCPServers, ".json", ".mcpb", ".dxt")},
	{"lspServers", objectOrPaths(claudeLSPServers, ".json")},
	{"userConfig", claudeUserConfig},
	{"channels", claudeChannels},
	{"monitors", claudeMonitors},
	{"experimental", claudeExperimental},
}

// claudeHookFiles applies the hooks-file check of the release (2.1.328): hooks/hooks.json
// and every file the manifest's "hooks" names, when it is a JSON object with a "hooks"
// member, must hold hooks as the release checks inline ones, or the whole plugin is
// refused. A file that is not there or not JSON is passed over. It reports whether the
// plugin may load.
func claudeHookFiles(root string, v *Verdict, m claudeManifest, r *files) bool {
	for _, f := range append([]string{"hooks/hooks.json"}, m.hookFiles...) {
		data, err := r.read(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			continue
		}
		var doc map[string]any
		if json.Unmarshal(data, &doc) != nil || doc["hooks"] == nil {
			continue
		}
		msg := "must be an object of events, not " + kindOf(doc["hooks"])
		if hooks, ok := doc["hooks"].(map[string]any); ok {
			msg = m.rel.hookFiles(hooks)
		}
		if msg != "" {
			msg = sprintf("%s: \"hooks\" %s", f, strings.TrimPrefix(msg, "(inline) "))
			v.Issues = append(v.Issues, issue.Issue{Severity: issue.Error, Code: CodeClaudeManifest, Path: f, Pointer: "/hooks", Line: 1,
				Message: "Claude Code " + m.rel.version + " refuses the whole plugin: " + msg})
			v.Why = "Claude " + m.rel.version + " refuses the hooks file " + msg
			return false
		}
	}
	return true
}

// claudeName is the name check of 2.1.197: a non-empty string without spaces.
func claudeName(v any) string {
	s, ok := v.(string)
	switch {
	case !ok:
		return "must be a string"
	case s == "":
		return "must not be empty"
	case strings.Contains(s, " "):
		return "must not contain spaces; use kebab-case such as \"" + SuggestKebab(s) + "\""
	}
	return ""
}

// objectOrPaths accepts an inline object (checked by inline, when set), component paths
// naming files with one of the suffixes, or a list of both; for .mcpb and .dxt, an
// https URL of such a file too.
func objectOrPaths(inline func(map[string]any) string, suffixes ...string) func(any) string {
	one := func(v any) string {
		if o, ok := v.(map[string]any); ok && inline != nil {
			return inline(o)
		} else if ok {
			return ""
		}
		s, ok := v.(string)
		if !ok {
			return "must be a path string, an object or a list of them, not " + kindOf(v)
		}
		bundle := slices.Contains(suffixes, ".mcpb") && (strings.HasSuffix(s, ".mcpb") || strings.HasSuffix(s, ".dxt"))
		if bundle && !strings.HasPrefix(s, "./") && isURL(s) {
			return ""
		}
		if msg := componentPaths("")(s); msg != "" {
			return msg
		}
		for _, suf := range suffixes {
			if strings.HasSuffix(s, suf) {
				return ""
			}
		}
		return "paths must name " + strings.Join(suffixes, ", ") + " files; ./" + strings.TrimPrefix(s, "./") + " does not"
	}
	return func(v any) string {
		if l, ok := v.([]any); ok {
			for _, e := range l {
				if msg := one(e); msg != "" {
					return msg
				}
			}
			return ""
		}
		return one(v)
	}
}

// componentPaths checks a path or list of paths: each starts with ./ and, when suffix is
// set, names such a file. A .. after the ./ is not refused, as Claude does not refuse it
// (the reading then looks outside the package).
func componentPaths(suffix string) func(any) string {
	one := func(s string) string {
		switch {
		case !strings.HasPrefix(s, "./"):
			return "paths must start with ./ (relative to the plugin root), such as \"./" + strings.TrimLeft(s, "/.") + "\""
		case suffix != "" && !strings.HasSuffix(s, suffix):
			return "entries must name " + suffix + " files, not a folder; list each file, or leave the field out to load " + strings.TrimSuffix(suffix, ".md") + "agents/"
		}
		return ""
	}
	return func(v any) string {
		switch x := v.(type) {
		case string:
			return one(x)
		case []any:
			for _, e := range x {
				s, ok := e.(string)
				if !ok {
					return "entries must be path strings"
				}
				if msg := one(s); msg != "" {
					return msg
				}
			}
			return ""
		}
		return "must be a path string or a list of paths, not " + kindOf(v)
	}
}

func hasDotDot(p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return true
		}
	}
	return false
}

// pathList reads a path or list of paths into slash-form paths without "./".
func pathList(v any) []string {
	var out []string
	add := func(s string) { out = append(out, path.Clean(strings.TrimPrefix(s, "./"))) }
	switch x := v.(type) {
	case string:
		add(x)
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok {
				add(s)
			}
		}
	}
	return out
}

// claudeSkills applies claude.skills-default, -custom, -skill-description and
// -user-invocable.
func claudeSkills(root string, v *Verdict, m claudeManifest, r *files) {
	seen := map[string]bool{}
	// add loads the skill in folder (its SKILL.md is file); direct is set when a path
	// names the skill folder itself, which Claude then names by the frontmatter name
	// rather than the folder.
	add := func(folder, file string, direct bool) {
		key := path.Clean(folder)
		if seen[key] {
			return // the same folder named by two paths loads once
		}
		seen[key] = true
		data, err := r.read(file)
		if err != nil {
			v.drop(folder, "claude.skills-default", "SKILL.md cannot be read: %s", describeRead(err))
			return
		}
		f := claudeFrontmatter(data, r, m.rel)
		base := path.Base(folder)
		if folder == "" || folder == "." {
			base = path.Base(filepath.ToSlash(root))
		}
		if n, _ := f.str("name"); direct && jsTrim(n) != "" {
			base = jsTrim(n) // Claude trims the name before it becomes an id
		}
		name := m.name + ":" + claudeIDPart(base)
		if !f.described() {
			why := "it has no description"
			switch {
			case hasBOM(data) && !m.rel.skipBOM:
				why = "it starts with a byte-order mark, so Claude finds no frontmatter and no description; save it as UTF-8 without BOM"
			case !f.found:
				why = "it has no frontmatter (a --- block with a description)"
			case f.err != nil:
				why = "its frontmatter is not valid YAML even with values quoted: " + firstLine(f.err.Error())
			}
			v.drop(folder, "claude.skill-description", "not listed: %s", why)
			return
		}
		if m.rel.collapseIDs && slices.ContainsFunc(v.loaded, func(l LoadedSkill) bool { return l.Name == name }) {
			v.drop(folder, "claude.skill-id", "another skill folder has the same id %s: Claude %s lists it once", name, m.rel.version)
			return
		}
		v.loaded = append(v.loaded, LoadedSkill{Name: name, Dir: folder})
		if f.userHidden(m.rel.boolWords) {
			v.drop(folder, "claude.user-invocable", "user-invocable is not true: loaded for the model, not listed among the skills")
			return
		}
		v.Skills = append(v.Skills, name)
	}
	scan := func(rel string) bool {
		at := filepath.Join(root, filepath.FromSlash(rel))
		if file := child(at, skill.FileName); r.isFile(file) {
			add(rel, file, true)
			return true
		}
		entries, err := r.readDir(at)
		if err != nil {
			return false
		}
		// Room for every entry: nearly every entry of a skills folder is a skill.
		if v.Skills == nil {
			v.Skills = make([]string, 0, len(entries))
		}
		if v.loaded == nil {
			v.loaded = make([]LoadedSkill, 0, len(entries))
		}
		paths := r.pathsOf(at, entries)
		for i, e := range entries {
			dir, file := paths[i][0], paths[i][1]
			// A plain folder needs no look-up; a link is followed.
			if (e.IsDir() || r.isDir(dir)) && r.isFile(file) {
				add(path.Join(rel, e.Name()), file, false)
			}
		}
		return true
	}
	scan("skills")
	for _, s := range m.skills {
		if !scan(s) {
			v.Issues.Add(issue.Warning, CodeClaudePath, ClaudeManifest, "/skills", "\"skills\" names ./%s, which does not exist; Claude skips it", s)
		}
	}
	// A plugin that is itself one skill: SKILL.md at the root and no skills/ folder.
	if file := filepath.Join(root, skill.FileName); !r.isDir(filepath.Join(root, "skills")) && len(m.skills) == 0 && r.isFile(file) {
		add("", file, true)
	}
}

// claudeIDPart is a folder or skill name as Claude puts it in an id: every character
// other than a-z, A-Z, 0-9, _ and - becomes a hyphen, counted in UTF-16 code units as
// JavaScript counts them, so a character beyond U+FFFF (an emoji) becomes two
// (claude.skill-id).
func claudeIDPart(s string) string {
	if strings.IndexFunc(s, func(r rune) bool {
		return !(r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s // nothing to replace: the name as it is, no copy
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'):
			b.WriteRune(r)
		case r > 0xFFFF:
			b.WriteString("--")
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// claudeCommands applies claude.commands.
func claudeCommands(root string, v *Verdict, m claudeManifest, r *files) {
	addFile := func(file, name string) {
		data, err := r.read(filepath.Join(root, filepath.FromSlash(file)))
		if err != nil {
			v.Issues.Add(issue.Warning, CodeClaudePath, ClaudeManifest, "/commands", "command ./%s cannot be read (%s); Claude skips it", file, describeRead(err))
			return
		}
		f := claudeFrontmatter(data, r, m.rel)
		desc, _ := f.str("description")
		if f.userHidden(m.rel.boolWords) {
			v.drop(file, "claude.commands", "user-invocable is not true: the command is not offered")
			return
		}
		v.Commands = append(v.Commands, Component{Name: m.name + ":" + name, Description: desc, File: file})
		// A command the model may not invoke is listed among the session's skills too,
		// when it says what it is for.
		if boolWord(f.fields["disable-model-invocation"], m.rel.boolWords) && f.described() {
			v.Skills = append(v.Skills, m.name+":"+name)
		}
	}
	skill := func(folder, file, prefix string) {
		name := m.name + ":" + prefix + claudeIDPart(path.Base(folder))
		if data, err := r.read(filepath.Join(root, filepath.FromSlash(folder), file)); err != nil || !claudeFrontmatter(data, r, m.rel).described() {
			v.drop(folder, "claude.skill-description", "not listed: it has no description")
			return
		}
		v.Skills = append(v.Skills, name)
		v.loaded = append(v.loaded, LoadedSkill{Name: name, Dir: folder})
	}
	var walk func(rel, prefix string)
	walk = func(rel, prefix string) {
		entries, err := r.readDir(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return
		}
		for _, e := range entries {
			if e.Type()&fs.ModeSymlink != 0 {
				continue // Claude's commands walker does not follow links, to files or folders
			}
			p := path.Join(rel, e.Name())
			full := filepath.Join(root, filepath.FromSlash(p))
			if e.IsDir() {
				if file := skillFileIn(full, r); file != "" {
					skill(p, file, prefix)
				} else {
					walk(p, prefix+e.Name()+":")
				}
				continue
			}
			if strings.EqualFold(path.Ext(e.Name()), ".md") { // Build.MD is the command Build.MD
				addFile(p, prefix+strings.TrimSuffix(e.Name(), ".md"))
			}
		}
	}
	switch {
	case m.commandMap != nil:
		names := make([]string, 0, len(m.commandMap))
		for k := range m.commandMap {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			v.Commands = append(v.Commands, Component{Name: m.name + ":" + k, File: m.commandMap[k]})
		}
	case m.commandsSet:
		seen := map[string]bool{}
		for _, c := range m.commands {
			if seen[path.Clean(c)] {
				continue // a path named twice is loaded once
			}
			seen[path.Clean(c)] = true
			full := filepath.Join(root, filepath.FromSlash(c))
			switch {
			case r.isFile(filepath.Join(full, "SKILL.md")):
				skill(c, "SKILL.md", "")
			case r.isDir(full):
				walk(c, "")
			case r.isFile(full):
				addFile(c, strings.TrimSuffix(path.Base(c), ".md"))
			default:
				v.Issues.Add(issue.Warning, CodeClaudePath, ClaudeManifest, "/commands", "\"commands\" names ./%s, which does not exist; Claude skips it", c)
			}
		}
	default:
		walk("commands", "")
	}
}

// skillFileIn returns the name of the file in the folder dir that makes it a skill under
// commands: SKILL.md in any case (Claude matches /^skill\.md$/i), or "" when none.
func skillFileIn(dir string, r *files) string {
	entries, err := r.readDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if strings.EqualFold(e.Name(), "SKILL.md") && r.isFile(filepath.Join(dir, e.Name())) {
			return e.Name()
		}
	}
	return ""
}

// claudeAgents applies claude.agents.
func claudeAgents(root string, v *Verdict, m claudeManifest, r *files) {
	addFile := func(file, prefix string) {
		data, err := r.read(filepath.Join(root, filepath.FromSlash(file)))
		if err != nil {
			v.Issues.Add(issue.Warning, CodeClaudePath, ClaudeManifest, "/agents", "agent ./%s cannot be read (%s); Claude skips it", file, describeRead(err))
			return
		}
		f := claudeFrontmatter(data, r, m.rel)
		name, _ := f.str("name")
		if name == "" {
			name = strings.TrimSuffix(path.Base(file), ".md")
		}
		desc, _ := f.str("description")
		for _, a := range v.Agents {
			if a.Name == m.name+":"+prefix+name {
				return // of two agents with one name the first file wins
			}
		}
		v.Agents = append(v.Agents, Component{Name: m.name + ":" + prefix + name, Description: desc, File: file})
	}
	var walk func(rel, prefix string)
	walk = func(rel, prefix string) {
		entries, err := r.readDir(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return
		}
		for _, e := range entries {
			p := path.Join(rel, e.Name())
			switch {
			case r.isDir(filepath.Join(root, filepath.FromSlash(p))):
				walk(p, prefix+e.Name()+":")
			case strings.HasSuffix(e.Name(), ".md"):
				addFile(p, prefix)
			}
		}
	}
	if !m.agentsSet {
		walk("agents", "")
		return
	}
	for _, a := range m.agents {
		if !r.isFile(filepath.Join(root, filepath.FromSlash(a))) {
			v.Issues.Add(issue.Warning, CodeClaudePath, ClaudeManifest, "/agents", "\"agents\" names ./%s, which does not exist; Claude skips it", a)
			continue
		}
		addFile(a, "")
	}
}

// workflowMeta finds the name in a workflow script's `export const meta = {name: …}`.
var workflowMeta = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`export\s+const\s+meta\s*=\s*\{[^}]*?\bname\s*:\s*["'\x60]([^"'\x60]+)["'\x60]`)
})

// claudeWorkflows applies claude.workflows: workflows/*.js (or the manifest's
// "workflows") that export a meta with a name are listed among the skills.
func claudeWorkflows(root string, v *Verdict, m claudeManifest, r *files) {
	if m.workflows != nil {
		// Observed: the field turns the default folder off, and its own paths are not
		// listed either (claude 2.1.197 notes "Default workflows/ folder is ignored").
		for _, d := range m.workflows {
			v.drop(d, "claude.workflows", "workflows named in the manifest are not listed by this Claude version")
		}
		return
	}
	for _, d := range []string{"workflows"} {
		full := filepath.Join(root, filepath.FromSlash(d))
		var files []string
		if r.isFile(full) {
			files = []string{d}
		} else if entries, err := r.readDir(full); err == nil {
			for _, e := range entries {
				if strings.HasSuffix(e.Name(), ".js") {
					files = append(files, path.Join(d, e.Name()))
				}
			}
		}
		for _, f := range files {
			data, err := capread.ReadFile(filepath.Join(root, filepath.FromSlash(f)), capread.SkillMax)
			if err != nil {
				continue
			}
			if sub := workflowMeta().FindSubmatch(data); sub != nil {
				v.Skills = append(v.Skills, m.name+":"+string(sub[1]))
			} else {
				v.drop(f, "claude.workflows", "no `export const meta = {name: …}`: Claude does not list it")
			}
		}
	}
}

// claudeFrontmatter reads frontmatter the way the Claude release rel does: CRLF line
// endings are fine; the file must start with "---" (a byte-order mark in front means no
// frontmatter before 2.1.328, which passes over it), the
// block is cut as claudeFenced says; a
// block that is not valid YAML is read again with every top-level "key: value" line's
// value quoted, which rescues unquoted colons and brackets but not, for example, a
// tab-indented line (claude.frontmatter).
func claudeFrontmatter(data []byte, r *files, rel claudeRelease) front {
	if rel.skipBOM {
		data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	}
	block, ok := claudeFenced(claudeText(data, r))
	if !ok {
		return front{}
	}
	parse := func(block string) (map[string]any, error) {
		m, err := r.parseYAML(block)
		if err != nil {
			if m, ok := lastKeyWins(block); ok { // Bun's YAML takes a repeated key; yaml.v3 refuses it
				return m, nil
			}
			return m, err
		}
		if err := r.yaml12Refuses(block); err != nil {
			return nil, err
		}
		if multiDocument(block) { // Bun reads a list of documents, which is no object
			return map[string]any{}, nil
		}
		return m, nil
	}
	m, err := parse(block)
	if err == nil {
		return front{found: true, fields: m}
	}
	if m, err2 := parse(claudeRetry(block)); err2 == nil {
		return front{found: true, fields: m}
	}
	return front{found: true, err: err}
}

// claudeText is a SKILL.md as Claude reads it: bytes that are not UTF-8 become U+FFFD,
// and line ends stay as they are (its retry does not quote a line that ends in CR).
func claudeText(data []byte, r *files) string {
	if !bytes.ContainsRune(data, '\r') && utf8.Valid(data) {
		return r.lf(data) // the same text, shared with the other readers
	}
	return strings.ToValidUTF8(string(data), "\uFFFD")
}

// claudeRetry is a block that is not YAML as Claude reads it again: on each line
// "key: value" (a key of letters, _ and -, white space after the colon) whose value is not
// quoted, nor a flow list, and holds one of {}[]*&#!|>%@` or ": ", the value is quoted;
// then every tab that starts a line becomes two spaces.
func claudeRetry(block string) string {
	lines := strings.Split(block, "\n")
	for i, line := range lines {
		sub := claudeRetryPair().FindStringSubmatch(line)
		if sub == nil {
			continue
		}
		key, val := sub[1], sub[2]
		quoted := len(val) >= 2 && (val[0] == '"' && val[len(val)-1] == '"' || val[0] == '\'' && val[len(val)-1] == '\'')
		if quoted || !strings.ContainsAny(val, "{}[]*&#!|>%@`") && !strings.Contains(val, ": ") {
			continue
		}
		if strings.HasPrefix(val, "[") && strings.HasSuffix(val, "]") {
			var l any
			if yaml.Unmarshal([]byte(val), &l) == nil {
				if _, isList := l.([]any); isList {
					continue
				}
			}
		}
		lines[i] = key + `: "` + strings.ReplaceAll(strings.ReplaceAll(val, `\`, `\\`), `"`, `\"`) + `"`
	}
	// JavaScript's /^\t+/gm: a line starts after \n, \r, U+2028 or U+2029.
	return leadingTabs().ReplaceAllStringFunc(strings.Join(lines, "\n"), func(t string) string {
		tabs := strings.TrimLeft(t, "\n\r\u2028\u2029")
		return t[:len(t)-len(tabs)] + strings.Repeat("  ", len(tabs))
	})
}

// claudeRetryPair is Claude's /^([a-zA-Z_-]+):\s+(.+)$/ on one line: JavaScript's \s and
// its . (which stops at \r, U+2028 and U+2029).
var (
	claudeRetryPair = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^([a-zA-Z_-]+):[\t\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]+([^\r\x{2028}\x{2029}]+)$`)
	})
	leadingTabs = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|[\n\r\x{2028}\x{2029}])\t+`) })
)

// described reports whether the frontmatter says what the skill is for, as Claude reads
// it: a description or when_to_use that is not blank, a number or boolean taken as its
// text (claude.skill-description).
func (f front) described() bool {
	for _, k := range []string{"description", "when_to_use"} {
		switch v := f.fields[k].(type) {
		case string:
			if jsTrim(v) != "" {
				return true
			}
		case bool, int, int64, uint64, float64, time.Time: // Bun keeps a !!timestamp as its text
			return true
		}
	}
	return false
}

// userHidden reports whether user-invocable is there and does not read as true (see
// boolWord; words for 2.1.328): any other value, an empty one included, hides the skill
// or command from the user (claude.user-invocable).
func (f front) userHidden(words bool) bool {
	ui, ok := f.fields["user-invocable"]
	return ok && !boolWord(ui, words)
}

// lastKeyWins reads a block whose mappings repeat a key, as Claude's YAML reader does:
// the last value of the key stands, at any depth (claude.frontmatter). ok is false for a
// block that is not valid YAML for another reason.
func lastKeyWins(block string) (map[string]any, bool) {
	var doc yaml.Node
	if yaml.Unmarshal([]byte(block), &doc) != nil || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, false
	}
	budget := 10000 // aliases followed: a block of nested aliases must not grow without end
	var value func(n *yaml.Node) (any, bool)
	value = func(n *yaml.Node) (any, bool) {
		if budget--; budget < 0 {
			return nil, false
		}
		switch n.Kind {
		case yaml.AliasNode:
			return value(n.Alias)
		case yaml.SequenceNode:
			l := make([]any, 0, len(n.Content))
			for _, c := range n.Content {
				v, ok := value(c)
				if !ok {
					return nil, false
				}
				l = append(l, v)
			}
			return l, true
		case yaml.MappingNode:
			m := map[string]any{}
			var merged []map[string]any
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, vn := n.Content[i], n.Content[i+1]
				v, ok := value(vn)
				if !ok {
					return nil, false
				}
				if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
					switch x := v.(type) {
					case map[string]any:
						merged = append(merged, x)
					case []any:
						for _, e := range x {
							if em, ok := e.(map[string]any); ok {
								merged = append(merged, em)
							}
						}
					}
					continue
				}
				var key any
				if decodeJS(k, &key) != nil {
					return nil, false
				}
				m[jsKey(key)] = v
			}
			for _, mm := range merged { // explicit keys win, then earlier merges
				for k, v := range mm {
					if _, set := m[k]; !set {
						m[k] = v
					}
				}
			}
			return m, true
		}
		var v any
		return v, decodeJS(n, &v) == nil
	}
	v, ok := value(doc.Content[0])
	if !ok {
		return nil, false
	}
	return v.(map[string]any), true
}

// claudeFenced cuts the frontmatter block as Claude's pattern does (^---\s*\n, then
// everything up to the first --- after it): the opening "---" may be followed by white
// space, blank lines included, up to its last newline; the block ends at the first
// "---" after that, even in the middle of a line ("title: a---b" ends it after "a").
// The newline before a "---" that starts a line is not part of the block, so that the
// block is the text every other reader cuts (and the catalog has parsed already).
func claudeFenced(s string) (string, bool) {
	if !strings.HasPrefix(s, "---") {
		return "", false
	}
	i, start := 3, -1
	for ; i < len(s) && strings.IndexByte(" \t\n\r\f\v", s[i]) >= 0; i++ {
		if s[i] == '\n' {
			start = i + 1
		}
	}
	if start < 0 {
		return "", false // "---" and no newline after its white space: no frontmatter
	}
	end := strings.Index(s[start:], "---")
	if end < 0 {
		return "", false
	}
	return strings.TrimSuffix(s[start:start+end], "\n"), true
}

// kindOf names a decoded JSON value's type for messages.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return "a value"
}

// jsTrim is JavaScript's String.prototype.trim: white space (U+FEFF and every space
// separator among it) and line terminators, but not NEL.
func jsTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		switch r {
		case '\t', '\n', '\v', '\f', '\r', ' ', '\u00a0', '\ufeff', '\u2028', '\u2029':
			return true
		}
		return unicode.Is(unicode.Zs, r)
	})
}
