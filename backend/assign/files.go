package assign

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/jsonfile"
	"github.com/plugboard/plugboard/backend/settings"
	"github.com/plugboard/plugboard/backend/store"
)

// Agents and template slots from the app (U: a new user makes an agent without knowing
// the file format). NewAgent, CopyAgent, RenameAgent and RemoveAgent write, rename or
// remove $PLUGBOARD_HOME/agents/NAME.json; AddSlot and RemoveSlot change a template's
// "agents" list (AddSlot makes templates/NAME.json when there is none). Each is one
// history entry of kind store.KindFiles holding every file it wrote or removed, before
// and after, so a revert (Revert) puts each file back while it still holds what the
// operation wrote, and refuses (a *StaleError) when it does not.
//
// A write goes through the same habits as a save: jsonfile.Lock on LockName of each
// folder it touches (in path order), a re-read that must find what the operation was
// computed from, jsonfile.WriteAtomic, and the refusal of a file its owner may not write.
// A rename keeps everything else in the file as written (jsonfile.SetMember changes only
// "name") and moves the file to NAME.json when it was named after the agent; template
// slots and shell bindings that run the agent follow the new name, and the
// acknowledgments recorded for the agent carry over to it, so a rename asks no question
// the old name had answered. A template's "entryAgent" and its transitions' "from" and
// "to" follow too.

// Rule codes of the file operations.
const (
	RuleBadName         = "bad-name"         // not a name an agent or template can have
	RuleNameTaken       = "name-taken"       // another agent (or template) has the name
	RuleBadBackend      = "bad-backend"      // not a backend an agent can launch
	RuleNoAgent         = "unknown-agent"    // no agent of that name
	RuleAlreadyReverted = "already-reverted" // the history entry was reverted before
)

// AgentBackends are the backends an agent file may name ("" launches Claude Code).
var AgentBackends = []string{"claude", "pi", "codex", "copilot"}

// nameRE is made on first use: its {0,63} compiles to 860 allocations, 0.2 ms of every
// command's start when it was a package variable.
var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// checkName refuses a name a new agent or template cannot have: the name is the last part
// of a target id (agent:NAME, template:NAME/REF) and the file name.
func checkName(what, name string) error {
	if !nameRE().MatchString(name) {
		return &RuleError{Code: RuleBadName, Names: []string{name},
			Reason: fmt.Sprintf("%q cannot name %s: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", name, what)}
	}
	return nil
}

// FilesSaved is what an agent or slot operation did: the target it made or changed
// (for a removal, the one it removed), each file it wrote or removed, its history entry
// and warnings (what it could not record, references it could not follow).
type FilesSaved struct {
	Target   string        `json:"target"`
	Files    []FileWritten `json:"files"`
	History  int64         `json:"history"`
	Warnings []string      `json:"warnings"`
}

// FileWritten is one file an operation wrote: its absolute path and what happened to it
// ("created", "changed" or "removed").
type FileWritten struct {
	Path   string `json:"path"`
	Change string `json:"change"`
}

// change is one file an operation writes: its absolute path, the bytes it must hold now
// (nil: it must not exist) and the bytes it gets (nil: removed).
type change struct {
	path          string
	before, after []byte
}

// NewAgent makes agent name, launching backend ("" for Claude Code), starting with the
// plugin set of agent from as written ("" for none).
func NewAgent(ctx context.Context, pbHome string, cat *catalog.Catalog, name, backend, from, actor string) (FilesSaved, error) {
	if err := checkName("an agent", name); err != nil {
		return FilesSaved{}, err
	}
	if backend != "" && !slices.Contains(AgentBackends, backend) {
		return FilesSaved{}, &RuleError{Code: RuleBadBackend, Names: []string{backend},
			Reason: fmt.Sprintf("%q is not a backend an agent can launch; choose one of %s", backend, strings.Join(AgentBackends, ", "))}
	}
	h := read(pbHome, indexPlugins(cat))
	if err := h.nameFree(name); err != nil {
		return FilesSaved{}, err
	}
	dirs := []string{}
	if from != "" {
		src, err := h.agent(from)
		if err != nil {
			return FilesSaved{}, err
		}
		if src.dirs != nil {
			dirs = src.dirs
		}
	}
	ms := []jsonfile.Member{{Key: "name", Value: mustJSON(name)}}
	if backend != "" {
		ms = append(ms, jsonfile.Member{Key: "backend", Value: mustJSON(backend)})
	}
	ms = append(ms, jsonfile.Member{Key: "pluginDirs", Value: mustJSON(dirs)})
	data, err := jsonfile.Encode(ms)
	if err != nil {
		return FilesSaved{}, err
	}
	p := h.freeFile("agents", name)
	return h.apply(ctx, "agent:"+name, []change{{path: p, after: data}}, nil, actor)
}

