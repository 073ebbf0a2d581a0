package activity

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/store"
)

// codexHook is the part of Codex's PreToolUse hook input that names an invocation: the
// session, the event, the tool and the command it runs. The command is read for the
// SKILL.md it names and never kept; nothing else is decoded.
type codexHook struct {
	Session   string `json:"session_id"`
	Event     string `json:"hook_event_name"`
	ToolName  string `json:"tool_name"`
	ToolUseID string `json:"tool_use_id"`
	ToolInput struct {
		Command string `json:"command"`
	} `json:"tool_input"`
}

// FromCodexHook reads one Codex hook input and returns the skill it reports the model
// used: a Bash command naming the SKILL.md of one of the launch's skills at the place
// Codex listed it (the index's Location), the first such in the command. It returns
// false for any other input, and without an index (nothing to match).
func FromCodexHook(data []byte, ix *runtime.ActivityIndex, w Where) (store.Activity, bool) {
	var h codexHook
	if ix == nil || json.Unmarshal(data, &h) != nil || h.Event != "PreToolUse" || h.ToolName != "Bash" {
		return store.Activity{}, false
	}
	if !isName(h.Session, maxPIID) || !isName(h.ToolUseID, maxPIID) {
		return store.Activity{}, false
	}
	files := make(map[string]string, len(ix.Skills))
	for name, s := range ix.Skills {
		files[name] = s.Location
	}
	named := runtime.SkillsNamedIn(h.ToolInput.Command, files)
	if len(named) == 0 {
		return store.Activity{}, false
	}
	first := named[0]
	s := ix.Skills[first]
	sum := sha256.Sum256([]byte("codex\x00" + h.Session + "\x00" + h.ToolUseID + "\x00" + first))
	return store.Activity{Time: w.Now, Target: w.Target, Backend: runtime.Codex, Session: h.Session, Skill: first, How: store.HowModel,
		Fingerprint: ix.Fingerprint, Plugin: s.Plugin, Version: s.Version, Hash: s.Hash, Key: "x:" + hex.EncodeToString(sum[:16])}, true
}
