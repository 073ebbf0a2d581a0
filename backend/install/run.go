package install

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/plugboard/plugboard/backend/argerr"
	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/ctree"
	"github.com/plugboard/plugboard/backend/devlink"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/jsonfile"
	"github.com/plugboard/plugboard/backend/manifest"
	"github.com/plugboard/plugboard/backend/pathsafe"
)

// InvalidError refuses a package with errors: each error, its path relative to the
// source (Options.Path included), with the fix its message names.
type InvalidError struct {
	Source string
	Issues issue.List
	fix    string // what to do, when not "fix them, or pass --force to install it anyway" (update's)
}

func (e *InvalidError) Error() string {
	var b strings.Builder
	fix := e.fix
	if fix == "" {
		fix = "fix them, or pass --force to install it anyway"
	}
	fmt.Fprintf(&b, "%s is not a valid plugin (%d errors, by the rule of plugboard inspect); %s:", e.Source, len(e.Issues), fix)
	for _, i := range e.Issues {
		b.WriteString("\n  " + i.String())
	}
	return b.String()
}

func (e *InvalidError) Unwrap() error { return ErrInvalid }

// pluginsDir is $PLUGBOARD_HOME/plugins.
func pluginsDir(pbHome string) string { return filepath.Join(pbHome, "plugins") }