// CopyAgent makes agent name as a copy of agent from: the same file with the new name.
func CopyAgent(ctx context.Context, pbHome string, cat *catalog.Catalog, from, name, actor string) (FilesSaved, error) {
	if err := checkName("an agent", name); err != nil {
		return FilesSaved{}, err
	}
	h := read(pbHome, indexPlugins(cat))
	src, err := h.agent(from)
	if err != nil {
		return FilesSaved{}, err
	}
	if err := h.nameFree(name); err != nil {
		return FilesSaved{}, err
	}
	data, err := jsonfile.SetMember(src.data, "", "name", name)
	if err != nil {
		return FilesSaved{}, fmt.Errorf("%s: %w", src.File, err)
	}
	return h.apply(ctx, "agent:"+name, []change{{path: h.freeFile("agents", name), after: data}}, nil, actor)
}

// RenameAgent renames agent from to name: its "name", its file when the file was named
// after it, the template slots and shell bindings that run it, and its acknowledgments.
func RenameAgent(ctx context.Context, pbHome string, cat *catalog.Catalog, from, name, actor string) (FilesSaved, error) {
	if err := checkName("an agent", name); err != nil {
		return FilesSaved{}, err
	}
	h := read(pbHome, indexPlugins(cat))
	src, err := h.agent(from)
	if err != nil {
		return FilesSaved{}, err
	}
	if from == name {
		return FilesSaved{Target: src.ID, Files: []FileWritten{}, Warnings: []string{}}, nil
	}
	if err := h.nameFree(name); err != nil {
		return FilesSaved{}, err
	}
	data, err := jsonfile.SetMember(src.data, "", "name", name)
	if err != nil {
		return FilesSaved{}, fmt.Errorf("%s: %w", src.File, err)
	}
	var cs []change
	if filepath.Base(src.File) == from+".json" {
		cs = append(cs, change{path: h.freeFile("agents", name), after: data}, change{path: src.File, before: src.data})
	} else {
		cs = append(cs, change{path: src.File, before: src.data, after: data})
	}
	refs, err := h.followRefs(from, name)
	if err != nil {
		return FilesSaved{}, err
	}
	cs = append(cs, refs...)
	carry := map[string]string{src.ID: "agent:" + name}
	for _, t := range h.targets {
		if (t.Kind == KindSlot || t.Kind == KindShellBinding) && t.Ref == from {
			carry[t.ID] = renamedID(t, name)
		}
	}
	return h.apply(ctx, "agent:"+name, cs, carry, actor)
}

// RemoveAgent removes agent name's file. Template slots and shell bindings that run it
// stay (each then says its agent is unknown) and are named in the warnings.
func RemoveAgent(ctx context.Context, pbHome string, cat *catalog.Catalog, name, actor string) (FilesSaved, error) {
	h := read(pbHome, indexPlugins(cat))
	src, err := h.agent(name)
	if err != nil {
		return FilesSaved{}, err
	}
	saved, err := h.apply(ctx, src.ID, []change{{path: src.File, before: src.data}}, nil, actor)
	if err != nil {
		return saved, err
	}
	for _, t := range h.targets {
		if (t.Kind == KindSlot || t.Kind == KindShellBinding) && t.Ref == name {
			saved.Warnings = append(saved.Warnings, fmt.Sprintf("%s still runs agent %s, which is gone: give it another agent or remove it", t.ID, name))
		}
	}
	return saved, nil
}

// AddSlot adds a slot running agent to template (making the template when there is
// none); the slot inherits the agent's plugin set until it is given its own.
func AddSlot(ctx context.Context, pbHome string, cat *catalog.Catalog, template, agent, actor string) (FilesSaved, error) {
	h := read(pbHome, indexPlugins(cat))
	if _, err := h.agent(agent); err != nil {
		return FilesSaved{}, err
	}
	slot, _ := json.Marshal(map[string]string{"ref": agent})
	file, data, elems := h.template(template)
	if file == "" {
		if err := checkName("a template", template); err != nil {
			return FilesSaved{}, err
		}
		out, err := jsonfile.Encode([]jsonfile.Member{{Key: "name", Value: mustJSON(template)}, {Key: "agents", Value: mustJSON([]json.RawMessage{slot})}})
		if err != nil {
			return FilesSaved{}, err
		}
		return h.apply(ctx, "template:"+template+"/"+agent, []change{{path: h.freeFile("templates", template), after: out}}, nil, actor)
	}
	if elems == nil && data != nil {
		if raw, ok := member(h.membersQuiet(data), "agents"); ok && len(bytes.TrimSpace(raw)) > 0 {
			return FilesSaved{}, fmt.Errorf("%s: \"agents\" is not a list of slots; fix it before adding a slot", file)
		}
	}
	elems = append(elems, slot)
	out, err := jsonfile.SetMember(data, "", "agents", elems)
	if err != nil {
		return FilesSaved{}, fmt.Errorf("%s: %w", file, err)
	}
	id := "template:" + template + "/" + agent
	n := 0
	for _, e := range elems {
		var s struct{ Ref string }
		if json.Unmarshal(e, &s) == nil && s.Ref == agent {
			n++
		}
	}
	if n > 1 {
		id += "@" + strconv.Itoa(len(elems)-1)
	}
	return h.apply(ctx, id, []change{{path: file, before: data, after: out}}, nil, actor)
}

