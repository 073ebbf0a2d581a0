package clients

import (
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/plugboard/plugboard/backend/manifest"
)

// PI's rules, read from pi-coding-agent 0.73.1 (dist/core/skills.js,
// dist/utils/frontmatter.js) and checked with `pi --mode rpc … --skill DIR` (get_commands)
// on the fixtures in testdata/clients.
var piRules = []Rule{
	{ID: "pi.no-plugins", Client: PI, Says: "PI has no plugins or namespaces: a launch hands it each skill folder with --skill, and skills are named bare", Source: "pi --help 0.73.1; AGENT-BACKENDS.md"},
	{ID: "pi.skill-root", Client: PI, Says: "a folder given with --skill that holds SKILL.md is one skill; PI does not look further inside it", Source: "core/skills.js loadSkillsFromDirInternal, 0.73.1"},
	{ID: "pi.frontmatter", Client: PI, Says: "frontmatter is read after turning CRLF into LF; it must start the file with ---, so a byte-order mark means none; a YAML error drops the skill", Source: "utils/frontmatter.js parseFrontmatter, 0.73.1"},
	{ID: "pi.description", Client: PI, Says: "a skill without a non-empty description is not loaded", Source: "core/skills.js loadSkillFromFile, 0.73.1"},
	{ID: "pi.name", Client: PI, Says: "the name is the frontmatter name, else the folder's; a name that differs from the folder or breaks the Agent Skills rules is only a warning", Source: "core/skills.js validateName, 0.73.1"},
	{ID: "pi.collision", Client: PI, Says: "of two skills with one name the first loaded is kept, the other reported as a collision", Source: "core/skills.js loadSkills, 0.73.1"},
}

// JudgePI says what PI loads when each skill folder of the package is handed to it with
// --skill, as a launch does.
func JudgePI(dir string) Verdict { return judgePI(dir, newFiles()) }

func judgePI(dir string, r *files) Verdict {
	root, err := r.realpath(dir)
	if err != nil {
		return notPackage("the folder cannot be opened: " + err.Error())
	}
	v := Verdict{Package: true, Why: "PI has no plugins: a launch hands it each skill folder with --skill"}
	sds := skillDirsOf(root, r)
	seen := make(map[string]string, len(sds))
	v.Skills, v.loaded = make([]string, 0, len(sds)), make([]LoadedSkill, 0, len(sds))
	for _, sd := range sds {
		name, ok, reason, rule := piSkill(sd.dir, sd.file, r)
		if !ok {
			v.drop(sd.rel, rule, "%s", reason)
			continue
		}
		if first, dup := seen[name]; dup {
			v.drop(sd.rel, "pi.collision", "skill name %q is already loaded from %s; PI keeps the first", name, first)
			continue
		}
		seen[name] = sd.rel
		v.Skills = append(v.Skills, name)
		v.loaded = append(v.loaded, LoadedSkill{Name: name, Dir: sd.rel})
	}
	v.Loads = len(v.Skills) > 0
	if !v.Loads {
		v.Why = "PI would get no skill from this package"
	}
	sort.Strings(v.Skills)
	v.finish()
	return v
}

// piSkill judges one skill folder handed to PI (file is its SKILL.md).
func piSkill(dir, file string, r *files) (name string, ok bool, reason, rule string) {
	data, err := r.read(file)
	if err != nil {
		return "", false, "SKILL.md cannot be read: " + describeRead(err), "pi.skill-root"
	}
	f := piFrontmatter(data, r)
	if f.err != nil {
		return "", false, "the frontmatter is not valid YAML, so PI skips the file: " + firstLine(f.err.Error()), "pi.frontmatter"
	}
	desc, isStr := f.str("description")
	if !isStr || jsTrim(desc) == "" {
		why := "it has no description"
		if hasBOM(data) {
			why = "it starts with a byte-order mark, so PI finds no frontmatter and no description"
		}
		return "", false, "not loaded: " + why, "pi.description"
	}
	name, _ = f.str("name")
	if name == "" {
		name = filepath.Base(dir)
	}
	return name, true, "", ""
}

// skillDirsOf lists, relative to root, the skill folders a launch would hand over from
// the package in root: the immediate children holding a SKILL.md of the skills folders
// its format names (skills/ for portable and Claude packages, the manifest's folders for
// a Cursor plugin).
// The caller may name the skills folders instead.
func skillDirsOf(root string, r *files, dirs ...string) []skillDir {
	if len(dirs) == 0 {
		dirs = []string{"skills"}
		// A root plugin.json the caller has read makes the package portable: Detect
		// would find it first.
		if r.portable == nil && manifest.Detect(root, false) == manifest.FormatCursor {
			if m := manifest.LoadCursor(root); m.Valid {
				dirs = m.SkillsDirs
			}
		}
	}
	key := root + "\x00" + strings.Join(dirs, "\x00")
	if out, ok := r.skillDirs[key]; ok {
		return out // PI's and Cursor's models hand over the same folders
	}
	var out []skillDir
	for _, d := range dirs {
		at := filepath.Join(root, filepath.FromSlash(d))
		entries, err := r.readDir(at)
		if err != nil {
			continue
		}
		if out == nil {
			out = make([]skillDir, 0, len(entries))
		}
		d = path.Clean(d) // "." or a clean relative path: a listed name joins it as written
		paths := r.pathsOf(at, entries)
		for i, e := range entries {
			if dir, file := paths[i][0], paths[i][1]; r.isFile(file) {
				rel := e.Name()
				if d != "." {
					rel = d + "/" + rel
				}
				out = append(out, skillDir{rel: rel, dir: dir, file: file})
			}
		}
	}
	r.skillDirs[key] = out
	return out
}

// skillDir is a skill folder of a package: relative to its root in slash form, its
// absolute path and its SKILL.md's.
type skillDir struct{ rel, dir, file string }

// firstLine cuts a multi-line message (YAML errors quote the source) to its first line.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// describeRead says why a file could not be read, without the path (the caller names it).
func describeRead(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// PISkillDirs are the folders of the package dir that PI is handed, each with --skill,
// absolute: every skill folder the PI model judges (JudgePI), so that the real pi can be
// asked about the same ones.
func PISkillDirs(dir string) []string {
	r := newFiles()
	abs, _ := filepath.Abs(dir)
	root, err := r.realpath(abs)
	if err != nil {
		return nil
	}
	var out []string
	for _, d := range skillDirsOf(root, r) {
		out = append(out, d.dir)
	}
	return out
}