// run is Install once the options are checked.
func run(ctx context.Context, o Options) (Result, error) {
	src, err := classify(o.Source)
	if err != nil {
		return Result{}, err
	}
	if o.expect != nil && src.kind != o.expect.Kind {
		return Result{}, fmt.Errorf("%s is recorded as a %s source but is a %s now: %w", src.shown, o.expect.Kind, src.kind, ErrTampered)
	}
	sub, err := cleanSubpath(o.Path)
	if err != nil {
		return Result{}, err
	}
	if o.Name != "" {
		if err := devlink.CheckNewName(o.Name); err != nil {
			return Result{}, argerr.Bad(err)
		}
	}
	_, maxBytes, maxFiles := o.limits()
	dir := pluginsDir(o.PlugboardHome)
	if _, err := os.Lstat(filepath.Join(dir, o.Name)); o.Name != "" && err == nil && !o.Force && o.expect == nil && o.finish == nil {
		// Known before fetching anything (place decides again under the lock).
		return Result{}, fmt.Errorf("%s is already installed (%s): %w; pass --force to replace it, run `plugboard uninstall %s` first, or choose another --name", o.Name, filepath.Join(dir, o.Name), ErrExists, o.Name)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Result{}, fmt.Errorf("install: %w", err)
	}
	st, err := newStaging(dir)
	if err != nil {
		return Result{}, err
	}
	defer st.remove()

	res := Result{Source: src.shown, Kind: src.kind, Ref: o.Ref, Subpath: sub, CredentialsStripped: src.stripped, Issues: issue.List{}, Servers: []Server{}, Native: []NativeChange{}}
	if src.stripped {
		o.progress("note: the user name or password in the URL is used for this fetch only; the lockfile records %s (give git a credential helper for later fetches)", src.shown)
	}
	tree := filepath.Join(st.dir, "tree")
	switch src.kind {
	case KindGit:
		at := ""
		if o.Ref != "" {
			at = " at " + o.Ref
		}
		o.progress("fetching %s%s …", src.shown, at)
		expect := ""
		if o.expect != nil {
			expect = o.expect.Commit
		}
		if res.Commit, err = fetchGit(ctx, &o, src, tree, expect); err != nil {
			return Result{}, err
		}
		if err := os.RemoveAll(filepath.Join(tree, ".git")); err != nil {
			return Result{}, err
		}
	case KindArchive:
		o.progress("unpacking %s …", src.shown)
		if err := os.Mkdir(tree, 0o755); err != nil {
			return Result{}, err
		}
		if res.Archive, err = extractArchive(src.fetch, tree, maxBytes, maxFiles); err != nil {
			return Result{}, err
		}
		if o.expect != nil && res.Archive != o.expect.Archive {
			return Result{}, fmt.Errorf("%s is %s, not the locked %s: %w; check the file, or install it without --locked", src.shown, res.Archive, o.expect.Archive, ErrTampered)
		}
		if tree, err = unwrap(tree); err != nil {
			return Result{}, err
		}
	case KindFolder:
		from := src.fetch
		if sub != "" {
			from = filepath.Join(from, filepath.FromSlash(sub))
		}
		o.progress("copying %s …", filepath.Join(src.shown, filepath.FromSlash(sub)))
		if err := copyFolder(from, tree, maxBytes, maxFiles); err != nil {
			return Result{}, err
		}
	}
	if err := stopped(ctx); err != nil {
		return Result{}, err
	}
	pkg := tree
	if sub != "" && src.kind != KindFolder {
		if pkg, err = subfolder(tree, sub, src.shown); err != nil {
			return Result{}, err
		}
	}
	if err := os.RemoveAll(filepath.Join(pkg, ".git")); err != nil { // an archive of a clone
		return Result{}, err
	}

	// The id: as asked, else the manifest's name (of a package the specification
	// accepts), else the folder's or repository's name.
	id := o.Name
	if id == "" {
		if m := manifest.DetectLoad(pkg, false); m.Valid && devlink.CheckNewName(m.Name) == nil {
			id = m.Name
		} else if sub != "" {
			id = path.Base(sub)
		} else {
			id = src.name
		}
		if err := devlink.CheckNewName(id); err != nil {
			return Result{}, argerr.Bad(fmt.Errorf("%s: the plugin id would be %q: %w; give one with --name", src.shown, id, err))
		}
	}
	res.ID = id
	// Validated where it has its final name, so that what the catalog reads after the
	// rename is what was read here.
	final := filepath.Join(st.dir, "ready", id)
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return Result{}, err
	}
	if err := os.Rename(pkg, final); err != nil {
		return Result{}, fmt.Errorf("install: %w", err)
	}
	shownPkg := src.shown
	if sub != "" {
		shownPkg += " (--path " + sub + ")"
	}
	t, err := checkTree(final, shownPkg, maxBytes, maxFiles)
	if err != nil {
		return Result{}, err
	}
	if err := stopped(ctx); err != nil {
		return Result{}, err
	}
	res.Content = "sha256:" + t.Sum
	if o.expect != nil && res.Content != o.expect.Content {
		return Result{}, fmt.Errorf("%s: the fetched package's content is %s, not the locked %s: %w; someone changed what that source serves, or the lockfile; check it before you trust it, or install it without --locked", shownPkg, res.Content, o.expect.Content, ErrTampered)
	}

	o.progress("validating %s …", id)
	d := catalog.InspectAny(final, o.Home)
	if err := notAPlugin(d, shownPkg); err != nil {
		return Result{}, err
	}
	p := d.Plugin
	res.Valid = p.Valid
	res.Issues = p.AllIssues().NonNil()
	if c := d.Clients; c != nil { // what a client refuses, beside the specification's verdict
		for _, l := range []issue.List{c.Claude.Issues, c.Cursor.Issues, c.Codex.Issues, c.PI.Issues} {
			res.Issues = append(res.Issues, l...)
		}
	}
	res.Issues = dedupe(res.Issues)
	res.Servers = servers(p)
	res.Native = NativeIn(p.Path)
	if d.HasErrors() {
		if !o.Force && o.expect == nil {
			var errs issue.List
			for _, i := range res.Issues.Prefix(sub) {
				if i.Severity == issue.Error {
					errs = append(errs, i)
				}
			}
			return Result{}, &InvalidError{Source: src.shown, Issues: errs}
		}
		res.Forced = true
	}

	if err := stopped(ctx); err != nil { // the last moment before the home changes
		return Result{}, err
	}
	res.Path = filepath.Join(dir, id)
	entry := Entry{Source: src.shown, Kind: src.kind, Ref: o.Ref, Path: sub, Commit: res.Commit, Archive: res.Archive,
		Content: res.Content, InstalledAt: time.Now().UTC().Format(time.RFC3339)}
	if o.finish != nil { // update: compare, and exchange when asked (update.go)
		return res, o.finish(final, d, &res, entry)
	}
	if err := place(o, st, final, res.Path, id, entry, &res); err != nil {
		return Result{}, err
	}
	o.progress("installed %s as plugins/%s", shownPkg, id)
	return res, nil
}

