package runtime

import (
	"crypto/sha256"
	_ "embed" // the PI extension's source
	"encoding/hex"
	"path/filepath"
)

// Skill activity for PI (R8). PI has no hooks; a PI launch instead loads an extension of
// Plugboard's (piactivity.ts, copied into the projection as PIActivityExtensionFile and
// passed with -e) that runs "plugboard activity record --pi <projection>/activity.json"
// after each successful read of a projected skill's SKILL.md (the model invoked it) and
// for each user message PI made from a skill command, /skill:name (the user invoked it).
// The index is the Claude one's (ActivityIndex), with the skills under the bare names PI
// gives them, and two members the extension reads: Record, the command to run, and each
// skill's Location, the SKILL.md PI lists. Like Claude's hook files both are sealed with
// the projection and hold no target: the launch puts the target in the agent's
// environment (ActivityTargetEnv), which the recorder inherits.
const PIActivityExtensionFile = "activity.ts"

// piActivityExtension is the extension's source, as the projection holds it. A variable,
// so that a test can stand in another version of it.
//
//go:embed piactivity.ts
var piActivityExtension []byte

// piActivityDigest is the extension's content hash, which the fingerprint of a PI launch
// covers: the extension is part of the plugboard executable, not of anything else the
// fingerprint hashes, so a new Plugboard with a changed extension at the same path must
// not reuse a projection sealed with the old one. Without the plugboard executable there
// is no extension, and it is "".
func piActivityDigest(req Request) string {
	if req.Self == "" {
		return ""
	}
	sum := sha256.Sum256(piActivityExtension)
	return hex.EncodeToString(sum[:])
}

// piActivityFiles adds the index and the extension to a PI projection and returns the
// arguments that load the extension. skills are the index's entries, by PI's name. Without
// the plugboard executable there is nothing to record with, and nothing is added.
func piActivityFiles(plan *Plan, l *layout, skills map[string]IndexedSkill, req Request) []string {
	if req.Self == "" {
		return nil
	}
	index := filepath.Join(plan.Projection, ActivityIndexFile)
	l.files[ActivityIndexFile] = mustJSON(ActivityIndex{V: 1, Home: req.PlugboardHome, Backend: PI, Fingerprint: plan.Fingerprint,
		Record: []string{req.Self, "activity", "record", "--pi", index}, Skills: skills})
	l.files[PIActivityExtensionFile] = piActivityExtension
	plan.EnvKeys = append(plan.EnvKeys, ActivityTargetEnv)
	plan.env = append(plan.env, ActivityTargetEnv+"="+plan.Target)
	return []string{"-e", filepath.Join(plan.Projection, PIActivityExtensionFile)}
}
