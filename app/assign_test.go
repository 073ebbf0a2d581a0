package app

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/plugboard/plugboard/backend/assign"
	"github.com/plugboard/plugboard/backend/testhome"
)

// startAssignServer serves the assignment fixture home.
func startAssignServer(t *testing.T) (base, token string) {
	t.Helper()
	pb := testhome.CopyTestdata(t, "assign/home")
	broker := NewBroker()
	svc := NewService(t.TempDir(), pb, broker.Emit)
	svc.SetActor("http")
	srv, err := NewServer(svc, broker, fstest.MapFS{})
	if err != nil {
		t.Fatal(err)
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.Serve(ctx, l, io.Discard); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + l.Addr().String(), srv.Token()
}

func TestAssignOverHTTP(t *testing.T) {
	base, token := startAssignServer(t)
	auth := map[string]string{"X-Plugboard-Token": token}
	call := func(method string, args ...any) (int, string) {
		b, _ := json.Marshal(args)
		code, body, _ := do(t, base, req{"POST", "/api/" + method, string(b), auth})
		if strings.Contains(body, "PLANTED") {
			t.Errorf("%s leaked a planted secret: %s", method, body)
		}
		return code, body
	}
	code, body := call("Targets")
	var ts TargetsState
	if code != 200 || json.Unmarshal([]byte(body), &ts) != nil || len(ts.Targets) < 5 {
		t.Fatalf("Targets = %d %s", code, body)
	}
	hash := ""
	hashes := map[string]string{}
	for _, tg := range ts.Targets {
		hashes[tg.ID] = tg.Hash
	}
	hash = hashes["agent:researcher"]
	// The page saves what it showed: no hash, no save.
	code, body = call("Assign", "agent:bare", map[string]any{"add": []string{"notes"}}, "", false)
	if code != 400 || !strings.Contains(body, "hash is missing") {
		t.Errorf("Assign without a hash = %d %s", code, body)
	}

	// An MCP plugin needs the acknowledgment: 409 ack-needed with the servers, sanitised.
	change := map[string]any{"add": []string{"tools"}}
	code, body = call("Assign", "agent:researcher", change, hash, false)
	var e Error
	json.Unmarshal([]byte(body), &e)
	if code != 409 || e.Code != CodeNeedAck || len(e.Servers) == 0 {
		t.Errorf("Assign without ack = %d %s", code, body)
	}
	// A rule refuses an invalid plugin: 422 with the names.
	code, body = call("Assign", "agent:bare", map[string]any{"add": []string{"broken"}}, hashes["agent:bare"], false)
	json.Unmarshal([]byte(body), &e)
	if code != 422 || e.Code != CodeRefused {
		t.Errorf("Assign of an invalid plugin = %d %s", code, body)
	}
	// Saved with the acknowledgment and recorded.
	code, body = call("Assign", "agent:researcher", change, hash, true)
	var res SaveResult
	if code != 200 || json.Unmarshal([]byte(body), &res) != nil || res.History == 0 || len(res.Outcome.Acknowledged) == 0 {
		t.Fatalf("Assign with ack = %d %s", code, body)
	}
	// The old hash is stale: 409 with the fresh target.
	code, body = call("Assign", "agent:researcher", map[string]any{"remove": []string{"notes"}}, hash, false)
	json.Unmarshal([]byte(body), &e)
	if code != 409 || e.Code != CodeStale || e.Current == nil {
		t.Errorf("stale Assign = %d %s", code, body)
	}
	// Read-only targets: 403 read-only.
	code, body = call("Assign", "shell:main-shell", map[string]any{"add": []string{"notes"}}, hashes["shell:main-shell"], false)
	if code != 403 || !strings.Contains(body, CodeReadOnly) {
		t.Errorf("read-only Assign = %d %s", code, body)
	}
	// History, then Revert.
	code, body = call("History", "agent:researcher")
	var hist []struct {
		ID    int64
		Actor string
	}
	if code != 200 || json.Unmarshal([]byte(body), &hist) != nil || len(hist) != 1 || hist[0].Actor != "http" {
		t.Fatalf("History = %d %s", code, body)
	}
	code, body = call("Revert", hist[0].ID, false)
	if code != 200 || !strings.Contains(body, `"history"`) {
		t.Errorf("Revert = %d %s", code, body)
	}
	if code, _ := call("Revert", 999, false); code != 404 {
		t.Errorf("Revert of a missing entry = %d", code)
	}
}

// A save goes through assign.SaveAndRecord: a file its owner may not write is refused as
// read-only with the fix named and left alone, a save is recorded as the service's actor,
// and an unknown history entry is not-found.
func TestAssignErrorCodes(t *testing.T) {
	pb := testhome.CopyTestdata(t, "assign/home")
	svc := NewService(t.TempDir(), pb, nil)
	p := filepath.Join(pb, "agents", "bare.json")
	before, _ := os.ReadFile(p)
	os.Chmod(p, 0o444)
	hashOf := func(id string) string {
		ts, err := svc.Targets()
		if err != nil {
			t.Fatal(err)
		}
		for _, tg := range ts.Targets {
			if tg.ID == id {
				return tg.Hash
			}
		}
		t.Fatalf("no target %s", id)
		return ""
	}
	_, err := svc.Assign("agent:bare", assign.Change{Add: []string{"notes"}}, hashOf("agent:bare"), false)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeReadOnly || !strings.Contains(e.Message, "chmod u+w "+p) {
		t.Errorf("Assign to a read-only file = %v; want %s naming chmod u+w %s", err, CodeReadOnly, p)
	}
	if after, _ := os.ReadFile(p); string(after) != string(before) {
		t.Errorf("a read-only file was replaced")
	}
	os.Chmod(p, 0o644)
	res, err := svc.Assign("agent:bare", assign.Change{Add: []string{"notes"}}, hashOf("agent:bare"), false)
	if err != nil || res.History == 0 || res.Warnings == nil || !res.Outcome.Written {
		t.Fatalf("Assign = %+v, %v", res, err)
	}
	hist, err := svc.History("agent:bare")
	if err != nil || len(hist) != 1 || hist[0].Actor != "desktop" {
		t.Errorf("History = %+v, %v; want one save by desktop", hist, err)
	}
	if _, err := svc.Revert(999, false); !errors.As(err, &e) || e.Code != CodeNotFound {
		t.Errorf("Revert of a missing entry = %v; want %s", err, CodeNotFound)
	}
	if _, err := svc.Assign("agent:bare", assign.Change{Add: []string{"legacy-one"}}, res.Outcome.BeforeHash, false); !errors.As(err, &e) || e.Code != CodeStale || e.Current == nil {
		t.Errorf("stale Assign = %v; want %s with the fresh target", err, CodeStale)
	}
}
