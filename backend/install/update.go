package install

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/plugboard/plugboard/backend/assign"
	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/ctree"
	"github.com/plugboard/plugboard/backend/manifest"
	"github.com/plugboard/plugboard/backend/mcpconfig"
	"github.com/plugboard/plugboard/backend/native"
	"github.com/plugboard/plugboard/backend/pathsafe"
)

// Updates. Check and Apply fetch each installed plugin's source again as its lockfile
// entry records it — a git branch or tag (or the remote's HEAD): its newest commit; a
// commit id: nothing (pinned, up to date); a folder: its content now; an archive: the
// file as it is now — into a staging folder exactly as Install does (the same checks,
// the same validation, refused with each error when the new version has one), and
// compare it with the installed folder. Apply then exchanges each changed plugin into
// plugins/<id> in one renameat2(RENAME_EXCHANGE), keeps the folder it replaced as the
// rollback copy $PLUGBOARD_HOME/state/rollback/<id>/ (rollback.go) and writes the
// lockfile entry, all under the home's install lock; a failure before the lockfile is
// written exchanges the old folder back.

// UpdateOptions say which installed plugins to update and where. Home and PlugboardHome
// are required and absolute.
type UpdateOptions struct {
	Home          string // the user's home folder
	PlugboardHome string // $PLUGBOARD_HOME
	Name          string // one installed plugin id; "" for every plugin of the lockfile
	// Restore puts the source's version back over an installed folder edited by hand
	// whose source has not changed (Modified); without it the edit is kept and reported.
	// The edited folder is kept as the rollback copy.
	Restore bool
	// Progress receives one line per step ("fetching …", "validating …", "updated …");
	// nil for none.
	Progress io.Writer
}

// Update is what Check found, or Apply did, for one installed plugin.
type Update struct {
	ID     string  `json:"id"`
	Source string  `json:"source"` // from the lockfile: a URL without credentials, or an absolute path
	Kind   string  `json:"kind"`
	Ref    string  `json:"ref,omitempty"`
	From   Version `json:"from"` // as installed (the lockfile's entry)
	To     Version `json:"to"`   // as fetched now; From when nothing was fetched (pinned), empty with Error
	// Changed is true when the fetched commit, archive or content differs from the
	// installed one.
	Changed bool `json:"changed"`
	// Applied is true when Apply put the new version in place.
	Applied bool `json:"applied"`
	// Pinned is true for a git plugin installed at a commit id: there is nothing newer to
	// fetch, so it is up to date without a fetch.
	Pinned bool `json:"pinned,omitempty"`
	// Modified is true when the installed folder's content is not the lockfile's (edited
	// by hand); an update replaces it, and the rollback copy keeps it as it was.
	Modified bool    `json:"modified,omitempty"`
	Changes  Changes `json:"changes"`
	// Error says why this plugin was not checked or updated, and what to do; "" when it
	// was. The plugin is then left as it was.
	Error string `json:"error,omitempty"`
}

// Version identifies one version of an installed plugin.
type Version struct {
	Commit  string `json:"commit,omitempty"`  // git
	Archive string `json:"archive,omitempty"` // archive: "sha256:<hex>" of the file
	Version string `json:"version"`           // the manifest's version; "" when it has none
	Content string `json:"content"`           // "sha256:<ctree sum>" of the folder
}

// Changes is what an update changes in a plugin, by name. Each list is sorted and never
// null.
type Changes struct {
	// Version is [old, new] when the manifest's version differs; absent when not.
	Version  []string `json:"version,omitempty"`
	Skills   Delta    `json:"skills"`   // by skill name; changed: any file of its folder
	Commands Delta    `json:"commands"` // Claude's commands, by name; changed: its file
	// Servers are the MCP servers; changed: any part of the declaration, values included
	// (which are never shown).
	Servers Delta `json:"servers"`
	// NeedsAck lists the servers the update adds or whose digest (mcpconfig.Digest) it
	// changes: a launch leaves them out until they are acknowledged again.
	NeedsAck []NeedsAck `json:"needsAck"`
	// Native lists what the update adds, changes or removes of what Claude Code starts
	// itself from a legacy or Cursor package (.mcp.json and the manifest's MCP servers,
	// hooks, LSP servers): outside the acknowledgment gate, so the person deciding on the
	// update is told.
	Native []NativeChange `json:"native"`
}

