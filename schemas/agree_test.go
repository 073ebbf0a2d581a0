package schemas

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	reference "github.com/google/jsonschema-go/jsonschema"
)

// referenceSchemas resolves the embedded schemas with a general JSON Schema 2020-12
// validator (the one the MCP SDK uses), the reference FuzzValidatorAgrees compares with.
func referenceSchemas(t testing.TB) map[string]*reference.Resolved {
	t.Helper()
	out := map[string]*reference.Resolved{}
	for id, path := range map[string]string{PluginV1: "1.0.0/plugin.schema.json", MCPV1: "1.0.0/mcp.schema.json"} {
		data, err := files.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var s reference.Schema
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("resolve %s: %v", path, err)
		}
		out[id] = r
	}
	return out
}

var agreeSeeds = []string{
	`{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "ok"}`,
	`{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "Bad--Name"}`,
	`{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "a", "version": 2}`,
	`{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "a", "author": {"name": "x", "x": 1}}`,
	`{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "a", "keywords": ["a", 1], "extensions": {"x": {}}}`,
	`{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "a", "extensions": {"x": []}}`,
	`{"name": "a"}`,
	`{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {}}`,
	`{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {"a": {"type": "stdio", "command": "x", "args": ["1"], "env": {"K": "v"}, "cwd": "./d"}}}`,
	`{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {"a": {"type": "stdio", "command": "", "env": {"PLUGIN_ROOT": "v"}, "cwd": "/abs"}}}`,
	`{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {"a": {"type": "sse", "url": "https://a", "headers": {"A": 1}}}}`,
	`{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {"a": {"type": "streamable-http", "url": "https://a", "command": "x"}}}`,
	`{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {"a": {"type": "ws", "url": "x"}}, "extra": true}`,
	`[]`, `"text"`, `null`, `{"$schema": 1, "name": "a"}`,
}

// FuzzValidatorAgrees: on any JSON document, Plugboard's validator and a general JSON
// Schema 2020-12 validator agree on whether it is valid, for the manifest schema and the
// mcp.json schema; and every failure ours reports names a keyword and an instance
// location that exists in the document.
func FuzzValidatorAgrees(f *testing.F) {
	for _, s := range agreeSeeds {
		f.Add(s)
	}
	refs := referenceSchemas(f)
	v, _ := ByID(PluginV1)
	ours := map[string]*Schema{PluginV1: v.Manifest, MCPV1: v.MCPFile}
	f.Fuzz(func(t *testing.T, doc string) {
		var inst any
		if json.Unmarshal([]byte(doc), &inst) != nil {
			return
		}
		for id, ref := range refs {
			refErr := ref.Validate(inst)
			err := ours[id].Validate(inst)
			if (err == nil) != (refErr == nil) {
				t.Fatalf("%s\non %s: ours says %v, the reference says %v", id, doc, err, refErr)
			}
			if err == nil {
				continue
			}
			var leaves []*ValidationError
			var walk func(e *ValidationError)
			walk = func(e *ValidationError) {
				if len(e.Causes) == 0 {
					leaves = append(leaves, e)
				}
				for _, c := range e.Causes {
					walk(c)
				}
			}
			walk(err.(*ValidationError))
			for _, l := range leaves {
				if l.KeywordLocation == "" || strings.HasSuffix(l.KeywordLocation, "/") {
					t.Errorf("a failure with no keyword: %+v", l)
				}
				if !pointerExists(inst, l.InstanceLocation) {
					t.Errorf("failure at %q, which %s does not have: %+v", l.InstanceLocation, doc, l)
				}
			}
		}
	})
}

func pointerExists(doc any, ptr string) bool {
	if ptr == "" {
		return true
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := doc.(type) {
		case map[string]any:
			var ok bool
			if doc, ok = x[tok]; !ok {
				return false
			}
		case []any:
			idx, err := strconv.Atoi(tok)
			if err != nil || idx < 0 || idx >= len(x) {
				return false
			}
			doc = x[idx]
		default:
			return false
		}
	}
	return true
}
