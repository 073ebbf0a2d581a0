package runtime

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/settings"
)

// Skill activity (R8). A Claude launch passes Claude Code a settings file of its own
// (--settings <projection>/settings.json) whose hooks run "plugboard activity record
// <projection>/activity.json" after each Skill tool call (PostToolUse, matcher Skill) and
// after each slash command that expands to a skill or command (UserPromptExpansion). The
// index beside it says, for every skill of the launch, the plugin id and version and the
// skill folder's content hash, so that the recorder reads one small file instead of the
// catalog. Both files are functions of the plugboard executable (Request.Self, in the
// fingerprint), the projection's own path (the fingerprint) and what the fingerprint
// covers, so they are sealed and reused with the projection like every other file. The
// target is not in them (one projection serves every target with the same set): the
// launch gives it to the agent's environment as ActivityTargetEnv, which hooks inherit.
// A PI launch records through an extension instead (piactivity.go).
const (
	ActivityIndexFile    = "activity.json"
	ActivitySettingsFile = "settings.json"
	ActivityTargetEnv    = "PLUGBOARD_ACTIVITY_TARGET"
	// ActivityRunEnv is set by plugboard try in the environment of the agent it starts:
	// every record of that agent (its hooks', its MCP relays') carries it as
	// store.Activity.Run, so the try reads back exactly its own turn.
	ActivityRunEnv = "PLUGBOARD_ACTIVITY_RUN"
	// ActivityTokenEnv, ActivityURLEnv and ActivityTokenHeader reach the recorder a
	// launcher hosts (Plan.UseActivityServer): the token is in the agent's environment
	// only, sent back in the header; PI's extension finds the URL in the environment too.
	ActivityTokenEnv    = "PLUGBOARD_ACTIVITY_TOKEN"
	ActivityURLEnv      = "PLUGBOARD_ACTIVITY_URL"
	ActivityTokenHeader = "X-Plugboard-Token"
)

// activityHookTimeout is the timeout, in seconds, Claude Code gives each recording hook:
// the recorder returns in milliseconds and never waits on a busy database (it spools),
// so this only bounds a recorder that is somehow stuck; without it Claude waits ten
// minutes.
const activityHookTimeout = 10

// ActivityIndex is a projection's activity.json.
type ActivityIndex struct {
	V           int    `json:"v"`
	Home        string `json:"home"` // $PLUGBOARD_HOME of the launch: where the store is
	Backend     string `json:"backend"`
	Fingerprint string `json:"fingerprint"`
	// Skills are the launch's skills by the name the agent gives them: Claude's
	// plugin:skill, PI's bare skill name.
	Skills map[string]IndexedSkill `json:"skills"`
	// Record is, in a PI projection, the command the activity extension runs for each
	// invocation (piactivity.go); Claude's hooks have theirs in settings.json.
	Record []string `json:"record,omitempty"`
}

// IndexedSkill is what the index knows of one skill.
type IndexedSkill struct {
	Plugin  string `json:"plugin"`
	Version string `json:"version,omitempty"`
	Hash    string `json:"hash,omitempty"` // "sha256:<hex>" of the skill folder (ctree's sum)
	// Location is, in a PI projection, the SKILL.md PI lists for the skill: a read of it is
	// the model invoking the skill.
	Location string `json:"location,omitempty"`
}

// ReadActivityIndex reads a projection's activity index.
func ReadActivityIndex(path string) (*ActivityIndex, error) {
	data, err := capread.ReadNoFollow(path, 16<<20)
	if err != nil {
		return nil, err
	}
	var ix ActivityIndex
	if err := json.Unmarshal(data, &ix); err != nil || ix.V != 1 {
		return nil, fmt.Errorf("%s is not a Plugboard activity index", path)
	}
	return &ix, nil
}

// activityFiles adds the index and the settings (the recording hooks and the skills' read
// grants) to a Claude projection and returns the arguments that pass them. Without the
// plugboard executable there is nothing for a hook to run, and only the grants are added.
func activityFiles(plan *Plan, l *layout, units []unit, req Request) []string {
	var hook map[string]any
	if req.Self != "" {
		ix := ActivityIndex{V: 1, Home: req.PlugboardHome, Backend: Claude, Fingerprint: plan.Fingerprint, Skills: map[string]IndexedSkill{}}
		for _, u := range units {
			if u.asIs() {
				// Claude reads the folder itself: its skills as Claude's load model finds
				// them, hashed where they are.
				if u.p.Clients == nil {
					continue
				}
				for _, s := range u.p.Clients.Claude.LoadedSkills() {
					is := IndexedSkill{Plugin: u.p.ID, Version: u.p.Version}
					if t, err := u.hash(filepath.Join(u.root, filepath.FromSlash(s.Dir))); err == nil {
						is.Hash = "sha256:" + t.Sum
					}
					ix.Skills[s.Name] = is
				}
				continue
			}
			for _, s := range u.skills {
				ix.Skills[namespace(&u.p)+":"+s.name] = IndexedSkill{Plugin: u.p.ID, Version: u.p.Version, Hash: "sha256:" + s.t.Sum}
			}
		}
		index := filepath.Join(plan.Projection, ActivityIndexFile)
		l.files[ActivityIndexFile] = mustJSON(ix)
		hook = map[string]any{"type": "command", "command": ShellQuote([]string{req.Self, "activity", "record", index}), "timeout": activityHookTimeout}
		plan.EnvKeys = append(plan.EnvKeys, ActivityTargetEnv)
		plan.env = append(plan.env, ActivityTargetEnv+"="+plan.Target)
	}
	if hook == nil && plan.perms.empty() {
		return nil
	}
	l.files[ActivitySettingsFile] = launchSettings(hook, plan.perms)
	if givesSettings(req.Args) {
		plan.Dropped = append(plan.Dropped, Drop{Plugin: "plugboard", What: "hooks", Name: "activity",
			Reason: "the agent's arguments give --settings, and Claude Code keeps only the last --settings, so the launch's own is replaced: its skill-activity hooks (the skills this session invokes are not recorded) and its skills' read grants"})
	}
	return []string{"--settings", filepath.Join(plan.Projection, ActivitySettingsFile)}
}

