package runtime

import "path/filepath"

// piLayout projects a launch set for PI (R2): every projected skill is a folder
// skills/<name>/ passed with its own --skill, and --no-skills turns PI's own discovery
// off, so exactly the projection loads.
func piLayout(plan *Plan, units []unit, req Request) layout {
	l := newLayout()
	argv := []string{binOr(req.Bin, PI), "--no-skills"}
	for _, u := range units {
		l.how[u.p.ID] = "skills"
		for _, s := range u.skills {
			rel := "skills/" + s.name
			l.trees[rel] = s.t
			argv = append(argv, "--skill", filepath.Join(plan.Projection, filepath.FromSlash(rel)))
			plan.Skills = append(plan.Skills, s.name)
		}
	}
	plan.Argv = append(argv, req.Args...)
	return l
}
