package activity

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/store"
)

// claudeHook is the part of Claude Code's hook input that names an invocation. Every
// other member (tool_input.args, tool_response beyond success and commandName,
// command_args, prompt, transcript_path …) is not decoded.
type claudeHook struct {
	Session   string `json:"session_id"`
	Event     string `json:"hook_event_name"`
	Cwd       string `json:"cwd"`
	PromptID  string `json:"prompt_id"`
	ToolName  string `json:"tool_name"`
	ToolUseID string `json:"tool_use_id"`
	ToolInput struct {
		Skill string `json:"skill"`
	} `json:"tool_input"`
	ToolResponse  json.RawMessage `json:"tool_response"`
	ExpansionType string          `json:"expansion_type"`
	CommandName   string          `json:"command_name"`
}

// skillResponse is the Skill tool's response as Claude Code 2.1 reports it to
// PostToolUse: {"success": true, "commandName": "plugin:skill"}.
type skillResponse struct {
	Success     *bool  `json:"success"`
	CommandName string `json:"commandName"`
}

// Where is what FromClaudeHook needs beside the hook's JSON.
type Where struct {
	Target string // the launched target (runtime.ActivityTargetEnv)
	Home   string // the user's home, where standalone skills live
	Now    time.Time
}

// FromClaudeHook reads one Claude Code hook input and returns the skill invocation it
// reports, and false when it reports none: another event or tool, a Skill call that
// failed, a slash command that is an MCP prompt, or input that is not a hook's. ix (nil:
// none) fills in the plugin, version and hash of the launch's skills.
func FromClaudeHook(data []byte, ix *runtime.ActivityIndex, w Where) (store.Activity, bool) {
	var h claudeHook
	if json.Unmarshal(data, &h) != nil {
		return store.Activity{}, false
	}
	a := store.Activity{Time: w.Now, Target: w.Target, Session: h.Session}
	var callID string
	switch {
	case h.Event == "PostToolUse" && h.ToolName == "Skill":
		var r skillResponse
		if len(h.ToolResponse) > 0 && json.Unmarshal(h.ToolResponse, &r) == nil && r.Success != nil && !*r.Success {
			return store.Activity{}, false
		}
		a.Skill, a.How, callID = h.ToolInput.Skill, store.HowModel, "tool\x00"+h.ToolUseID
		if r.CommandName != "" {
			a.Skill = r.CommandName // the name Claude resolved
		}
		if h.ToolUseID == "" {
			callID = ""
		}
	case h.Event == "UserPromptExpansion" && h.ExpansionType == "slash_command":
		a.Skill, a.How, callID = h.CommandName, store.HowUser, "prompt\x00"+h.PromptID+"\x00"+h.CommandName
		if h.PromptID == "" {
			callID = ""
		}
	default:
		return store.Activity{}, false
	}
	a.Skill = strings.TrimPrefix(a.Skill, "/")
	if a.Skill == "" || strings.ContainsFunc(a.Skill, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return store.Activity{}, false // not a name
	}
	if ix != nil {
		a.Backend, a.Fingerprint = ix.Backend, ix.Fingerprint
		resolve(&a, ix, w.Home, h.Cwd)
	}
	a.Key = key(h.Session, callID)
	return a, true
}

// resolve fills in what the index knows of a's skill; a bare name is taken as Claude
// takes it (see the package doc).
func resolve(a *store.Activity, ix *runtime.ActivityIndex, home, cwd string) {
	s, ok := ix.Skills[a.Skill]
	if !ok && !strings.Contains(a.Skill, ":") && !standalone(a.Skill, home, cwd) {
		var found string
		for name := range ix.Skills {
			if _, short, _ := strings.Cut(name, ":"); short == a.Skill {
				if found != "" {
					return // two plugins have it: Claude's choice is not known here
				}
				found = name
			}
		}
		if found != "" {
			a.Skill, s, ok = found, ix.Skills[found], true
		}
	}
	if ok {
		a.Plugin, a.Version, a.Hash = s.Plugin, s.Version, s.Hash
	}
}

// standalone reports whether a standalone skill called name would win a bare name.
func standalone(name, home, cwd string) bool {
	if strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return false
	}
	for _, dir := range []string{home, cwd} {
		if dir == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, ".claude", "skills", name, "SKILL.md")); err == nil {
			return true
		}
	}
	return false
}

// key identifies an invocation: a hash of the session and Claude's id of the call, so
// that the same hook input recorded twice is one row; random when Claude gave no id.
func key(session, callID string) string {
	if session == "" || callID == "" {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		return "r:" + hex.EncodeToString(b)
	}
	sum := sha256.Sum256([]byte("claude\x00" + session + "\x00" + callID))
	return "c:" + hex.EncodeToString(sum[:16])
}
