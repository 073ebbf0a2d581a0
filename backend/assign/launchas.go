package assign

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/settings"
	"github.com/plugboard/plugboard/backend/store"
)

// LaunchAsTarget is the history target of a plugin's "launch as a client loads it"
// choice: "launch-as:<plugin-id>".
const LaunchAsTarget = "launch-as:"

// Rule codes of SetLaunchAs.
const (
	RuleLaunchAsValid   = "launch-as-valid"   // the package is valid: nothing to choose
	RuleLaunchAsRefused = "launch-as-refused" // the client does not load it either
	RuleLaunchAsClient  = "launch-as-client"  // only "claude" (or "" to clear) is known
)

// SetLaunchAs records the user's explicit choice to launch plugin id, which the
// specification rejects, as client loads it ("claude"), or clears it (""). It is refused
// for a valid package, for a package the client would not load either, and when
// settings.json cannot be read cleanly (nothing is written over a file that could not be
// read). The change is a guarded save of settings.json, recorded in the history as
// target launch-as:<id> with the client before and after. It returns the history entry's
// id (0 with warnings when the history could not be written).
func SetLaunchAs(ctx context.Context, pbHome string, cat *catalog.Catalog, id, client, actor string) (int64, []string, error) {
	if client != "" && client != "claude" {
		return 0, nil, &RuleError{Code: RuleLaunchAsClient, Reason: fmt.Sprintf("launching as %q is not supported; only claude (or nothing, to clear the choice)", client), Names: []string{id}}
	}
	p := cat.Plugin(id)
	if p == nil {
		return 0, nil, &RuleError{Code: RuleUnknown, Reason: "no such plugin in the catalog", Names: []string{id}}
	}
	if client != "" {
		switch {
		case p.Valid:
			return 0, nil, &RuleError{Code: RuleLaunchAsValid, Reason: "the package is valid, so every launch already takes it as the specification says", Names: []string{id}}
		case p.Clients == nil || !p.Clients.Claude.Loads:
			why := "it cannot be opened"
			if p.Clients != nil {
				why = p.Clients.Claude.Why
			}
			return 0, nil, &RuleError{Code: RuleLaunchAsRefused, Reason: "Claude Code would not load it either: " + why, Names: []string{id}}
		}
	}
	var before string
	was, hash, after, err := settings.Update(pbHome, "", func(st *settings.Settings) error {
		before = st.LaunchAsClient(id)
		if before == client {
			return nil
		}
		la := map[string]string{}
		for k, v := range st.LaunchAs {
			la[k] = v
		}
		if client == "" {
			delete(la, id)
		} else {
			la[id] = client
		}
		st.LaunchAs = la
		return nil
	})
	switch {
	case errors.Is(err, settings.ErrStale):
		return 0, nil, errors.New("settings.json kept changing while the choice was saved; try again")
	case err != nil:
		return 0, nil, err
	case was.LaunchAsClient(id) == client:
		return 0, nil, nil
	}
	hid, warnings := recordLaunchAs(ctx, pbHome, id, before, client, hash, after, actor)
	return hid, warnings, nil
}

func recordLaunchAs(ctx context.Context, pbHome, id, before, after, beforeHash, afterHash, actor string) (int64, []string) {
	st, warnings, err := store.Open(ctx, pbHome, store.PartHistory)
	if err != nil {
		return 0, append(warnings, "the history database cannot be opened ("+err.Error()+"); the choice is saved but not recorded")
	}
	defer st.Close()
	hid, err := st.AddHistory(ctx, store.HistoryEntry{Target: LaunchAsTarget + id, Before: orNone(before), After: orNone(after),
		BeforeHash: beforeHash, AfterHash: afterHash, Actor: actor})
	if err != nil {
		warnings = append(warnings, "the choice is saved but not recorded in the history: "+err.Error())
	}
	return hid, warnings
}

func orNone(client string) []string {
	if client == "" {
		return []string{}
	}
	return []string{client}
}

// revertLaunchAs undoes a launch-as history entry: the choice goes back to what it was.
func revertLaunchAs(ctx context.Context, pbHome string, cat *catalog.Catalog, e store.HistoryEntry, actor string) (int64, []string, error) {
	before := ""
	if len(e.Before) > 0 {
		before = e.Before[0]
	}
	return SetLaunchAs(ctx, pbHome, cat, strings.TrimPrefix(e.Target, LaunchAsTarget), before, actor)
}
