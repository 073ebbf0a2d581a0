package assign

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/jsondoc"
	"github.com/plugboard/plugboard/backend/jsonfile"
	"github.com/plugboard/plugboard/backend/settings"
)

// Issue codes of this package. Stable: tools match on them.
const (
	CodeUnreadable     = "assign.file-unreadable"
	CodeInvalid        = "assign.file-invalid"
	CodeNameMissing    = "assign.name-missing"
	CodeDuplicate      = "assign.duplicate-target"
	CodeNotManaged     = "assign.entry-not-managed"
	CodeUnknownPlugin  = "assign.unknown-plugin"
	CodeDuplicateEntry = "assign.duplicate-entry"
	CodeUnknownAgent   = "assign.unknown-agent"
)

// located is a target with what a save needs: the bytes it was read from and where in
// the file its pluginDirs live.
type located struct {
	Target
	data []byte
	dirs []string // pluginDirs as written; nil when the member is absent
	slot int      // index in the template's "agents"; -1 for other targets
	ptr  string   // JSON pointer of the object holding pluginDirs ("" for an agent)
}

// home is one reading of a Plugboard home's assignment files.
type home struct {
	dir     string
	plugins plugins
	agents  map[string]*located // by agent name
	targets []*located
	issues  issue.List
	// quiet: the entries are not checked (Lookup, whose caller shows no issues).
	quiet bool
	// revertOf is the history entry a file operation reverts (0: none).
	revertOf int64
}

// Targets lists every assignment target of the home, sorted by id. Files that cannot be
// read or parsed, and entries that cannot be used, are issues; the rest is listed.
func Targets(pbHome string, cat *catalog.Catalog) ([]Target, issue.List) {
	h := scan(pbHome, indexPlugins(cat))
	out := make([]Target, len(h.targets))
	for i, t := range h.targets {
		out[i] = t.Target
	}
	return out, h.issues.NonNil()
}

// Lookup returns the target id of the home and, for a slot or shell binding, the agent
// it runs (nil when none is declared; for an agent, the agent itself), as Targets would
// list them for the catalog cat: every assignment file is read, because a target is named
// by the name inside its file and the first file of a name wins, but only these two are
// worked out, and no issue is made. A launch needs no more; Targets' cost grows with
// every target of the home. ok is false when the home has no target id.
func Lookup(pbHome, id string, cat *catalog.Catalog) (t, agent *Target, ok bool) {
	h := read(pbHome, indexPlugins(cat))
	h.quiet = true
	id = TargetID(id)
	var found *located
	for _, x := range h.targets {
		if x.ID == id {
			found = x
			break
		}
	}
	if found == nil {
		return nil, nil, false
	}
	h.finish(found)
	a := found
	if found.Kind != KindAgent {
		if a = h.agents[found.Ref]; a != nil {
			h.finish(a)
		}
	}
	if a == nil {
		return &found.Target, nil, true
	}
	return &found.Target, &a.Target, true
}

// notFound is ErrNotFound for id, naming the assignment files of the home that cannot be
// read or parsed: one of them may declare it, and "no such target" alone would send the
// user looking for a typo.
func (h *home) notFound(id string) error {
	if bad := h.unusable(); bad != "" {
		return fmt.Errorf("%s: %w among the files that can be read; %s", id, ErrNotFound, bad)
	}
	return fmt.Errorf("%s: %w", id, ErrNotFound)
}

// unusable says which assignment files cannot be read or parsed ("" when none).
func (h *home) unusable() string {
	var bad []string
	for _, i := range h.issues {
		if i.Code == CodeInvalid || i.Code == CodeUnreadable {
			bad = append(bad, i.String())
		}
	}
	if len(bad) == 0 {
		return ""
	}
	return "it may be declared in an assignment file that cannot be used until it is fixed: " + strings.Join(bad, "; ")
}

// Unusable is what a caller of Lookup adds to its "no such target": the assignment files
// that could declare the target but cannot be read or parsed ("" when none).
func Unusable(pbHome string) string {
	return read(pbHome, plugins{}).unusable()
}

// scan reads every assignment file of the home once and works out every target.
func scan(pbHome string, ps plugins) *home {
	h := read(pbHome, ps)
	for _, t := range h.targets {
		h.finish(t)
	}
	sort.Slice(h.targets, func(a, b int) bool { return h.targets[a].ID < h.targets[b].ID })
	return h
}

// read reads every assignment file of the home once: the targets they declare, in the
// order of the files, not yet worked out (finish).
func read(pbHome string, ps plugins) *home {
	h := &home{dir: pbHome, plugins: ps, agents: map[string]*located{}}
	for _, f := range h.files("agents") {
		if t := h.readAgent(f); t != nil && h.add(t) {
			h.agents[t.Name] = t // the first file of a name, as the target list keeps
		}
	}
	for _, f := range h.files("templates") {
		for _, t := range h.readTemplate(f) {
			h.add(t)
		}
	}
	for _, t := range h.readBindings() {
		h.add(t)
	}
	return h
}

