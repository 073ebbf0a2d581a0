package mcpconfig

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/jsondoc"
	"github.com/plugboard/plugboard/schemas"
)

func TestSummaries(t *testing.T) {
	doc := `{` + v1 + `, "mcpServers": {
		"bare": {"type": "stdio", "command": "npx"},
		"bundled": {"type": "stdio", "command": "./bin/server", "args": ["a", "b"], "env": {"Z": "1", "A": "2"}},
		"broken-args": {"type": "stdio", "command": "node", "args": "x"},
		"remote": {"type": "sse", "url": "HTTPS://user:pw@Example.com:8443/p/a?q=1#f", "headers": {"x-b": "1", "X-A": "2"}},
		"unknown-type": {"type": "ws", "command": "./tool", "url": "https://h.example/x"}}}`
	c := ParsePortable([]byte(doc), "mcp.json", "", schemas.PluginV1)
	checkIssues(t, &c)
	two := 2
	zero := 0
	want := map[string]Summary{
		"bare":         {Executable: "npx", Args: &zero},
		"bundled":      {Executable: "server", Args: &two, EnvKeys: []string{"A", "Z"}},
		"broken-args":  {Executable: "node"},
		"remote":       {Origin: "https://Example.com:8443", HeaderNames: []string{"X-A", "x-b"}},
		"unknown-type": {Executable: "tool", Args: &zero, Origin: "https://h.example"},
	}
	for _, s := range c.Servers {
		got, _ := json.Marshal(s.Summary)
		w, _ := json.Marshal(want[s.Name])
		if string(got) != string(w) {
			t.Errorf("server %q summary = %s, want %s", s.Name, got, w)
		}
	}
}

// TestJSONShape: the inspect object's "mcp" member shows [] rather than null, "args": 0
// for a stdio server without args, and no declaration field.
func TestJSONShape(t *testing.T) {
	c := ParsePortable([]byte(`{`+v1+`, "mcpServers": {"a": {"type": "stdio", "command": "x", "env": {"K": "v"}}}}`), "mcp.json", "", schemas.PluginV1)
	out, _ := json.Marshal(c)
	for _, want := range []string{`"issues":[]`, `"args":0`, `"envKeys":["K"]`, `"type":"stdio"`, `"valid":true`, `"path":"mcp.json"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("JSON %s lacks %s", out, want)
		}
	}
	for _, banned := range []string{"command", "Command", `"env"`, "Env\"", "cwd", "headers\""} {
		if strings.Contains(string(out), banned) {
			t.Errorf("JSON %s shows %s", out, banned)
		}
	}
	empty, _ := json.Marshal(ParsePortable([]byte(`[]`), "mcp.json", "", schemas.PluginV1))
	if !strings.Contains(string(empty), `"servers":[]`) || !strings.Contains(string(empty), `"valid":false`) {
		t.Errorf("invalid file JSON = %s", empty)
	}
}

// TestIssueLines: each issue points at the line of the member it is about.
func TestIssueLines(t *testing.T) {
	doc := "{\n" + v1 + ",\n\"mcpServers\": {\n\"a\": {\n\"type\": \"stdio\",\n\"command\": \"x\",\n\"cwd\": \"data\",\n\"env\": {\"PLUGIN_ROOT\": \"v\"}\n},\n\"b\": 5\n}\n}\n"
	c := ParsePortable([]byte(doc), "mcp.json", "", schemas.PluginV1)
	checkIssues(t, &c)
	want := map[string]int{CodeCwdForm: 7, CodeEnvReserved: 8, CodeServerNotObject: 10}
	for _, s := range c.Servers {
		for _, i := range s.Issues {
			if want[i.Code] != i.Line {
				t.Errorf("%s at line %d, want %d", i.Code, i.Line, want[i.Code])
			}
		}
	}
	bad := ParsePortable([]byte("{\n\"a\": 1,\n\"b\" 2\n}"), "mcp.json", "", schemas.PluginV1)
	if len(bad.Issues) != 1 || bad.Issues[0].Line != 3 {
		t.Errorf("syntax error issues = %v, want one at line 3", bad.Issues)
	}
}

// TestLinesAgreeWithJSONDoc: the scan's line index gives every fixture issue the line
// jsondoc.Line gives (files with repeated members aside: there the index points at the
// occurrence that is read, the last one, and jsondoc.Line at the first).
func TestLinesAgreeWithJSONDoc(t *testing.T) {
	for _, tc := range portableCases {
		data, err := os.ReadFile(filepath.Join(fixtures, tc.dir, "mcp.json"))
		if err != nil {
			t.Fatal(err)
		}
		if len(scanDoc(data).dups) > 0 {
			continue
		}
		c := ParsePortable(data, "mcp.json", "", schemas.PluginV1)
		all := append(issue.List{}, c.Issues...)
		for _, s := range c.Servers {
			all = append(all, s.Issues...)
		}
		for _, i := range all {
			if i.Pointer == "" {
				continue
			}
			if want := jsondoc.Line(data, i.Pointer); i.Line != want {
				t.Errorf("%s: %s at %s: line %d, jsondoc.Line says %d", tc.dir, i.Code, i.Pointer, i.Line, want)
			}
		}
	}
}

// TestConcurrentParse backs the package contract (safe for concurrent use); run with -race.
func TestConcurrentParse(t *testing.T) {
	root := copyFixture(t, "valid/spec-7.2.1-example")
	done := make(chan Config)
	for range 8 {
		go func() {
			done <- *LoadPortable(root, schemas.PluginV1)
			done <- ParseClaude([]byte(claudeCases[0].doc), "mcp.json")
		}()
	}
	for range 16 {
		c := <-done
		checkIssues(t, &c)
		if !c.Valid {
			t.Errorf("%s: invalid: %v", c.Path, c.Issues)
		}
	}
}