// Delta is what was added, removed and changed, by name.
type Delta struct {
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	Changed []string `json:"changed"`
}

// NeedsAck is one MCP server of the new version that needs acknowledgment (the Ack is
// what plugboard ack would record for it, sanitised).
type NeedsAck struct {
	assign.Ack
	// Targets are the targets that assign the plugin (assign.Targets) and have no
	// acknowledgment of this digest: each launch of theirs leaves the server out until
	// plugboard ack TARGET. Empty when no target assigns the plugin (one that does later
	// is asked then); a server every assigning target has acknowledged with this digest
	// already is not listed.
	Targets []string `json:"targets"`
	// Lost are the targets whose acknowledgment of the server's previous declaration will
	// no longer match.
	Lost []string `json:"lost"`
}

// Check fetches each installed plugin (o.Name, or every plugin of the lockfile, in id
// order) into a staging folder and reports what an update would change; it changes
// nothing installed. A plugin that cannot be fetched or is invalid carries its Error;
// the error returned joins them all (errors.Is finds ErrInvalid and the others), beside
// the full list.
func Check(ctx context.Context, o UpdateOptions) ([]Update, error) {
	return updates(ctx, o, false)
}

// Apply is Check, then puts each changed plugin's new version in place, keeping the
// version it replaces as the rollback copy (see Rollback). An invalid new version is
// refused and the installed one stays; so does every plugin whose fetch fails.
func Apply(ctx context.Context, o UpdateOptions) ([]Update, error) {
	return updates(ctx, o, true)
}

// updates is Check (apply false) and Apply.
func updates(ctx context.Context, o UpdateOptions, apply bool) ([]Update, error) {
	if o.Home == "" || o.PlugboardHome == "" {
		return nil, errors.New("update: the home and Plugboard home folders are required")
	}
	if err := Recover(o.PlugboardHome); err != nil { // before the lockfile is read
		return nil, err
	}
	lfPath := LockfilePath(o.PlugboardHome)
	lf, err := ReadLockfile(lfPath)
	if err != nil {
		return nil, err
	}
	var ids []string
	if o.Name != "" {
		if err := checkID(o.Name); err != nil {
			return nil, err
		}
		if _, ok := lf.Plugins[o.Name]; !ok {
			return nil, fmt.Errorf("%s was not installed by plugboard install (%s has no entry for it), so there is no source to update it from: %w; plugboard catalog lists the installed plugins", o.Name, lfPath, ErrNotInstalled)
		}
		ids = []string{o.Name}
	} else {
		for id := range lf.Plugins {
			ids = append(ids, id)
		}
		sort.Strings(ids)
	}
	ak := &ackInfo{ctx: ctx, home: o.Home, pbHome: o.PlugboardHome}
	out := []Update{}
	var errs []error
	for _, id := range ids {
		u, err := updateOne(ctx, o, id, lf.Plugins[id], apply, ak)
		if err != nil {
			u.Error = err.Error()
			if !u.Applied {
				u.To = Version{}
			}
			errs = append(errs, fmt.Errorf("%s: %w", id, err))
		}
		out = append(out, u)
	}
	return out, errors.Join(errs...)
}