// RemoveSlot removes the template slot of target id (template:NAME/REF[@INDEX]) from its
// template; the template file stays, with its other slots.
func RemoveSlot(ctx context.Context, pbHome string, cat *catalog.Catalog, id, actor string) (FilesSaved, error) {
	h := read(pbHome, indexPlugins(cat))
	t := h.find(id)
	if t == nil || t.Kind != KindSlot && t.Kind != KindActive {
		if t != nil {
			return FilesSaved{}, &RuleError{Code: RuleBadChange, Names: []string{id}, Reason: id + " is not a template slot"}
		}
		return FilesSaved{}, h.notFound(id)
	}
	_, data, elems := h.template(t.Name)
	if t.slot < 0 || t.slot >= len(elems) {
		return FilesSaved{}, &StaleError{}
	}
	out, err := jsonfile.SetMember(data, "", "agents", slices.Delete(slices.Clone(elems), t.slot, t.slot+1))
	if err != nil {
		return FilesSaved{}, fmt.Errorf("%s: %w", t.File, err)
	}
	return h.apply(ctx, id, []change{{path: t.File, before: data, after: out}}, nil, actor)
}

// revertFiles puts back what entry e wrote (each file's before, while it still holds its
// after) and records that as an entry reverting e.
func revertFiles(ctx context.Context, pbHome string, cat *catalog.Catalog, e store.HistoryEntry, actor string) (FilesSaved, error) {
	h := read(pbHome, indexPlugins(cat))
	cs := make([]change, len(e.Files))
	for i, f := range e.Files {
		p, err := homeFile(pbHome, f.Path)
		if err != nil {
			return FilesSaved{}, fmt.Errorf("history entry %d: %w", e.ID, err)
		}
		cs[len(cs)-1-i] = change{path: p, before: textBytes(f.After), after: textBytes(f.Before)}
	}
	h.revertOf = e.ID
	return h.apply(ctx, e.Target, cs, nil, actor)
}

// agent finds agent name, or a RuleError naming the agents there are.
func (h *home) agent(name string) (*located, error) {
	if a := h.agents[name]; a != nil {
		return a, nil
	}
	names := make([]string, 0, len(h.agents))
	for n := range h.agents {
		names = append(names, n)
	}
	sort.Strings(names)
	reason := fmt.Sprintf("there is no agent %q", name)
	if len(names) > 0 {
		reason += "; the agents are " + strings.Join(names, ", ")
	}
	if bad := h.unusable(); bad != "" {
		reason += "; " + bad
	}
	return nil, &RuleError{Code: RuleNoAgent, Names: []string{name}, Reason: reason}
}

// nameFree refuses a name another agent has.
func (h *home) nameFree(name string) error {
	if a := h.agents[name]; a != nil {
		return &RuleError{Code: RuleNameTaken, Names: []string{name},
			Reason: fmt.Sprintf("there is already an agent %q (%s); choose another name", name, a.File)}
	}
	return nil
}

// freeFile is sub/NAME.json, or NAME-2.json, NAME-3.json… when a file of that name
// exists (a file whose "name" says something else).
func (h *home) freeFile(sub, name string) string {
	dir := filepath.Join(h.dir, sub)
	for i := 1; ; i++ {
		base := name
		if i > 1 {
			base += "-" + strconv.Itoa(i)
		}
		p := filepath.Join(dir, base+".json")
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			return p
		}
	}
}