// launchSettings is the Claude settings of a launch: recording hooks that run hook (nil:
// none) after each Skill tool call and after each slash command that expanded, and the
// permission rules of the skills' grants (grants.go).
func launchSettings(hook map[string]any, perms permissions) []byte {
	out := map[string]any{}
	if hook != nil {
		hooks := []any{hook}
		out["hooks"] = map[string]any{
			"PostToolUse":         []any{map[string]any{"matcher": "Skill", "hooks": hooks}},
			"UserPromptExpansion": []any{map[string]any{"hooks": hooks}},
		}
	}
	if !perms.empty() {
		out["permissions"] = perms
	}
	return mustJSON(out)
}

// UseActivityServer points the plan's recording at a recorder its launcher hosts (url,
// from backend/activity's Server) instead of a plugboard process per invocation: for
// Claude the --settings file is replaced, in the arguments, by the same hooks as HTTP
// hooks to url/claude whose token header Claude fills in from the environment; PI's
// extension finds url/pi in the environment. The token goes into the environment only.
// It reports whether the plan records at all (a plan without the plugboard executable, or
// whose own arguments give --settings, does not, and is left as it is).
func (p *Plan) UseActivityServer(url, token string) bool {
	switch p.Backend {
	case Claude:
		file := filepath.Join(p.Projection, ActivitySettingsFile)
		i := slices.Index(p.Argv, file)
		if i < 1 || p.Argv[i-1] != "--settings" || !slices.Contains(p.EnvKeys, ActivityTargetEnv) ||
			slices.ContainsFunc(p.Dropped, func(d Drop) bool { return d.What == "hooks" }) {
			return false
		}
		p.Argv[i] = string(launchSettings(map[string]any{"type": "http", "url": url + "/claude", "timeout": activityHookTimeout,
			"headers": map[string]string{ActivityTokenHeader: "$" + ActivityTokenEnv}, "allowedEnvVars": []string{ActivityTokenEnv}}, p.perms))
	case PI:
		if !slices.Contains(p.Argv, filepath.Join(p.Projection, PIActivityExtensionFile)) {
			return false
		}
		p.SetEnv(ActivityURLEnv, url+"/pi")
	default:
		return false
	}
	p.SetEnv(ActivityTokenEnv, token)
	return true
}

// givesSettings reports whether agent arguments hold a --settings of their own.
func givesSettings(args []string) bool {
	for _, a := range args {
		if a == "--settings" || strings.HasPrefix(a, "--settings=") {
			return true
		}
	}
	return false
}

// SkillNames are the names backend gives the skills a launch hands it from p, as the
// activity records name them: ClaudeSkillNames for Claude; for PI, Codex and Copilot CLI
// the bare names of the valid skills settings leave on, of a valid package (they get
// nothing of an invalid one).
func SkillNames(backend string, p *catalog.Plugin, st settings.Settings) []string {
	if !flatNames(backend) {
		return ClaudeSkillNames(p, st)
	}
	var out []string
	if p.Valid {
		for _, s := range p.Skills {
			if s.Valid && st.Enabled(s.Name, namespace(p)+":"+s.Name) {
				out = append(out, s.Name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// ClaudeSkillNames are the names Claude gives the skills a launch hands it from p, as
// the plan and the activity index name them: for a package projected as a
// compatibility plugin, namespace:skill for each valid skill settings leave on; for a
// folder Claude gets as it is (a legacy package, or one launched as Claude loads it),
// the skill folders Claude's own load model finds. A package a launch leaves out (an
// invalid one) has none.
func ClaudeSkillNames(p *catalog.Plugin, st settings.Settings) []string {
	var out []string
	u := unit{p: *p, asClaude: !p.Valid && st.LaunchAsClient(p.ID) == Claude && p.Clients != nil && p.Clients.Claude.Loads}
	switch {
	case u.asIs():
		if p.Clients != nil && (p.Valid || u.asClaude) {
			for _, s := range p.Clients.Claude.LoadedSkills() {
				out = append(out, s.Name)
			}
		}
	case p.Valid:
		for _, s := range p.Skills {
			id := namespace(p) + ":" + s.Name
			if s.Valid && st.Enabled(s.Name, id) {
				out = append(out, id)
			}
		}
	}
	sort.Strings(out)
	return out
}
