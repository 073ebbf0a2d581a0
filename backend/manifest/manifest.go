package manifest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/jsondoc"
	"github.com/plugboard/plugboard/backend/pathsafe"
)

// Manifest is what any of the three formats says about a plugin.
type Manifest struct {
	Format      Format   `json:"format"`
	Path        string   `json:"path"` // manifest file, relative to the plugin root
	Schema      string   `json:"schema,omitempty"`
	SpecVersion string   `json:"specVersion,omitempty"` // "1.0.0" for portable packages
	Name        string   `json:"name,omitempty"`
	Version     string   `json:"version,omitempty"`
	Description string   `json:"description,omitempty"`
	Author      *Author  `json:"author,omitempty"`
	Homepage    string   `json:"homepage,omitempty"`
	Repository  string   `json:"repository,omitempty"`
	License     string   `json:"license,omitempty"`
	Keywords    []string `json:"keywords,omitempty"`
	// Valid is false when the manifest rejects the plugin: nothing of it loads.
	Valid  bool       `json:"valid"`
	Issues issue.List `json:"issues"`

	// Cursor plugins only: where skills and MCP servers live (relative, slash form), and
	// the component fields Plugboard does not support yet.
	SkillsDirs  []string `json:"skillsDirs,omitempty"`
	MCPFile     string   `json:"mcpFile,omitempty"`
	Unsupported []string `json:"unsupported,omitempty"`
}

// Detect says which format the folder root (resolved) is, by which manifest file exists.
// Root plugin.json wins whenever it exists, even broken (spec §5.1, F5). Between the two
// client manifests, preferCursor picks .cursor-plugin for folders found in Cursor's tree.
func Detect(root string, preferCursor bool) Format {
	if exists(filepath.Join(root, PortablePath)) {
		return FormatPortable
	}
	legacy := exists(filepath.Join(root, filepath.FromSlash(LegacyPath)))
	cursor := exists(filepath.Join(root, filepath.FromSlash(CursorPath)))
	switch {
	case cursor && (preferCursor || !legacy):
		return FormatCursor
	case legacy:
		return FormatLegacy
	}
	return FormatNone
}

// DetectLoad is Load(root, Detect(root, preferCursor)) for a scan: a plugin.json that
// opens without following a link is read at once, so the common portable package costs
// one open rather than a look-up and then an open.
func DetectLoad(root string, preferCursor bool) Manifest {
	data, err := capread.ReadNoFollow(filepath.Join(root, PortablePath), capread.ManifestMax)
	if err == nil {
		return ParsePortable(data)
	}
	return Load(root, Detect(root, preferCursor))
}

// exists reports whether a directory entry is there at all (a dangling link counts).
func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// Load reads the manifest of the given format from root (resolved by pathsafe.Root).
func Load(root string, f Format) Manifest {
	switch f {
	case FormatPortable:
		return LoadPortable(root)
	case FormatLegacy:
		return LoadLegacy(root)
	case FormatCursor:
		return LoadCursor(root)
	}
	m := Manifest{Format: FormatNone, Path: PortablePath}
	m.Issues.Errorf(CodeMissing, PortablePath, "",
		"no manifest: add plugin.json with \"$schema\": %q and a \"name\" (Agent Plugins 1.0.0), or .claude-plugin/plugin.json for a Claude plugin",
		"https://agent-plugins.org/schemas/1.0.0/plugin.schema.json")
	m.Issues = m.Issues.NonNil()
	return m
}

// readObject reads root/rel, checking containment, kind, size and JSON, and returns its
// top-level object. On failure it records the issue and returns ok=false.
func readObject(root, rel string, issues *issue.List) (data []byte, obj map[string]any, ok bool) {
	data, err := readContained(root, rel)
	var esc *escapeError
	switch {
	case errors.As(err, &esc):
		issues.Errorf(CodeEscapes, rel, "", "%s resolves outside the plugin folder (a symlink to %s); a manifest must be a file inside the plugin", rel, esc.target)
		return nil, nil, false
	case errors.Is(err, errResolve):
		issues.Errorf(CodeUnreadable, rel, "", "%s cannot be resolved: %v; fix or remove the symlink", rel, err)
		return nil, nil, false
	}
	if err != nil {
		code := CodeUnreadable
		if errors.Is(err, capread.ErrNotRegular) {
			code = CodeNotRegular
		}
		issues.Errorf(code, rel, "", "%s %s", rel, capread.Describe(err))
		return nil, nil, false
	}
	obj, ok = decodeObject(data, rel, issues)
	return data, obj, ok
}

// decodeObject decodes a manifest's content as a JSON object, recording why not.
func decodeObject(data []byte, rel string, issues *issue.List) (map[string]any, bool) {
	v, err := jsondoc.Decode(data)
	if err != nil {
		issues.Add(issue.Error, CodeInvalidJSON, rel, "", "%s %v", rel, err)
		(*issues)[len(*issues)-1].Line = max(jsondoc.ErrorLine(err), 1)
		return nil, false
	}
	obj, isObj := v.(map[string]any)
	if !isObj {
		issues.Errorf(CodeNotObject, rel, "", "%s must hold a JSON object ({...}), not %s", rel, jsondoc.Kind(v))
		(*issues)[len(*issues)-1].Line = 1
		return nil, false
	}
	return obj, true
}

type escapeError struct{ target string }

func (e *escapeError) Error() string { return "resolves outside the plugin folder to " + e.target }

var errResolve = errors.New("cannot be resolved")

// readContained reads root/rel if it resolves inside root. A file directly in the root
// that opens without following a link needs no resolution: the common case costs one
// open.
func readContained(root, rel string) ([]byte, error) {
	if !strings.Contains(rel, "/") {
		data, err := capread.ReadNoFollow(filepath.Join(root, rel), capread.ManifestMax)
		if !errors.Is(err, capread.ErrSymlink) {
			return data, err
		}
	}
	p, err := pathsafe.Resolve(root, rel)
	switch {
	case errors.Is(err, pathsafe.ErrEscapes):
		return nil, &escapeError{p}
	case err != nil:
		return nil, fmt.Errorf("%w: %v", errResolve, err)
	}
	return capread.ReadFile(p, capread.ManifestMax)
}

// stringField reads an optional string member; a wrong type is recorded with sev.
func stringField(obj map[string]any, key, rel string, data []byte, sev issue.Severity, issues *issue.List) string {
	v, ok := obj[key]
	if !ok {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		addAt(issues, data, sev, CodeFieldType, rel, jsondoc.Pointer(key), fmt.Sprintf("%q must be a string, not %s", key, jsondoc.Kind(v)))
	}
	return s
}

// addAt appends an issue with its line computed from the pointer.
func addAt(issues *issue.List, data []byte, sev issue.Severity, code, rel, ptr, msg string) {
	*issues = append(*issues, issue.Issue{Severity: sev, Code: code, Path: rel, Pointer: ptr, Line: jsondoc.Line(data, ptr), Message: msg})
}
