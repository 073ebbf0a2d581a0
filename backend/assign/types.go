package assign

import (
	"errors"
	"fmt"
	"strings"

	"github.com/plugboard/plugboard/backend/mcpconfig"
)

// Target kinds.
const (
	KindAgent        = "agent"
	KindSlot         = "template-slot"
	KindShellBinding = "shell-binding"
	KindActive       = "active"
)

// ActiveRef is the ref of a template slot that runs whichever agent is active.
const ActiveRef = "__active__"

// Entry is one pluginDirs entry.
type Entry struct {
	Dir     string `json:"dir"`          // as written in the file
	ID      string `json:"id,omitempty"` // plugin id, for managed entries
	Managed bool   `json:"managed"`
	Known   bool   `json:"known"` // in the catalog
	Valid   bool   `json:"valid"` // the catalog plugin is valid
}

// Target is one place plugins are assigned to.
type Target struct {
	ID        string   `json:"id"`
	Kind      string   `json:"kind"` // KindAgent, KindSlot, KindShellBinding or KindActive
	Name      string   `json:"name"` // agent name, template name for slots, binding name for shell bindings
	Ref       string   `json:"ref,omitempty"`
	Backend   string   `json:"backend,omitempty"` // an agent's "backend" member (claude, pi, codex, copilot), when it has one
	File      string   `json:"file"`
	ReadOnly  bool     `json:"readOnly"`
	Hash      string   `json:"hash"`      // content hash of the file ("sha256:<hex>")
	Inherits  bool     `json:"inherits"`  // slot or binding using its agent's defaults
	Entries   []Entry  `json:"entries"`   // as written (a slot that inherits: none)
	Managed   []string `json:"managed"`   // managed plugin ids written on this target
	Unmanaged []string `json:"unmanaged"` // entries kept as they are
	Effective []string `json:"effective"` // the plugin ids in effect
}

// Change is one edit of a target's managed plugin set, by plugin id. Exactly one kind is
// set: Set (non-nil; empty means none), Add, Remove or Defaults.
type Change struct {
	Set      []string `json:"set"` // null: not a Set; [] : set to none
	Add      []string `json:"add,omitempty"`
	Remove   []string `json:"remove,omitempty"`
	Defaults bool     `json:"defaults,omitempty"`
}

// Ack is one MCP server whose assignment needs the user's acknowledgment, sanitised:
// names, the transport, the summary (names and counts, never a value) and the digest of
// what it runs (mcpconfig.Digest), which is what an acknowledgment records.
type Ack struct {
	Plugin  string            `json:"plugin"`
	Server  string            `json:"server"`
	Type    string            `json:"type"`
	Summary mcpconfig.Summary `json:"summary"`
	Digest  string            `json:"digest"`
}

// NewAck describes server s of plugin for an acknowledgment.
func NewAck(plugin string, s mcpconfig.Server) Ack {
	return Ack{Plugin: plugin, Server: s.Name, Type: s.Type, Summary: s.Summary, Digest: mcpconfig.Digest(s)}
}

// Outcome is what a save did, or what a preview would do.
type Outcome struct {
	Target Target `json:"target"` // after the save (for a preview: as it would be)
	// Before and After are the effective plugin ids.
	Before []string `json:"before"`
	After  []string `json:"after"`
	// BeforeDirs and AfterDirs are the pluginDirs member as written; null when the file
	// has no pluginDirs member (a slot inheriting its agent). SetDirs restores them.
	BeforeDirs     []string `json:"beforeDirs"`
	AfterDirs      []string `json:"afterDirs"`
	BeforeInherits bool     `json:"beforeInherits"`
	BeforeHash     string   `json:"beforeHash"`
	AfterHash      string   `json:"afterHash"` // for a preview: the hash the file would have
	Acknowledged   []Ack    `json:"acknowledged"`
	Written        bool     `json:"written"` // false for a preview and for a save that changed no byte
}

// Sentinel errors callers branch on.
var (
	ErrNotFound  = errors.New("no such assignment target")
	ErrReadOnly  = errors.New("the target is read-only")
	ErrStale     = errors.New("the target's file changed since it was read")
	ErrRule      = errors.New("the assignment breaks a rule")
	ErrAckNeeded = errors.New("the assignment adds MCP servers and needs an acknowledgment")
)

// StaleError refuses a save based on an old hash; Fresh is the target as it is now (zero
// when it has disappeared). Nothing was written.
type StaleError struct{ Fresh Target }

func (e *StaleError) Error() string {
	return ErrStale.Error() + "; nothing was written — reload the target and make the change again"
}
func (e *StaleError) Unwrap() error { return ErrStale }

// Rule codes of RuleError.
const (
	RuleBadChange  = "bad-change"     // not exactly one kind of change, or an empty id
	RuleNoDefaults = "no-defaults"    // "use defaults" on an agent
	RuleUnknown    = "unknown-plugin" // an id not in the catalog
	RuleInvalid    = "invalid-plugin" // an invalid catalog plugin, newly added
	RuleNotPresent = "not-assigned"   // removing an id the target does not hold
	RuleCollision  = "name-collision" // R6
	// RuleNotRevertable: a history entry that changed no file (an acknowledgment).
	RuleNotRevertable = "not-revertable"
)

// Collision is one name provided by several selected plugins.
type Collision struct {
	Kind    string   `json:"kind"` // "skill", "namespace" or "mcp-server"
	Name    string   `json:"name"`
	Plugins []string `json:"plugins"` // plugin ids, sorted
}

// RuleError refuses a change that breaks an assignment rule. Names are the plugin ids
// (or, for a collision, the colliding names); Collisions says who provides each name.
type RuleError struct {
	Code       string      `json:"code"`
	Reason     string      `json:"reason"`
	Names      []string    `json:"names"`
	Collisions []Collision `json:"collisions,omitempty"`
}

func (e *RuleError) Error() string {
	if len(e.Collisions) > 0 {
		parts := make([]string, len(e.Collisions))
		for i, c := range e.Collisions {
			parts[i] = fmt.Sprintf("%s %q is provided by %s", c.Kind, c.Name, strings.Join(c.Plugins, " and "))
		}
		return e.Reason + ": " + strings.Join(parts, "; ")
	}
	if len(e.Names) == 0 {
		return e.Reason
	}
	return e.Reason + ": " + strings.Join(e.Names, ", ")
}
func (e *RuleError) Unwrap() error { return ErrRule }

// AckError asks for an acknowledgment of the listed servers: adding them lets the
// plugin run local code and reach the network. Retry with ack set.
type AckError struct {
	Servers []Ack `json:"servers"`
}

func (e *AckError) Error() string {
	parts := make([]string, len(e.Servers))
	for i, s := range e.Servers {
		parts[i] = fmt.Sprintf("%s/%s (%s)", s.Plugin, s.Server, s.Type)
	}
	return "adding these MCP servers lets the plugin run local code and reach the network; acknowledge to assign them: " + strings.Join(parts, ", ")
}
func (e *AckError) Unwrap() error { return ErrAckNeeded }
