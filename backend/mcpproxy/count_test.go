package mcpproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/plugboard/plugboard/backend/mcptap"
	"github.com/plugboard/plugboard/backend/store"
)

// countSecret is a tool argument: it must reach the server and never the store.
const countSecret = "PROXY-SECRET-ARG-0b7e"

// TestBridgeCountsToolCalls: over each transport, every tools/call through the bridge is
// one row of the real store, written by the real recorder: its tool, failed for a tool
// error (isError), for the remote's JSON-RPC error (an unknown tool) and for the error
// the bridge answers itself when the remote refuses the call (HTTP 500), not failed for
// a result, a string id and a repeated id included; tools/list and notifications count
// nothing, and no argument reaches the store.
func TestBridgeCountsToolCalls(t *testing.T) {
	for _, typ := range []string{TypeStreamableHTTP, TypeSSE} {
		t.Run(typ, func(t *testing.T) {
			s := greetServer()
			mcp.AddTool(s, &mcp.Tool{Name: "fail"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return nil, nil, errors.New("this tool always fails")
			})
			var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
			if typ == TypeSSE {
				h = mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil)
			}
			// The remote refuses (500) every POST that calls the tool "refused".
			srv := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost {
					body, _ := io.ReadAll(r.Body)
					r.Body = io.NopCloser(bytes.NewReader(body))
					if bytes.Contains(body, []byte(`"name":"refused"`)) {
						http.Error(w, "no", http.StatusInternalServerError)
						return
					}
				}
				h.ServeHTTP(w, r)
			}))
			pb := t.TempDir()
			info := mcptap.Info{Home: pb, Backend: "pi", Fingerprint: "sha256:beef", Plugin: "kit", Server: "remote-kit"}
			rec := mcptap.NewRecorder(info, "agent:coder", "run-3", "plugboard mcp-proxy", nil)
			p := startCounting(t, Config{Type: typ, URL: srv.URL, Activity: &info}, rec)

			p.send(initializeLine)
			p.response(1)
			p.send(initializedLine)
			p.send(toolsListLine)
			p.response(2)
			call := func(id, tool string) string {
				return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":%q,"arguments":{"name":%q}}}`, id, tool, countSecret)
			}
			p.send(call("3", "greet"))
			var res mcp.CallToolResult
			p.result(3, &res)
			p.send(call("4", "fail"))
			if m := p.response(4); !strings.Contains(string(m.Result), `"isError":true`) {
				t.Errorf("fail answered %s, want a tool error", m.Result)
			}
			p.send(call("5", "no-such-tool"))
			p.errorMessage(5)
			p.send(call("6", "refused"))
			if msg := p.errorMessage(6); !strings.Contains(msg, "plugboard mcp-proxy") {
				t.Errorf("the refused call answered %q, want the bridge's own error", msg)
			}
			p.send(call("3", "greet")) // an id may repeat once answered
			p.result(3, &res)
			p.stop()
			rec.Close(time.Minute)

			st, _, err := store.Open(context.Background(), pb)
			if err != nil {
				t.Fatal(err)
			}
			recs, err := st.Activity(context.Background(), time.Time{})
			st.Close()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			keys := map[string]bool{}
			for _, a := range recs {
				got = append(got, fmt.Sprintf("%s failed=%v", a.Tool, a.Failed))
				keys[a.Key] = true
				if !a.IsTool() || a.Server != "remote-kit" || a.Plugin != "kit" || a.Backend != "pi" || a.Fingerprint != "sha256:beef" ||
					a.Target != "agent:coder" || a.Run != "run-3" || a.MS < 0 {
					t.Errorf("row %+v", a)
				}
			}
			want := []string{"greet failed=false", "fail failed=true", "no-such-tool failed=true", "refused failed=true", "greet failed=false"}
			if !slices.Equal(got, want) || len(keys) != len(want) {
				t.Errorf("rows %v (%d keys)\nwant %v", got, len(keys), want)
			}
			err = filepath.WalkDir(pb, func(path string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					if b, _ := os.ReadFile(path); bytes.Contains(b, []byte(countSecret)) {
						t.Errorf("%s holds a tool argument", path)
					}
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestConfigActivity: a config file's activity member is read as it was written.
func TestConfigActivity(t *testing.T) {
	data := []byte(`{"type":"sse","url":"https://h/mcp","activity":{"home":"/h","backend":"claude","fingerprint":"sha256:1","plugin":"p","server":"s"}}`)
	cfg, err := parseConfig(data, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	want := mcptap.Info{Home: "/h", Backend: "claude", Fingerprint: "sha256:1", Plugin: "p", Server: "s"}
	if cfg.Activity == nil || *cfg.Activity != want {
		b, _ := json.Marshal(cfg.Activity)
		t.Errorf("activity %s, want %+v", b, want)
	}
}
