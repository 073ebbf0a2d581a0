package assign

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/store"
)

// TestSaveRecordsAcknowledgments: a save with the acknowledgment records each server's
// digest for the target; the set Acknowledged reads holds exactly those.
func TestSaveRecordsAcknowledgments(t *testing.T) {
	pb, cat := mainHome(t)
	ctx := context.Background()
	if set, err := Acknowledged(ctx, pb, "agent:bare"); err != nil || len(set) != 0 {
		t.Fatalf("Acknowledged before any save = %v, %v", set, err)
	}
	if _, err := os.Stat(filepath.Join(pb, "state")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Acknowledged on a home without a database made %s/state (%v)", pb, err)
	}
	out, err := Apply(pb, cat, "agent:bare", Change{Add: []string{"tools"}}, "", true)
	if err != nil {
		t.Fatal(err)
	}
	if _, warnings := Record(ctx, pb, "agent:bare", out, 0, "cli"); len(warnings) > 0 {
		t.Fatal(warnings)
	}
	set, err := Acknowledged(ctx, pb, "agent:bare")
	if err != nil || len(set) != 2 {
		t.Fatalf("Acknowledged = %v, %v; want 2", set, err)
	}
	for _, a := range out.Acknowledged {
		if !strings.HasPrefix(a.Digest, "sha256:") || !set[AckKey(a.Plugin, a.Server, a.Digest)] {
			t.Errorf("%s/%s (%s) is not acknowledged", a.Plugin, a.Server, a.Digest)
		}
	}
	if other, _ := Acknowledged(ctx, pb, "agent:forms"); len(other) != 0 {
		t.Errorf("another target got acknowledgments: %v", other)
	}
	st, _, err := store.Open(ctx, pb)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	h, _ := st.History(ctx, "agent:bare", 1)
	if len(h) != 1 || len(h[0].Acks) != 2 || h[0].Acks[0].Digest != out.Acknowledged[0].Digest || h[0].Kind != "" {
		t.Errorf("history entry = %+v", h)
	}
}

// TestAcknowledgeOnItsOwn: an explicit acknowledgment is a history entry of kind ack that
// changes no file, and a revert of it is refused.
func TestAcknowledgeOnItsOwn(t *testing.T) {
	pb, cat := mainHome(t)
	ctx := context.Background()
	file := filepath.Join(pb, "agents", "forms.json")
	before := readFile(t, file)
	tools := indexPlugins(cat).byID["tools"]
	if tools == nil || tools.MCP == nil {
		t.Fatal("fixture: no plugin tools with MCP")
	}
	ack := NewAck("tools", tools.MCP.Servers[0])
	id, _, err := Acknowledge(ctx, pb, "agent:forms", []Ack{ack}, "cli")
	if err != nil {
		t.Fatal(err)
	}
	if string(readFile(t, file)) != string(before) {
		t.Error("an acknowledgment rewrote the target's file")
	}
	set, _ := Acknowledged(ctx, pb, "agent:forms")
	if !set[AckKey("tools", ack.Server, ack.Digest)] || len(set) != 1 {
		t.Errorf("Acknowledged = %v", set)
	}
	st, _, _ := store.Open(ctx, pb)
	e, err := st.HistoryEntry(ctx, id)
	st.Close()
	if err != nil || e.Kind != store.KindAck || e.Target != "agent:forms" || e.BeforeHash != e.AfterHash || len(e.Acks) != 1 {
		t.Errorf("entry = %+v, %v", e, err)
	}
	var rule *RuleError
	if _, _, err := Revert(ctx, pb, cat, id, false); !errors.As(err, &rule) || rule.Code != RuleNotRevertable {
		t.Errorf("Revert(ack entry) = %v; want a RuleError %s", err, RuleNotRevertable)
	}
	if _, _, err := Acknowledge(ctx, pb, "agent:nobody", []Ack{ack}, "cli"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Acknowledge(agent:nobody) = %v; want ErrNotFound", err)
	}
	if _, _, err := Acknowledge(ctx, pb, "agent:forms", nil, "cli"); !errors.As(err, &rule) {
		t.Errorf("Acknowledge(nothing) = %v; want a RuleError", err)
	}
}
