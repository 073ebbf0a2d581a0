package catalog

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/plugboard/plugboard/backend/clients"
	"github.com/plugboard/plugboard/backend/ctree"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/manifest"
	"github.com/plugboard/plugboard/backend/mcpconfig"
	"github.com/plugboard/plugboard/backend/native"
	"github.com/plugboard/plugboard/backend/pathsafe"
	"github.com/plugboard/plugboard/backend/skill"
)

// Inspect validates the one package in dir, of any format. home is the user's home
// folder (for the skills' paths rules).
func Inspect(dir, home string) Plugin { return InspectAs(dir, home, nil) }

// InspectAs is Inspect with the clients installed here (Options.Installed).
func InspectAs(dir, home string, installed map[string]string) Plugin {
	return loadPlugin(location{dir: dir, source: SourceInspect, installed: installed}, home)
}

// loadPlugin reads one package. It never fails: problems become issues.
func loadPlugin(l location, home string) Plugin {
	abs, _ := filepath.Abs(l.dir)
	p := Plugin{ID: filepath.Base(abs), Path: abs, Source: l.source}
	// Discovery gives the root of a plain folder it listed: a folder already, so it
	// needs no system call (they are what a cold scan spends its time on).
	root, err := l.root, error(nil)
	if root == "" {
		if root, err = pathsafe.Root(abs); err == nil {
			var st os.FileInfo
			if st, err = os.Stat(root); err == nil && !st.IsDir() {
				err = errors.New("not a folder")
			}
		}
	}
	if err != nil {
		p.Format = manifest.FormatNone
		p.Issues.Errorf(CodeFolderUnreadable, abs, "", "plugin folder %s cannot be opened: %v", abs, unwrapPath(err))
		p.finish()
		return p
	}
	m := manifest.DetectLoad(root, l.preferCursor)
	if m.Format == manifest.FormatNone && syscall.Access(root, 0o5) != nil { // R_OK|X_OK
		// Every manifest probe failed because the folder cannot be read, not because
		// there is no manifest: say that.
		p.Format = manifest.FormatNone
		p.Issues.Errorf(CodeFolderUnreadable, abs, "", "plugin folder %s cannot be read (permission denied), so nothing in it is catalogued; give your user access to it (chmod u+rx) or remove it", abs)
		p.finish()
		return p
	}
	listed := map[string][]os.DirEntry{} // folders listed here, for the client models
	p.Format, p.Manifest, p.Valid = m.Format, m.Path, m.Valid
	p.Name, p.Version, p.Description = m.Name, m.Version, m.Description
	p.Author, p.Homepage, p.Repository, p.License, p.Keywords = m.Author, m.Homepage, m.Repository, m.License, m.Keywords
	p.Unsupported = m.Unsupported
	p.Issues = append(p.Issues, m.Issues...)
	if !m.Valid {
		// A rejected manifest loads nothing (spec §5.2, §11.3); clients may still.
		judgeClients(&p, abs, root, &m, listed, l.installed)
		p.finish()
		return p
	}
	skillsDirs := []string{"skills"}
	if m.Format == manifest.FormatCursor {
		skillsDirs = m.SkillsDirs
	}
	for _, d := range skillsDirs {
		if got := loadSkills(root, d, home, &p.Issues, listed); p.Skills == nil {
			p.Skills = got // the one skills folder nearly every package has: no copy
		} else {
			p.Skills = append(p.Skills, got...)
		}
	}
	switch m.Format {
	case manifest.FormatPortable:
		p.MCP = mcpconfig.LoadPortable(root, m.Schema)
	case manifest.FormatCursor:
		if m.MCPFile != "" {
			p.MCP = loadCursorMCP(root, m.MCPFile, &p.Issues)
		}
	case manifest.FormatLegacy:
		if l := native.List(root); len(l) > 0 {
			p.ClaudeNative = l
		}
		if _, err := os.Lstat(filepath.Join(root, ".mcp.json")); err == nil {
			p.Issues.Add(issue.Info, CodeLegacyMCP, ".mcp.json", "",
				"Claude-native .mcp.json is handed to Claude as it is and not catalogued; to see, acknowledge and map its servers, move them to a portable mcp.json")
			p.Issues[len(p.Issues)-1].Line = 1
		}
	}
	judgeClients(&p, abs, root, &m, listed, l.installed)
	p.finish()
	return p
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// loadSkills discovers skills as immediate children of the skills folder rel (spec §7.1).
// A plain folder's listing is kept in listed (by path), for the client models.
func loadSkills(root, rel, home string, issues *issue.List, listed map[string][]os.DirEntry) []skill.Skill {
	at := filepath.Join(root, filepath.FromSlash(rel))
	if !strings.Contains(rel, "/") {
		// The common case, a plain skills/ in the resolved root, costs one open: it opens
		// as a folder without following a link. Anything else takes the general path.
		if entries, err := readDirNoFollow(at); err == nil {
			listed[at] = entries
			return loadSkillEntries(root, rel, at, at, home, entries, issues, listed)
		} else if errors.Is(err, os.ErrNotExist) {
			return nil // a missing fixed location is not an error (§6.2)
		}
	}
	lst, err := os.Lstat(at)
	if errors.Is(err, os.ErrNotExist) {
		return nil // a missing fixed location is not an error (§6.2)
	}
	resolved, st := at, lst
	// A plain folder directly in the resolved root is resolved already (the default
	// skills/); a link, or a Cursor skills path with several components, is resolved.
	if err == nil && (lst.Mode()&os.ModeSymlink != 0 || strings.Contains(rel, "/")) {
		resolved, err = pathsafe.Resolve(root, rel)
		if errors.Is(err, pathsafe.ErrEscapes) {
			issues.Add(issue.Error, CodeSkillsEscapes, rel, "", "%s/ resolves outside the plugin folder (to %s); no skill of this plugin is loaded — make it a real folder inside the plugin", rel, resolved)
			(*issues)[len(*issues)-1].Line = 1
			return nil
		}
		if err == nil {
			st, err = os.Stat(resolved)
		}
	}
	if err != nil || !st.IsDir() {
		why := "is not a folder"
		if err != nil {
			why = "cannot be opened: " + unwrapPath(err).Error()
		}
		issues.Add(issue.Error, CodeSkillsNotDir, rel, "", "%s %s; no skill of this plugin is loaded, the rest of the plugin is (spec §6.2)", rel, why)
		(*issues)[len(*issues)-1].Line = 1
		return nil
	}
	entries, err := os.ReadDir(resolved)
	if err != nil {
		issues.Add(issue.Error, CodeSkillsNotDir, rel, "", "%s cannot be listed: %v", rel, unwrapPath(err))
		(*issues)[len(*issues)-1].Line = 1
		return nil
	}
	return loadSkillEntries(root, rel, at, resolved, home, entries, issues, listed)
}

// readDirNoFollow lists a folder that must not be a symbolic link, in one open. The
// folder is opened with the system call itself: os.OpenFile would also try to register
// it with the network poller (four fcntl and a failing epoll_ctl a plugin); os.NewFile
// of a blocking descriptor costs one fcntl.
func readDirNoFollow(dir string) ([]os.DirEntry, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	f := os.NewFile(uintptr(fd), dir)
	defer f.Close()
	entries, err := f.ReadDir(-1)
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	return entries, err
}

// loadSkillEntries loads the skill folders listed in entries of the skills folder rel,
// found at at and resolved to resolved. The listings of a skill folder's walk are kept
// in listed (by path), for the client models: the Codex model lists every skill folder
// to find nested SKILL.md files (10,000 skill folders: ~60 ms of a warm scan when it
// listed them again).
func loadSkillEntries(root, rel, at, resolved, home string, entries []os.DirEntry, issues *issue.List, listed map[string][]os.DirEntry) []skill.Skill {
	out := make([]skill.Skill, 0, len(entries)) // a Skill is large: no copies as it grows
	// The root, opened at the first skill that needs it, for every skill folder's check
	// (what a launch would leave out is said here first).
	var tree *ctree.Root
	opened := false
	open := func() *ctree.Root {
		if !opened {
			tree, _ = ctree.OpenRoot(root)
			opened = true
		}
		return tree
	}
	defer func() {
		if tree != nil {
			tree.Close()
		}
	}()
	for _, e := range entries {
		// at is clean and the name a listed one: Join's clean-up has nothing to do.
		dir := at + string(filepath.Separator) + e.Name()
		if at == string(filepath.Separator) {
			dir = at + e.Name()
		}
		// The listing already says what a plain folder is; only links need a Stat.
		if !e.IsDir() && (e.Type()&os.ModeSymlink == 0 || !isDir(dir)) {
			continue // files beside skills (README.md) are not skills
		}
		shown := path.Join(rel, e.Name(), "SKILL.md")
		// A plain folder in the resolved skills folder is resolved already: it is checked
		// first, and the check reads its SKILL.md, which Load then does not open again.
		plain := e.IsDir() && resolved == at
		o := skill.Options{Root: root, Trusted: false, Home: home, Path: shown, Resolved: plain, Keep: true}
		var t *ctree.Tree
		var walkErr error
		walked := plain && open() != nil
		if walked {
			co := skill.CheckOptions()
			co.List = true
			t, walkErr = tree.Walk(dir, co)
			if t != nil {
				o.Data = t.Kept
				for _, l := range t.Listings {
					if l.Rel == "" {
						listed[dir] = l.Entries // the skill folder itself, most often the only one
					} else {
						listed[filepath.Join(dir, l.Rel)] = l.Entries
					}
				}
			}
		}
		s := skill.Load(dir, o)
		if !s.Valid && len(s.Issues) == 1 && s.Issues[0].Code == skill.CodeMissing {
			// A folder without SKILL.md is not a skill (spec §7.1): say so, as a warning
			// on the plugin, rather than listing an invalid skill.
			issues.Add(issue.Warning, CodeSkillNoSkillMD, path.Join(rel, e.Name()), "", "%s/%s is not a skill: %s", rel, e.Name(), s.Issues[0].Message)
			(*issues)[len(*issues)-1].Line = 1
			continue
		}
		switch {
		case walked:
			skill.ApplyTree(&s, t, walkErr)
		case s.Valid && open() != nil:
			skill.CheckTree(&s, tree)
		}
		out = append(out, s)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Folder < out[b].Folder })
	return out
}

