package skill

import (
	"errors"
	"path"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/backend/ctree"
	"github.com/plugboard/plugboard/backend/issue"
)

// A skill folder's other files, as a launch copies them (backend/ctree): an entry that
// cannot be copied safely is left out of the projection (spec §4.1 item 5: access to a
// package path outside the plugin is denied) and reported with one of these codes, as a
// warning in the catalog and inspect and as a dropped file in the launch plan; a folder
// beyond the limits cannot be projected at all and makes the skill invalid.
const (
	CodeTreeOutside    = "skill.tree-outside"
	CodeTreeSpecial    = "skill.tree-special"
	CodeTreeLoop       = "skill.tree-loop"
	CodeTreeDangling   = "skill.tree-dangling"
	CodeTreeUnreadable = "skill.tree-unreadable"
	CodeTreeTooLarge   = "skill.tree-too-large"
)

// Limits of one skill folder. A skill is instructions and a few scripts or references;
// a folder beyond these is almost certainly a mistake (a node_modules or a data set under
// skills/), and copying it at every new fingerprint would be slow.
const (
	TreeMaxFiles = 2000
	TreeMaxBytes = 64 << 20
)

var treeCodes = map[string]string{
	ctree.KindOutside: CodeTreeOutside, ctree.KindSpecial: CodeTreeSpecial, ctree.KindLoop: CodeTreeLoop,
	ctree.KindDangling: CodeTreeDangling, ctree.KindUnreadable: CodeTreeUnreadable, ctree.KindTooLarge: CodeTreeTooLarge,
}

// TreeCode is the issue code of a *ctree.Error of a skill folder ("" for another error).
func TreeCode(err error) string {
	if err == nil {
		return ""
	}
	var e *ctree.Error
	if errors.As(err, &e) {
		return treeCodes[e.Kind]
	}
	return ""
}

// TreeOptions walks a skill folder as a launch copies it: bounded, each entry that
// cannot be copied safely left out with its reason.
func TreeOptions(noHash bool) ctree.Options {
	return ctree.Options{MaxFiles: TreeMaxFiles, MaxBytes: TreeMaxBytes, NoHash: noHash, Leave: leftOut}
}

// leftOut are the entries a launch leaves out of a skill folder (read only).
var leftOut = []string{ctree.KindOutside, ctree.KindSpecial, ctree.KindLoop, ctree.KindDangling, ctree.KindUnreadable}

// CheckOptions is TreeOptions(true) that also reads SKILL.md (Tree.Kept), for a caller
// that checks the folder first and hands the content to Load (Options.Data), so the
// file is opened once.
func CheckOptions() ctree.Options {
	o := TreeOptions(true)
	o.Keep, o.KeepMax = FileName, capread.SkillMax
	return o
}

// CheckTree walks the folder of the valid skill s inside the opened plugin root and adds
// the issues a launch would act on: a warning for each entry left out, an error (the
// skill cannot be projected) for a folder beyond the limits. Nothing is read but the
// listing; each file is checked for reading, so one that cannot be read is found.
func CheckTree(s *Skill, root *ctree.Root) {
	if !s.Valid || s.Dir == "" {
		return
	}
	t, err := root.Walk(s.Dir, TreeOptions(true))
	ApplyTree(s, t, err)
}

// ApplyTree adds to the skill s what CheckTree would from a walk of its folder already
// made (t, err: the result of a walk with TreeOptions(true) or CheckOptions()): nothing
// when s is invalid.
func ApplyTree(s *Skill, t *ctree.Tree, err error) {
	if !s.Valid || s.Dir == "" {
		return
	}
	dir := path.Dir(s.Path)
	if code := TreeCode(err); code != "" {
		s.Issues.Errorf(code, dir, "", "%s; the skill cannot be launched", err)
		s.finish()
		return
	}
	if t == nil {
		return // changed while it was listed: the next scan sees it
	}
	for _, e := range t.Skipped {
		s.Issues.Add(issue.Warning, treeCodes[e.Kind], path.Join(dir, e.Rel), "", "%s; it is left out of launches", e)
	}
}
