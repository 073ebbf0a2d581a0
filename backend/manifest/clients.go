package manifest

import (
	"fmt"
	"path"
	"strings"

	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/jsondoc"
)

// kebab reports whether name has the form Claude Code and Cursor expect of their
// plugins: runs of a-z and 0-9 joined by single hyphens or dots.
func kebab(name string) bool {
	sep := true // at the start, as after a separator: a run must come first
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			sep = false
		case (c == '-' || c == '.') && !sep:
			sep = true
		default:
			return false
		}
	}
	return !sep
}

// LoadLegacy reads .claude-plugin/plugin.json. Claude's own format is open-ended, so only
// what Plugboard relies on is an error (an object with a string name); the rest are
// warnings. The folder is later handed to Claude as it is (F5).
func LoadLegacy(root string) Manifest {
	m := Manifest{Format: FormatLegacy, Path: LegacyPath}
	data, obj, ok := readObject(root, LegacyPath, &m.Issues)
	if ok {
		m.Valid = clientCommon(&m, data, obj)
	}
	m.Issues = m.Issues.NonNil()
	return m
}

// cursorUnsupported lists Cursor manifest components Plugboard shows but does not load.
var cursorUnsupported = []string{"commands", "agents", "subagents", "hooks", "rules"}

// LoadCursor reads .cursor-plugin/plugin.json. Its skills field names skills folders
// (default skills/), its mcpServers field an MCP JSON file (default .mcp.json when present).
func LoadCursor(root string) Manifest {
	m := Manifest{Format: FormatCursor, Path: CursorPath}
	data, obj, ok := readObject(root, CursorPath, &m.Issues)
	if !ok {
		m.Issues = m.Issues.NonNil()
		return m
	}
	m.Valid = clientCommon(&m, data, obj)
	add := func(sev issue.Severity, code, ptr, msg string) {
		addAt(&m.Issues, data, sev, code, CursorPath, ptr, msg)
	}

	switch v := obj["skills"].(type) {
	case nil:
		m.SkillsDirs = []string{"skills"}
	case string:
		m.SkillsDirs = relDirs(add, "/skills", v)
	case []any:
		for i, e := range v {
			if s, ok := e.(string); ok {
				m.SkillsDirs = append(m.SkillsDirs, relDirs(add, jsondoc.Pointer("skills", fmt.Sprint(i)), s)...)
			} else {
				add(issue.Error, CodeComponentPath, jsondoc.Pointer("skills", fmt.Sprint(i)), fmt.Sprintf("\"skills\" entries must be folder paths (strings), not %s", jsondoc.Kind(e)))
			}
		}
	default:
		add(issue.Error, CodeComponentPath, "/skills", fmt.Sprintf("\"skills\" must be a folder path such as \"skills\", not %s; skills of this plugin are not loaded", jsondoc.Kind(v)))
	}

	switch v := obj["mcpServers"].(type) {
	case nil:
		if exists(path.Join(root, ".mcp.json")) {
			m.MCPFile = ".mcp.json"
		}
	case string:
		if dirs := relDirs(add, "/mcpServers", v); len(dirs) == 1 {
			m.MCPFile = dirs[0]
		}
	case map[string]any:
		add(issue.Warning, CodeUnsupported, "/mcpServers", "inline \"mcpServers\" objects are not read; move the servers to a file such as .mcp.json and set \"mcpServers\": \".mcp.json\"")
	default:
		add(issue.Error, CodeComponentPath, "/mcpServers", fmt.Sprintf("\"mcpServers\" must be the path of an MCP JSON file, not %s", jsondoc.Kind(v)))
	}

	for _, k := range cursorUnsupported {
		if _, ok := obj[k]; ok {
			m.Unsupported = append(m.Unsupported, k)
			add(issue.Info, CodeUnsupported, jsondoc.Pointer(k), fmt.Sprintf("%q components are not supported yet; Plugboard lists them but does not load them", k))
		}
	}
	m.Issues = m.Issues.NonNil()
	return m
}

// relDirs checks that a component path is relative and stays below the plugin root
// lexically (symlink containment is checked where the folder is opened).
func relDirs(add func(issue.Severity, string, string, string), ptr, p string) []string {
	clean := path.Clean(strings.TrimPrefix(p, "./"))
	if p == "" || path.IsAbs(p) || clean == ".." || strings.HasPrefix(clean, "../") {
		add(issue.Error, CodeComponentPath, ptr, fmt.Sprintf("component path %q must be relative and inside the plugin folder, such as \"./skills\"", p))
		return nil
	}
	return []string{clean}
}

// clientCommon checks the fields Claude and Cursor manifests share and fills metadata.
func clientCommon(m *Manifest, data []byte, obj map[string]any) bool {
	add := func(sev issue.Severity, code, ptr, msg string) { addAt(&m.Issues, data, sev, code, m.Path, ptr, msg) }
	valid := true
	switch name := obj["name"].(type) {
	case nil:
		add(issue.Error, CodeRequired, "", fmt.Sprintf("%s has no \"name\"; add a kebab-case name such as \"my-plugin\"", m.Path))
		valid = false
	case string:
		m.Name = name
		if !kebab(name) {
			msg := fmt.Sprintf("plugin name %q should be kebab-case (a-z, 0-9, single hyphens)", name)
			if s := SuggestName(name); s != "" {
				msg += fmt.Sprintf("; try %q", s)
			}
			add(issue.Warning, CodeNameInvalid, "/name", msg)
		}
	default:
		add(issue.Error, CodeFieldType, "/name", fmt.Sprintf("\"name\" must be a string, not %s", jsondoc.Kind(name)))
		valid = false
	}
	m.Version = stringField(obj, "version", m.Path, data, issue.Warning, &m.Issues)
	m.Description = stringField(obj, "description", m.Path, data, issue.Warning, &m.Issues)
	m.Homepage = stringField(obj, "homepage", m.Path, data, issue.Warning, &m.Issues)
	m.License = stringField(obj, "license", m.Path, data, issue.Warning, &m.Issues)
	if r, ok := obj["repository"].(string); ok {
		m.Repository = r
	}
	switch a := obj["author"].(type) {
	case map[string]any:
		au := &Author{}
		au.Name, _ = a["name"].(string)
		au.Email, _ = a["email"].(string)
		au.URL, _ = a["url"].(string)
		m.Author = au
	case string:
		m.Author = &Author{Name: a}
	}
	if kw, ok := obj["keywords"].([]any); ok {
		for _, k := range kw {
			if s, ok := k.(string); ok {
				m.Keywords = append(m.Keywords, s)
			}
		}
	}
	return valid
}
