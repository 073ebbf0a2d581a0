package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/plugboard/plugboard/backend/skill"
)

// What a skill's `paths` gives the agent at launch (issue 18). Each projected skill may
// be read in its own folder and in each accepted `paths` entry, never written; a refused
// entry is not granted, and the model is told about it.
//
//   - Claude: the launch's settings (--settings) carry permission rules: Read(//FOLDER/**)
//     for each projected skill folder and Read(//ENTRY) or Read(//ENTRY/**) for each
//     accepted entry, in the projected copy (an accepted entry of a plugin skill is inside
//     its folder, validation refuses one that leads out); deny rules Edit(//FOLDER/**),
//     so no tool writes the content-addressed projection, and Read of each refused entry
//     that names a place inside the folder (the folder's own grant would cover it). A
//     refused entry outside the folder is only not granted: Claude asks, as for any path
//     outside the project, and a non-interactive session refuses.
//   - PI has no permission system: the plan says so (GrantsUnsupported) and still lists
//     the refusals.
//
// For both, a skill with refused entries gets a note appended to its projected SKILL.md
// (never to the installed file), one delimited line naming each entry and why; the
// fingerprint covers the note.

// Grant is a path the agent may read because a projected skill is in the launch.
type Grant struct {
	Skill string `json:"skill"`
	Path  string `json:"path"`
	Kind  string `json:"kind"` // "skill-folder" or "paths-entry"
}

// Refusal is a `paths` entry of a projected skill the launch does not grant.
type Refusal struct {
	Skill  string `json:"skill"`
	Entry  string `json:"entry"`
	Reason string `json:"reason"`
}

// Kinds of Grant.
const (
	GrantSkillFolder = "skill-folder"
	GrantPathsEntry  = "paths-entry"
)

// GrantsUnsupportedPI is the plan's word on grants for PI.
const GrantsUnsupportedPI = "unsupported by backend: PI has no permission system, so a skill's folder and its paths entries are neither granted nor restricted; refused entries are still listed, and the model is told about them"

// RefusalMarker opens the note a projected SKILL.md gets for its refused entries.
const RefusalMarker = "<!-- plugboard: refused paths -->"

// permissions are the Claude permission rules a launch's settings carry.
type permissions struct {
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

func (p permissions) empty() bool { return len(p.Allow) == 0 && len(p.Deny) == 0 }

// claudePath is an absolute path as a Claude permission rule names it: "//" and the path
// without its leading slash (a single "/" is relative to the settings file).
func claudePath(abs string) string { return "/" + filepath.ToSlash(abs) }

// catalogSkill is the catalog's entry of the projected skill s of u (nil if none).
func catalogSkill(u *unit, s projSkill) *skill.Skill {
	for i := range u.p.Skills {
		if u.p.Skills[i].Name == s.name {
			return &u.p.Skills[i]
		}
	}
	return nil
}

// projectSkillPaths records, for the skill s of unit u projected at rel in the layout and
// named name by the backend, its grants and refusals in the plan and its rules in perms
// (nil: the backend has none), and puts its projected SKILL.md with the refusal note in
// the layout when it has refused entries.
func projectSkillPaths(plan *Plan, l *layout, perms *permissions, u *unit, s projSkill, name, rel string) {
	folder := filepath.Join(plan.Projection, filepath.FromSlash(rel))
	sk := catalogSkill(u, s)
	note := skillPaths(plan, perms, sk, name, folder)
	if note == "" {
		return
	}
	if data, ok := withNote(s.t, sk.Dir, note); ok {
		l.files[rel+"/"+skill.FileName] = data
	}
}

// skillPaths records the grants and refusals of the skill sk (nil: only its folder)
// projected at folder (absolute) and returns the note for its refused entries.
func skillPaths(plan *Plan, perms *permissions, sk *skill.Skill, name, folder string) string {
	if perms != nil {
		plan.Grants = append(plan.Grants, Grant{Skill: name, Path: folder, Kind: GrantSkillFolder})
		perms.Allow = append(perms.Allow, "Read("+claudePath(folder)+"/**)")
		perms.Deny = append(perms.Deny, "Edit("+claudePath(folder)+"/**)")
	}
	if sk == nil {
		return ""
	}
	for _, pe := range sk.Paths {
		if !pe.Accepted {
			plan.Refused = append(plan.Refused, Refusal{Skill: name, Entry: pe.Entry, Reason: pe.Reason})
			if rel, ok := insideEntry(pe.Entry); ok && perms != nil {
				p := claudePath(filepath.Join(folder, filepath.FromSlash(rel)))
				perms.Deny = append(perms.Deny, "Read("+p+")", "Read("+p+"/**)")
			}
			continue
		}
		if perms == nil {
			continue
		}
		rel, _ := insideEntry(pe.Entry)
		if rel == "." {
			continue // the folder itself: granted above
		}
		p := filepath.Join(folder, filepath.FromSlash(rel))
		plan.Grants = append(plan.Grants, Grant{Skill: name, Path: p, Kind: GrantPathsEntry})
		rule := claudePath(p)
		if st, err := os.Stat(pe.Resolved); err == nil && st.IsDir() {
			rule += "/**"
		}
		perms.Allow = append(perms.Allow, "Read("+rule+")")
	}
	return refusalNote(sk)
}

// refusedNote is the note the skill s of u gets ("" for none), as the fingerprint sees it.
func refusedNote(u *unit, s projSkill) string { return refusalNote(catalogSkill(u, s)) }

// insideEntry is an entry as a path inside the skill folder, when it is written as one
// (relative, no "..", no "~" or "$"): cleaned, slash-separated.
func insideEntry(entry string) (string, bool) {
	e := strings.TrimSpace(entry)
	if e == "" || strings.HasPrefix(e, "~") || strings.Contains(e, "$") || strings.HasPrefix(e, "/") || filepath.IsAbs(e) {
		return "", false
	}
	for _, c := range strings.Split(filepath.ToSlash(e), "/") {
		if c == ".." {
			return "", false
		}
	}
	return path.Clean(filepath.ToSlash(e)), true
}

// refusalNote is the delimited line appended to the projected SKILL.md of sk for its
// refused entries ("" when none was refused, or sk is nil).
func refusalNote(sk *skill.Skill) string {
	var parts []string
	if sk != nil {
		for _, pe := range sk.Paths {
			if !pe.Accepted {
				parts = append(parts, fmt.Sprintf("%q (%s)", pe.Entry, strings.TrimSuffix(pe.Reason, ".")))
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "\n" + RefusalMarker + "\nPlugboard refused these `paths` entries of this skill, so they are not available to you in this session; do not rely on them: " +
		strings.Join(parts, "; ") + ".\n"
}

// withNote is the projected SKILL.md of the skill tree t, read from its installed folder
// dir, with note appended; ok is false when the file no longer has the content t hashed
// (the copy then fails as changed, and the launch drops the skill).
func withNote(t tree, dir, note string) ([]byte, bool) {
	var sum string
	for _, f := range t.Files {
		if f.Rel == skill.FileName {
			sum = f.Sum
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, skill.FileName))
	if err != nil {
		return nil, false
	}
	got := sha256.Sum256(data)
	if hex.EncodeToString(got[:]) != sum {
		return nil, false
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		data = append(data, '\n')
	}
	return append(data, note...), true
}