// stopped is the error of an install whose context ended (Ctrl-C, SIGTERM, its deadline)
// between two of its steps: the staging folder is removed and nothing is placed.
func stopped(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	return fmt.Errorf("stopped (%v) before anything was installed: %w", context.Cause(ctx), ErrStopped)
}

// place moves final to dest and records entry, under the home's install lock: one
// rename that refuses an existing folder, or with Force one exchange with it (undone
// when the lockfile cannot be written).
func place(o Options, st *staging, final, dest, id string, entry Entry, res *Result) error {
	unlock, err := lockHome(filepath.Dir(dest))
	if err != nil {
		return err
	}
	defer unlock()
	exchanged := false
	if fi, err := os.Lstat(dest); err == nil {
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("%s is a symbolic link (a local development link?), not an installed plugin: %w; run `plugboard unlink %s` first, or choose another --name", dest, ErrExists, id)
		case !fi.IsDir():
			return fmt.Errorf("%s is a file: %w; remove it yourself, or choose another --name", dest, ErrExists)
		case !o.Force:
			if o.expect != nil && sameContent(dest, o.expect.Content) {
				res.Unchanged = true
				return editLockfile(o.PlugboardHome, func(lf *Lockfile) {
					if _, ok := lf.Plugins[id]; !ok {
						lf.Plugins[id] = entry
					}
				})
			}
			return fmt.Errorf("%s is already installed (%s): %w; pass --force to replace it, run `plugboard uninstall %s` first, or choose another --name", id, dest, ErrExists, id)
		}
		exchanged = true // --force: one exchange with the installed folder
	}
	if err := begin(o.PlugboardHome, journal{Op: "install", ID: id, Dest: dest, Final: final, To: entry}); err != nil {
		return fmt.Errorf("recording the install of %s: %w; nothing was changed", id, err)
	}
	crashAt("install:recorded")
	if exchanged {
		if err := unix.Renameat2(unix.AT_FDCWD, final, unix.AT_FDCWD, dest, unix.RENAME_EXCHANGE); err != nil {
			end(o.PlugboardHome, id)
			return fmt.Errorf("replacing %s: %w", dest, err)
		}
		res.Replaced = true
	} else if err := renameNoReplace(final, dest); err != nil {
		end(o.PlugboardHome, id)
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s appeared while installing: %w; try again", dest, ErrExists)
		}
		return fmt.Errorf("installing into %s: %w", dest, err)
	}
	crashAt("install:placed")
	err = editLockfile(o.PlugboardHome, func(lf *Lockfile) { lf.Plugins[id] = entry })
	if err != nil {
		// Undo: the old plugin back, or the new one out.
		if exchanged {
			unix.Renameat2(unix.AT_FDCWD, final, unix.AT_FDCWD, dest, unix.RENAME_EXCHANGE)
		} else {
			os.Rename(dest, final)
		}
		end(o.PlugboardHome, id)
		return err
	}
	crashAt("install:lockfile")
	end(o.PlugboardHome, id)
	return nil
}

// renameNoReplace renames old to new in one system call that fails when new exists
// (plain rename(2) would replace an empty folder).
func renameNoReplace(old, new string) error {
	err := unix.Renameat2(unix.AT_FDCWD, old, unix.AT_FDCWD, new, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EEXIST) {
		return fs.ErrExist
	}
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) { // a filesystem without the flag
		if _, lerr := os.Lstat(new); lerr == nil {
			return fs.ErrExist
		}
		return os.Rename(old, new)
	}
	return err
}

func sameContent(dir, want string) bool {
	root, err := pathsafe.Root(dir)
	if err != nil {
		return false
	}
	t, err := ctree.Walk(root, root, ctree.Options{Leave: []string{ctree.KindDangling}})
	return err == nil && "sha256:"+t.Sum == want
}