// template finds template name's file, its bytes and its "agents" elements ("" when
// there is no template of that name).
func (h *home) template(name string) (file string, data []byte, elems []json.RawMessage) {
	for _, f := range h.files("templates") {
		d, err := capread.ReadFile(f, capread.SettingsMax)
		if err != nil {
			continue
		}
		ms := h.membersQuiet(d)
		if ms == nil {
			continue
		}
		n := strings.TrimSuffix(filepath.Base(f), ".json")
		if raw, ok := member(ms, "name"); ok {
			var s string
			if json.Unmarshal(raw, &s) == nil && s != "" {
				n = s
			}
		}
		if n != name {
			continue
		}
		if raw, ok := member(ms, "agents"); ok {
			_ = json.Unmarshal(raw, &elems)
		}
		return f, d, elems
	}
	return "", nil, nil
}

func (h *home) membersQuiet(data []byte) []jsonfile.Member {
	if !json.Valid(data) {
		return nil
	}
	ms, _ := jsonfile.Members(data)
	return ms
}

// followRefs are the changes that make every template slot and shell binding running
// agent from run name instead.
func (h *home) followRefs(from, name string) ([]change, error) {
	edited := map[string][]byte{}
	var order []string
	for _, t := range h.targets {
		if t.Ref != from || t.Kind != KindSlot && t.Kind != KindShellBinding {
			continue
		}
		cur, ok := edited[t.File]
		if !ok {
			cur = t.data
			order = append(order, t.File)
		}
		var err error
		if t.Kind == KindSlot {
			cur, err = jsonfile.SetMember(cur, t.ptr, "ref", name)
		} else {
			cur, err = jsonfile.SetMember(cur, t.ptr, "agent", name)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.File, err)
		}
		edited[t.File] = cur
	}
	var cs []change
	for _, f := range order {
		before := h.bytesOf(f)
		after := edited[f]
		if filepath.Base(filepath.Dir(f)) == "templates" {
			var err error
			if after, err = templateNames(after, from, name); err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
		}
		cs = append(cs, change{path: f, before: before, after: after})
	}
	return cs, nil
}

// templateNames renames agent from to name where a template names it outside its
// slots: "entryAgent" and each transition's "from" and "to".
func templateNames(data []byte, from, name string) ([]byte, error) {
	var doc struct {
		EntryAgent  *string `json:"entryAgent"`
		Transitions []struct {
			From *string `json:"from"`
			To   *string `json:"to"`
		} `json:"transitions"`
	}
	_ = json.Unmarshal(data, &doc) // another shape: nothing more to rename
	var err error
	if doc.EntryAgent != nil && *doc.EntryAgent == from {
		if data, err = jsonfile.SetMember(data, "", "entryAgent", name); err != nil {
			return nil, err
		}
	}
	for i, tr := range doc.Transitions {
		ptr := "/transitions/" + strconv.Itoa(i)
		for key, v := range map[string]*string{"from": tr.From, "to": tr.To} {
			if v != nil && *v == from {
				if data, err = jsonfile.SetMember(data, ptr, key, name); err != nil {
					return nil, err
				}
			}
		}
	}
	return data, nil
}

func (h *home) bytesOf(file string) []byte {
	for _, t := range h.targets {
		if t.File == file {
			return t.data
		}
	}
	return nil
}

// renamedID is target t's id once its agent is called name.
func renamedID(t *located, name string) string {
	if t.Kind == KindShellBinding {
		return t.ID
	}
	id := "template:" + t.Name + "/" + name
	if i := strings.LastIndexByte(t.ID, '@'); i > strings.LastIndexByte(t.ID, '/') {
		id += t.ID[i:]
	}
	return id
}

