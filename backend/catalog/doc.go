// Package catalog finds every plugin and skill on the machine, validates each with the
// manifest, skill and mcpconfig packages, and assembles one immutable Catalog value per
// scan: packages with their components and issues, standalone skills in precedence order
// with what shadows what (F7), trust per source (F9), and MCP servers merged by name
// with the winner and the losers.
//
// The package only reads the filesystem; it never writes. Load scans plugins on a small
// pool of goroutines; a Catalog, once returned, is never mutated and may be shared.
//
// Hot reload: Roots names what a watcher watches; Refresh makes the next Catalog from the
// previous one and the changed paths, reading only the packages and skill roots they
// touch and sharing everything else with the previous value (which is why neither may be
// mutated); Diff and DiffSnapshots say what changed, one Change per line of output.
//
// Roots, in skill-precedence order (first name wins):
//
//  1. user: ~/.cursor/skills, ~/.agents/skills, ~/.claude/skills, ~/.codex/skills,
//     $PLUGBOARD_HOME/.claude/skills (trusted);
//  2. managed plugins: $PLUGBOARD_HOME/plugins/<id>/ (Plugboard's own bundle of packages,
//     the ones it assigns; their skills are untrusted text);
//  3. project: the four containers under the open workspace and its monorepo packages,
//     never inside a nested repository (untrusted);
//  4. Cursor plugins (~/.cursor/plugins/local/*, ~/.cursor/plugins/cache/...) and the
//     skillPluginPaths setting (untrusted);
//  5. built-in skills shipped in the binary (trusted), last.
package catalog

import (
	"github.com/plugboard/plugboard/backend/clients"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/manifest"
	"github.com/plugboard/plugboard/backend/mcpconfig"
	"github.com/plugboard/plugboard/backend/native"
	"github.com/plugboard/plugboard/backend/settings"
	"github.com/plugboard/plugboard/backend/skill"
)

// Plugin sources: where a package was found.
const (
	SourceManaged     = "plugboard"    // $PLUGBOARD_HOME/plugins/<id>
	SourceCursorLocal = "cursor-local" // ~/.cursor/plugins/local/<name>
	SourceCursorCache = "cursor-cache" // ~/.cursor/plugins/cache/<marketplace>/<plugin>/<sha>
	SourcePluginPath  = "plugin-path"  // settings.json skillPluginPaths
	SourceInspect     = "inspect"      // a folder given on the command line
)

// Issue codes of this package. Stable: tools match on them.
const (
	CodeRootUnreadable   = "catalog.root-unreadable"
	CodeFolderUnreadable = "plugin.folder-unreadable"
	CodeSkillUnreadable  = "skill.folder-unreadable"
	CodeSkillsEscapes    = "plugin.skills-escapes-root"
	CodeSkillsNotDir     = "plugin.skills-not-directory"
	CodeSkillNoSkillMD   = "plugin.skill-without-skill-md"
	CodeMCPEscapes       = "plugin.mcp-escapes-root"
	CodeMCPMissing       = "plugin.mcp-file-missing"
	CodeLegacyMCP        = "plugin.legacy-mcp-not-catalogued"
	CodeDuplicateName    = "catalog.duplicate-plugin-name"
	CodeDuplicateID      = "catalog.duplicate-plugin-id"
	CodeSettings         = settings.CodeInvalid
	CodeCursorIndex      = "cursor.index-invalid"
	CodeCursorVersions   = "cursor.older-versions"
	CodeWorkspaceMCP     = "workspace.mcp-untrusted"
)

// Counts totals issues by severity.
type Counts struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
}

// Plugin is one package: the inspect object of DESIGN.md.
type Plugin struct {
	// ID is the assignment identity, unique in a catalog and stable across updates (see
	// identity.go): the folder name of a managed package; name@cursor-local,
	// plugin@marketplace and name@plugin-path for the other sources.
	ID   string `json:"id"`
	Path string `json:"path"` // absolute folder as found
	// Entry is the pluginDirs entry that assigns the package: plugins/<id>, or a folder
	// outside $PLUGBOARD_HOME (written with ~/ for the home folder) that a launch resolves
	// again, so a Cursor update's new revision is the one launched. "" for a folder
	// inspected on its own.
	Entry       string            `json:"entry,omitempty"`
	Source      string            `json:"source"`
	Format      manifest.Format   `json:"format"`
	Valid       bool              `json:"valid"` // loadable and assignable
	Name        string            `json:"name"`  // manifest name; the runtime namespace
	Version     string            `json:"version"`
	Description string            `json:"description,omitempty"`
	Author      *manifest.Author  `json:"author,omitempty"`
	Homepage    string            `json:"homepage,omitempty"`
	Repository  string            `json:"repository,omitempty"`
	License     string            `json:"license,omitempty"`
	Keywords    []string          `json:"keywords,omitempty"`
	Manifest    string            `json:"manifest"` // manifest file, relative
	Skills      []skill.Skill     `json:"skills"`
	MCP         *mcpconfig.Config `json:"mcp"` // nil: no catalogued MCP file
	// ClaudeNative are, for a legacy Claude plugin, what Claude Code starts itself from it
	// (.mcp.json and the manifest's MCP servers, hooks, LSP servers): not catalogued or
	// acknowledged (F5), named so that the page and inspect can say so.
	ClaudeNative []native.Item `json:"claudeNative,omitempty"`
	// Issues holds plugin-level issues (manifest, component folders); skills and servers
	// carry their own. IssueCounts totals all of them.
	Issues      issue.List `json:"issues"`
	IssueCounts Counts     `json:"issueCounts"`
	// State is the one status every surface shows (the page's list, card and filters, the
	// command line): StateValid, StateProblems (valid, but a skill, a server or the
	// manifest has an error: the package loads with less than it declares) or
	// StateInvalid.
	State string `json:"state"`
	// Clients is what each real client loads from the folder, beside the specification
	// verdict (Valid); nil for a plugin whose folder could not be opened.
	Clients *clients.Set `json:"clients,omitempty"`
	// Cursor plugins only.
	Marketplace string   `json:"marketplace,omitempty"`
	Revision    string   `json:"revision,omitempty"` // the cache folder (git sha)
	Unsupported []string `json:"unsupported,omitempty"`
}

// Plugin states (Plugin.State).
const (
	StateValid    = "valid"
	StateProblems = "problems"
	StateInvalid  = "invalid"
)

// stateOf is a plugin's State from its verdict and its errors.
func stateOf(valid bool, c Counts) string {
	switch {
	case !valid:
		return StateInvalid
	case c.Errors > 0:
		return StateProblems
	}
	return StateValid
}

// AllIssues returns every issue of the plugin, components included, with paths relative
// to the plugin root.
func (p *Plugin) AllIssues() issue.List {
	out := append(issue.List{}, p.Issues...)
	for _, s := range p.Skills {
		out = append(out, s.Issues...)
	}
	if p.MCP != nil {
		out = append(out, p.MCP.Issues...)
		for _, s := range p.MCP.Servers {
			out = append(out, s.Issues...)
		}
	}
	return out
}

// ValidSkills counts the skills that load.
func (p *Plugin) ValidSkills() int {
	n := 0
	for _, s := range p.Skills {
		if s.Valid {
			n++
		}
	}
	return n
}

// ValidServers counts the MCP servers that load.
func (p *Plugin) ValidServers() int {
	if p.MCP == nil || !p.MCP.Valid {
		return 0
	}
	n := 0
	for _, s := range p.MCP.Servers {
		if s.Valid {
			n++
		}
	}
	return n
}
