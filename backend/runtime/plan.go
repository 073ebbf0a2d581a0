package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/plugboard/plugboard/backend/argerr"
	"github.com/plugboard/plugboard/backend/assign"
	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/ctree"
	"github.com/plugboard/plugboard/backend/manifest"
	"github.com/plugboard/plugboard/backend/mcpconfig"
	"github.com/plugboard/plugboard/backend/pathsafe"
	"github.com/plugboard/plugboard/backend/settings"
	"github.com/plugboard/plugboard/backend/skill"
)

// Backends.
const (
	Claude  = "claude"
	PI      = "pi"
	Codex   = "codex"
	Copilot = "copilot"
)

// Backends lists every backend a launch knows, in the order the page offers them.
var Backends = []string{Claude, PI, Codex, Copilot}

// Modes. The zero mode is an ordinary interactive launch.
const (
	ModeBenchmark = "benchmark" // a measured run: no catalogued MCP (R7)
	ModeSubagent  = "subagent"  // the restricted subagent surface: no catalogued MCP (R7)
)

// Request says what to launch.
type Request struct {
	Home          string // the user's home folder
	PlugboardHome string
	// Target is a target id (agent:NAME, template:NAME/REF…); a bare NAME means agent:NAME.
	Target string
	// Dirs, when set, launch exactly these plugin folders instead of a target's set (a
	// working copy tried with plugboard try): the plan's target is DirTarget(Dirs), and
	// Target is ignored.
	Dirs []string
	// Backend is Claude or PI; "" means the agent file's "backend" member, else Claude.
	Backend string
	// NoPlugins launches with an explicit empty set (--plugins none).
	NoPlugins bool
	Mode      string
	// Acked says which MCP servers are acknowledged (ack.go); nil reads the store.
	Acked AckedFunc
	// RequireAck fails the launch with an *AckError instead of leaving out the
	// servers that are not acknowledged.
	RequireAck bool
	// Bin is the agent executable as the plan's argv[0]; "" means Bins[backend], else the
	// backend's name, found on PATH when the agent is started.
	Bin  string
	Bins map[string]string
	// Self is the absolute path of the plugboard executable, which Claude runs as the
	// stdio side of every remote MCP server (plugboard mcp-proxy).
	Self string
	// PIMCPAdapter is the pi-mcp-adapter extension's index.ts, PI's bridge to MCP; ""
	// looks for it beside pi.
	PIMCPAdapter string
	// Args are passed to the agent after Plugboard's own arguments.
	Args []string
	// Workspace is ${workspaceFolder} for a Cursor plugin's MCP servers: the folder the
	// agent works in; "" means the current folder.
	Workspace string
	// Getenv reads the user's environment (CODEX_HOME, COPILOT_HOME: where the user's own
	// client settings are); nil means os.Getenv.
	Getenv func(string) string
	// DryRun plans the launch and writes nothing: no projection, no data folder. The plan
	// has the argv and fingerprint the real launch would use, and Reused says whether it
	// would reuse the projection.
	DryRun bool
}

