package schemas

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	reference "github.com/google/jsonschema-go/jsonschema"
)

// referenceSchemas resolves the embedded schemas with a second general JSON Schema 2020-12
// validator (the one the MCP SDK uses), the reference FuzzValidation compares with.
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
	`{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {"a b/~%": {"type": "stdio", "command": "x", "env": {"K é%20": 1, "TOKEN": "s3cr3t", "PLUGIN_DATA": "s3cr3t"}, "x y": 1, "z'\\": 2}}}`,
	`{"mcpServers": {"": {"headers": {"": 0}}}}`,
	`{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {"h": {"type": "sse", "url": "", "headers": {"Authorization": "Bearer s3cr3t", "X%": ["s3cr3t"]}}}}`,
}

// FuzzValidation: on any JSON document, for the manifest schema and the mcp.json schema,
//   - the compiled schemas and a second general JSON Schema 2020-12 validator agree on
//     whether it is valid (the embedded files were compiled offline, as 2020-12);
//   - every failure names a keyword and an instance location the document has (a plain
//     JSON pointer, not jsonschema's percent-encoded one);
//   - validating it again gives the same failures in the same order, though jsonschema
//     visits properties in map order;
//   - no failure depends on an env or header value: with each replaced by as many "x",
//     the failures and their messages are the same, so no message can quote a secret.
func FuzzValidation(f *testing.F) {
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
			ve, ok := err.(*ValidationError)
			if !ok {
				t.Fatalf("%s on %s: %T %v, want a *ValidationError", id, doc, err, err)
			}
			for _, l := range ve.Causes {
				if l.KeywordLocation == "" || strings.HasSuffix(l.KeywordLocation, "/") || len(l.Causes) > 0 {
					t.Errorf("a failure with no keyword, or not a leaf: %+v", l)
				}
				if !pointerExists(inst, l.InstanceLocation) {
					t.Errorf("failure at %q, which %s does not have: %+v", l.InstanceLocation, doc, l)
				}
			}
			if again := ours[id].Validate(inst); again.Error() != err.Error() {
				t.Fatalf("%s on %s: the failures changed between two runs:\n%v\n%v", id, doc, err, again)
			}
			if masked := ours[id].Validate(maskSecrets(inst, false)); masked == nil || masked.Error() != err.Error() {
				t.Fatalf("%s on %s: the failures depend on env or header values:\n%v\n%v", id, doc, err, masked)
			}
		}
	})
}

// maskSecrets returns a copy of v with every string member of an "env" or "headers" object
// replaced by as many "x" (inSecret: v is such an object).
func maskSecrets(v any, inSecret bool) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = maskSecrets(e, false)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if s, ok := e.(string); ok && inSecret {
				out[k] = strings.Repeat("x", utf8.RuneCountInString(s))
				continue
			}
			out[k] = maskSecrets(e, k == "env" || k == "headers")
		}
		return out
	}
	return v
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