// checkTree walks the package as the catalog and launches do (backend/ctree): a symlink
// may lead anywhere inside it and nowhere else; no FIFO, socket or device; within the
// limits. It returns the walked tree, whose Sum is the content hash.
func checkTree(dir, shown string, maxBytes int64, maxFiles int) (*ctree.Tree, error) {
	root, err := pathsafe.Root(dir)
	if err != nil {
		return nil, err
	}
	t, err := ctree.Walk(root, root, ctree.Options{MaxBytes: maxBytes, MaxFiles: maxFiles, Leave: []string{ctree.KindDangling}})
	var e *ctree.Error
	switch {
	case errors.As(err, &e) && e.Kind == ctree.KindTooLarge:
		return nil, fmt.Errorf("%s: %s: %w; install is for a plugin, not a data set (use --path to pick the plugin's folder)", shown, e.Error(), ErrRefused)
	case errors.As(err, &e):
		return nil, fmt.Errorf("%s: %s: %w", shown, e.Error(), ErrRefused)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", shown, err)
	}
	return t, nil
}

// copyFolder copies the package folder src into dst (which must not exist) through the
// contained walker, as plugboard link --copy does: links inside the package are copied
// as what they point to, one leading out refuses the copy, .git, sockets and FIFOs are
// left out.
func copyFolder(src, dst string, maxBytes int64, maxFiles int) error {
	st, err := os.Stat(src)
	if err != nil || !st.IsDir() {
		return fmt.Errorf("%s is not a folder; check the path (and --path)", src)
	}
	root, err := pathsafe.Root(src)
	if err != nil {
		return err
	}
	t, err := ctree.Walk(root, root, ctree.Options{MaxBytes: maxBytes, MaxFiles: maxFiles,
		Skip:  func(rel string) bool { return path.Base(rel) == ".git" },
		Leave: []string{ctree.KindSpecial, ctree.KindDangling}})
	var e *ctree.Error
	switch {
	case errors.As(err, &e) && e.Kind == ctree.KindTooLarge:
		return fmt.Errorf("%s: %s: %w; install is for a plugin, not a data set", src, e.Error(), ErrRefused)
	case errors.As(err, &e):
		return fmt.Errorf("%s: %s: %w", src, e.Error(), ErrRefused)
	case err != nil:
		return err
	}
	return t.CopyTo(dst, 0o755, func(f ctree.File) fs.FileMode {
		if f.Mode&0o111 != 0 {
			return 0o755
		}
		return 0o644
	})
}

// unwrap returns the single top-level folder of an extracted archive, or dir itself.
func unwrap(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var keep []os.DirEntry
	for _, e := range entries {
		if e.Name() != "__MACOSX" { // macOS's resource forks, not the package
			keep = append(keep, e)
		}
	}
	if len(keep) == 1 && keep[0].IsDir() {
		return filepath.Join(dir, keep[0].Name()), nil
	}
	return dir, nil
}

// subfolder resolves --path inside the fetched tree: a real folder, not a link.
func subfolder(tree, sub, shown string) (string, error) {
	p := filepath.Join(tree, filepath.FromSlash(sub))
	fi, err := os.Lstat(p)
	switch {
	case err != nil:
		return "", fmt.Errorf("%s has no folder %s; check --path (a folder inside the repository or archive, such as plugins/my-plugin)", shown, sub)
	case fi.Mode()&fs.ModeSymlink != 0:
		return "", fmt.Errorf("%s: --path %s is a symbolic link; give the folder it points to", shown, sub)
	case !fi.IsDir():
		return "", fmt.Errorf("%s: --path %s is a file, not a folder", shown, sub)
	}
	r, err := pathsafe.Root(p)
	rt, err2 := pathsafe.Root(tree)
	if err != nil || err2 != nil || !pathsafe.Within(rt, r) {
		return "", fmt.Errorf("%s: --path %s leads outside the source (through a symbolic link); give a folder inside it", shown, sub)
	}
	return p, nil
}