// Plan is a launch, ready to start: the argv, the environment keys Plugboard adds, and
// the private projection it points into. It carries no environment or header value.
type Plan struct {
	Backend     string   `json:"backend"`
	Target      string   `json:"target"`
	Mode        string   `json:"mode,omitempty"`
	Argv        []string `json:"argv"`
	EnvKeys     []string `json:"envKeys"` // added to the inherited environment
	Projection  string   `json:"projection"`
	Fingerprint string   `json:"fingerprint"`
	// Reused is true when the projection already existed for this fingerprint and
	// nothing was copied.
	Reused bool `json:"reused"`
	// Rebuilt says why a projection of this fingerprint that was there could not be
	// reused (a file missing, added or changed since it was sealed), so it was made anew.
	Rebuilt    string             `json:"rebuilt,omitempty"`
	Plugins    []PlanPlugin       `json:"plugins"`
	Skills     []string           `json:"skills"`  // as the agent names them (claude: ns:skill)
	Servers    []string           `json:"servers"` // MCP runtime names
	Suppressed []Suppressed       `json:"suppressed"`
	Dropped    []Drop             `json:"dropped"`
	Collisions []assign.Collision `json:"collisions"`
	// Grants are the paths the agent may read because a projected skill is in the launch
	// (its folder and each accepted `paths` entry, in the projection), never write;
	// Refused the `paths` entries not granted, and why (grants.go). GrantsUnsupported says
	// why a backend gets no grants (PI).
	Grants            []Grant   `json:"grants"`
	Refused           []Refusal `json:"refused"`
	GrantsUnsupported string    `json:"grantsUnsupported,omitempty"`

	env     []string          // the additions, KEY=VALUE; never serialised
	perms   permissions       // Claude's permission rules for the grants, in its --settings
	skillOf map[string]string // skill, as the agent names it → its plugin's id
}

// addSkill lists a skill of the launch, as the agent names it, and whose it is.
func (p *Plan) addSkill(name, plugin string) {
	p.Skills = append(p.Skills, name)
	if p.skillOf == nil {
		p.skillOf = map[string]string{}
	}
	p.skillOf[name] = plugin
}

// SkillPlugin is the id of the plugin whose skill the agent names name, or "".
func (p *Plan) SkillPlugin(name string) string { return p.skillOf[name] }

// PlanPlugin is one plugin of the launch set and how the backend gets it.
type PlanPlugin struct {
	ID  string `json:"id"`
	Dir string `json:"dir"` // as assigned (absolute)
	// Path is the folder launched when it is not Dir: the revision of a cached Cursor
	// plugin installed now.
	Path   string `json:"path,omitempty"`
	Format string `json:"format"`
	// How: "projected" (a compatibility copy in the projection), "as-is" (a legacy folder
	// Claude loads itself), "skills" (PI: its skills projected) or "dropped".
	How string `json:"how"`
}

// Suppressed is a portable or Cursor MCP server left out by R7.
type Suppressed struct {
	Plugin string `json:"plugin"`
	Server string `json:"server"`
	Reason string `json:"reason"`
}

// Drop is one component left out of the launch, alone (R5), and why.
type Drop struct {
	Plugin string `json:"plugin"`
	What   string `json:"what"` // "plugin", "skill", "file" (of a skill), "server", "mcp", "hooks" (activity recording) or "settings" (the user's client settings, not carried over)
	Name   string `json:"name,omitempty"`
	Reason string `json:"reason"`
	// Code is the issue code inspect and catalog report for the same cause, when there is
	// one (a skill folder the launch cannot copy: "skill.tree-outside" …).
	Code string `json:"code,omitempty"`
	// Ack is the server to acknowledge, for a server left out as not acknowledged.
	Ack *assign.Ack `json:"ack,omitempty"`
	// LaunchAs is true for an invalid plugin Claude would load: the plugin's "launch as
	// Claude loads it" choice (the page's button, plugboard launch-as ID claude) takes it in.
	LaunchAs bool `json:"launchAs,omitempty"`
}

// Env returns the environment for the agent: base with the plan's additions.
func (p *Plan) Env(base []string) []string {
	out := append([]string{}, base...)
	return append(out, p.env...)
}

// Command is the agent's command line as a person would run it: the argv, after the
// client's private home when the backend has one (CODEX_HOME=… codex, COPILOT_HOME=…
// copilot), without which the client would load the user's own set instead. No other
// addition is shown (the activity token is a secret).
func (p *Plan) Command() []string {
	var out []string
	for _, kv := range p.env {
		if k, _, _ := strings.Cut(kv, "="); k == CodexHomeEnv || k == CopilotHomeEnv {
			out = append(out, kv)
		}
	}
	return append(out, p.Argv...)
}

