package skill

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/plugboard/plugboard/backend/pathsafe"
)

type matchKind int

const (
	exact matchKind = iota
	prefix
	suffix
)

// credentials names the files and folders that hold secrets (F8). A `paths` entry is
// refused when any component of the entry, or of the path it resolves to, matches one of
// them; a folder match therefore also refuses everything under it. Matching ignores case,
// as macOS and Windows file systems do. Keep this the one list.
var credentials = []struct {
	name string
	kind matchKind
	what string
}{
	{".env", prefix, "environment secrets"}, // .env, .env.local, .envrc: ".env*"
	{".ssh", exact, "SSH keys"},
	{".aws", exact, "AWS credentials"},
	{".gnupg", exact, "GnuPG keys"},
	{".kube", exact, "Kubernetes credentials"},
	{".docker", exact, "Docker registry credentials"},
	{".netrc", exact, "netrc passwords"},
	{".npmrc", exact, "npm tokens"},
	{".pypirc", exact, "PyPI tokens"},
	{".git-credentials", exact, "git credentials"},
	{".pgpass", exact, "PostgreSQL passwords"},
	{"credentials", exact, "credentials"},
	{"id_rsa", prefix, "an SSH key"}, // prefix: id_rsa, id_rsa.pub, id_rsa_work
	{"id_dsa", prefix, "an SSH key"},
	{"id_ecdsa", prefix, "an SSH key"},
	{"id_ed25519", prefix, "an SSH key"},
	{".pem", suffix, "a certificate or private key"},
	{".key", suffix, "a private key"},
	{".p12", suffix, "a key store"},
	{".pfx", suffix, "a key store"},
	{".keystore", suffix, "a key store"},
}

// credentialIn returns the first component of p (slash- or OS-separated) that names a
// credential, and what it holds.
func credentialIn(p string) (component, what string) {
	for _, comp := range strings.Split(filepath.ToSlash(p), "/") {
		lc := strings.ToLower(comp)
		for _, cr := range credentials {
			hit := false
			switch cr.kind {
			case exact:
				hit = lc == cr.name
			case prefix:
				hit = strings.HasPrefix(lc, cr.name)
			case suffix:
				hit = strings.HasSuffix(lc, cr.name)
			}
			if hit {
				return comp, cr.what
			}
		}
	}
	return "", ""
}

// pathEnv holds what judging the entries of one skill needs, resolved once.
type pathEnv struct {
	root    string // resolved skill folder; "" when there is no folder to check against
	rootErr error
	home    string // resolved home folder; "" when unknown
	trusted bool
}

func newPathEnv(dir string, opts Options) pathEnv {
	env := pathEnv{trusted: opts.Trusted}
	if dir != "" {
		env.root, env.rootErr = pathsafe.Root(dir)
	}
	if opts.Home != "" && filepath.IsAbs(opts.Home) {
		env.home = filepath.Clean(opts.Home)
		if r, err := pathsafe.ResolveAbs(env.home); err == nil {
			env.home = r
		}
	}
	return env
}

// judge decides one entry: the written form first, then (with a folder) what it resolves to.
func (env pathEnv) judge(entry string) PathEntry {
	pe := PathEntry{Entry: entry}
	if pe.Reason = lexicalReason(entry); pe.Reason != "" {
		return pe
	}
	if env.root == "" && env.rootErr == nil {
		pe.Accepted = true // no folder given: only the written form is checked
		return pe
	}
	pe.Resolved, pe.Reason = env.resolve(entry)
	if pe.Reason != "" {
		pe.Resolved = ""
		return pe
	}
	pe.Accepted = true
	return pe
}

// lexicalReason refuses an entry on how it is written.
func lexicalReason(entry string) string {
	switch {
	case strings.TrimSpace(entry) == "":
		return "the entry is empty; remove it"
	case strings.HasPrefix(entry, "~"):
		return `home-relative paths ("~") are not allowed; use a path relative to the skill folder`
	case strings.Contains(entry, "$"):
		return `variables ("$") are not expanded; use a literal path relative to the skill folder`
	case strings.HasPrefix(entry, "/") || filepath.IsAbs(entry):
		return "absolute paths are not allowed; use a path relative to the skill folder"
	}
	for _, comp := range strings.Split(entry, "/") {
		if comp == ".." {
			return `".." is not allowed; the entry must stay inside the skill folder`
		}
	}
	if comp, what := credentialIn(entry); comp != "" {
		return fmt.Sprintf("%q is a credential file or folder (%s), which is never shared; remove the entry", comp, what)
	}
	return ""
}

// resolve follows the entry through symlinks and checks where it lands.
func (env pathEnv) resolve(entry string) (string, string) {
	if env.rootErr != nil {
		return "", fmt.Sprintf("the skill folder cannot be resolved (%v)", env.rootErr)
	}
	got, err := pathsafe.Resolve(env.root, entry)
	switch {
	case errors.Is(err, pathsafe.ErrLoop):
		return "", "it is a symlink loop; fix or remove the link"
	case errors.Is(err, pathsafe.ErrEscapes) && !env.trusted:
		return "", fmt.Sprintf("it is a symlink that leads outside the skill folder (to %s); only user and built-in skills may link outside, so copy the files in instead", got)
	case err != nil && !errors.Is(err, pathsafe.ErrEscapes):
		return "", fmt.Sprintf("it cannot be resolved (%v); fix or remove the entry", err)
	}
	if _, err := os.Stat(got); errors.Is(err, os.ErrNotExist) {
		return "", "it does not exist; create it in the skill folder or remove the entry"
	} else if err != nil {
		return "", fmt.Sprintf("it cannot be read (%v); fix or remove the entry", err)
	}
	// Inside the skill folder only the part below it can name a credential; outside,
	// every component of the target counts.
	tail := got
	if pathsafe.Within(env.root, got) {
		tail = pathsafe.Rel(env.root, got)
	}
	if comp, what := credentialIn(tail); comp != "" {
		return "", fmt.Sprintf("it resolves to %s, inside %q, a credential file or folder (%s) which is never shared; remove the entry", got, comp, what)
	}
	return got, env.homeReason(got)
}

// homeReason refuses the filesystem root, the home folder and any folder holding it.
func (env pathEnv) homeReason(got string) string {
	switch {
	case got == string(filepath.Separator):
		return `it resolves to the filesystem root "/"; list a folder inside the skill instead`
	case env.home == "":
		return ""
	case got == env.home:
		return fmt.Sprintf("it resolves to your home folder (%s); list a specific folder instead", got)
	case pathsafe.Within(got, env.home):
		return fmt.Sprintf("it resolves to %s, which contains your home folder; list a specific folder instead", got)
	}
	return ""
}
