// Package install fetches a plugin package from a git repository, a local folder or an
// archive and places it in $PLUGBOARD_HOME/plugins/<id>, where the catalog finds it;
// Uninstall takes it out again. What it installed is recorded in the lockfile
// $PLUGBOARD_HOME/plugins.lock.json (lockfile.go), which InstallLocked replays exactly.
//
// An install never shows a half-made plugin. The package is fetched into a staging
// folder $PLUGBOARD_HOME/plugins/.install-<random> (hidden, so never catalogued, and on
// the filesystem of plugins/ so that the last step is one rename), checked — no
// submodules, no symlink that leaves the package, no special file, within MaxBytes and
// MaxFiles — validated as the catalog reads it (catalog.Inspect: the specification's
// verdict and each client's), and renamed into place in one rename(2) that refuses an
// existing folder. With Force an existing plugin is exchanged with the new one in one
// renameat2(RENAME_EXCHANGE) and restored the same way if the lockfile cannot be
// written. A staging folder carries a lock held for the whole install; the next install
// removes every staging folder whose lock is free, which is what a failed or killed
// install leaves. Git's .git folder is never kept.
//
// Git is the user's own git (found on PATH), so credentials, the SSH agent and proxies
// are theirs; it runs with GIT_TERMINAL_PROMPT=0 (a prompt fails instead of hanging) and
// a timeout. A URL's user name and password are used for the fetch but never printed
// nor stored: Result.Source and the lockfile carry the URL without them.
package install

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sync"
	"time"

	"github.com/plugboard/plugboard/backend/argerr"
	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/marketplace"
)

// Kinds of source, as the lockfile records them.
const (
	KindGit     = "git"
	KindFolder  = "folder"
	KindArchive = "archive"
)

// Limits an install applies unless Options say otherwise.
const (
	DefaultTimeout  = 2 * time.Minute
	DefaultMaxBytes = 200 << 20 // bytes of files in the fetched tree
	DefaultMaxFiles = 20000
)

// Sentinels callers branch on (errors.Is).
var (
	ErrInvalid      = errors.New("the package is invalid")             // refused; Force installs it
	ErrNotPlugin    = errors.New("not a plugin package")               // refused, Force or not
	ErrExists       = errors.New("a plugin with that id is installed") // refused; Force replaces it
	ErrRefused      = errors.New("refused by a rule of install")       // submodules, escaping links, size, archive entries
	ErrTampered     = errors.New("tampered or changed")                // --locked: content differs from the lockfile
	ErrNotInstalled = errors.New("no such installed plugin")
	ErrInUse        = errors.New("the plugin is assigned")             // Uninstall; Force removes it anyway
	ErrNotOurs      = errors.New("not installed by plugboard install") // a link, or a folder with no lockfile entry
	ErrStopped      = errors.New("the install was stopped")            // its context ended; nothing was placed
	ErrBadArgument  = argerr.ErrBadArgument                            // an id, --name or --path; a missing source is fs.ErrNotExist too
)

// Options say what to install and where. Home and PlugboardHome are required and
// absolute; Source is required.
type Options struct {
	Home          string // the user's home folder
	PlugboardHome string // $PLUGBOARD_HOME
	// Source is a git URL (https://, http://, ssh://, git://, file://, or scp-like
	// user@host:path), a local git repository, owner/repo (GitHub), a local plugin
	// folder, a local .zip, .tar.gz or .tgz file, or PLUGIN@MARKETPLACE: a plugin of a
	// marketplace added with plugboard marketplace add (marketplace.Resolve gives its
	// folder or repository, ref and path; Ref, Path and Name, when given, win).
	Source string
	Ref    string // git: a branch, a tag or a full commit id; default the remote's HEAD
	Path   string // the package's folder inside the source, slash-separated; default its root
	Name   string // the plugin id; default the manifest's name, else the folder or repository name
	Force  bool   // install an invalid package; replace an installed plugin of the same id
	// Progress receives one line per step ("fetching …", "validating …", "installed …");
	// nil for none.
	Progress io.Writer
	// Limits; zero means the Default.
	Timeout  time.Duration
	MaxBytes int64
	MaxFiles int
	// Git is the git executable; "" means git on PATH.
	Git string

	// expect, for InstallLocked: the commit and hashes the install must reproduce.
	expect *Entry
	// finish, for update, takes the fetched, checked and validated package (final, in
	// the staging folder under its id) in place of place; the staging folder is removed
	// after it returns.
	finish func(final string, d catalog.Inspection, res *Result, entry Entry) error
}