// SetEnv adds key=value to the agent's environment (key to EnvKeys; the value is never
// serialised), replacing an earlier addition of key.
func (p *Plan) SetEnv(key, value string) {
	env := p.env[:0:0]
	for _, kv := range p.env {
		if k, _, _ := strings.Cut(kv, "="); k != key {
			env = append(env, kv)
		}
	}
	p.env = append(env, key+"="+value)
	if !slices.Contains(p.EnvKeys, key) {
		p.EnvKeys = append(p.EnvKeys, key)
	}
}

// DirTarget is the target id of a launch of plugin folders (Request.Dirs).
func DirTarget(dirs []string) string {
	return "dir:" + strings.Join(dirs, string(filepath.ListSeparator))
}

// Errors Build returns.
var (
	ErrTarget    = errors.New("cannot launch this target")
	ErrCollision = errors.New("names collide in the launch set")
)

// CollisionError fails a launch closed (R6); the plan lists the collisions too.
type CollisionError struct{ Collisions []assign.Collision }

func (e *CollisionError) Error() string {
	parts := make([]string, len(e.Collisions))
	for i, c := range e.Collisions {
		parts[i] = fmt.Sprintf("%s %q is provided by %s", c.Kind, c.Name, strings.Join(c.Plugins, " and "))
	}
	return ErrCollision.Error() + ", so nothing was started: " + strings.Join(parts, "; ") + "; remove one of each pair from the target"
}
func (e *CollisionError) Unwrap() error { return ErrCollision }

// unit is one plugin of the launch set, read afresh (R1).
type unit struct {
	dir  string // as assigned, absolute
	root string // filesystem-resolved
	p    catalog.Plugin
	// asClaude is set for a package the specification rejects that the user chose to
	// launch as Claude loads it (settings launchAs): Claude gets the folder as it is,
	// PI nothing.
	asClaude bool
	skills   []projSkill
	mcp      []Server
	sums     *ctree.Sums // the launch's remembered file hashes (see hashTree)
}

type projSkill struct {
	name string
	t    tree
}

