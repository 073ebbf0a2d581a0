package marketplace

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/plugboard/plugboard/backend/editdist"
)

// Errors Resolve wraps besides ErrNotAdded.
var (
	ErrUnknownPlugin  = errors.New("plugin not in marketplace")
	ErrNotInstallable = errors.New("plugin not installable")
)

// Resolved is where PLUGIN@MARKETPLACE installs from.
type Resolved struct {
	Plugin      string `json:"plugin"`
	Marketplace string `json:"marketplace"`
	// Source is an absolute local folder (the entry's relative source inside the
	// marketplace's root: its clone or its folder) or a git URL to clone (a github
	// source as https://github.com/OWNER/NAME.git; url and git-subdir as written, a
	// git-subdir's owner/name as its GitHub URL). A URL never carries a user name or
	// password (gitexec.StripUserinfo).
	Source string `json:"source"`
	Local  bool   `json:"local"`          // Source is a folder, not a URL
	Ref    string `json:"ref,omitempty"`  // the branch or tag to clone; "" is the default branch
	SHA    string `json:"sha,omitempty"`  // the commit to check out; "" is the ref's tip
	Path   string `json:"path,omitempty"` // the plugin's folder inside the clone (git-subdir), slash-separated; "" is its root
	// Version is the entry's version; Strict its "strict" (false: the entry, not the
	// plugin's plugin.json, defines the plugin).
	Version string `json:"version,omitempty"`
	Strict  bool   `json:"strict"`
}

// Resolve finds PLUGIN@MARKETPLACE (id) in the marketplaces added to pbHome, reading the
// marketplace's file afresh. Errors name the marketplace and the plugin and, when the
// name is unknown, list the close names ("did you mean"); they wrap ErrNotAdded (no
// such marketplace), ErrUnknownPlugin (not listed) or ErrNotInstallable (listed, but its
// entry is invalid or its source is a package Plugboard does not install). Resolve
// fetches nothing. Callers pass an id only when it contains "@" and is not a git URL
// (user@host:path).
func Resolve(pbHome, id string) (Resolved, error) {
	plugin, market, ok := strings.Cut(id, "@")
	if !ok || plugin == "" || market == "" || strings.Contains(market, "@") {
		return Resolved{}, fmt.Errorf("%q: give PLUGIN@MARKETPLACE, such as formatter@team-tools (plugboard marketplace list shows them)", id)
	}
	reg, err := readRegistry(pbHome)
	if err != nil {
		return Resolved{}, err
	}
	a, ok := reg[market]
	if !ok {
		return Resolved{}, fmt.Errorf("%s: %w", id, notAddedError(market, reg))
	}
	m := Read(a.Path)
	var names []string
	for _, e := range m.Plugins {
		if e.Name != plugin {
			if e.Name != "" {
				names = append(names, e.Name)
			}
			continue
		}
		if ok, why := e.Installable(); !ok {
			return Resolved{}, fmt.Errorf("%w: %s: the entry in marketplace %q (%s) cannot be installed: %s", ErrNotInstallable, id, market, a.Path, why)
		}
		r := Resolved{Plugin: plugin, Marketplace: market, Ref: e.Source.Ref, SHA: e.Source.SHA, Version: e.Version, Strict: e.Strict}
		switch e.Source.Kind {
		case "path":
			r.Source, r.Local = e.Dir, true
		case "github":
			r.Source = GitHubURL(e.Source.Repo)
		case "url":
			r.Source = e.Source.URL
		case "git-subdir":
			r.Source = e.Source.URL
			if isRepo(r.Source) {
				r.Source = GitHubURL(strings.TrimSuffix(r.Source, ".git"))
			}
			r.Path = strings.Trim(strings.TrimPrefix(e.Source.Path, "./"), "/")
		}
		return r, nil
	}
	msg := fmt.Sprintf("%s: marketplace %q lists no plugin %q", id, market, plugin)
	if near := closest(plugin, names); len(near) > 0 {
		msg += fmt.Sprintf("; did you mean %s?", quoteList(near))
	}
	if len(m.Issues) > 0 && m.Issues.HasErrors() && len(m.Plugins) == 0 {
		msg += fmt.Sprintf(" (its %s cannot be read: %s)", File, m.Issues[0].Message)
	}
	return Resolved{}, fmt.Errorf("%w: %s; plugboard marketplace list shows its plugins", ErrUnknownPlugin, msg)
}

// closest returns up to three of names near name: those within an edit distance of a
// third of its length (at least 2), or that contain it or that it contains, nearest first.
func closest(name string, names []string) []string {
	type cand struct {
		s string
		d int
	}
	var cs []cand
	lower := strings.ToLower(name)
	for _, n := range names {
		ln := strings.ToLower(n)
		d := editdist.Distance(lower, ln)
		if d <= max(2, len(name)/3) || strings.Contains(ln, lower) || strings.Contains(lower, ln) {
			cs = append(cs, cand{n, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	var out []string
	for _, c := range cs {
		if len(out) < 3 && c.s != name {
			out = append(out, c.s)
		}
	}
	return out
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, " or ")
}
