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