// apply writes cs (see writeFiles) and records them as one history entry of target;
// carry maps old target ids to new ones whose acknowledgments follow.
func (h *home) apply(ctx context.Context, target string, cs []change, carry map[string]string, actor string) (FilesSaved, error) {
	if err := ctx.Err(); err != nil {
		return FilesSaved{}, err
	}
	if err := writeFiles(h, cs); err != nil {
		return FilesSaved{}, err
	}
	saved := FilesSaved{Target: target, Files: make([]FileWritten, len(cs)), Warnings: []string{}}
	files := make([]store.FileChange, len(cs))
	for i, c := range cs {
		what := "changed"
		switch {
		case c.before == nil:
			what = "created"
		case c.after == nil:
			what = "removed"
		}
		saved.Files[i] = FileWritten{Path: c.path, Change: what}
		rel, _ := filepath.Rel(h.dir, c.path)
		files[i] = store.FileChange{Path: filepath.ToSlash(rel), Before: bytesText(c.before), After: bytesText(c.after)}
	}
	st, warnings, err := store.Open(ctx, h.dir, store.PartHistory)
	saved.Warnings = append(saved.Warnings, warnings...)
	if err != nil {
		saved.Warnings = append(saved.Warnings, "the history database cannot be opened ("+err.Error()+"); the change is done but not recorded")
		return saved, nil
	}
	defer st.Close()
	e := store.HistoryEntry{Target: target, Kind: store.KindFiles, Files: files, RevertOf: h.revertOf, Actor: actor}
	for old, nu := range carry {
		acks, err := st.Acknowledgments(ctx, old)
		if err != nil {
			saved.Warnings = append(saved.Warnings, "the acknowledgments of "+old+" cannot be read, so "+nu+" asks again: "+err.Error())
			continue
		}
		recs := make([]store.Ack, len(acks))
		for i, a := range acks {
			recs[i] = a.Ack
		}
		if nu == target {
			e.Acks = recs
		} else if len(recs) > 0 {
			if _, err := st.AddHistory(ctx, store.HistoryEntry{Target: nu, Kind: store.KindAck, Acks: recs, Actor: actor}); err != nil {
				saved.Warnings = append(saved.Warnings, "the acknowledgments of "+old+" did not carry over to "+nu+": "+err.Error())
			}
		}
	}
	if saved.History, err = st.AddHistory(ctx, e); err != nil {
		saved.Warnings = append(saved.Warnings, "the change is done but not recorded in the history: "+err.Error())
	}
	return saved, nil
}

// writeFiles writes every change under the locks of the folders it touches (taken in
// path order), after checking that each file still holds what the change was computed
// from: otherwise it writes nothing and returns a *StaleError. Files are written before
// any is removed, so a process killed in between leaves an extra file, never a missing
// one.
func writeFiles(h *home, cs []change) error {
	var dirs []string
	for _, c := range cs {
		if d := filepath.Dir(c.path); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("make %s: %w", d, err)
		}
		unlock, err := jsonfile.Lock(filepath.Join(d, LockName))
		if err != nil {
			return fmt.Errorf("lock %s: %w", d, err)
		}
		defer unlock()
	}
	modes := make([]os.FileMode, len(cs))
	for i, c := range cs {
		cur, err := capread.ReadFile(c.path, capread.SettingsMax)
		switch {
		case errors.Is(err, os.ErrNotExist):
			if c.before != nil {
				return &StaleError{}
			}
			if _, lerr := os.Lstat(c.path); lerr == nil {
				return &StaleError{} // a dangling link, or something that is not a file
			}
			modes[i] = 0o644
			continue
		case err != nil:
			return fmt.Errorf("read %s: %w", c.path, err)
		case c.before == nil || !bytes.Equal(cur, c.before):
			return &StaleError{}
		}
		real, err := filepath.EvalSymlinks(c.path)
		if err != nil {
			return fmt.Errorf("resolve %s: %w", c.path, err)
		}
		st, err := os.Stat(real)
		if err != nil {
			return fmt.Errorf("stat %s: %w", real, err)
		}
		if c.after != nil {
			if err := writable(&located{Target: Target{ID: relID(h.dir, c.path), File: c.path}}, real, st.Mode()); err != nil {
				return err
			}
		}
		modes[i] = st.Mode().Perm()
	}
	for i, c := range cs {
		if c.after == nil {
			continue
		}
		real := c.path
		if r, err := filepath.EvalSymlinks(c.path); err == nil {
			real = r // a symlinked file (a dotfiles checkout) is written where it points
		}
		cleanTemps(real)
		if err := jsonfile.WriteAtomic(real, c.after, modes[i]); err != nil {
			return fmt.Errorf("save %s: %w", c.path, err)
		}
	}
	for _, c := range cs {
		if c.after == nil {
			if err := os.Remove(c.path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("remove %s: %w", c.path, err)
			}
		}
	}
	return nil
}

// homeFile is the absolute path of a history entry's file, which must stay inside the
// agents or templates folder, or be settings.json.
func homeFile(pbHome, rel string) (string, error) {
	clean := filepath.Clean(filepath.FromSlash(rel))
	dir := filepath.Dir(clean)
	if dir != "agents" && dir != "templates" && filepath.Join(pbHome, clean) != settings.Path(pbHome) {
		return "", fmt.Errorf("%q is not an agent, template or settings file of the home", rel)
	}
	return filepath.Join(pbHome, clean), nil
}

func relID(pbHome, p string) string {
	rel, err := filepath.Rel(pbHome, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(rel)
}

func bytesText(b []byte) *string {
	if b == nil {
		return nil
	}
	s := string(b)
	return &s
}

func textBytes(s *string) []byte {
	if s == nil {
		return nil
	}
	return []byte(*s)
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // strings and lists of strings always encode
	}
	return b
}
