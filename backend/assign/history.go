package assign

import (
	"context"
	"fmt"
	"strings"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/store"
)

// Record writes a save to the history (A6): the pluginDirs as written before and after,
// whether the member existed (so a revert restores a slot's inheritance), the hashes and
// the acknowledged servers, each with its digest, which the launch then accepts for this
// target (see Acknowledge). The files are the source of truth, so a history that cannot
// be opened or written gives warnings, never a failed save.
func Record(ctx context.Context, pbHome, target string, out Outcome, revertOf int64, actor string) (int64, []string) {
	st, warnings, err := store.Open(ctx, pbHome, store.PartHistory)
	if err != nil {
		return 0, append(warnings, "the history database cannot be opened ("+err.Error()+"); the save is done but not recorded")
	}
	defer st.Close()
	acked, acks := historyAcks(out.Acknowledged)
	id, err := st.AddHistory(ctx, store.HistoryEntry{Target: target, Before: out.BeforeDirs, After: out.AfterDirs,
		BeforeUnset: out.BeforeDirs == nil, AfterUnset: out.AfterDirs == nil,
		BeforeHash: out.BeforeHash, AfterHash: out.AfterHash, Acknowledged: acked, Acks: acks, RevertOf: revertOf, Actor: actor})
	if err != nil {
		warnings = append(warnings, "the save is done but not recorded in the history: "+err.Error())
	}
	return id, warnings
}

// Revert undoes history entry id: a guarded save of the entry's "before" pluginDirs,
// made only while the target still has the entry's after-hash, under the same rules as
// any save (ack for MCP servers it brings back). It returns the entry it reverted.
//
// An entry reverted before is refused (RuleAlreadyReverted), naming the entry that did:
// the files no longer hold what it wrote, and a second revert would only say so less
// clearly. An entry of whole files (an agent made, renamed or removed) is reverted by
// revertFiles, as actor "revert"; SaveAndRecord reverts it as the door's actor.
func Revert(ctx context.Context, pbHome string, cat *catalog.Catalog, id int64, ack bool) (Outcome, store.HistoryEntry, error) {
	out, e, _, err := revert(ctx, pbHome, cat, id, ack, "revert")
	return out, e, err
}

func revert(ctx context.Context, pbHome string, cat *catalog.Catalog, id int64, ack bool, actor string) (Outcome, store.HistoryEntry, *FilesSaved, error) {
	st, _, err := store.Open(ctx, pbHome, store.PartHistory)
	if err != nil {
		return Outcome{}, store.HistoryEntry{}, nil, err
	}
	e, err := st.HistoryEntry(ctx, id)
	var by int64
	if err == nil {
		by, err = st.RevertedBy(ctx, id)
	}
	st.Close()
	if err != nil {
		return Outcome{}, e, nil, err // the store's error names the entry
	}
	if by != 0 {
		return Outcome{Target: Target{ID: e.Target}}, e, nil, &RuleError{Code: RuleAlreadyReverted, Names: []string{e.Target},
			Reason: fmt.Sprintf("history entry %d was already reverted by entry %d; nothing was written", id, by)}
	}
	if e.Kind == store.KindFiles {
		saved, err := revertFiles(ctx, pbHome, cat, e, actor)
		return Outcome{Target: Target{ID: e.Target}}, e, &saved, err
	}
	out, err := revertDirs(ctx, pbHome, cat, e, ack)
	return out, e, nil, err
}

// revertDirs reverts an entry that saved pluginDirs (or chose how to launch a plugin).
func revertDirs(ctx context.Context, pbHome string, cat *catalog.Catalog, e store.HistoryEntry, ack bool) (Outcome, error) {
	id := e.ID
	if e.Kind == store.KindAck {
		return Outcome{Target: Target{ID: e.Target}}, &RuleError{Code: RuleNotRevertable,
			Reason: fmt.Sprintf("history entry %d is an acknowledgment and changed no file, so there is nothing to revert", id), Names: []string{e.Target}}
	}
	if strings.HasPrefix(e.Target, LaunchAsTarget) {
		// A "launch as a client loads it" choice: put the choice back (recorded as its
		// own history entry); no pluginDirs are written.
		_, _, err := revertLaunchAs(ctx, pbHome, cat, e, "revert")
		return Outcome{Target: Target{ID: e.Target}}, err
	}
	before := e.Before
	if e.BeforeUnset {
		before = nil
	} else if before == nil {
		before = []string{}
	}
	return SetDirs(pbHome, cat, e.Target, before, e.AfterHash, ack)
}