// files lists the *.json files of a folder of the home, by name; hidden files (our
// temporary files among them) are skipped.
func (h *home) files(sub string) []string {
	dir := filepath.Join(h.dir, sub)
	ents, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			h.issues.Errorf(CodeUnreadable, dir, "", "%s cannot be listed (%v); its targets are not shown", dir, err)
		}
		return nil
	}
	var out []string
	for _, e := range ents {
		if n := e.Name(); strings.HasSuffix(n, ".json") && !strings.HasPrefix(n, ".") && !e.IsDir() {
			out = append(out, filepath.Join(dir, n))
		}
	}
	return out
}

// add lists t unless a target of its id is listed already (then it is an issue, and add
// returns false).
func (h *home) add(t *located) bool {
	for _, o := range h.targets {
		if o.ID == t.ID {
			h.issues.Errorf(CodeDuplicate, t.File, "", "target %s is declared by %s and again by %s; the second is ignored — rename one", t.ID, o.File, t.File)
			return false
		}
	}
	h.targets = append(h.targets, t)
	return true
}

// load reads a file of the home, or returns nil after an issue.
func (h *home) load(p string) []byte {
	data, err := capread.ReadFile(p, capread.SettingsMax)
	if err != nil {
		h.issues.Errorf(CodeUnreadable, p, "", "%s %s; its targets are not shown", filepath.Base(p), capread.Describe(err))
		return nil
	}
	return data
}

// members parses a JSON object file, or returns nil after an issue.
func (h *home) members(p string, data []byte) []jsonfile.Member {
	if _, err := jsondoc.Decode(data); err != nil {
		h.issues.Errorf(CodeInvalid, p, "", "%s %v; its targets are not shown until it is fixed", filepath.Base(p), err)
		h.issues[len(h.issues)-1].Line = jsondoc.ErrorLine(err)
		return nil
	}
	ms, err := jsonfile.Members(data)
	if err != nil || ms == nil {
		h.issues.Errorf(CodeInvalid, p, "", "%s is not a JSON object; its targets are not shown until it is fixed", filepath.Base(p))
		return nil
	}
	return ms
}

func member(ms []jsonfile.Member, key string) (json.RawMessage, bool) {
	for _, m := range ms {
		if m.Key == key {
			return m.Value, true
		}
	}
	return nil, false
}

// nameOf returns the "name" member, or the file's stem with a warning.
func (h *home) nameOf(p string, ms []jsonfile.Member) string {
	var name string
	if raw, ok := member(ms, "name"); ok && json.Unmarshal(raw, &name) == nil && name != "" {
		return name
	}
	name = strings.TrimSuffix(filepath.Base(p), ".json")
	h.issues.Warnf(CodeNameMissing, p, "/name", "%s has no \"name\" string; it is listed as %q (its file name) — add \"name\"", filepath.Base(p), name)
	return name
}

// dirsOf reads a pluginDirs member. ok is false (after an issue) when it is not a list
// of strings: such a target is shown read-only rather than overwritten.
func (h *home) dirsOf(p string, data []byte, ptr string, ms []jsonfile.Member) (dirs []string, ok bool) {
	raw, present := member(ms, "pluginDirs")
	if !present {
		return nil, true
	}
	if err := json.Unmarshal(raw, &dirs); err != nil || dirs == nil {
		h.issues.Errorf(CodeInvalid, p, ptr+"/pluginDirs", "%s: \"pluginDirs\" must be a list of folder paths; the target is read-only until it is fixed", filepath.Base(p))
		h.issues[len(h.issues)-1].Line = jsondoc.Line(data, ptr+"/pluginDirs")
		return nil, false
	}
	return dirs, true
}

func (h *home) readAgent(p string) *located {
	if data := h.load(p); data != nil {
		return h.agentFrom(p, data)
	}
	return nil
}

// agentFrom parses one agent file.
func (h *home) agentFrom(p string, data []byte) *located {
	ms := h.members(p, data)
	if ms == nil {
		return nil
	}
	name := h.nameOf(p, ms)
	dirs, ok := h.dirsOf(p, data, "", ms)
	var backend string
	if raw, present := member(ms, "backend"); present {
		_ = json.Unmarshal(raw, &backend) // not a string: no backend of its own
	}
	return &located{data: data, dirs: dirs, slot: -1, Target: Target{
		ID: "agent:" + name, Kind: KindAgent, Name: name, Backend: backend, File: p, ReadOnly: !ok, Hash: settings.Hash(data),
	}}
}
