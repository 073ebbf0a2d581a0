// Package marketplace reads a Claude Code marketplace file (.claude-plugin/marketplace.json)
// and checks each entry's source: a relative folder must exist inside the marketplace and
// hold a plugin; git, GitHub, URL and package sources are checked as written (nothing is
// fetched by Read). The shape follows Claude Code's schema and the marketplace files in
// use (anthropics/claude-code, anthropics/claude-plugins-official, wshobson/agents,
// obra/superpowers-marketplace):
//
//	{"name": "…", "owner": {"name": "…"}, "metadata": {"pluginRoot": "./plugins"},
//	 "plugins": [{"name": "…", "strict": true|false,
//	              "source": "./plugins/x" (or a bare name under metadata.pluginRoot)
//	              | {"source": "github", "repo": "o/r", "ref"?, "sha"?}
//	              | {"source": "url", "url": "https://…/r.git" | "git@host:r.git", "ref"?, "sha"?}
//	              | {"source": "git-subdir", "url": "…" | "o/r", "path": "plugins/x", "ref"?, "sha"?}
//	              | {"source": "npm" | "pip", "package": "…", "version"?, "registry"?}, …}]}
//
// "ref" is a branch or tag, "sha" a full 40-character lowercase commit. A URL's user name
// and password are stripped on reading (with a warning): they are never printed, stored
// or handed on.
//
// Read only reads. Add, List and Remove (registry.go) keep the marketplaces a user added,
// in $PLUGBOARD_HOME/marketplaces.json; Resolve (resolve.go) turns PLUGIN@MARKETPLACE
// into the folder or git URL to install from.
package marketplace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/backend/gitexec"
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
	File    string     `json:"file"`   // relative to the marketplace root
	Format  string     `json:"format"` // FormatClaude or FormatCursor
	Plugins []Entry    `json:"plugins"`
	Issues  issue.List `json:"issues"`
}

// Entry is one plugin the marketplace lists.
type Entry struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Version     string `json:"version,omitempty"`
	Source      Source `json:"source"`
	// Strict is the entry's "strict" (true when absent): the plugin's own plugin.json
	// defines it, and the entry's component fields add to it. False: the entry alone
	// defines the plugin, which needs no plugin.json (Claude Code's strict mode).
	Strict bool `json:"strict"`
	// Dir is the plugin folder of a local source, absolute; "" for remote sources.
	Dir string `json:"dir,omitempty"`
	// OK is false when the entry is invalid as written (Claude Code would not install it
	// either); Reason says why. Installable says whether Plugboard installs it.
	OK     bool   `json:"ok"`
	Reason string `json:"reason,omitempty"`
}

// Source is where an entry's plugin comes from.
type Source struct {
	Kind string `json:"kind"`           // "path", "github", "url", "git-subdir", "npm", "pip", or the entry's own word (refused)
	Path string `json:"path,omitempty"` // a relative folder (path) or the folder inside the repository (git-subdir)
	Repo string `json:"repo,omitempty"` // owner/name (github)
	URL  string `json:"url,omitempty"`  // git URL (url, git-subdir), its user name and password stripped
	Ref  string `json:"ref,omitempty"`  // branch or tag (github, url, git-subdir)
	SHA  string `json:"sha,omitempty"`  // full commit (github, url, git-subdir)
	// Package, Version and Registry name a package (npm, pip).
	Package  string `json:"package,omitempty"`
	Version  string `json:"version,omitempty"`
	Registry string `json:"registry,omitempty"`
}

// Local reports whether the source is a folder inside the marketplace itself.
func (s Source) Local() bool { return s.Kind == "path" }

// Git reports whether the source is fetched with git (github, url, git-subdir).
func (s Source) Git() bool { return s.Kind == "github" || s.Kind == "url" || s.Kind == "git-subdir" }

// Installable reports whether Plugboard can install the entry, and why not: the entry
// must be valid (OK) and its source a folder or a git repository; npm and pip packages
// are valid for Claude Code but not installed by Plugboard.
func (e Entry) Installable() (bool, string) {
	switch {
	case !e.OK:
		return false, e.Reason
	case e.Source.Local(), e.Source.Git():
		return true, ""
	default:
		return false, fmt.Sprintf("%s sources are not installed by Plugboard; install it with claude plugin install %s@MARKETPLACE", e.Source.Kind, e.Name)
	}
}

// CursorFile is where a Cursor marketplace keeps its list (cursor/plugins): the same
// shape, with bare folder names as sources.
const CursorFile = ".cursor-plugin/marketplace.json"

// Formats of marketplace file.
const (
	FormatClaude = "claude"
	FormatCursor = "cursor"
)