// Result describes one install.
type Result struct {
	ID      string `json:"id"`
	Path    string `json:"path"`   // $PLUGBOARD_HOME/plugins/<id>
	Source  string `json:"source"` // as recorded: a URL without credentials, or an absolute path
	Kind    string `json:"kind"`
	Ref     string `json:"ref,omitempty"`
	Subpath string `json:"subpath,omitempty"` // Options.Path
	Commit  string `json:"commit,omitempty"`  // git: the commit installed
	Archive string `json:"archive,omitempty"` // archive: "sha256:<hex>" of the file
	Content string `json:"content"`           // "sha256:<ctree sum>" of the installed folder
	Valid   bool   `json:"valid"`             // the specification's verdict
	// Forced is true when the package has errors and was installed because of Force.
	Forced bool `json:"forced,omitempty"`
	// Replaced is true when an installed plugin of the same id was replaced (Force).
	Replaced bool `json:"replaced,omitempty"`
	// Unchanged is true when InstallLocked found the plugin installed with the locked
	// content already, and left it.
	Unchanged bool       `json:"unchanged,omitempty"`
	Issues    issue.List `json:"issues"`  // every issue, paths relative to the package
	Servers   []Server   `json:"servers"` // its MCP servers, to acknowledge before they run
	// Native are what Claude Code starts itself from the package and Plugboard does not
	// manage (NativeChange, each "present"): a legacy or Cursor package's .mcp.json, hooks,
	// LSP servers.
	Native []NativeChange `json:"native"`
	// CredentialsStripped is true when the source URL carried a user name or password,
	// left out of Source and the lockfile.
	CredentialsStripped bool `json:"credentialsStripped,omitempty"`
	// Marketplace is PLUGIN@MARKETPLACE when the source was one (Source is then what it
	// resolved to).
	Marketplace string `json:"marketplace,omitempty"`
}

// Server is one MCP server of an installed package, as a person reviews it: what it
// runs or where it connects, never an env or header value.
type Server struct {
	Name       string `json:"name"`
	Type       string `json:"type"`
	Executable string `json:"executable,omitempty"` // stdio: the command's base name
	Args       int    `json:"args,omitempty"`       // stdio: how many arguments
	Origin     string `json:"origin,omitempty"`     // remote: scheme://host[:port]
	Valid      bool   `json:"valid"`
}

// Install fetches, checks, validates and places one package; see the package comment.
// ctx bounds the whole install (git's own timeout is Options.Timeout).
func Install(ctx context.Context, o Options) (Result, error) {
	if o.Home == "" || o.PlugboardHome == "" {
		return Result{}, errors.New("install: the home and Plugboard home folders are required")
	}
	if o.Source == "" {
		return Result{}, errors.New("install: give a source: a git URL, owner/repo, a folder, a .zip/.tar.gz file or PLUGIN@MARKETPLACE")
	}
	var from string
	if marketplaceID().MatchString(o.Source) {
		if _, err := os.Lstat(o.Source); err != nil { // a folder of that name wins
			r, err := marketplace.Resolve(o.PlugboardHome, o.Source)
			if err != nil {
				return Result{}, err
			}
			from = o.Source
			o.Source = r.Source
			if o.Ref == "" {
				o.Ref = cmp.Or(r.SHA, r.Ref)
			}
			o.Path = cmp.Or(o.Path, r.Path)
			o.Name = cmp.Or(o.Name, r.Plugin)
			o.progress("%s is %s%s", from, r.Source, atRef(o.Ref))
		}
	}
	res, err := run(ctx, o)
	res.Marketplace = from
	return res, err
}

// marketplaceID is PLUGIN@MARKETPLACE: a name, "@", a name, and no ":" or "/" (which
// user@host:path and URLs have).
var marketplaceID = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*@[A-Za-z0-9][A-Za-z0-9._-]*$`)
})

func atRef(ref string) string {
	if ref == "" {
		return ""
	}
	return " at " + ref
}

// progress writes one line to o.Progress.
func (o *Options) progress(format string, args ...any) {
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, format+"\n", args...)
	}
}

func (o *Options) limits() (time.Duration, int64, int) {
	t, b, f := o.Timeout, o.MaxBytes, o.MaxFiles
	if t <= 0 {
		t = DefaultTimeout
	}
	if b <= 0 {
		b = DefaultMaxBytes
	}
	if f <= 0 {
		f = DefaultMaxFiles
	}
	return t, b, f
}
