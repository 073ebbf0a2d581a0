package catalog

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"syscall"

	"github.com/plugboard/plugboard/backend/builtin"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/skill"
)

// skillContainers are the folders that hold standalone skills, in precedence order,
// relative to the home folder or a workspace.
var skillContainers = []string{".cursor/skills", ".agents/skills", ".claude/skills", ".codex/skills"}

// skillRoot is one folder whose immediate children are standalone skills.
type skillRoot struct {
	dir     string
	source  skill.Source
	trusted bool
}

// userRoots lists the user's skill containers, then $PLUGBOARD_HOME/.claude/skills.
func userRoots(o Options) []skillRoot {
	var roots []skillRoot
	for _, c := range skillContainers {
		roots = append(roots, skillRoot{filepath.Join(o.Home, filepath.FromSlash(c)), skill.SourceUser, true})
	}
	return append(roots, skillRoot{filepath.Join(o.PlugboardHome, ".claude", "skills"), skill.SourceUser, true})
}

// workspaceWalkDepth bounds how deep monorepo packages are looked for (packages/x/y).
const workspaceWalkDepth = 4

// skipDirs are folders never searched for workspace packages: dependencies and outputs.
var skipDirs = map[string]bool{"node_modules": true, "vendor": true, "dist": true, "build": true, "target": true, "out": true}

// workspaceRoots lists the skill containers of the workspace, then of its monorepo
// packages (sorted), never entering a nested repository (a folder with its own .git).
func workspaceRoots(ws string) []skillRoot {
	if ws == "" {
		return nil
	}
	var pkgs []string
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		if depth > workspaceWalkDepth {
			return
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			name := e.Name()
			if !e.IsDir() || name[0] == '.' || skipDirs[name] {
				continue // symlinked folders are not followed: they can loop
			}
			sub := filepath.Join(dir, name)
			if _, err := os.Lstat(filepath.Join(sub, ".git")); err == nil {
				continue // a nested repository (a worktree, a submodule, a vendored repo)
			}
			if hasContainer(sub) {
				pkgs = append(pkgs, sub)
			}
			walk(sub, depth+1)
		}
	}
	walk(ws, 1)
	sort.Strings(pkgs)
	var roots []skillRoot
	for _, base := range append([]string{ws}, pkgs...) {
		for _, c := range skillContainers {
			roots = append(roots, skillRoot{filepath.Join(base, filepath.FromSlash(c)), skill.SourceProject, false})
		}
	}
	return roots
}

func hasContainer(dir string) bool {
	for _, c := range skillContainers {
		if isDir(filepath.Join(dir, filepath.FromSlash(c))) {
			return true
		}
	}
	return false
}

// loadRoot loads the skills that are immediate children of one standalone root.
func loadRoot(r skillRoot, home string, issues *issue.List) []skill.Skill {
	var out []skill.Skill
	for _, dir := range listDirs(r.dir, issues) {
		if _, err := os.Lstat(filepath.Join(dir, "SKILL.md")); err != nil {
			if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
				issues.Errorf(CodeSkillUnreadable, dir, "", "skill folder %s cannot be read (%v), so it is not catalogued; give your user access to it (chmod u+rx) or remove it", dir, unwrapPath(err))
				continue
			}
			if _, err := os.Lstat(filepath.Join(dir, "skill.md")); err == nil {
				issues.Add(issue.Warning, CodeSkillNoSkillMD, filepath.Join(dir, "skill.md"), "", "%s has skill.md; the file must be named exactly SKILL.md — rename it", dir)
				(*issues)[len(*issues)-1].Line = 1
			}
			continue // other folders in a skills container are not skills
		}
		out = append(out, skill.Load(dir, skill.Options{Trusted: r.trusted, Home: home, Path: filepath.Join(dir, "SKILL.md")}))
	}
	return out
}

// builtinSkills parses the skills embedded in the binary.
func builtinSkills(home string) []skill.Skill {
	fsys := builtin.Skills()
	entries, _ := fs.ReadDir(fsys, ".")
	var out []skill.Skill
	for _, e := range entries {
		data, err := fs.ReadFile(fsys, path.Join(e.Name(), "SKILL.md"))
		if err != nil {
			continue
		}
		shown := "builtin:" + e.Name() + "/SKILL.md"
		s := skill.Parse(data, e.Name(), "", skill.Options{Trusted: true, Home: home, Path: shown})
		s.Dir = "builtin:" + e.Name()
		out = append(out, s)
	}
	return out
}
