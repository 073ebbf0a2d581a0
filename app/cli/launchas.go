package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/plugboard/plugboard/backend/assign"
)

// runLaunchAs shows or sets the choice to launch a package the specification rejects as
// Claude loads it: `launch-as ID` shows it, `launch-as ID claude` sets it, `launch-as ID
// off` clears it.
func runLaunchAs(f *flags) body {
	return func(env Env, pos []string) int {
		if len(pos) < 1 || len(pos) > 2 || (len(pos) == 2 && pos[1] != "claude" && pos[1] != "off") {
			fmt.Fprintln(env.Stderr, "usage: plugboard launch-as PLUGIN [claude|off] [--json]")
			return ExitUsage
		}
		cat, pbHome, ok := homeCatalog(env, f, "launch-as")
		if !ok {
			return ExitUsage
		}
		id := pos[0]
		if len(pos) == 2 {
			client := pos[1]
			if client == "off" {
				client = ""
			}
			hid, warnings, err := assign.SetLaunchAs(context.Background(), pbHome, cat, id, client, "cli")
			var rule *assign.RuleError
			switch {
			case errors.As(err, &rule):
				fmt.Fprintf(env.Stderr, "plugboard launch-as: %s: %s\n", id, rule.Reason)
				return ExitInvalid
			case err != nil:
				fmt.Fprintf(env.Stderr, "plugboard launch-as: %v\n", err)
				return ExitUsage
			}
			for _, w := range warnings {
				fmt.Fprintln(env.Stderr, "plugboard launch-as: warning:", w)
			}
			if hid > 0 && !f.json {
				fmt.Fprintf(env.Stdout, "history entry %d\n", hid)
			}
			cat, _, _ = homeCatalog(env, f, "launch-as")
		}
		p := cat.Plugin(id)
		if p == nil {
			fmt.Fprintf(env.Stderr, "plugboard launch-as: no plugin %q in the catalog (plugboard catalog lists them)\n", id)
			return ExitInvalid
		}
		choice := cat.Settings.LaunchAsClient(id)
		claudeLoads := p.Clients != nil && p.Clients.Claude.Loads
		if f.json {
			if err := writeJSON(env.Stdout, map[string]any{"plugin": id, "valid": p.Valid, "claudeLoads": claudeLoads, "launchAs": choice}); err != nil {
				return ExitUsage
			}
			return ExitOK
		}
		spec := "valid"
		if !p.Valid {
			spec = "INVALID"
		}
		state := "launched as the specification says"
		if choice != "" {
			state = "launched as " + choice + " loads it (its folder is handed to Claude as it is; PI does not get it)"
		}
		fmt.Fprintf(env.Stdout, "%s: specification %s; claude: %s; %s\n", id, spec, map[bool]string{true: "loads it", false: "does not load it"}[claudeLoads], state)
		return ExitOK
	}
}
