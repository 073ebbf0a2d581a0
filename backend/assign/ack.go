package assign

import (
	"context"
	"fmt"
	"strings"

	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/store"
)

// Acknowledgments (A4, kept at launch). An acknowledgment is recorded per target, plugin,
// server and digest (mcpconfig.Digest: the type, a stdio server's command as written,
// argument count, cwd and env key names, a remote server's origin and header names —
// never a value). A save that acknowledges servers records them with its history entry
// (Record); Acknowledge records them on their own, for servers that reach a target
// without a save (a plugin that gains an mcp.json, a server whose command changes, a slot
// that inherits its agent's set). The launcher leaves out every portable server whose
// digest has no acknowledgment for the target it launches.
//
// Homes from before digests were recorded get no acknowledgment from their history: those
// entries name "plugin/server" but not what it ran then, so they cannot vouch that what
// runs now is what was acknowledged — accepting them would let exactly the change this
// guards against (a git pull that edits an acknowledged server) through. Each portable
// server is asked about once more, at its next launch, with what it runs.

// Acknowledge records acks for target as a history entry of kind store.KindAck (it changes
// no file: before and after are the target's pluginDirs as they are) and returns the
// entry's id. acks must carry digests; the caller computes them from what it showed the
// user (NewAck), so an acknowledgment is of what was shown. Unlike Record, a history that
// cannot be written is an error: the entry is the acknowledgment.
func Acknowledge(ctx context.Context, pbHome, target string, acks []Ack, actor string) (int64, []string, error) {
	if len(acks) == 0 {
		return 0, nil, &RuleError{Code: RuleBadChange, Reason: "nothing to acknowledge: the target's launch set has no such MCP server", Names: []string{target}}
	}
	h := scan(pbHome, indexPlugins(&catalog.Catalog{PlugboardHome: pbHome}))
	t := h.find(target)
	if t == nil && strings.HasPrefix(target, "dir:") {
		// A launch of plugin folders (plugboard try DIR, mcp check PLUGIN) has no target
		// file: its acknowledgments are kept under its id with no set before or after.
		t = &located{Target: Target{ID: target}}
	}
	if t == nil {
		return 0, nil, h.notFound(target)
	}
	st, warnings, err := store.Open(ctx, pbHome, store.PartHistory)
	if err != nil {
		return 0, warnings, fmt.Errorf("the acknowledgment is not recorded: %w", err)
	}
	defer st.Close()
	names, recs := historyAcks(acks)
	id, err := st.AddHistory(ctx, store.HistoryEntry{Target: t.ID, Kind: store.KindAck, Before: t.dirs, After: t.dirs,
		BeforeUnset: t.dirs == nil, AfterUnset: t.dirs == nil, BeforeHash: t.Hash, AfterHash: t.Hash,
		Acknowledged: names, Acks: recs, Actor: actor})
	if err != nil {
		return 0, warnings, fmt.Errorf("the acknowledgment is not recorded: %w", err)
	}
	return id, warnings, nil
}

// Acknowledged returns the acknowledgments of target as a set keyed by AckKey. A home
// without a database has none, and nothing is created to find that out.
func Acknowledged(ctx context.Context, pbHome, target string) (map[string]bool, error) {
	if !store.Exists(pbHome) {
		return map[string]bool{}, nil
	}
	st, _, err := store.Open(ctx, pbHome, store.PartAcks)
	if err != nil {
		return map[string]bool{}, err
	}
	defer st.Close()
	rows, err := st.Acknowledgments(ctx, target)
	set := make(map[string]bool, len(rows))
	for _, r := range rows {
		set[AckKey(r.Plugin, r.Server, r.Digest)] = true
	}
	return set, err
}

// AckKey is the key of an acknowledgment in the set Acknowledged returns.
func AckKey(plugin, server, digest string) string { return plugin + "\x00" + server + "\x00" + digest }

// historyAcks turns acks into the history's two forms: "plugin/server" names and the
// digests.
func historyAcks(acks []Ack) ([]string, []store.Ack) {
	var names []string
	var recs []store.Ack
	for _, a := range acks {
		names = append(names, a.Plugin+"/"+a.Server)
		recs = append(recs, store.Ack{Plugin: a.Plugin, Server: a.Server, Type: a.Type, Digest: a.Digest})
	}
	return names, recs
}
