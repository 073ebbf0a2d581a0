package clientask

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/clients"
	"github.com/plugboard/plugboard/backend/clients/oracle"
)

// skillRoots are, by client, the folders of the user's home (slash form, from HOME) that
// it reads standalone skills from, and how to ask it about skill folders placed there:
// the names it lists, and the folders (by name) it refused with its reason.
var skillRoots = map[string]struct {
	roots []string
	list  func(ctx context.Context, bin, root string, dirs []string) (names []string, refused map[string]string, err error)
}{
	clients.Claude: {
		roots: []string{".claude/skills"},
		list: func(ctx context.Context, bin, _ string, dirs []string) ([]string, map[string]string, error) {
			listed, _, err := oracle.ClaudeUserSkills(ctx, bin, dirs)
			return listed, nil, err
		},
	},
	clients.Codex: {
		roots: oracle.CodexSkillsRoots,
		list: func(ctx context.Context, bin, root string, dirs []string) ([]string, map[string]string, error) {
			set, err := oracle.CodexSkills(ctx, bin, root, dirs)
			if err != nil {
				return nil, nil, err
			}
			refused := map[string]string{}
			for _, r := range set.Refused {
				folder, _, _ := strings.Cut(r.Path, "/")
				refused[folder] = r.Reason
			}
			return set.Skills, refused, nil
		},
	},
}

// Subject names what a result is about: the package's catalog id, or "skill <folder>".
func (r Result) Subject() string {
	if r.Skill != "" {
		return "skill " + filepath.Base(r.Path)
	}
	return r.Plugin
}

// Tally words how many packages and standalone skills results are about: "3 packages",
// "3 packages and 1 standalone skill".
func Tally(results []Result) string {
	skills := 0
	for _, r := range results {
		if r.Skill != "" {
			skills++
		}
	}
	out := count(len(results)-skills, "package")
	if skills > 0 {
		out += " and " + count(skills, "standalone skill")
	}
	return out
}

// AskAll is Ask followed by AskSkills: every package, then every standalone skill folder
// c reads, in one list.
func (a *Asker) AskAll(ctx context.Context, c Client, cat *catalog.Catalog, progress func(Progress)) ([]Result, error) {
	res, err := a.Ask(ctx, c, cat, progress)
	if err != nil {
		return res, err
	}
	skills, err := a.AskSkills(ctx, c, cat)
	return append(res, skills...), err
}

// AskSkills asks c about the standalone skill folders of cat in the user's skill folders
// c reads (Claude: ~/.claude/skills; Codex: ~/.agents/skills and ~/.codex/skills) and
// returns one Result per folder (Skill set to its SKILL.md), beside the model's verdict
// on that folder (clients.JudgeSkill). A client that reads no such folder (PI, which is
// handed skills at launch) gets none. Answers are kept as package answers are, under
// the folder's digest. The folders of one root are asked in one run; a folder that run
// does not account for by the names the model gives it is asked alone.
func (a *Asker) AskSkills(ctx context.Context, c Client, cat *catalog.Catalog) ([]Result, error) {
	sr, ok := skillRoots[c.Name]
	run, known := runners[c.Name]
	if !ok || !known || cat.Home == "" {
		return []Result{}, nil
	}
	out := []Result{}
	for _, root := range sr.roots {
		full := filepath.Join(cat.Home, filepath.FromSlash(root))
		type folder struct {
			dir, digest string
			entry       *catalog.SkillEntry
			model       clients.Verdict
		}
		var pending []folder
		seen := map[string]bool{}
		for _, e := range cat.Skills {
			dir := filepath.Dir(e.Path)
			if e.Plugin != "" || filepath.Dir(dir) != full || seen[dir] {
				continue
			}
			seen[dir] = true
			set := clients.JudgeSkill(dir)
			f := folder{dir: dir, entry: e, model: run.verdict(&set)}
			r := Result{Client: c.Name, Skill: e.Path, Path: dir, Differs: []string{}}
			d, err := Digest(dir)
			if err != nil {
				r.Error = fmt.Sprintf("the skill folder could not be read to ask %s about it: %v", c.Name, err)
				out = append(out, r)
				continue
			}
			f.digest = "skill:" + d
			if ans, ok := a.stored(ctx, c, f.digest); ok {
				r.Answer, r.Cached, r.Differs = ans, true, compareVerdict(f.model, ans)
				out = append(out, r)
				continue
			}
			pending = append(pending, f)
		}
		if len(pending) == 0 {
			continue
		}
		answer := func(f folder, names []string, refused map[string]string) {
			ans := &Answer{Client: c.Name, Version: c.Version, Loads: len(names) > 0, Skills: nonNil(names), Agents: []string{}}
			if why := refused[filepath.Base(f.dir)]; why != "" {
				ans.Warnings = []string{path.Join(filepath.Base(f.dir), "SKILL.md") + ": " + why}
			}
			a.keep(ctx, c, f.digest, ans)
			out = append(out, Result{Client: c.Name, Skill: f.entry.Path, Path: f.dir, Answer: ans, Differs: compareVerdict(f.model, ans)})
		}
		fail := func(f folder, err error) {
			out = append(out, Result{Client: c.Name, Skill: f.entry.Path, Path: f.dir, Differs: []string{},
				Error: fmt.Sprintf("%s %s could not be asked: %v", c.Name, c.Version, err)})
		}
		dirs := make([]string, len(pending))
		for i, f := range pending {
			dirs[i] = f.dir
		}
		var names []string
		var refused map[string]string
		var err error
		if len(pending) > 1 {
			_, err = a.ask(ctx, func(ctx context.Context) (oracle.Init, error) {
				names, refused, err = sr.list(ctx, c.Bin, root, dirs)
				return oracle.Init{}, err
			})
		}
		var alone []folder
		for _, f := range pending {
			_, refusedHere := refused[filepath.Base(f.dir)]
			switch {
			case len(pending) == 1 || err != nil:
				alone = append(alone, f)
			case f.model.Loads && len(f.model.Skills) > 0 && !slices.ContainsFunc(f.model.Skills, func(n string) bool { return !slices.Contains(names, n) }):
				answer(f, f.model.Skills, nil)
			case refusedHere:
				answer(f, nil, refused)
			default:
				alone = append(alone, f)
			}
		}
		for _, f := range alone {
			var names []string
			var refused map[string]string
			_, err := a.ask(ctx, func(ctx context.Context) (oracle.Init, error) {
				var err error
				names, refused, err = sr.list(ctx, c.Bin, root, []string{f.dir})
				return oracle.Init{}, err
			})
			if err != nil {
				fail(f, err)
				continue
			}
			answer(f, names, refused)
		}
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Skill < out[j].Skill })
	return out, nil
}
