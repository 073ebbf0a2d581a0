package assign

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/backend/jsondoc"
	"github.com/plugboard/plugboard/backend/jsonfile"
	"github.com/plugboard/plugboard/backend/settings"
)

func (h *home) readTemplate(p string) []*located {
	if data := h.load(p); data != nil {
		return h.templateFrom(p, data)
	}
	return nil
}

// templateFrom parses one template file into its slots: template:NAME/REF, or
// template:NAME/REF@INDEX for every slot of a ref that appears more than once.
func (h *home) templateFrom(p string, data []byte) []*located {
	ms := h.members(p, data)
	if ms == nil {
		return nil
	}
	name := h.nameOf(p, ms)
	raw, ok := member(ms, "agents")
	if !ok {
		return nil
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		h.issues.Errorf(CodeInvalid, p, "/agents", "%s: \"agents\" must be a list of slot objects ({\"ref\": AGENT, \"pluginDirs\"?: [...]}); its slots are not shown", filepath.Base(p))
		h.issues[len(h.issues)-1].Line = jsondoc.Line(data, "/agents")
		return nil
	}
	refs := make([]string, len(elems))
	slots := make([][]jsonfile.Member, len(elems))
	count := map[string]int{}
	for i, e := range elems {
		ptr := jsondoc.Pointer("agents", strconv.Itoa(i))
		sm, err := jsonfile.Members(e)
		var ref string
		if r, ok := member(sm, "ref"); err == nil && ok {
			err = json.Unmarshal(r, &ref)
		}
		if err != nil || ref == "" {
			h.issues.Errorf(CodeInvalid, p, ptr, "%s: slot %d must be an object with a \"ref\" naming an agent; it is not shown", filepath.Base(p), i)
			h.issues[len(h.issues)-1].Line = jsondoc.Line(data, ptr)
			continue
		}
		refs[i], slots[i] = ref, sm
		count[ref]++
	}
	var out []*located
	for i, ref := range refs {
		if ref == "" {
			continue
		}
		id := "template:" + name + "/" + ref
		if count[ref] > 1 {
			id += "@" + strconv.Itoa(i)
		}
		ptr := jsondoc.Pointer("agents", strconv.Itoa(i))
		dirs, ok := h.dirsOf(p, data, ptr, slots[i])
		t := &located{data: data, dirs: dirs, slot: i, ptr: ptr, Target: Target{
			ID: id, Kind: KindSlot, Name: name, Ref: ref, File: p, ReadOnly: !ok,
			Hash: settings.Hash(data), Inherits: ok && dirs == nil,
		}}
		if ref == ActiveRef {
			t.Kind, t.ReadOnly = KindActive, true
		}
		out = append(out, t)
	}
	return out
}

// readBindings lists the shell bindings of settings.json: an object under
// "shellBindings" mapping a binding name to {"agent": NAME, "pluginDirs"?: [...]}. A
// settings.json that cannot be read or parsed is reported by the settings package (the
// catalog carries that issue), so it is skipped here without a second issue.
func (h *home) readBindings() []*located {
	p := settings.Path(h.dir)
	data, err := capread.ReadFile(p, capread.SettingsMax)
	if err != nil {
		return nil
	}
	ms, err := jsonfile.Members(data)
	if err != nil {
		return nil
	}
	raw, ok := member(ms, "shellBindings")
	if !ok {
		return nil
	}
	bms, err := jsonfile.Members(raw)
	if err != nil {
		h.issues.Errorf(CodeInvalid, p, "/shellBindings", "settings.json: \"shellBindings\" must be an object mapping a binding name to {\"agent\": NAME, \"pluginDirs\"?: [...]}; no shell binding is shown")
		h.issues[len(h.issues)-1].Line = jsondoc.Line(data, "/shellBindings")
		return nil
	}
	var out []*located
	for _, b := range bms {
		ptr := jsondoc.Pointer("shellBindings", b.Key)
		vm, err := jsonfile.Members(b.Value)
		var agent string
		if r, ok := member(vm, "agent"); err == nil && ok {
			err = json.Unmarshal(r, &agent)
		}
		if err != nil || agent == "" {
			h.issues.Errorf(CodeInvalid, p, ptr, "settings.json: shell binding %q must be an object with an \"agent\" name; it is not shown", b.Key)
			h.issues[len(h.issues)-1].Line = jsondoc.Line(data, ptr)
			continue
		}
		dirs, ok := h.dirsOf(p, data, ptr, vm)
		out = append(out, &located{data: data, dirs: dirs, slot: -1, ptr: ptr, Target: Target{
			ID: "shell:" + b.Key, Kind: KindShellBinding, Name: b.Key, Ref: agent, File: p,
			ReadOnly: true, Hash: settings.Hash(data), Inherits: ok && dirs == nil,
		}})
	}
	return out
}

// finish fills the entry lists and effective set of a target and reports its entries.
func (h *home) finish(t *located) {
	t.Entries = h.plugins.entries(t.dirs)
	t.Managed = h.plugins.ids(t.dirs)
	t.Unmanaged = h.plugins.unassigned(t.dirs)
	t.Effective = h.effective(&t.Target, t.dirs)
	if a := h.agents[t.Ref]; t.Kind != KindAgent && a != nil {
		t.Backend = a.Backend // a slot or binding runs its agent
	}
	if h.quiet {
		return
	}
	if t.Kind != KindAgent && t.Ref != ActiveRef && h.agents[t.Ref] == nil {
		h.issues.Warnf(CodeUnknownAgent, t.File, t.ptr+"/ref", "%s refers to agent %q, which no file in agents/ declares; it inherits nothing", t.ID, t.Ref)
		h.issues[len(h.issues)-1].Line = jsondoc.Line(t.data, t.ptr)
	}
	seen := map[string]bool{}
	for i, e := range t.Entries {
		ptr := t.ptr + "/pluginDirs/" + strconv.Itoa(i)
		n := len(h.issues)
		switch {
		case e.ID == "" && !filepath.IsAbs(e.Dir) && !strings.HasPrefix(e.Dir, "~/"):
			h.issues.Warnf(CodeNotManaged, t.File, ptr, "%s: %q is kept as written but is not a catalog entry: managed entries are plugins/<id> (relative to $PLUGBOARD_HOME)", t.ID, e.Dir)
		case e.ID != "" && seen[e.ID]:
			h.issues.Warnf(CodeDuplicateEntry, t.File, ptr, "%s: plugin %q is listed twice; the next save keeps the first", t.ID, e.ID)
		case e.Managed && !e.Known:
			h.issues.Warnf(CodeUnknownPlugin, t.File, ptr, "%s: %q names no plugin in $PLUGBOARD_HOME/plugins; install it or remove the entry", t.ID, e.Dir)
		}
		if len(h.issues) > n {
			h.issues[n].Line = jsondoc.Line(t.data, ptr)
		}
		seen[e.ID] = seen[e.ID] || e.ID != ""
	}
}

// effective returns the plugin ids in effect for a target whose own entries are dirs:
// its managed entries, or its agent's for a slot or binding that inherits. The
// __active__ slot's agent is chosen at run time, so what it inherits is not known here.
func (h *home) effective(t *Target, dirs []string) []string {
	if !t.Inherits {
		return h.plugins.ids(dirs)
	}
	if a := h.agents[t.Ref]; a != nil && t.Ref != ActiveRef {
		return h.plugins.ids(a.dirs)
	}
	return []string{}
}