// Build reads the target and every plugin in its effective set from disk, checks the set,
// normalises its MCP servers, and makes (or reuses) the content-addressed projection
// under $PLUGBOARD_HOME/runtime. It starts nothing. On a collision it returns the plan
// (with Collisions) and a *CollisionError, and projects nothing.
func Build(req Request) (*Plan, error) {
	t, dirs, backend, err := resolveTarget(req)
	if err != nil {
		return nil, err
	}
	if req.Bin == "" {
		req.Bin = req.Bins[backend]
	}
	if backend == PI && req.PIMCPAdapter == "" {
		// Found now, so that the fingerprint (and the projection's name) covers it.
		req.PIMCPAdapter = findPIMCPAdapter(binOr(req.Bin, PI))
	}
	plan := &Plan{Backend: backend, Target: t.ID, Mode: req.Mode, Argv: []string{}, EnvKeys: []string{}, Plugins: []PlanPlugin{},
		Skills: []string{}, Servers: []string{}, Suppressed: []Suppressed{}, Dropped: []Drop{}, Collisions: []assign.Collision{},
		Grants: []Grant{}, Refused: []Refusal{}}
	drop := func(d Drop) { plan.Dropped = append(plan.Dropped, d) }
	st, _, _ := settings.Read(req.PlugboardHome)

	units := readUnits(dirs, req, st, backend, drop)
	sumsAt := sumsFile(req.PlugboardHome, backend, t.ID)
	sums := ctree.LoadSums(sumsAt)
	if !req.DryRun { // a dry run writes nothing
		defer func() { _ = saveSums(sums, sumsAt) }()
	}
	for i := range units {
		units[i].sums = sums
	}
	if cs := idCollisions(units); len(cs) > 0 {
		plan.Collisions = cs
		return plan, &CollisionError{Collisions: cs}
	}
	valid := make([]*catalog.Plugin, 0, len(units))
	for i := range units {
		valid = append(valid, &units[i].p)
	}
	plan.Collisions = assign.Collisions(valid)
	suppress := mcpSuppression(req)
	for i := range units {
		u := &units[i]
		u.skills = projectableSkills(u, backend, st, drop)
		if assign.LaunchesMCP(u.p.Format) && u.p.MCP != nil && suppress != "" {
			for _, s := range u.p.MCP.Servers {
				if u.p.MCP.Valid && s.Valid { // an invalid one would not have launched anyway
					plan.Suppressed = append(plan.Suppressed, Suppressed{Plugin: u.p.ID, Server: s.Name, Reason: suppress})
				}
			}
			continue
		}
		u.mcp = mcpServers(&u.p, u.root, req.PlugboardHome, cursorVars(req), drop)
	}
	if suppress != "" {
		plan.Collisions = withoutMCP(plan.Collisions)
	}
	if flatNames(backend) {
		plan.Collisions = append(plan.Collisions, piCollisions(units)...)
	}
	if len(plan.Collisions) > 0 {
		return plan, &CollisionError{Collisions: plan.Collisions}
	}
	if err := dropUnacknowledged(req, plan, units); err != nil {
		return plan, err
	}
	// Servers get a config entry only through the plugboard executable, and PI's only
	// through its bridge: without them no stdio server launches and no data folder is made.
	if req.Self != "" && (backend != PI || req.PIMCPAdapter != "") {
		makeDataDirs(units, req.PlugboardHome, req.DryRun, drop)
	}

	l, err := project(plan, units, req, backend)
	if err != nil {
		return plan, err
	}
	if ready := readyHome[backend]; ready != nil && !req.DryRun {
		if err := ready(plan, req); err != nil {
			return plan, fmt.Errorf("the %s home of the launch (%s) could not be made: %w", backend, StateHome(req.PlugboardHome, backend, plan.Fingerprint), err)
		}
	}
	for _, u := range units {
		pp := PlanPlugin{ID: u.p.ID, Dir: u.dir, Format: string(u.p.Format), How: l.how[u.p.ID]}
		if u.p.Path != u.dir {
			pp.Path = u.p.Path
		}
		plan.Plugins = append(plan.Plugins, pp)
	}
	sort.Strings(plan.Skills)
	sort.Strings(plan.Servers)
	return plan, nil
}

// RuntimeDir is the private folder of projections: $PLUGBOARD_HOME/runtime.
func RuntimeDir(pbHome string) string { return filepath.Join(pbHome, "runtime") }

// unknownBackend is the error for a backend no launch knows: the caller's argument when
// it was given (asked), else the agent file's.
func unknownBackend(asked, backend string) error {
	err := fmt.Errorf("%w: unknown backend %q; use %s", ErrTarget, backend, strings.Join(Backends, ", "))
	if asked != "" {
		return argerr.Bad(err)
	}
	return err
}

