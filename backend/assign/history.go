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
func Revert(ctx context.Context, pbHome string, cat *catalog.Catalog, id int64, ack bool) (Outcome, store.HistoryEntry, error) {
	st, _, err := store.Open(ctx, pbHome, store.PartHistory)
	if err != nil {
		return Outcome{}, store.HistoryEntry{}, err
	}
	e, err := st.HistoryEntry(ctx, id)
	st.Close()
	if err != nil {
		return Outcome{}, e, err // the store's error names the entry
	}
	if e.Kind == store.KindAck {
		return Outcome{Target: Target{ID: e.Target}}, e, &RuleError{Code: RuleNotRevertable,
			Reason: fmt.Sprintf("history entry %d is an acknowledgment and changed no file, so there is nothing to revert", id), Names: []string{e.Target}}
	}
	if strings.HasPrefix(e.Target, LaunchAsTarget) {
		// A "launch as a client loads it" choice: put the choice back (recorded as its
		// own history entry); no pluginDirs are written.
		_, _, err := revertLaunchAs(ctx, pbHome, cat, e, "revert")
		return Outcome{Target: Target{ID: e.Target}}, e, err
	}
	before := e.Before
	if e.BeforeUnset {
		before = nil
	} else if before == nil {
		before = []string{}
	}
	out, err := SetDirs(pbHome, cat, e.Target, before, e.AfterHash, ack)
	return out, e, err
}
