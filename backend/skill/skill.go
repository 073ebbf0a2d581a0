// Package skill parses and validates one SKILL.md against the Agent Skills rules plus
// Plugboard's frontmatter extras (F2, F8), producing issues a skill author can act on.
//
// Contract:
//   - Load reads <dir>/SKILL.md (the name is case-sensitive; dir may be a symlink), checks
//     that it is a regular file of at most capread.SkillMax bytes and, when Options.Root is
//     set, that it resolves inside that plugin root; then it calls Parse.
//   - Parse splits the frontmatter (an opening and a closing "---" line, at most
//     MaxFrontmatter bytes between them), parses it as YAML into a node tree (aliases are
//     refused, so no alias bomb can expand), and checks name, description, compatibility,
//     license, metadata, allowed-tools, disable-model-invocation and paths. Unknown keys
//     are ignored.
//   - Neither function returns an error or panics: every problem is an issue.Issue whose
//     Path is Options.Path and whose Line is the 1-based line in SKILL.md when one exists.
//     Errors make the skill invalid (Skill.Valid false); warnings do not, and the field
//     they concern is ignored.
//
// Load and Parse are pure functions of their arguments and the filesystem; they hold no
// state and are safe for concurrent use.
package skill

import "github.com/plugboard/plugboard/backend/issue"

// Source says who provided a skill; the catalog sets it.
type Source string

// Sources a skill can come from (F7).
const (
	SourceUser         Source = "user"
	SourceBuiltin      Source = "builtin"
	SourcePlugin       Source = "plugin"
	SourceProject      Source = "project"
	SourceCursorPlugin Source = "cursor-plugin"
	SourcePluginPath   Source = "plugin-path"
)

// PathEntry is one entry of the `paths` frontmatter list and how it was judged (F8).
type PathEntry struct {
	Entry    string `json:"entry"` // as written in frontmatter
	Accepted bool   `json:"accepted"`
	Reason   string `json:"reason,omitempty"` // why refused, in words a person reads
	Resolved string `json:"-"`                // absolute resolved path when accepted
}

// Skill is one SKILL.md as judged.
type Skill struct {
	Name                   string            `json:"name"`   // frontmatter name; folder name when the name could not be read
	Folder                 string            `json:"folder"` // the folder's own name (not a symlink target's)
	Dir                    string            `json:"-"`      // absolute path of the skill folder as found (not resolved)
	Path                   string            `json:"path"`   // the SKILL.md path as the caller wants it shown
	Description            string            `json:"description,omitempty"`
	License                string            `json:"license,omitempty"`
	Compatibility          string            `json:"compatibility,omitempty"`
	AllowedTools           []string          `json:"allowedTools,omitempty"` // space-separated string split; a YAML list of strings also accepted
	Metadata               map[string]string `json:"metadata,omitempty"`
	DisableModelInvocation bool              `json:"disableModelInvocation"`
	ModelInvocable         bool              `json:"modelInvocable"` // Valid && !DisableModelInvocation
	Paths                  []PathEntry       `json:"paths,omitempty"`
	Valid                  bool              `json:"valid"`
	Issues                 issue.List        `json:"issues"` // never nil
	// Sum identifies the bytes of SKILL.md ("crc32c:" and 8 hex digits; "" when it could
	// not be read), so that an edit of the body alone, which changes no field, is still a
	// change a watcher reports. A change detector, not a security hash (launches hash the
	// whole folder with SHA-256).
	Sum string `json:"sum,omitempty"`
	// Data is the file's bytes when Options.Keep asked for them (the catalog hands them to
	// the client models so that nothing is read twice, then drops them).
	Data []byte `json:"-"`
	// Block and Front are, with Options.Keep, the frontmatter's text and its scalar
	// members, for the same reason.
	Block string         `json:"-"`
	Front map[string]any `json:"-"`
}

// Options says how to judge one skill folder.
type Options struct {
	// Root, when set, is the resolved (pathsafe.Root) plugin root: SKILL.md must resolve
	// inside it (Agent Plugins §4.1 item 3; otherwise the skill is skipped with an error
	// issue, code CodeEscapesRoot). Empty for standalone skills (user folders are often
	// symlinks elsewhere, which is fine).
	Root string
	// Trusted is set for user and builtin skills: a `paths` symlink leaving the skill
	// folder is honoured.
	Trusted bool
	// Home is the user's home folder, for the `paths` rules (home, / and any parent of
	// home are refused).
	Home string
	// Keep asks Load to keep the file's bytes in Skill.Data. They are then the Skill's: the
	// caller must not change them (the frontmatter's strings are views of them).
	Keep bool
	// Path is what to put in Skill.Path and in every Issue.Path (e.g.
	// "skills/greet/SKILL.md"). When empty, Load uses the absolute SKILL.md path and Parse
	// uses "<folder>/SKILL.md".
	Path string
	// Resolved tells Load that dir itself is already symlink-resolved and inside Root (the
	// catalog knows this of a plain folder listed in a checked skills folder), so only
	// SKILL.md needs looking up.
	Resolved bool
	// Data, when not nil, is SKILL.md's content as the caller read it from the folder,
	// resolved and inside Root, without following a link (the catalog reads it during the
	// folder's check, CheckOptions): Load reads nothing then.
	Data []byte
}

// finish sets the derived fields once every check has run.
func (s *Skill) finish() {
	s.Valid = !s.Issues.HasErrors()
	s.ModelInvocable = s.Valid && !s.DisableModelInvocation
	s.Issues = s.Issues.NonNil()
}
