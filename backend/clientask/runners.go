package clientask

import (
	"context"
	"slices"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/clients"
	"github.com/plugboard/plugboard/backend/clients/oracle"
)

// runner is how one client is asked.
type runner struct {
	// verdict is the model's verdict of this client.
	verdict func(*clients.Set) clients.Verdict
	// names are the names a package takes in a run, which no other package of the run
	// may take; ok is false for a package to ask alone.
	names func(*catalog.Plugin) (names []string, ok bool)
	// many asks about the package folders dirs in one run, answering by folder as given;
	// a folder it cannot answer for is left out.
	many func(ctx context.Context, bin string, dirs []string) (map[string]oracle.Init, error)
	// one asks about one package folder.
	one func(ctx context.Context, bin, dir string) (oracle.Init, error)
	// ownRefusals is true when a package many says does not load would not load alone
	// either (Codex installs each package of a run on its own); otherwise it is asked
	// alone, since a batch may hide a package behind another of the same name.
	ownRefusals bool
}

// runners are the clients Ask can ask, by name.
var runners = map[string]runner{
	clients.Claude: {
		verdict: func(s *clients.Set) clients.Verdict { return s.Claude },
		// a plugin takes its name; one that needs others, or that the model says does not
		// load (its name is then unknown), is asked alone
		names: func(p *catalog.Plugin) ([]string, bool) {
			if p.Clients == nil || !p.Clients.Claude.Loads || len(p.Clients.Claude.Needs) > 0 {
				return nil, false
			}
			return []string{p.Clients.Claude.Plugin}, true
		},
		many: oracle.ClaudeEach,
		one:  oracle.Claude,
	},
	clients.Codex: {
		verdict: func(s *clients.Set) clients.Verdict { return s.Codex },
		// a plugin is installed from the run's one marketplace under its name (one whose
		// name is taken is left out of the answer and asked alone); one the model says
		// does not load takes no name
		names: func(p *catalog.Plugin) ([]string, bool) {
			if p.Clients == nil || !p.Clients.Codex.Loads {
				return nil, true
			}
			return []string{p.Clients.Codex.Plugin}, true
		},
		many:        codexMany,
		one:         codexOne,
		ownRefusals: true,
	},
	clients.PI: {
		verdict: func(s *clients.Set) clients.Verdict { return s.PI },
		// PI has no namespaces: a package takes its skills' names, and keeps the first of
		// two alike
		names: func(p *catalog.Plugin) ([]string, bool) {
			if p.Clients == nil || !p.Clients.PI.Loads {
				return nil, false
			}
			return p.Clients.PI.Skills, true
		},
		many: piMany,
		one: func(ctx context.Context, bin, dir string) (oracle.Init, error) {
			got, err := piMany(ctx, bin, []string{dir})
			return got[dir], err
		},
	},
}

// piMany hands PI every skill folder of the packages dirs (clients.PISkillDirs), each with
// --skill, in one run, and answers for each package with the skills PI listed from its
// folders.
func piMany(ctx context.Context, bin string, dirs []string) (map[string]oracle.Init, error) {
	owner := map[string]string{}
	var all []string
	for _, d := range dirs {
		for _, sd := range clients.PISkillDirs(d) {
			owner[sd] = d
			all = append(all, sd)
		}
	}
	out := make(map[string]oracle.Init, len(dirs))
	for _, d := range dirs {
		out[d] = oracle.Init{Skills: []string{}, Agents: []string{}}
	}
	if len(all) == 0 {
		return out, nil // no folder to hand over: PI gets nothing
	}
	each, err := oracle.PIEach(ctx, bin, all)
	if err != nil {
		return nil, err
	}
	for sd, names := range each {
		d, ok := owner[sd]
		if !ok {
			continue
		}
		in := out[d]
		in.Skills = append(in.Skills, names...)
		in.Loads = true
		out[d] = in
	}
	for d, in := range out {
		slices.Sort(in.Skills)
		out[d] = in
	}
	return out, nil
}

// codexMany installs the package folders dirs into one private marketplace and
// CODEX_HOME and asks codex what it loads of each (oracle.CodexEach). A package with a
// skill missing from the prompt is left out, to be asked alone: in a run of many the
// prompt's skill list may be full.
func codexMany(ctx context.Context, bin string, dirs []string) (map[string]oracle.Init, error) {
	got, err := oracle.CodexEach(ctx, bin, dirs)
	if err != nil {
		return nil, err
	}
	out := make(map[string]oracle.Init, len(got))
	for d, l := range got {
		if len(l.Hidden) == 0 {
			out[d] = codexInit(l)
		}
	}
	return out, nil
}

// codexOne installs the package folder dir into a private marketplace and CODEX_HOME and
// asks codex what it loads (oracle.CodexPlugin).
func codexOne(ctx context.Context, bin, dir string) (oracle.Init, error) {
	l, err := oracle.CodexPlugin(ctx, bin, dir)
	if err != nil {
		return oracle.Init{}, err
	}
	return codexInit(l), nil
}

// codexInit is codex's answer as an oracle.Init: the plugin's name and skills; why it
// was refused, and which skill files it refused, are the answer's warnings.
func codexInit(l oracle.CodexLoad) oracle.Init {
	in := oracle.Init{Loads: l.Loads, Plugin: l.Plugin, Skills: l.Skills, Agents: []string{}, Version: l.Version, Hidden: l.Hidden}
	if in.Skills == nil {
		in.Skills = []string{}
	}
	if l.Error != "" {
		in.Warnings = append(in.Warnings, l.Error)
	}
	for _, r := range l.Refused {
		in.Warnings = append(in.Warnings, r.Path+": "+r.Reason)
	}
	return in
}