// Exists reports whether root holds a marketplace file, Claude Code's or Cursor's.
func Exists(root string) bool { return has(root, File) || has(root, CursorFile) }

func has(root, file string) bool {
	_, err := os.Lstat(filepath.Join(root, filepath.FromSlash(file)))
	return err == nil
}

// Read reads root's marketplace file: Claude Code's (File), else Cursor's (CursorFile),
// whose entries name their folder by a bare name relative to the marketplace root. A
// file that cannot be read or parsed gives a Marketplace with no plugins and an error
// issue.
func Read(root string) Marketplace {
	file, format := File, FormatClaude
	if !has(root, File) && has(root, CursorFile) {
		file, format = CursorFile, FormatCursor
	}
	m := Marketplace{File: file, Format: format, Plugins: []Entry{}}
	defer func() { m.Issues = m.Issues.NonNil() }()
	resolved, err := pathsafe.Root(root)
	if err != nil {
		m.Issues.Errorf(CodeUnreadable, file, "", "the marketplace folder cannot be opened: %v", err)
		return m
	}
	p, err := pathsafe.Resolve(resolved, file)
	if err != nil {
		m.Issues.Errorf(CodeUnreadable, file, "", "%s resolves outside the marketplace folder; make it a file inside it", file)
		return m
	}
	data, err := capread.ReadFile(p, capread.ManifestMax)
	if err != nil {
		m.Issues.Errorf(CodeUnreadable, file, "", "%s %s", file, capread.Describe(err))
		return m
	}
	v, err := jsondoc.Decode(data)
	if err != nil {
		m.Issues.Errorf(CodeInvalidJSON, file, "", "%s %v", file, err)
		m.Issues[len(m.Issues)-1].Line = max(jsondoc.ErrorLine(err), 1)
		return m
	}
	obj, ok := v.(map[string]any)
	if !ok {
		m.Issues.Errorf(CodeInvalidJSON, file, "", "%s must hold a JSON object, not %s", file, jsondoc.Kind(v))
		return m
	}
	at := func(sev issue.Severity, code, ptr, format string, args ...any) {
		m.Issues = append(m.Issues, issue.Issue{Severity: sev, Code: code, Path: file, Pointer: ptr, Line: jsondoc.Line(data, ptr), Message: fmt.Sprintf(format, args...)})
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
	if pluginRoot == "" && format == FormatCursor {
		pluginRoot = "." // Cursor's entries name folders of the root: "source": "teaching"
	}
	list, ok := obj["plugins"].([]any)
	if !ok {
		at(issue.Error, CodeField, "/plugins", "\"plugins\" must be a list of plugin entries")
		return m
	}
	seen := map[string]bool{}
	for i, raw := range list {
		ptr := jsondoc.Pointer("plugins", fmt.Sprint(i))
		e, stripped := readEntry(raw, resolved, pluginRoot)
		if stripped {
			at(issue.Warning, CodeSource, ptr+"/source/url", "plugin entry %q: the url carries a user name or password; Plugboard strips it (it is never printed or stored): remove it from the file and let git's credential helper supply it", e.Name)
		}
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

// readEntry reads one plugins[] member and checks a local source on disk. stripped
// reports that a URL's user name or password was removed.
func readEntry(raw any, root, pluginRoot string) (e Entry, stripped bool) {
	obj, ok := raw.(map[string]any)
	if !ok {
		return Entry{Reason: "an entry must be an object with \"name\" and \"source\""}, false
	}
	e = Entry{OK: true, Strict: true}
	e.Name, _ = obj["name"].(string)
	e.Description, _ = obj["description"].(string)
	e.Version, _ = obj["version"].(string)
	fail := func(format string, args ...any) (Entry, bool) {
		e.OK, e.Reason = false, fmt.Sprintf(format, args...)
		return e, stripped
	}
	if e.Name == "" {
		return fail("it has no \"name\"")
	}
	if v, ok := obj["strict"]; ok {
		b, isBool := v.(bool)
		if !isBool {
			return fail("\"strict\" must be true or false, not %s", jsondoc.Kind(v))
		}
		e.Strict = b
	}
	switch s := obj["source"].(type) {
	case string:
		e.Source = Source{Kind: "path", Path: s}
		if c := path.Clean(s); path.IsAbs(s) || c == ".." || strings.HasPrefix(c, "../") {
			return fail("the source %q must be a folder inside the marketplace, starting with ./", s)
		}
		if !strings.HasPrefix(s, "./") {
			if pluginRoot == "" {
				return fail("the source %q must start with ./ (Claude Code reads a bare name only under metadata.pluginRoot); write \"./%s\"", s, strings.TrimPrefix(s, "/"))
			}
			e.Source.Path = path.Join(pluginRoot, s)
		}
	case map[string]any:
		strs := map[string]*string{"source": &e.Source.Kind, "repo": &e.Source.Repo, "url": &e.Source.URL, "path": &e.Source.Path,
			"ref": &e.Source.Ref, "sha": &e.Source.SHA, "package": &e.Source.Package, "version": &e.Source.Version, "registry": &e.Source.Registry}
		for _, k := range []string{"source", "repo", "url", "path", "ref", "sha", "package", "version", "registry"} {
			v, present := s[k]
			if !present {
				continue
			}
			str, isStr := v.(string)
			if !isStr {
				return fail("the source's %q must be a string, not %s", k, jsondoc.Kind(v))
			}
			*strs[k] = str
		}
		if e.Source.URL != "" {
			e.Source.URL, stripped = gitexec.StripUserinfo(e.Source.URL)
		}
		if e.Source.SHA != "" && !isSHA(e.Source.SHA) {
			return fail("the source's \"sha\" %q must be a full 40-character lowercase commit SHA", e.Source.SHA)
		}
		switch e.Source.Kind {
		case "github":
			if !isRepo(e.Source.Repo) {
				return fail("a github source needs \"repo\": \"owner/name\"")
			}
		case "url":
			if e.Source.URL == "" {
				return fail("a url source needs a \"url\" (a git URL such as https://host/team/plugin.git)")
			}
			if !remoteGitURL(e.Source.URL) {
				return fail("the url source %q is not a git URL (https://, ssh://, git://, git@host:path); a marketplace cannot point at a folder or file:// repository on this machine — give a folder inside the marketplace (\"./plugins/%s\") instead", e.Source.URL, e.Name)
			}
		case "git-subdir":
			if e.Source.URL == "" {
				return fail("a git-subdir source needs a \"url\" (a git URL or GitHub owner/name)")
			}
			if !isRepo(e.Source.URL) && !remoteGitURL(e.Source.URL) {
				return fail("the git-subdir source's url %q is neither GitHub owner/name nor a git URL (https://, ssh://, git://, git@host:path); a marketplace cannot point at a folder or file:// repository on this machine", e.Source.URL)
			}
			c := path.Clean(strings.TrimPrefix(e.Source.Path, "./"))
			if e.Source.Path == "" || path.IsAbs(e.Source.Path) || c == "." || c == ".." || strings.HasPrefix(c, "../") {
				return fail("a git-subdir source needs a \"path\": the plugin's folder inside the repository, such as \"plugins/%s\"", e.Name)
			}
		case "npm", "pip":
			if e.Source.Package == "" {
				return fail("the %s source needs a \"package\"", e.Source.Kind)
			}
		case "":
			return fail("\"source\" objects name their kind in \"source\" (github, url, git-subdir, npm or pip)")
		default:
			return fail("the source kind %q is unknown; Claude Code takes github, url, git-subdir, npm or pip (or a folder such as \"./plugins/%s\")", e.Source.Kind, e.Name)
		}
		return e, stripped
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
	switch st, err := os.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist):
		return fail("the folder %q does not exist in the marketplace", p)
	case err != nil:
		return fail("the folder %q cannot be read: %v", p, err)
	case !st.IsDir():
		return fail("the source %q is %s, not a folder; point it at the plugin's folder", p, fileKind(st.Mode()))
	}
	e.Dir = dir
	return e, false
}

// isSHA reports whether s is a full lowercase commit id, as Claude Code requires.
func isSHA(s string) bool {
	if len(s) != 40 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// isRepo reports whether s is a GitHub owner/name: two parts of letters, digits, '.',
// '_' and '-', neither "." nor "..".
func isRepo(s string) bool {
	owner, name, ok := strings.Cut(s, "/")
	return ok && isRepoPart(owner) && isRepoPart(name)
}

func isRepoPart(s string) bool {
	if s == "" || s == "." || s == ".." {
		return false
	}
	for _, c := range s {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// fileKind names what a path that should be a folder is instead.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a file"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// remoteGitURL says whether u names a git repository by a remote URL (a git URL scheme
// other than file:// with a host, or scp-like user@host:path), not a path or file:// URL
// on this machine: a marketplace entry may only name the latter as a folder inside it.
func remoteGitURL(u string) bool {
	for _, scheme := range gitSchemes {
		if rest, ok := strings.CutPrefix(strings.ToLower(u), scheme); ok && scheme != "file://" {
			host, _, _ := strings.Cut(rest, "/")
			return host != ""
		}
	}
	return scpLike().MatchString(u)
}
