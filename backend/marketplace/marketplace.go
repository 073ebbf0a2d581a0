// Package marketplace reads a Claude Code marketplace file (.claude-plugin/marketplace.json)
// and checks each entry's source: a relative folder must exist inside the marketplace and
// hold a plugin; git, GitHub and URL sources are listed as they are (nothing is fetched
// here). The shape follows the marketplace files in use (anthropics/claude-code,
// anthropics/claude-plugins-official, wshobson/agents, obra/superpowers-marketplace):
//
//	{"name": "…", "owner": {"name": "…"}, "metadata": {"pluginRoot": "./plugins"},
//	 "plugins": [{"name": "…", "source": "./plugins/x" | {"source": "github", "repo": "o/r"}
//	             | {"source": "url", "url": "…"} | {"source": "git-subdir", "url": "…", "path": "…"}, …}]}
//
// The package only reads.
package marketplace

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/jsondoc"
	"github.com/plugboard/plugboard/backend/pathsafe"
)

// File is where a marketplace keeps its list, relative to the marketplace root.
const File = ".claude-plugin/marketplace.json"

// Issue codes. Stable: tools match on them.
const (
	CodeUnreadable    = "marketplace.unreadable"
	CodeInvalidJSON   = "marketplace.invalid-json"
	CodeField         = "marketplace.field-invalid"
	CodeSource        = "marketplace.source-invalid"
	CodeSourceMissing = "marketplace.source-missing"
	CodeDuplicate     = "marketplace.duplicate-plugin"
)

// Marketplace is one marketplace file as read.
type Marketplace struct {
	Name    string     `json:"name"`
	Owner   string     `json:"owner,omitempty"`
	File    string     `json:"file"` // relative to the marketplace root
	Plugins []Entry    `json:"plugins"`
	Issues  issue.List `json:"issues"`
}

// Entry is one plugin the marketplace lists.
type Entry struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Version     string `json:"version,omitempty"`
	Source      Source `json:"source"`
	// Dir is the plugin folder of a local source, absolute; "" for remote sources.
	Dir string `json:"dir,omitempty"`
	// OK is false when the entry cannot be installed as written; Reason says why.
	OK     bool   `json:"ok"`
	Reason string `json:"reason,omitempty"`
}

// Source is where an entry's plugin comes from.
type Source struct {
	Kind string `json:"kind"`           // "path", "github", "url", "git-subdir", or the entry's own word
	Path string `json:"path,omitempty"` // a relative folder (path) or the folder inside the repository (git-subdir)
	Repo string `json:"repo,omitempty"` // owner/name (github)
	URL  string `json:"url,omitempty"`  // git URL (url, git-subdir)
	Ref  string `json:"ref,omitempty"`
	SHA  string `json:"sha,omitempty"`
}

// Local reports whether the source is a folder inside the marketplace itself.
func (s Source) Local() bool { return s.Kind == "path" }

// Exists reports whether root holds a marketplace file.
func Exists(root string) bool {
	_, err := os.Lstat(filepath.Join(root, filepath.FromSlash(File)))
	return err == nil
}

