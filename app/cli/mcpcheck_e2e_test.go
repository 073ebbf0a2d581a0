package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/mcphealth"
)

// The real plugboard mcp check on the e2e home: once the real plugboard ack has
// acknowledged agent:e2e-claude's servers, each (the portable stdio and remote servers,
// the Cursor plugin's stdio server) is started as the launch would and answers with its
// tools; exit 0. For agent:e2e-pi, with nothing acknowledged, no server starts: each is
// listed with its ack command, exit 4. The remote server's header value is never shown.
func TestMCPCheckCommand(t *testing.T) {
	n := newE2ENet(t)
	h := buildE2EHome(t, n.startRemote(t, (&remoteServer{}).handler()))
	run := func(args ...string) (mcpCheckOut, int, string) {
		t.Helper()
		argv := n.argv(append([]string{testBinary(t)}, args...)...)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = []string{"HOME=" + h.root, "PATH=" + os.Getenv("PATH"), "E2E_CURSOR_RECORD=" + h.record}
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		var out mcpCheckOut
		if strings.Contains(strings.Join(args, " "), "--json") {
			if err := json.Unmarshal([]byte(stdout.String()), &out); err != nil {
				t.Fatalf("plugboard %v printed %q: %v\nstderr:\n%s", args, stdout.String(), err, stderr.String())
			}
		}
		return out, code, stdout.String() + stderr.String()
	}
	if _, code, out := run("assign", "--home", h.pb, "agent:e2e-claude", "--add", e2eCursorID, "--ack-mcp"); code != 0 {
		t.Fatalf("assign: %d\n%s", code, out)
	}
	if _, code, out := run("ack", "--home", h.pb, "agent:e2e-claude"); code != 0 {
		t.Fatalf("ack: %d\n%s", code, out)
	}
	got, code, all := run("mcp", "check", "--json", "--home", h.pb, "e2e-claude")
	if code != 0 {
		t.Errorf("mcp check e2e-claude exited %d:\n%s", code, all)
	}
	want := map[string]string{e2eStdio: e2eRecordTool, e2eRemote: e2eLookupTool, e2eCursorStdio: e2eRecordTool}
	for _, s := range got.Servers {
		if tool := want[s.Name]; !s.OK || !slices.ContainsFunc(s.Tools, func(x mcphealth.Tool) bool { return x.Name == tool }) || s.Cached {
			t.Errorf("server %s: %+v; want ok with tool %s", s.Name, s, tool)
		}
		delete(want, s.Name)
	}
	if len(want) > 0 {
		t.Errorf("servers not checked: %v (got %+v)", want, got.Servers)
	}
	if strings.Contains(all, e2eTenantValue) {
		t.Errorf("the output holds the remote server's header value:\n%s", all)
	}
	got, code, all = run("mcp", "check", "--json", "--home", h.pb, "e2e-pi")
	if code != exitMCPAck || len(got.Servers) == 0 {
		t.Fatalf("mcp check e2e-pi exited %d with %+v; want %d\n%s", code, got.Servers, exitMCPAck, all)
	}
	for _, s := range got.Servers {
		if s.OK || !s.NotAcknowledged || !strings.Contains(s.Ack, "plugboard ack agent:e2e-pi") {
			t.Errorf("unacknowledged server %s: %+v", s.Name, s)
		}
	}
}

type mcpCheckOut struct {
	Servers []mcphealth.Result `json:"servers"`
}
