package assign

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/plugboard/plugboard/backend/store"
)

// SaveAndRecord is the one save the page and the CLI make: it saves, records what it
// wrote in the history as the caller's actor, and sorts every failure into a SaveError
// kind, with what a door needs to present it.
func TestSaveAndRecord(t *testing.T) {
	ctx := t.Context()
	pb, cat := mainHome(t)
	history := func(target string) []store.HistoryEntry {
		t.Helper()
		st, _, err := store.Open(ctx, pb)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		es, err := st.History(ctx, target, 0)
		if err != nil {
			t.Fatal(err)
		}
		return es
	}

	saved, err := SaveAndRecord(ctx, pb, cat, Request{Target: "agent:bare", Change: Change{Add: []string{"notes"}}, Actor: "test"})
	if err != nil || saved.Target != "agent:bare" || !saved.Outcome.Written || saved.History == 0 || saved.Warnings == nil || len(saved.Warnings) != 0 {
		t.Fatalf("save = %+v, %v; want written and recorded", saved, err)
	}
	es := history("agent:bare")
	if len(es) != 1 || es[0].ID != saved.History || es[0].Actor != "test" || !eq(es[0].After, []string{"plugins/notes"}) || !es[0].BeforeUnset {
		t.Errorf("history = %+v; want the one save by test", es)
	}

	// A save that changes no byte is not recorded.
	same, err := SaveAndRecord(ctx, pb, cat, Request{Target: "template:review/researcher", Change: Change{Defaults: true}, Actor: "test"})
	if err != nil || same.Outcome.Written || same.History != 0 || len(history("template:review/researcher")) != 0 {
		t.Errorf("no-op save = %+v, %v; want nothing written or recorded", same, err)
	}

	// A revert names its entry's target and records itself as a revert of it.
	rev, err := SaveAndRecord(ctx, pb, cat, Request{RevertOf: saved.History, Actor: "test"})
	if err != nil || rev.Target != "agent:bare" || !rev.Outcome.Written || rev.History == 0 {
		t.Fatalf("revert = %+v, %v", rev, err)
	}
	if es := history("agent:bare"); len(es) != 2 || es[0].RevertOf != saved.History {
		t.Errorf("history after the revert = %+v", es)
	}

	ro := filepath.Join(pb, "agents", "forms.json")
	os.Chmod(ro, 0o444)
	for _, c := range []struct {
		name string
		r    Request
		kind string
		is   error
		ok   func(*SaveError) bool
	}{
		{"stale", Request{Target: "agent:bare", Change: Change{Add: []string{"legacy-one"}}, ExpectHash: saved.Outcome.AfterHash}, FailStale, ErrStale,
			func(se *SaveError) bool { return se.Fresh.ID == "agent:bare" && se.Fresh.Hash == rev.Outcome.AfterHash }},
		{"refused", Request{Target: "agent:bare", Change: Change{Add: []string{"broken"}}}, FailRefused, ErrRule,
			func(se *SaveError) bool {
				return se.Rule != nil && se.Rule.Code == RuleInvalid && eq(se.Rule.Names, []string{"broken"})
			}},
		{"ack needed", Request{Target: "agent:bare", Change: Change{Add: []string{"tools"}}}, FailAckNeeded, ErrAckNeeded,
			func(se *SaveError) bool { return len(se.Servers) == 2 }},
		{"read-only target", Request{Target: "shell:ops-shell", Change: Change{Add: []string{"notes"}}}, FailReadOnly, ErrReadOnly, nil},
		{"read-only file", Request{Target: "agent:forms", Change: Change{Add: []string{"mcp-off"}}}, FailReadOnly, ErrReadOnly, nil},
		{"no such target", Request{Target: "agent:nobody", Change: Change{Add: []string{"notes"}}}, FailNotFound, ErrNotFound, nil},
		{"no such history entry", Request{RevertOf: 999}, FailNotFound, store.ErrNotFound, nil},
	} {
		_, err := SaveAndRecord(ctx, pb, cat, c.r)
		var se *SaveError
		if !errors.As(err, &se) || se.Kind != c.kind || !errors.Is(err, c.is) || (c.ok != nil && !c.ok(se)) {
			t.Errorf("%s: SaveAndRecord = %#v; want a SaveError of kind %s wrapping %v", c.name, err, c.kind, c.is)
		}
	}
	if es := history(""); len(es) != 2 {
		t.Errorf("failed saves were recorded: %d entries, want 2", len(es))
	}
}

// The caller's context is the save's: once it is done, no save is started.
func TestSaveAndRecordTakesTheCallersContext(t *testing.T) {
	pb, cat := mainHome(t)
	p := filepath.Join(pb, "agents", "bare.json")
	before := readFile(t, p)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := SaveAndRecord(ctx, pb, cat, Request{Target: "agent:bare", Change: Change{Add: []string{"notes"}}, Actor: "test"})
	var se *SaveError
	if !errors.Is(err, context.Canceled) || !errors.As(err, &se) || se.Kind != FailOther {
		t.Errorf("SaveAndRecord with a cancelled context = %v; want context.Canceled", err)
	}
	if !bytes.Equal(readFile(t, p), before) {
		t.Errorf("a save with a cancelled context wrote the file")
	}
}