// updateOne checks, and with apply updates, the installed plugin id of entry e.
func updateOne(ctx context.Context, o UpdateOptions, id string, e Entry, apply bool, ak *ackInfo) (Update, error) {
	dest := filepath.Join(pluginsDir(o.PlugboardHome), id)
	u := Update{ID: id, Source: e.Source, Kind: e.Kind, Ref: e.Ref, Changes: noChanges(),
		From: Version{Commit: e.Commit, Archive: e.Archive, Content: e.Content, Version: manifest.DetectLoad(dest, false).Version}}
	u.To = u.From
	fi, err := os.Lstat(dest)
	switch {
	case err != nil:
		return u, fmt.Errorf("%s records %s, but %s is gone: %w; install it again (plugboard install --locked %s puts back what the lockfile records)", LockfilePath(o.PlugboardHome), id, dest, ErrNotInstalled, LockfilePath(o.PlugboardHome))
	case fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir():
		return u, fmt.Errorf("%s is not the folder plugboard install made (a symbolic link or a file): %w; remove it, or plugboard uninstall --force %s", dest, ErrNotOurs, id)
	}
	if e.Kind == KindGit && fullSHA().MatchString(e.Ref) {
		// Nothing newer can come, but a folder edited by hand is said, and with Restore
		// the pinned commit is put back over it (below, as any restore).
		u.Pinned = true
		_, actual := fileSums(dest)
		u.Modified = actual != e.Content
		if !u.Modified || !o.Restore {
			progress(o.Progress, "%s is pinned to commit %s: up to date", id, e.Ref[:12])
			return u, nil
		}
	}
	inst := Options{Home: o.Home, PlugboardHome: o.PlugboardHome, Source: e.Source, Ref: e.Ref, Path: e.Path, Name: id, Progress: o.Progress}
	inst.finish = func(final string, d catalog.Inspection, res *Result, next Entry) error {
		u.To = Version{Commit: res.Commit, Archive: res.Archive, Content: res.Content, Version: d.Plugin.Version}
		old := catalog.Inspect(dest, o.Home)
		var actual string
		u.Changes, actual = compare(&old, d.Plugin, id, ak)
		u.From.Version = old.Version
		u.Modified = actual != e.Content
		u.Changed = res.Content != e.Content || res.Commit != e.Commit || res.Archive != e.Archive
		switch {
		case !u.Changed && !(u.Modified && o.Restore):
			progress(o.Progress, "%s is up to date", id)
			return nil
		case !apply:
			progress(o.Progress, "%s has an update: %s", id, Describe(u.From, u.To))
			return nil
		}
		prev := e
		prev.Content = actual // what the rollback copy holds
		applied, err := exchangeIn(o.PlugboardHome, final, dest, id, e, prev, next)
		u.Applied = applied
		if applied {
			progress(o.Progress, "updated %s: %s; the previous version is kept (plugboard rollback %s)", id, Describe(u.From, u.To), id)
		}
		return err
	}
	_, err = run(ctx, inst)
	var inv *InvalidError
	if errors.As(err, &inv) {
		inv.fix = fmt.Sprintf("the new version is refused and the installed %s stays as it is; fix them at the source and run plugboard update %s again", id, id)
	}
	return u, err
}

// Describe says "version 1.0.0 → 1.1.0, commit a97a3755f3e8 → 0c1d2e3f4a5b" for people (the
// content hashes when neither changed).
func Describe(from, to Version) string {
	var parts []string
	if from.Version != to.Version {
		parts = append(parts, fmt.Sprintf("version %s → %s", orNone(from.Version), orNone(to.Version)))
	}
	if from.Commit != to.Commit {
		parts = append(parts, fmt.Sprintf("commit %s → %s", Short(from.Commit), Short(to.Commit)))
	}
	if len(parts) == 0 {
		parts = append(parts, fmt.Sprintf("content %s → %s", Short(strings.TrimPrefix(from.Content, "sha256:")), Short(strings.TrimPrefix(to.Content, "sha256:"))))
	}
	return strings.Join(parts, ", ")
}

// Short is a commit id or hash cut to 12 characters, or "(none)".
func Short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return orNone(s)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func progress(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}