// isDir follows symlinks; a dangling or looping link is not a folder.
func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// loadCursorMCP reads a Cursor plugin's MCP file (Claude/Cursor shape) after checking
// that it stays inside the plugin.
func loadCursorMCP(root, rel string, issues *issue.List) *mcpconfig.Config {
	p, err := pathsafe.Resolve(root, rel)
	if err != nil {
		issues.Add(issue.Error, CodeMCPEscapes, rel, "", "%s resolves outside the plugin folder; its MCP servers are not loaded", rel)
		(*issues)[len(*issues)-1].Line = 1
		return &mcpconfig.Config{Path: rel, Servers: []mcpconfig.Server{}, Issues: issue.List{}}
	}
	if c := mcpconfig.LoadClaude(p, rel); c != nil {
		return c
	}
	issues.Add(issue.Warning, CodeMCPMissing, manifest.CursorPath, "/mcpServers", "\"mcpServers\" names %s, which does not exist; create it or remove the field", rel)
	(*issues)[len(*issues)-1].Line = 1
	return nil
}

// judgeClients applies every client's load model to the package, handing over the
// SKILL.md files just read (then dropped from the skills) and the spec's manifest, so the
// models read and validate nothing twice.
func judgeClients(p *Plugin, dir, root string, m *manifest.Manifest, listed map[string][]os.DirEntry, installed map[string]string) {
	o := clients.Options{Prefill: make(clients.Prefill, len(p.Skills)), Parsed: make(map[string]map[string]any, len(p.Skills)),
		Root: root, Dirs: listed, Installed: installed}
	for i := range p.Skills {
		s := &p.Skills[i]
		if s.Data != nil {
			o.Prefill[s.Dir] = s.Data
		}
		if s.Front != nil {
			o.Parsed[s.Block] = s.Front
		}
		s.Data, s.Block, s.Front = nil, "", nil
	}
	if m.Format == manifest.FormatPortable {
		o.Portable = m
	}
	set := clients.JudgeWith(dir, o)
	p.Clients = &set
}

// finish fills totals and makes lists non-nil for JSON.
func (p *Plugin) finish() {
	if p.Skills == nil {
		p.Skills = []skill.Skill{}
	}
	p.Issues = p.Issues.NonNil()
	e, w := p.AllIssues().Count()
	p.IssueCounts = Counts{Errors: e, Warnings: w}
	p.State = stateOf(p.Valid, p.IssueCounts)
}
