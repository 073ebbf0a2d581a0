package app

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/runtime"
	"github.com/plugboard/plugboard/backend/testhome"
)

// TestLaunchAsksForAcknowledgment: the page's launch with requireAck stops before any
// terminal opens and lists the servers (no value); Acknowledge records what was shown,
// refuses a digest that is no longer the server's, and the launch then starts them.
func TestLaunchAsksForAcknowledgment(t *testing.T) {
	pb := testhome.CopyTestdata(t, filepath.Join("runtime", "home"))
	term, record := standInTerminal(t)
	clientsOnPath(t)
	svc := NewService(t.TempDir(), pb, nil)
	svc.SetActor("http")
	svc.getenv = func(k string) string { return map[string]string{"TERMINAL": term}[k] }

	_, err := svc.Launch("agent:coder", "", true)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeNeedAck || len(e.Servers) != 2 {
		t.Fatalf("Launch(requireAck) = %v; want %s with 2 servers", err, CodeNeedAck)
	}
	if _, err := os.Stat(record); err == nil {
		t.Error("a launch that needs an acknowledgment opened a terminal")
	}
	if strings.Contains(e.Message, "do-not-leak") {
		t.Error("a value in the message")
	}
	var lint runtime.AckRef
	for _, s := range e.Servers {
		if s.Server == "lint" {
			lint = runtime.AckRef{Plugin: s.Plugin, Server: s.Server, Digest: s.Digest}
		}
	}
	// Without requireAck the launch goes on without them; each drop carries its ack.
	res, err := svc.Launch("agent:coder", "", false)
	if err != nil {
		t.Fatal(err)
	}
	terminalArgv(t, record)
	var acks int
	for _, d := range res.Plan.Dropped {
		if d.Ack != nil && strings.HasPrefix(d.Reason, runtime.NotAcknowledged) {
			acks++
		}
	}
	if acks != 2 || slices.Contains(res.Plan.Servers, "lint") {
		t.Errorf("plan dropped %+v, servers %v", res.Plan.Dropped, res.Plan.Servers)
	}

	got, err := svc.Acknowledge("agent:coder", []runtime.AckRef{lint})
	if err != nil || got.Target != "agent:coder" || len(got.Acknowledged) != 1 || got.History == 0 {
		t.Fatalf("Acknowledge = %+v, %v", got, err)
	}
	h, _ := svc.History("agent:coder")
	if len(h) != 1 || h[0].Kind != "ack" || h[0].Actor != "http" || len(h[0].Acks) != 1 || h[0].Acks[0].Digest != lint.Digest {
		t.Errorf("history = %+v", h)
	}
	if _, err := svc.Launch("agent:coder", "", true); !errors.As(err, &e) || e.Code != CodeNeedAck || len(e.Servers) != 1 || e.Servers[0].Server != "docs" {
		t.Errorf("after acknowledging lint: %v", err)
	}
	// A server that changed after it was shown is not acknowledged in its new form.
	mcp := filepath.Join(pb, "plugins", "review", "mcp.json")
	b, _ := os.ReadFile(mcp)
	os.WriteFile(mcp, []byte(strings.Replace(string(b), `{"X-Tenant"`, `{"Authorization": "x", "X-Tenant"`, 1)), 0o644)
	docs := runtime.AckRef{Plugin: "review", Server: "docs", Digest: e.Servers[0].Digest}
	if _, err := svc.Acknowledge("agent:coder", []runtime.AckRef{docs}); !errors.As(err, &e) || e.Code != CodeStale || len(e.Servers) != 1 {
		t.Fatalf("Acknowledge(changed) = %v; want %s with the fresh server", err, CodeStale)
	}
	docs.Digest = e.Servers[0].Digest
	if _, err := svc.Acknowledge("agent:coder", []runtime.AckRef{docs}); err != nil {
		t.Fatal(err)
	}
	res, err = svc.Launch("agent:coder", "", true)
	if err != nil || !slices.Contains(res.Plan.Servers, "lint") || !slices.Contains(res.Plan.Servers, "docs") {
		t.Fatalf("after acknowledging both: %+v, %v", res.Plan, err)
	}
	terminalArgv(t, record)
	if _, err := svc.Acknowledge("agent:coder", []runtime.AckRef{{Plugin: "review", Server: "nope"}}); !errors.As(err, &e) || e.Code != CodeRefused {
		t.Errorf("Acknowledge(unknown server) = %v", err)
	}
	if _, err := svc.Acknowledge("agent:nobody", []runtime.AckRef{}); !errors.As(err, &e) || e.Code != CodeNotFound {
		t.Errorf("Acknowledge(unknown target) = %v", err)
	}
	// null is not [] (every server not acknowledged yet): a page that lost its list
	// acknowledges nothing.
	if _, err := svc.Acknowledge("agent:coder", nil); !errors.As(err, &e) || e.Code != CodeInvalid {
		t.Errorf("Acknowledge(nil) = %v; want %s", err, CodeInvalid)
	}
}
