// Package clients models what each real agent client loads from a package folder, beside
// the specification verdict that backend/catalog gives. The specification says what a
// package should be; a client says what it really loads, and the two differ both ways:
// Claude Code loads a Claude plugin whose repository also carries a foreign root
// plugin.json (the specification calls it invalid), and refuses a manifest whose author
// is a string (the specification never sees it).
//
// Each client is a small table of rules (claudeRules, cursorRules, codexRules, piRules),
// every rule with the source it was taken from: the client's documentation or code, or a
// run of the real client on a named case (the fixtures in testdata/clients, which the
// tests check against the real claude and pi). Judge applies every table to one folder
// and returns one Verdict per client. Nothing here writes; every function only reads
// the filesystem and is safe for concurrent use.
package clients

import (
	"os"
	"path/filepath"
	"sync"

	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/manifest"
)

// Client names, as they appear in JSON ("clients": {"claude": …}).
const (
	Claude = "claude"
	Cursor = "cursor"
	Codex  = "codex"
	PI     = "pi"
)

// Verdict is what one client would load from one folder.
type Verdict struct {
	// Package is false when the folder is not something this client loads as a package
	// at all (a Cursor plugin for Codex); Loads and the lists are then empty and Why says
	// so.
	Package bool `json:"package"`
	// Loads is true when the client would load the package (possibly with some of its
	// components dropped).
	Loads bool `json:"loads"`
	// Manifest is the manifest file the client reads, relative; "" when it reads none.
	Manifest string `json:"manifest,omitempty"`
	// Why says, in words, why that manifest (or why the package does not load).
	Why string `json:"why"`
	// Plugin is the namespace the client gives the package's components; "" for a client
	// without namespaces (PI).
	Plugin string `json:"plugin,omitempty"`
	// Skills are the names the client exposes, as it spells them: for Claude exactly the
	// plugin entries of its init event's skills list ("plugin:name", skills and commands).
	Skills []string `json:"skills"`
	// Needs are the plugins Claude must load beside this one before it loads it (its
	// manifest's dependencies, as Claude resolves them: name, or name@marketplace; a
	// --plugin-dir plugin's marketplace is "inline"). With Needs, Loads is false (the
	// package alone is left out) and the lists say what it loads once they are there.
	Needs    []string    `json:"needs,omitempty"`
	Commands []Component `json:"commands,omitempty"`
	Agents   []Component `json:"agents,omitempty"`
	Dropped  []Dropped   `json:"dropped"`
	Issues   issue.List  `json:"issues"`
	// JudgedBy says what the verdict was judged against: "model of claude 2.1.328,
	// claude 2.1.328 installed", "model of codex 0.169.0, codex not installed".
	JudgedBy string `json:"judgedBy"`

	// loaded are the skill folders the client loads, for a launch that hands the
	// package over as that client loads it.
	loaded []LoadedSkill
}

// Component is one command or agent file as the client lists it.
type Component struct {
	Name        string `json:"name"` // as the client names it (claude: plugin:name)
	Description string `json:"description,omitempty"`
	File        string `json:"file"` // relative to the package root, slash form
}

// Dropped is a part of the package the client leaves out, and why.
type Dropped struct {
	Path   string `json:"path"` // relative to the package root, slash form
	Reason string `json:"reason"`
	Rule   string `json:"rule"` // the rule id, see Rules
}

// LoadedSkill is one skill folder a client loads: its name as the client spells it and
// its folder relative to the package root.
type LoadedSkill struct {
	Name string
	Dir  string
}

// LoadedSkills returns the skill folders the verdict loads.
func (v *Verdict) LoadedSkills() []LoadedSkill { return v.loaded }

// Set is every client's verdict on one folder.
type Set struct {
	Claude Verdict `json:"claude"`
	Cursor Verdict `json:"cursor"`
	Codex  Verdict `json:"codex"`
	PI     Verdict `json:"pi"`
}

// Rule is one observed or documented rule of a client, with where it comes from.
type Rule struct {
	ID     string `json:"id"`
	Client string `json:"client"`
	Says   string `json:"says"`
	Source string `json:"source"`
}

// Rules lists every rule of every client, for the documentation and the tests.
func Rules() []Rule {
	var out []Rule
	for _, t := range [][]Rule{claudeRules, claudeRules328, cursorRules, codexRules, piRules} {
		out = append(out, t...)
	}
	return out
}

