package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/marketplace"
)

func runMarketplaceAdd(f *flags) body {
	name := f.fs.String("name", "", "the name to record (default: the marketplace file's name)")
	return func(env Env, pos []string) int {
		if len(pos) != 1 {
			fmt.Fprintln(env.Stderr, "plugboard marketplace add: give one SOURCE: a folder holding .claude-plugin/marketplace.json, a git URL or GitHub owner/name, e.g. plugboard marketplace add anthropics/claude-plugins-official")
			return ExitUsage
		}
		_, pbHome, err := homes(env, f)
		if err != nil {
			fmt.Fprintf(env.Stderr, "plugboard marketplace add: %v\n", err)
			return ExitUsage
		}
		res, err := marketplace.Add(pbHome, pos[0], marketplace.AddOptions{Name: *name})
		for _, w := range res.Warnings {
			fmt.Fprintln(env.Stderr, "plugboard: warning:", w)
		}
		if err != nil {
			var inv *marketplace.InvalidError
			if errors.As(err, &inv) {
				for _, i := range inv.Issues {
					fmt.Fprintln(env.Stderr, i.String())
				}
			}
			fmt.Fprintf(env.Stderr, "plugboard marketplace add: %v\n", err)
			if errors.Is(err, marketplace.ErrInvalid) || errors.Is(err, marketplace.ErrExists) || errors.Is(err, marketplace.ErrNoMarketplace) {
				return ExitInvalid
			}
			return ExitUsage
		}
		if f.json {
			writeJSON(env.Stdout, res)
			return ExitOK
		}
		at := ""
		if res.Kind == marketplace.KindGit {
			at = fmt.Sprintf(", commit %.12s, cloned into %s", res.Commit, res.Path)
		}
		fmt.Fprintf(env.Stdout, "added marketplace %s (%s %s%s): %s; plugboard marketplace list shows them\n", res.Name, res.Kind, res.Source, at, plural(res.Plugins, "plugin"))
		return ExitOK
	}
}

func runMarketplaceList(f *flags) body {
	return func(env Env, pos []string) int {
		if len(pos) != 0 {
			fmt.Fprintln(env.Stderr, "usage: plugboard marketplace list [--json] [--home DIR]")
			return ExitUsage
		}
		home, pbHome, err := homes(env, f)
		if err == nil {
			var list []marketplace.Listed
			if list, err = marketplace.List(pbHome); err == nil {
				if f.json {
					writeJSON(env.Stdout, map[string]any{"marketplaces": list})
				} else {
					printMarketplaces(env.Stdout, list, home)
				}
				return ExitOK
			}
		}
		fmt.Fprintf(env.Stderr, "plugboard marketplace list: %v\n", err)
		return ExitUsage
	}
}

// printMarketplaces writes each marketplace, its issues, and one line per plugin.
func printMarketplaces(w io.Writer, list []marketplace.Listed, home string) {
	if len(list) == 0 {
		fmt.Fprintln(w, "no marketplace is added; plugboard marketplace add SOURCE adds one")
		return
	}
	for _, m := range list {
		at := m.Source
		if m.Kind == marketplace.KindGit {
			at = fmt.Sprintf("%s at %.12s, %s", m.Source, m.Commit, tildify(m.Path, home))
		} else {
			at = tildify(at, home)
		}
		fmt.Fprintf(w, "%s  %s %s: %s\n", m.Name, m.Kind, at, plural(len(m.Plugins), "plugin"))
		for _, i := range m.Issues {
			if i.Severity == issue.Error || i.Severity == issue.Warning {
				fmt.Fprintln(w, "  "+i.String())
			}
		}
		for _, p := range m.Plugins {
			id := p.Name + "@" + m.Name
			if p.Version != "" {
				id += " " + p.Version
			}
			state := "installable"
			if !p.OK {
				state = "not installable: " + p.Reason
			}
			desc := ""
			if p.Description != "" {
				desc = " — " + p.Description
			}
			fmt.Fprintf(w, "  %s  %s; %s%s\n", id, describeSource(p.Source), state, desc)
		}
	}
}

// describeSource names a plugin's source in a few words.
func describeSource(s marketplace.Source) string {
	var b strings.Builder
	switch s.Kind {
	case "path":
		b.WriteString(s.Path)
	case "github":
		b.WriteString("github " + s.Repo)
	case "url":
		b.WriteString("git " + s.URL)
	case "git-subdir":
		b.WriteString("git " + s.URL + " " + s.Path)
	case "npm", "pip":
		b.WriteString(s.Kind + " " + s.Package)
		if s.Version != "" {
			b.WriteString(" " + s.Version)
		}
	default:
		b.WriteString(s.Kind + " source")
	}
	if s.Ref != "" {
		b.WriteString(" #" + s.Ref)
	}
	if s.SHA != "" {
		fmt.Fprintf(&b, " @%.12s", s.SHA)
	}
	return b.String()
}

func runMarketplaceRemove(f *flags) body {
	return func(env Env, pos []string) int {
		if len(pos) != 1 {
			fmt.Fprintln(env.Stderr, "plugboard marketplace remove: give the marketplace's name (see plugboard marketplace list)")
			return ExitUsage
		}
		_, pbHome, err := homes(env, f)
		if err != nil {
			fmt.Fprintf(env.Stderr, "plugboard marketplace remove: %v\n", err)
			return ExitUsage
		}
		gone, err := marketplace.Remove(pbHome, pos[0])
		if err != nil {
			fmt.Fprintf(env.Stderr, "plugboard marketplace remove: %v\n", err)
			if errors.Is(err, marketplace.ErrNotAdded) {
				return ExitInvalid
			}
			return ExitUsage
		}
		if f.json {
			writeJSON(env.Stdout, map[string]any{"name": gone.Name, "source": gone.Source, "kind": gone.Kind, "path": gone.Path, "deleted": gone.Kind == marketplace.KindGit})
			return ExitOK
		}
		if gone.Kind == marketplace.KindGit {
			fmt.Fprintf(env.Stdout, "removed marketplace %s; its clone %s is deleted\n", gone.Name, gone.Path)
		} else {
			fmt.Fprintf(env.Stdout, "removed marketplace %s; the folder %s is left as it is\n", gone.Name, gone.Path)
		}
		return ExitOK
	}
}