// cleanSubpath checks --path: relative, slash-separated, no "..".
func cleanSubpath(p string) (string, error) {
	if p == "" {
		return "", nil
	}
	s := strings.Trim(strings.ReplaceAll(p, "\\", "/"), "/")
	if strings.HasPrefix(p, "/") || s == ".." || strings.HasPrefix(s, "../") || strings.Contains(s, "/../") || strings.HasSuffix(s, "/..") {
		return "", argerr.Bad(fmt.Errorf("--path %q: give a folder inside the source, relative and without .., such as plugins/my-plugin", p))
	}
	s = path.Clean(s)
	if s == "." {
		return "", nil
	}
	return s, nil
}

// checkID accepts one visible folder name (the catalog skips hidden ones), as plugboard
// link does.
func checkID(id string) error {
	if err := devlink.CheckFolderName("plugin id", id); err != nil {
		return argerr.Bad(err)
	}
	return nil
}

// notAPlugin refuses, Force or not, what is not one plugin: a marketplace (name its
// plugins and the --path of each), a lone skill, or a folder no client loads anything
// from.
func notAPlugin(d catalog.Inspection, shown string) error {
	switch d.Kind {
	case catalog.KindMarketplace:
		var b strings.Builder
		for _, e := range d.Marketplace.Plugins {
			if e.Source.Kind == "path" && e.Source.Path != "" {
				fmt.Fprintf(&b, "\n  %s: --path %s", e.Name, strings.TrimPrefix(path.Clean(e.Source.Path), "./"))
			} else {
				fmt.Fprintf(&b, "\n  %s: from its own source (%s)", e.Name, e.Source.Kind)
			}
		}
		return fmt.Errorf("%s is a marketplace (%s), not one plugin (%w); install one of its plugins with --path:%s", shown, d.Marketplace.File, ErrNotPlugin, b.String())
	case catalog.KindSkill:
		return fmt.Errorf("%s is a single skill (a SKILL.md and no manifest), not a plugin: %w; put it in a plugin (skills/<name>/SKILL.md beside a plugin.json), or copy it to ~/.agents/skills", shown, ErrNotPlugin)
	}
	p := d.Plugin
	if p.Format != manifest.FormatNone || len(p.Skills) > 0 || p.MCP != nil {
		return nil
	}
	if c := d.Clients; c != nil {
		for _, v := range []int{len(c.Claude.Skills) + len(c.Claude.Commands) + len(c.Claude.Agents), len(c.Cursor.Skills), len(c.Codex.Skills), len(c.PI.Skills)} {
			if v > 0 {
				return nil
			}
		}
	}
	return fmt.Errorf("%s is not a plugin package: it has no plugin.json, .claude-plugin/plugin.json or .cursor-plugin/plugin.json and no skills: %w; check the source and --path (plugboard inspect on a copy shows what it holds)", shown, ErrNotPlugin)
}

// dedupe drops repeated issues (a client can report what the specification does).
func dedupe(l issue.List) issue.List {
	seen := map[issue.Issue]bool{}
	out := issue.List{}
	for _, i := range l {
		if !seen[i] {
			seen[i] = true
			out = append(out, i)
		}
	}
	return out
}

// servers lists the package's MCP servers as Server values.
func servers(p *catalog.Plugin) []Server {
	out := []Server{}
	if p.MCP == nil {
		return out
	}
	for _, s := range p.MCP.Servers {
		v := Server{Name: s.Name, Type: s.Type, Executable: s.Summary.Executable, Origin: s.Summary.Origin, Valid: s.Valid}
		if s.Summary.Args != nil {
			v.Args = *s.Summary.Args
		}
		out = append(out, v)
	}
	return out
}

// lockHome takes the install lock of the plugins folder dir.
func lockHome(dir string) (func(), error) {
	unlock, err := jsonfile.Lock(filepath.Join(dir, lockName))
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", filepath.Join(dir, lockName), err)
	}
	// an update or rollback a killed process left half done is completed or undone first
	if err := recoverJournals(filepath.Dir(dir)); err != nil {
		unlock()
		return nil, err
	}
	return unlock, nil
}