// Judge applies every client's model to the package folder dir.
func Judge(dir string) Set { return JudgeWith(dir, Options{}) }

// Options hand Judge what the caller has already read.
type Options struct {
	// Prefill holds SKILL.md contents already read, by the skill folder's absolute path
	// (the catalog's skills).
	Prefill Prefill
	// Parsed holds frontmatter blocks already parsed, by their exact text, as the scalar
	// members the models read.
	Parsed map[string]map[string]any
	// Dirs holds folder listings already made (sorted by name, as os.ReadDir gives
	// them), by path.
	Dirs map[string][]os.DirEntry
	// Root is dir resolved through its symlinks, when the caller has resolved it.
	Root string
	// Portable is the specification's reading of a root plugin.json, when the caller made
	// it (Cursor loads Agent Plugins packages, and would otherwise validate it again).
	Portable *manifest.Manifest
	// Installed holds the version of each client installed on this machine, by client
	// name ("claude": "2.1.328"); a client not in it is not installed. The version picks
	// the rules a model applies, and each verdict says so (Verdict.JudgedBy).
	Installed map[string]string
}

// JudgeWith is Judge with what the caller has already read.
func JudgeWith(dir string, o Options) Set {
	r := newFiles() // each file is read, listed and parsed once for all four
	r.given, r.givenDirs, r.givenParsed = o.Prefill, o.Dirs, o.Parsed
	r.portable = o.Portable
	abs, _ := filepath.Abs(dir)
	if o.Root != "" {
		r.real[abs] = realRead{path: o.Root}
	}
	// One listing of the package folder answers whether each manifest and component
	// folder is there.
	if root, err := r.realpath(abs); err == nil {
		_, _ = r.readDir(root)
	}
	s := Set{Claude: judgeClaude(dir, r, claudeReleaseFor(o.Installed[Claude])), Cursor: judgeCursor(dir, r), Codex: judgeCodex(dir, r), PI: judgePI(dir, r)}
	s.Claude.JudgedBy = JudgedBy(Claude, o.Installed)
	s.Cursor.JudgedBy = JudgedBy(Cursor, o.Installed)
	s.Codex.JudgedBy = JudgedBy(Codex, o.Installed)
	s.PI.JudgedBy = JudgedBy(PI, o.Installed)
	return s
}

// finish makes lists non-nil for JSON.
func (v *Verdict) finish() {
	if v.Skills == nil {
		v.Skills = []string{}
	}
	if v.Dropped == nil {
		v.Dropped = []Dropped{}
	}
	v.Issues = v.Issues.NonNil()
}

// Alone is what the client lists of the package launched by itself: its skills when it
// loads, none when it does not (one with Needs lists them only beside what it needs).
func (v *Verdict) Alone() []string {
	if !v.Loads {
		return []string{}
	}
	return v.Skills
}

// modelled are the client versions each model follows, for JudgedBy (Claude's depends on
// the version installed; Cursor's follows its documentation and plugin schema, of no
// version).
var modelled = map[string]string{Codex: "0.169.0", PI: "0.73.1"}

// JudgedBy says what a verdict of client is judged against, given the installed versions
// (Options.Installed): the model and the version whose rules it applies, and the client
// installed here, or that none is.
func JudgedBy(client string, installed map[string]string) string {
	version, here := installed[client]
	k := judgedKey{client, version, here}
	if s, ok := judgedBy.Load(k); ok {
		return s.(string) // every package of a scan has the same four: made once
	}
	s := judgedByOf(client, version, here)
	judgedBy.Store(k, s)
	return s
}

type judgedKey struct {
	client, version string
	here            bool
}

var judgedBy sync.Map // judgedKey → string

func judgedByOf(client, version string, here bool) string {
	model := modelled[client]
	if client == Claude {
		model = ClaudeModelled(version)
	}
	s := "model of " + client
	if model != "" {
		s += " " + model
	}
	switch {
	case !here:
		return s + ", " + client + " not installed"
	case version == "":
		return s + ", " + client + " installed (version not known)"
	}
	return s + ", " + client + " " + version + " installed"
}

// notPackage is the verdict of a client for which dir is not one of its packages.
func notPackage(why string) Verdict {
	v := Verdict{Why: why}
	v.finish()
	return v
}

// drop records a dropped part.
func (v *Verdict) drop(path, rule, format string, args ...any) {
	v.Dropped = append(v.Dropped, Dropped{Path: path, Rule: rule, Reason: sprintf(format, args...)})
}