// exchangeIn puts the validated new version final in place of dest, under the home's
// install lock: the lockfile must still record prev (else another update or install
// came first), the old folder goes to a new rollback copy with its entry kept (actual
// content), the lockfile gets next, and only then the new rollback copy replaces the
// previous one. It reports whether the new version is in place; a failure before the
// lockfile is written exchanges the old folder back.
func exchangeIn(pbHome, final, dest, id string, recorded, kept, next Entry) (bool, error) {
	unlock, err := lockHome(filepath.Dir(dest))
	if err != nil {
		return false, err
	}
	defer unlock()
	lf, err := ReadLockfile(LockfilePath(pbHome))
	if err != nil {
		return false, err
	}
	if now, ok := lf.Plugins[id]; !ok || now.Content != recorded.Content || now.Commit != recorded.Commit || now.Archive != recorded.Archive {
		return false, fmt.Errorf("%s changed in %s while it was being updated (another install, update or rollback): %w; run plugboard update %s again", id, LockfilePath(pbHome), ErrExists, id)
	}
	tmp, err := newRollbackCopy(pbHome, id, kept)
	if err != nil {
		return false, err
	}
	removeTmp := true // tmp holds entry.json, then the copy it displaced; or the only old version
	defer func() {
		if removeTmp {
			os.RemoveAll(tmp)
		}
	}()
	keep := filepath.Join(rollbackDir(pbHome), id)
	if err := begin(pbHome, journal{Op: "update", ID: id, Dest: dest, Keep: keep, Final: final, Tmp: tmp, To: next, Kept: kept}); err != nil {
		return false, fmt.Errorf("recording the update of %s: %w; nothing was changed", id, err)
	}
	crashAt("update:recorded")
	if err := exchange(final, dest); err != nil {
		end(pbHome, id)
		return false, fmt.Errorf("updating %s: %w", dest, err)
	}
	crashAt("update:exchanged")
	if err := os.Rename(final, filepath.Join(tmp, rollbackFolder)); err != nil {
		exchange(final, dest)
		end(pbHome, id)
		return false, fmt.Errorf("keeping the previous version of %s in %s: %w; $PLUGBOARD_HOME/state and plugins must be on one filesystem; nothing was changed", id, tmp, err)
	}
	crashAt("update:moved")
	if err := editLockfile(pbHome, func(lf *Lockfile) { lf.Plugins[id] = next }); err != nil {
		// the record stays: the next command completes the update (or says why it cannot)
		removeTmp = false
		return true, fmt.Errorf("%w; %s is the new version and the lockfile still the old one's: the next install, update or rollback completes it (the previous version is in %s)", err, dest, tmp)
	}
	crashAt("update:recorded-lockfile")
	if err := replaceRollback(tmp, keep); err != nil {
		removeTmp = false
		return true, fmt.Errorf("%s is updated, but its previous version could not be kept as the rollback copy yet (%v); the next install, update or rollback does it", id, err)
	}
	crashAt("update:kept")
	end(pbHome, id)
	return true, nil
}

// exchange swaps two folders in one renameat2(RENAME_EXCHANGE).
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}

// noChanges is an empty Changes with no null list.
func noChanges() Changes {
	return Changes{Skills: newDelta(), Commands: newDelta(), Servers: newDelta(), NeedsAck: []NeedsAck{}, Native: []NativeChange{}}
}

func newDelta() Delta { return Delta{Added: []string{}, Removed: []string{}, Changed: []string{}} }

// compare lists what goes from old (the installed folder) to fetched, and
// returns old's content hash as it is now.
func compare(old, fetched *catalog.Plugin, id string, ak *ackInfo) (Changes, string) {
	c := noChanges()
	if old.Version != fetched.Version {
		c.Version = []string{old.Version, fetched.Version}
	}
	oldFiles, actual := fileSums(old.Path)
	newFiles, _ := fileSums(fetched.Path)
	diff(&c.Skills, skillSums(old, oldFiles), skillSums(fetched, newFiles))
	diff(&c.Commands, commandSums(old, oldFiles), commandSums(fetched, newFiles))
	c.Native = nativeDiff(native.Of(old.Path), native.Of(fetched.Path))

	oldServers, newServers := serversByName(old), serversByName(fetched)
	decl := func(m map[string]mcpconfig.Server) map[string]string {
		out := map[string]string{}
		for name, s := range m {
			out[name] = declaration(s)
		}
		return out
	}
	diff(&c.Servers, decl(oldServers), decl(newServers))
	for _, name := range sortedNames(newServers) {
		s := newServers[name]
		a := assign.NewAck(id, s)
		prev, had := oldServers[name]
		var before string
		if had {
			if before = mcpconfig.Digest(prev); before == a.Digest {
				continue
			}
		}
		n := NeedsAck{Ack: a, Targets: []string{}, Lost: []string{}}
		assigning := ak.assigning(id)
		for _, t := range assigning {
			if !ak.has(t, assign.AckKey(id, name, a.Digest)) {
				n.Targets = append(n.Targets, t)
			}
			if had && ak.has(t, assign.AckKey(id, name, before)) {
				n.Lost = append(n.Lost, t)
			}
		}
		if len(assigning) > 0 && len(n.Targets) == 0 {
			continue // each target acknowledged this declaration already (an earlier update, rolled back)
		}
		c.NeedsAck = append(c.NeedsAck, n)
	}
	return c, actual
}