// resolveTarget finds the target and its effective plugin folders: the managed ids in
// effect (its own, or its agent's when it inherits) and the unmanaged entries beside
// them, absolute.
func resolveTarget(req Request) (assign.Target, []string, string, error) {
	if rest, ok := strings.CutPrefix(req.Target, "dir:"); ok && len(req.Dirs) == 0 && rest != "" {
		// A folder launch's own id (DirTarget), as plugboard mcp check prints it in the ack
		// command for a plugin's servers.
		req.Dirs = filepath.SplitList(rest)
	}
	if len(req.Dirs) > 0 {
		dirs := make([]string, len(req.Dirs))
		for i, d := range req.Dirs {
			abs, err := filepath.Abs(settings.ExpandHome(d, req.Home))
			if err != nil {
				return assign.Target{}, nil, "", fmt.Errorf("%w: %s: %v", ErrTarget, d, err)
			}
			dirs[i] = abs
		}
		t := assign.Target{ID: DirTarget(dirs)}
		backend := req.Backend
		if backend == "" {
			backend = Claude
		}
		if _, ok := backends[backend]; !ok {
			return t, nil, "", unknownBackend(req.Backend, backend)
		}
		return t, dirs, backend, nil
	}
	id := req.Target
	if !strings.Contains(id, ":") {
		id = "agent:" + id
	}
	t, agent, ok := assign.Lookup(req.PlugboardHome, id, &catalog.Catalog{PlugboardHome: req.PlugboardHome})
	if !ok {
		err := fmt.Errorf("%w: no target %q in %s (see plugboard targets)", ErrTarget, id, req.PlugboardHome)
		if bad := assign.Unusable(req.PlugboardHome); bad != "" {
			err = fmt.Errorf("%w; %s", err, bad)
		}
		return assign.Target{}, nil, "", err
	}
	if t.Kind == assign.KindActive {
		return *t, nil, "", fmt.Errorf("%w: %s runs whichever agent is active, which only the agent host knows; launch that agent instead", ErrTarget, t.ID)
	}
	backend := req.Backend
	if backend == "" && agent != nil {
		backend = agent.Backend
	}
	if backend == "" {
		backend = Claude
	}
	if _, ok := backends[backend]; !ok {
		return *t, nil, "", unknownBackend(req.Backend, backend)
	}
	if req.NoPlugins {
		return *t, nil, backend, nil
	}
	var dirs []string
	for _, pid := range t.Effective {
		dirs = append(dirs, filepath.Join(req.PlugboardHome, "plugins", pid))
	}
	unmanaged := t.Unmanaged
	if t.Inherits && agent != nil {
		unmanaged = agent.Unmanaged
	}
	for _, d := range unmanaged {
		d = settings.ExpandHome(d, req.Home)
		if !filepath.IsAbs(d) {
			d = filepath.Join(req.PlugboardHome, d)
		}
		dirs = append(dirs, filepath.Clean(d))
	}
	return *t, dirs, backend, nil
}

// readUnits reads every entry's package afresh, identified as the catalog identifies it
// (catalog.LoadEntry: a cached Cursor plugin is the revision installed now); an invalid
// package or one that does not resolve is dropped alone. The same package listed twice
// (two entries resolving to one folder) is launched once.
func readUnits(dirs []string, req Request, st settings.Settings, backend string, drop func(Drop)) []unit {
	var out []unit
	seen := map[string]bool{}
	o := catalog.Options{Home: req.Home, PlugboardHome: req.PlugboardHome}
	for _, d := range dirs {
		p := catalog.LoadEntry(d, o, st)
		root, err := pathsafe.Root(p.Path)
		if err == nil && seen[root] {
			drop(Drop{Plugin: p.ID, What: "plugin", Reason: d + " is the same folder as an entry before it; it is launched once"})
			continue
		}
		asClaude := !p.Valid && st.LaunchAsClient(p.ID) == Claude && p.Clients != nil && p.Clients.Claude.Loads
		switch {
		case asClaude && backend != Claude:
			drop(Drop{Plugin: p.ID, What: "plugin", Reason: "the package is invalid (" + firstError(p.Issues) + "); \"launch as Claude loads it\" applies to Claude only"})
			continue
		case !p.Valid && !asClaude:
			reason := "the package is invalid: " + firstError(p.Issues)
			could := p.Clients != nil && p.Clients.Claude.Loads && backend == Claude
			if could {
				reason += "; Claude would load it: choose \"launch as Claude loads it\" for this plugin to launch it anyway"
			}
			drop(Drop{Plugin: p.ID, What: "plugin", Reason: reason, LaunchAs: could})
			continue
		case err != nil:
			drop(Drop{Plugin: p.ID, What: "plugin", Reason: err.Error()})
			continue
		}
		seen[root] = true
		out = append(out, unit{dir: d, root: root, p: p, asClaude: asClaude})
	}
	return out
}

