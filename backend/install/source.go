package install

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/plugboard/plugboard/backend/argerr"
	"github.com/plugboard/plugboard/backend/gitexec"
	"github.com/plugboard/plugboard/backend/marketplace"
)

// source is a classified Options.Source.
type source struct {
	kind string
	// fetch is what is handed to git (credentials included) or the absolute local path.
	fetch string
	// shown is what is printed and recorded: fetch without credentials.
	shown    string
	stripped bool   // shown lost a user name or password
	name     string // the default id: the repository's or folder's name
}

var (
	scpLike    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^/]`) }) // git@github.com:owner/repo
	shorthand  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9._-]+$`) })
	urlSchemes = []string{"https://", "http://", "ssh://", "git://", "file://", "git+ssh://"}
)

// classify says what src is; see Options.Source. An existing path wins over the GitHub
// shorthand, so ./owner/repo written as owner/repo is the folder.
func classify(src string) (source, error) {
	lower := strings.ToLower(src)
	for _, s := range urlSchemes {
		if strings.HasPrefix(lower, s) {
			return gitURL(src)
		}
	}
	if st, err := os.Stat(src); err == nil {
		abs, err := filepath.Abs(src)
		if err != nil {
			return source{}, err
		}
		switch {
		case st.Mode().IsRegular() && archiveFormat(abs) != "":
			return source{kind: KindArchive, fetch: abs, shown: abs, name: archiveName(abs)}, nil
		case st.Mode().IsRegular():
			return source{}, argerr.Bad(fmt.Errorf("%s is a file, not a .zip, .tar.gz or .tgz archive; give a plugin folder, an archive or a git repository", abs))
		case isGitRepo(abs):
			return source{kind: KindGit, fetch: "file://" + abs, shown: abs, name: filepath.Base(abs)}, nil
		case st.IsDir():
			return source{kind: KindFolder, fetch: abs, shown: abs, name: filepath.Base(abs)}, nil
		}
		return source{}, argerr.Bad(fmt.Errorf("%s is neither a folder nor an archive", abs))
	}
	if scpLike().MatchString(src) && !strings.Contains(strings.SplitN(src, ":", 2)[0], "/") {
		return source{kind: KindGit, fetch: src, shown: src, name: repoName(src)}, nil
	}
	if archiveFormat(src) != "" {
		return source{}, argerr.Missing(fmt.Errorf("%s: no such archive file; give the path of a .zip, .tar.gz or .tgz file that exists", src))
	}
	if shorthand().MatchString(src) {
		u := marketplace.GitHubURL(strings.TrimSuffix(src, ".git"))
		return source{kind: KindGit, fetch: u, shown: u, name: repoName(u)}, nil
	}
	return source{}, argerr.Missing(fmt.Errorf("%s: no such folder or file, and not a git URL or owner/repo; give a git URL (https://, ssh://, git@host:path, file://), owner/repo for GitHub, a plugin folder, or a .zip/.tar.gz file", src))
}

// gitURL parses a URL-shaped source and strips its credentials for showing.
func gitURL(raw string) (source, error) {
	u, err := url.Parse(raw)
	if err != nil {
		// net/url's error quotes the URL, credentials and all.
		return source{}, fmt.Errorf("%s is not a URL git can fetch: %s", gitexec.Redact(raw, "", ""), gitexec.Redact(err.Error(), "", ""))
	}
	s := source{kind: KindGit, fetch: raw}
	if u.Scheme == "file" {
		if u.Path == "" {
			return source{}, fmt.Errorf("%s: a file:// URL needs a path, such as file:///home/me/repo", raw)
		}
		s.fetch = "file://" + u.Path
	}
	if u.User != nil {
		// An http(s) user name is often a token; an ssh user name (git@) is not a secret
		// and the fetch needs it again on a replay, so only its password goes.
		if _, hasPassword := u.User.Password(); hasPassword || u.Scheme == "http" || u.Scheme == "https" {
			s.stripped = true
			if strings.Contains(u.Scheme, "ssh") && u.User.Username() != "" {
				u.User = url.User(u.User.Username())
			} else {
				u.User = nil
			}
		}
	}
	s.shown = u.String()
	if u.Scheme == "file" {
		s.shown = u.Path // a local repository is recorded as its path
	}
	s.name = repoName(u.Path)
	return s, nil
}

// repoName is the last path element of a repository address, without .git.
func repoName(p string) string {
	p = strings.TrimRight(p, "/")
	if i := strings.LastIndexAny(p, "/:"); i >= 0 {
		p = p[i+1:]
	}
	return strings.TrimSuffix(p, ".git")
}

// isGitRepo reports whether dir is the top of a git work tree (a .git folder or file)
// or a bare repository (HEAD, objects and refs).
func isGitRepo(dir string) bool {
	if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
		return true
	}
	for _, n := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			return false
		}
	}
	return true
}

// archiveFormat is "zip" or "tar.gz" by the file name, or "".
func archiveFormat(p string) string {
	l := strings.ToLower(p)
	switch {
	case strings.HasSuffix(l, ".zip"):
		return "zip"
	case strings.HasSuffix(l, ".tar.gz"), strings.HasSuffix(l, ".tgz"):
		return "tar.gz"
	}
	return ""
}

// archiveName is the file name without its archive extension.
func archiveName(p string) string {
	b := filepath.Base(p)
	for _, ext := range []string{".tar.gz", ".tgz", ".zip"} {
		if len(b) > len(ext) && strings.EqualFold(b[len(b)-len(ext):], ext) {
			return b[:len(b)-len(ext)]
		}
	}
	return b
}