// diff fills d from two name → hash maps.
func diff(d *Delta, old, next map[string]string) {
	for name, h := range next {
		switch o, ok := old[name]; {
		case !ok:
			d.Added = append(d.Added, name)
		case o != h:
			d.Changed = append(d.Changed, name)
		}
	}
	for name := range old {
		if _, ok := next[name]; !ok {
			d.Removed = append(d.Removed, name)
		}
	}
	sort.Strings(d.Added)
	sort.Strings(d.Removed)
	sort.Strings(d.Changed)
}

// fileSums walks dir as the content hash does and returns each file's path, mode and
// hash (path → "mode sum"), and the folder's content hash; an unreadable tree gives no
// files and its error as the hash, which matches nothing.
func fileSums(dir string) (map[string]string, string) {
	out := map[string]string{}
	root, err := pathsafe.Root(dir)
	if err != nil {
		return out, "error: " + err.Error()
	}
	t, err := ctree.Walk(root, root, ctree.Options{Leave: []string{ctree.KindDangling}})
	if err != nil {
		return out, "error: " + err.Error()
	}
	for _, f := range t.Files {
		out[f.Rel] = fmt.Sprintf("%o %s", f.Mode&0o111, f.Sum)
	}
	return out, "sha256:" + t.Sum
}

// skillSums hashes each skill of p by name: every file under its folder, with its path
// and execute bits.
func skillSums(p *catalog.Plugin, files map[string]string) map[string]string {
	out := map[string]string{}
	for _, s := range p.Skills {
		name := s.Name
		if name == "" {
			name = s.Folder
		}
		rel, err := filepath.Rel(p.Path, s.Dir)
		if err != nil {
			out[name] = "error: " + err.Error()
			continue
		}
		prefix := filepath.ToSlash(rel) + "/"
		var keys []string
		for f := range files {
			if strings.HasPrefix(f, prefix) {
				keys = append(keys, f)
			}
		}
		sort.Strings(keys)
		h := sha256.New()
		for _, k := range keys {
			fmt.Fprintf(h, "%s\x00%s\n", strings.TrimPrefix(k, prefix), files[k])
		}
		out[name] = hex.EncodeToString(h.Sum(nil))
	}
	return out
}

// commandSums hashes each of Claude's commands of p by name: its file.
func commandSums(p *catalog.Plugin, files map[string]string) map[string]string {
	out := map[string]string{}
	if p.Clients == nil {
		return out
	}
	for _, c := range p.Clients.Claude.Commands {
		out[c.Name] = files[strings.TrimPrefix(c.File, "./")]
	}
	return out
}

func serversByName(p *catalog.Plugin) map[string]mcpconfig.Server {
	out := map[string]mcpconfig.Server{}
	if p.MCP != nil {
		for _, s := range p.MCP.Servers {
			out[s.Name] = s
		}
	}
	return out
}

// declaration hashes all of a server's declaration, values included, for comparison
// only (never shown nor stored).
func declaration(s mcpconfig.Server) string {
	d := struct {
		Type, Command, Cwd, URL, EnvFile string
		Args                             []string
		Env, Headers                     map[string]string
		Auth, Valid                      bool
	}{s.Type, s.Command, s.Cwd, s.URL, s.EnvFile, s.Args, s.Env, s.Headers, s.Auth, s.Valid}
	return fmt.Sprintf("%#v", d)
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ackInfo reads the home's targets and their acknowledgments once, when first asked.
type ackInfo struct {
	ctx          context.Context
	home, pbHome string
	targets      []assign.Target
	loaded       bool
	acked        map[string]map[string]bool
}

// assigning lists the targets that assign plugin id, sorted.
func (a *ackInfo) assigning(id string) []string {
	if !a.loaded {
		a.loaded = true
		cat := catalog.Load(catalog.Options{Home: a.home, PlugboardHome: a.pbHome})
		a.targets, _ = assign.Targets(a.pbHome, cat)
		a.acked = map[string]map[string]bool{}
	}
	var out []string
	for _, t := range a.targets {
		if slices.Contains(t.Effective, id) || slices.Contains(t.Managed, id) {
			out = append(out, t.ID)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// has reports whether target has the acknowledgment key (assign.AckKey). A history
// that cannot be read counts as none: the server is then listed as needing one.
func (a *ackInfo) has(target, key string) bool {
	set, ok := a.acked[target]
	if !ok {
		set, _ = assign.Acknowledged(a.ctx, a.pbHome, target)
		a.acked[target] = set
	}
	return set[key]
}