// cursorVars are the values of Cursor's folder variables for this launch.
func cursorVars(req Request) mcpconfig.CursorVars {
	ws := req.Workspace
	if ws == "" {
		ws, _ = os.Getwd()
	}
	return mcpconfig.CursorVars{Home: req.Home, Workspace: ws}
}

// idCollisions reports plugin ids (folder names) held by two different folders: the id
// names a plugin's data folder and its place in the projection, so two of them would
// share both.
func idCollisions(units []unit) []assign.Collision {
	by := map[string][]string{}
	var order []string
	for _, u := range units {
		if len(by[u.p.ID]) == 0 {
			order = append(order, u.p.ID)
		}
		by[u.p.ID] = append(by[u.p.ID], u.dir)
	}
	var out []assign.Collision
	for _, id := range order {
		if dirs := by[id]; len(dirs) > 1 {
			out = append(out, assign.Collision{Kind: CollisionPluginID, Name: id, Plugins: dirs})
		}
	}
	return out
}

// CollisionPluginID is the kind of a collision of two folders with one plugin id.
const CollisionPluginID = "plugin-id"

// projectableSkills hashes the valid, enabled skills of a plugin that the backend gets
// as copies: every skill for PI, and for Claude every skill of a plugin that is not a
// legacy folder (those are passed as they are). A skill that cannot be read safely is
// dropped alone.
func projectableSkills(u *unit, backend string, st settings.Settings, drop func(Drop)) []projSkill {
	if backend == Claude && u.asIs() {
		return nil // passed as it is: Claude reads its skills itself (see fingerprint)
	}
	var out []projSkill
	for _, s := range u.p.Skills {
		if !s.Valid {
			drop(Drop{Plugin: u.p.ID, What: "skill", Name: s.Name, Reason: "invalid: " + firstError(s.Issues)})
			continue
		}
		if !st.Enabled(s.Name, namespace(&u.p)+":"+s.Name) {
			drop(Drop{Plugin: u.p.ID, What: "skill", Name: s.Name, Reason: "turned off in settings (skillsEnabled)"})
			continue
		}
		t, err := u.hash(s.Dir)
		if err != nil {
			drop(Drop{Plugin: u.p.ID, What: "skill", Name: s.Name, Reason: err.Error(), Code: skill.TreeCode(err)})
			continue
		}
		for _, e := range t.Skipped {
			drop(Drop{Plugin: u.p.ID, What: "file", Name: s.Name + "/" + e.Rel, Reason: e.Error() + "; it is left out of the projection", Code: skill.TreeCode(e)})
		}
		out = append(out, projSkill{name: s.Name, t: t})
	}
	return out
}

// legacySkillSums hashes each skill of a legacy folder too large to hash whole, so that
// an edit still gives a new fingerprint (a pooled session must not outlive it).
func legacySkillSums(u *unit) []string {
	var out []string
	for _, s := range u.p.Skills {
		if t, err := u.hash(s.Dir); err == nil {
			out = append(out, s.Folder+":"+t.Sum)
		}
	}
	return out
}

// asIs reports whether Claude gets the folder as it is: a legacy Claude package, or a
// package launched as Claude loads it.
func (u *unit) asIs() bool { return u.p.Format == manifest.FormatLegacy || u.asClaude }

// namespace is the plugin's runtime namespace: its manifest name, else its folder name.
func namespace(p *catalog.Plugin) string {
	if p.Name != "" {
		return p.Name
	}
	return p.ID
}

// mcpSuppression says why portable MCP is left out of this launch (R7), or "".
func mcpSuppression(req Request) string {
	switch req.Mode {
	case ModeBenchmark:
		return "benchmark runs get no portable MCP"
	case ModeSubagent:
		return "the restricted subagent surface gets no portable MCP"
	}
	return ""
}

func withoutMCP(cs []assign.Collision) []assign.Collision {
	out := []assign.Collision{}
	for _, c := range cs {
		if c.Kind != assign.CollisionMCP {
			out = append(out, c)
		}
	}
	return out
}

