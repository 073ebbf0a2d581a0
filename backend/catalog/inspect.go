package catalog

import (
	"os"
	"path/filepath"

	"github.com/plugboard/plugboard/backend/clients"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/manifest"
	"github.com/plugboard/plugboard/backend/marketplace"
	"github.com/plugboard/plugboard/backend/skill"
)

// What a folder given to inspect is.
const (
	KindPlugin      = "plugin"
	KindSkill       = "skill"       // a standalone skill folder (SKILL.md, no manifest)
	KindMarketplace = "marketplace" // a Claude marketplace root (.claude-plugin/marketplace.json, no plugin manifest)
)

// Inspection is what `plugboard inspect` reports on one folder: a plugin (the Plugin
// fields inline), a standalone skill, or a marketplace and the plugins it lists.
type Inspection struct {
	Kind string `json:"kind"`
	*Plugin
	Skill       *skill.Skill           `json:"skill,omitempty"`
	Marketplace *MarketplaceInspection `json:"marketplace,omitempty"`
	// Clients is what each client loads from the folder (the plugin's own, for a plugin).
	Clients *clients.Set `json:"clients,omitempty"`
}

// MarketplaceInspection is a marketplace file with each local entry inspected.
type MarketplaceInspection struct {
	Name    string             `json:"name"`
	Owner   string             `json:"owner,omitempty"`
	File    string             `json:"file"`
	Plugins []MarketplaceEntry `json:"plugins"`
	Issues  issue.List         `json:"issues"`
}

// MarketplaceEntry is one listed plugin and, for a folder inside the marketplace, its
// inspection.
type MarketplaceEntry struct {
	marketplace.Entry
	Plugin *Plugin `json:"plugin,omitempty"`
}

// InspectAny inspects whatever dir is: a plugin package of any format, a standalone
// skill folder, or a marketplace root. A folder with a plugin manifest (or a skills
// folder) is a plugin even when it is also a marketplace or holds a SKILL.md.
func InspectAny(dir, home string) Inspection { return InspectAnyAs(dir, home, nil) }

// InspectAnyAs is InspectAny with the clients installed here (Options.Installed), which
// pick the rules a package's client verdicts are judged by.
func InspectAnyAs(dir, home string, installed map[string]string) Inspection {
	switch {
	case looksLikePlugin(dir):
	case marketplace.Exists(dir):
		return inspectMarketplace(dir, home)
	case exists(filepath.Join(dir, "SKILL.md")):
		abs, _ := filepath.Abs(dir)
		s := skill.Load(abs, skill.Options{Trusted: true, Home: home, Path: "SKILL.md"})
		set := clients.JudgeSkill(abs)
		return Inspection{Kind: KindSkill, Skill: &s, Clients: &set}
	}
	p := InspectAs(dir, home, installed)
	return Inspection{Kind: KindPlugin, Plugin: &p, Clients: p.Clients}
}

// HasErrors reports whether any error was found anywhere: the package, its skills and
// servers, a marketplace entry, or a client that refuses what the package gives it.
func (d *Inspection) HasErrors() bool {
	if d.Plugin != nil && (!d.Plugin.Valid || d.Plugin.IssueCounts.Errors > 0) {
		return true
	}
	if d.Skill != nil && !d.Skill.Valid {
		return true
	}
	if d.Clients != nil && d.Clients.HasErrors() {
		return true
	}
	if m := d.Marketplace; m != nil {
		if m.Issues.HasErrors() {
			return true
		}
		for _, e := range m.Plugins {
			if e.Plugin != nil && (e.Plugin.IssueCounts.Errors > 0 || (e.Plugin.Clients != nil && e.Plugin.Clients.HasErrors())) {
				return true
			}
		}
	}
	return false
}

func inspectMarketplace(dir, home string) Inspection {
	m := marketplace.Read(dir)
	mi := &MarketplaceInspection{Name: m.Name, Owner: m.Owner, File: m.File, Issues: m.Issues, Plugins: make([]MarketplaceEntry, len(m.Plugins))}
	for i, e := range m.Plugins {
		mi.Plugins[i].Entry = e
		if e.OK && e.Source.Local() {
			p := Inspect(e.Dir, home)
			mi.Plugins[i].Plugin = &p
		}
	}
	return Inspection{Kind: KindMarketplace, Marketplace: mi}
}

// looksLikePlugin: a folder with any plugin manifest or a skills folder.
func looksLikePlugin(dir string) bool {
	for _, f := range []string{manifest.PortablePath, manifest.LegacyPath, manifest.CursorPath, clients.CodexManifest, "skills"} {
		if exists(filepath.Join(dir, filepath.FromSlash(f))) {
			return true
		}
	}
	return false
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
