package activity

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"unicode"

	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/store"
)

// PI activity events, as the launch's extension sends them (backend/runtime,
// piactivity.ts).
const (
	PIRead    = "read"    // the model's read tool loaded a projected skill's SKILL.md
	PICommand = "command" // PI expanded the user's /skill:name
)

// piEvent is the whole of what the extension sends: the event, the skill's name, PI's
// session id and its id of the invocation (the read's tool call id, or a random id the
// extension gave the command).
type piEvent struct {
	Event   string `json:"event"`
	Skill   string `json:"skill"`
	Session string `json:"session"`
	Call    string `json:"call"`
}

// maxPIID bounds the session and call ids: PI's are UUIDs and provider tool call ids.
const maxPIID = 256

// FromPIEvent reads one event of the PI extension and returns the skill invocation it
// reports, and false when it reports none: another event, a name that is not one, ids
// that are not ids, or input that is not the extension's. ix (nil: none) fills in the
// fingerprint, plugin, version and hash; a skill it does not know (not one the
// launch handed over) is recorded as it is, with no plugin.
func FromPIEvent(data []byte, ix *runtime.ActivityIndex, w Where) (store.Activity, bool) {
	var e piEvent
	if json.Unmarshal(data, &e) != nil {
		return store.Activity{}, false
	}
	a := store.Activity{Time: w.Now, Target: w.Target, Backend: runtime.PI, Session: e.Session, Skill: e.Skill}
	switch e.Event {
	case PIRead:
		a.How = store.HowModel
	case PICommand:
		a.How = store.HowUser
	default:
		return store.Activity{}, false
	}
	if !isName(e.Skill, maxName) || !isName(e.Session, maxPIID) || !isName(e.Call, maxPIID) {
		return store.Activity{}, false
	}
	if ix != nil {
		a.Fingerprint = ix.Fingerprint
		if s, ok := ix.Skills[a.Skill]; ok {
			a.Plugin, a.Version, a.Hash = s.Plugin, s.Version, s.Hash
		}
	}
	a.Key = piKey(e)
	return a, true
}

// maxName bounds a skill name as the store bounds every field.
const maxName = 512

// isName reports whether s is a name or an id: not empty, not long, with no space or
// control character.
func isName(s string, max int) bool {
	return s != "" && len(s) <= max && !strings.ContainsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
}

// piKey identifies an invocation: a hash of "pi", PI's session, the event and the
// invocation's id, so that the same event recorded twice is one row.
func piKey(e piEvent) string {
	sum := sha256.Sum256([]byte("pi\x00" + e.Session + "\x00" + e.Event + "\x00" + e.Call))
	return "p:" + hex.EncodeToString(sum[:16])
}