// flatNames reports whether the backend names skills without their plugin's name (PI,
// Codex, Copilot CLI), so that two plugins' skills of one name collide.
func flatNames(backend string) bool { return backend != Claude }

// getenv reads the user's environment.
func (r Request) getenv(k string) string {
	if r.Getenv != nil {
		return r.Getenv(k)
	}
	return os.Getenv(k)
}

// piCollisions finds skill names that two plugins both hand to a backend with no
// namespaces (flatNames), which would keep one; portable ones are already in assign's
// report.
func piCollisions(units []unit) []assign.Collision {
	by := map[string][]string{}
	portable := map[string]int{}
	for _, u := range units {
		for _, s := range u.skills {
			by[s.name] = append(by[s.name], u.p.ID)
			if u.p.Format == manifest.FormatPortable {
				portable[s.name]++
			}
		}
	}
	var out []assign.Collision
	for name, ids := range by {
		if len(ids) > 1 && portable[name] < 2 {
			sort.Strings(ids)
			out = append(out, assign.Collision{Kind: assign.CollisionSkill, Name: name, Plugins: ids})
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out
}

// layoutVersion changes whenever the projection's file layout or formats change, so
// that a new Plugboard never reuses a projection an older one wrote differently.
// 2: a Claude projection holds settings.json (the skill-activity hooks) and activity.json.
const layoutVersion = 4

// fingerprint hashes everything a launch's capabilities depend on (R6): the backend and
// mode, the effective plugin folders, the content of every projected skill, the
// projected manifests, and the
// normalised MCP servers (the config files, and a Claude projection's activity hooks and
// index, are a function of these, of the plugboard executable and of the projection's
// own path, which is named after the fingerprint). Agent arguments are not capabilities
// and are left out; neither is the target, which the hooks read from the environment.
func fingerprint(backend string, req Request, units []unit) string {
	type skillFP struct {
		Name, Sum string
		Note      string `json:",omitempty"` // appended to its projected SKILL.md (grants.go)
	}
	type unitFP struct {
		Dir, Root, Format, Namespace string
		AsClaude                     bool           `json:",omitempty"`
		Manifest                     map[string]any // what the compatibility manifest is made of
		Skills                       []skillFP
		Servers                      []Server
		Legacy                       string   `json:",omitempty"`
		LegacySkills                 []string `json:",omitempty"`
	}
	in := struct {
		V       int
		Backend string
		Mode    string
		Self    string
		Adapter string
		// PIActivity is the digest of PI's activity extension (piActivityDigest).
		PIActivity string `json:",omitempty"`
		Units      []unitFP
	}{V: layoutVersion, Backend: backend, Mode: req.Mode, Self: req.Self, Adapter: req.PIMCPAdapter}
	if backend == PI {
		in.PIActivity = piActivityDigest(req)
	}
	for _, u := range units {
		f := unitFP{Dir: u.dir, Root: u.root, Format: string(u.p.Format), AsClaude: u.asClaude, Namespace: namespace(&u.p),
			Manifest: compatManifest(&u.p, namespace(&u.p)), Servers: u.mcp}
		for _, s := range u.skills {
			f.Skills = append(f.Skills, skillFP{s.name, s.t.Sum, refusedNote(&u, s)})
		}
		if backend == Claude && u.asIs() {
			// Claude reads a legacy folder itself, all of it (.mcp.json, hooks, commands,
			// agents, skills): its whole content is hashed when it is of a plugin's size;
			// otherwise its catalog entry and its skills stand for it.
			if t, err := u.hash(u.root); err == nil {
				f.Legacy = t.Sum
			} else {
				b, _ := json.Marshal(u.p)
				sum := sha256.Sum256(b)
				f.Legacy = hex.EncodeToString(sum[:])
				f.LegacySkills = legacySkillSums(&u)
			}
		}
		in.Units = append(in.Units, f)
	}
	b, _ := json.Marshal(in)
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}