// Read reads root's marketplace file. A file that cannot be read or parsed gives a
// Marketplace with no plugins and an error issue.
func Read(root string) Marketplace {
	m := Marketplace{File: File, Plugins: []Entry{}}
	defer func() { m.Issues = m.Issues.NonNil() }()
	resolved, err := pathsafe.Root(root)
	if err != nil {
		m.Issues.Errorf(CodeUnreadable, File, "", "the marketplace folder cannot be opened: %v", err)
		return m
	}
	p, err := pathsafe.Resolve(resolved, File)
	if err != nil {
		m.Issues.Errorf(CodeUnreadable, File, "", "%s resolves outside the marketplace folder; make it a file inside it", File)
		return m
	}
	data, err := capread.ReadFile(p, capread.ManifestMax)
	if err != nil {
		m.Issues.Errorf(CodeUnreadable, File, "", "%s %s", File, capread.Describe(err))
		return m
	}
	v, err := jsondoc.Decode(data)
	if err != nil {
		m.Issues.Errorf(CodeInvalidJSON, File, "", "%s %v", File, err)
		m.Issues[len(m.Issues)-1].Line = max(jsondoc.ErrorLine(err), 1)
		return m
	}
	obj, ok := v.(map[string]any)
	if !ok {
		m.Issues.Errorf(CodeInvalidJSON, File, "", "%s must hold a JSON object, not %s", File, jsondoc.Kind(v))
		return m
	}
	at := func(sev issue.Severity, code, ptr, format string, args ...any) {
		m.Issues = append(m.Issues, issue.Issue{Severity: sev, Code: code, Path: File, Pointer: ptr, Line: jsondoc.Line(data, ptr), Message: fmt.Sprintf(format, args...)})
	}
	if m.Name, ok = obj["name"].(string); !ok || m.Name == "" {
		at(issue.Error, CodeField, "/name", "the marketplace needs a \"name\" (a kebab-case string such as \"my-marketplace\"); users install with NAME@MARKETPLACE")
	}
	if o, ok := obj["owner"].(map[string]any); ok {
		m.Owner, _ = o["name"].(string)
	}
	pluginRoot := ""
	if md, ok := obj["metadata"].(map[string]any); ok {
		pluginRoot, _ = md["pluginRoot"].(string)
	}
	list, ok := obj["plugins"].([]any)
	if !ok {
		at(issue.Error, CodeField, "/plugins", "\"plugins\" must be a list of plugin entries")
		return m
	}
	seen := map[string]bool{}
	for i, raw := range list {
		ptr := jsondoc.Pointer("plugins", fmt.Sprint(i))
		e := readEntry(raw, resolved, pluginRoot)
		if e.Name != "" && seen[e.Name] {
			at(issue.Error, CodeDuplicate, ptr+"/name", "two entries are named %q; names must be unique in a marketplace", e.Name)
			e.OK, e.Reason = false, "duplicate name"
		}
		seen[e.Name] = true
		if !e.OK {
			code := CodeSource
			if strings.HasPrefix(e.Reason, "the folder") {
				code = CodeSourceMissing
			}
			at(issue.Error, code, ptr, "plugin entry %s: %s", quoteOr(e.Name, "#"+fmt.Sprint(i)), e.Reason)
		}
		m.Plugins = append(m.Plugins, e)
	}
	return m
}

func quoteOr(s, alt string) string {
	if s == "" {
		return alt
	}
	return fmt.Sprintf("%q", s)
}

// readEntry reads one plugins[] member and checks a local source on disk.
func readEntry(raw any, root, pluginRoot string) Entry {
	obj, ok := raw.(map[string]any)
	if !ok {
		return Entry{Reason: "an entry must be an object with \"name\" and \"source\""}
	}
	e := Entry{OK: true}
	e.Name, _ = obj["name"].(string)
	e.Description, _ = obj["description"].(string)
	e.Version, _ = obj["version"].(string)
	fail := func(format string, args ...any) Entry {
		e.OK, e.Reason = false, fmt.Sprintf(format, args...)
		return e
	}
	if e.Name == "" {
		return fail("it has no \"name\"")
	}
	switch s := obj["source"].(type) {
	case string:
		e.Source = Source{Kind: "path", Path: s}
		if c := path.Clean(s); path.IsAbs(s) || c == ".." || strings.HasPrefix(c, "../") {
			return fail("the source %q must be a folder inside the marketplace, starting with ./", s)
		}
		if !strings.HasPrefix(s, "./") && pluginRoot != "" {
			e.Source.Path = path.Join(pluginRoot, s)
		}
	case map[string]any:
		e.Source.Kind, _ = s["source"].(string)
		e.Source.Repo, _ = s["repo"].(string)
		e.Source.URL, _ = s["url"].(string)
		e.Source.Path, _ = s["path"].(string)
		e.Source.Ref, _ = s["ref"].(string)
		e.Source.SHA, _ = s["sha"].(string)
		switch e.Source.Kind {
		case "github":
			if strings.Count(e.Source.Repo, "/") != 1 {
				return fail("a github source needs \"repo\": \"owner/name\"")
			}
		case "url", "git-subdir":
			if e.Source.URL == "" {
				return fail("a %s source needs a \"url\"", e.Source.Kind)
			}
		case "":
			return fail("\"source\" objects name their kind in \"source\" (github, url, git-subdir)")
		}
		return e
	case nil:
		return fail("it has no \"source\"; give a folder such as \"./plugins/%s\" or a git source", e.Name)
	default:
		return fail("\"source\" must be a folder path or a source object, not %s", jsondoc.Kind(s))
	}
	p := e.Source.Path
	clean := path.Clean(p)
	if path.IsAbs(p) || clean == ".." || strings.HasPrefix(clean, "../") {
		return fail("the source %q must be a folder inside the marketplace, starting with ./", p)
	}
	dir, err := pathsafe.Resolve(root, clean)
	switch {
	case errors.Is(err, pathsafe.ErrEscapes):
		return fail("the source %q resolves outside the marketplace (a symlink)", p)
	case err != nil:
		return fail("the folder %q cannot be resolved: %v", p, err)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fail("the folder %q does not exist in the marketplace", p)
	}
	e.Dir = dir
	return e
}
