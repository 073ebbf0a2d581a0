package schemas

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestManifestNames(t *testing.T) {
	v, ok := ByID(PluginV1)
	if !ok {
		t.Fatal("1.0.0 not supported")
	}
	for name, valid := range map[string]bool{
		"my-plugin": true, "acme.tools": true, "lint3r": true, "a": true, "a.b-c.2": true,
		"My-Plugin": false, "-start": false, "has--double": false, "too.many..dots": false, "": false,
		"end-": false, "end.": false, strings.Repeat("a", 64): true, strings.Repeat("a", 65): false,
	} {
		doc := map[string]any{"$schema": PluginV1, "name": name}
		var inst any
		b, _ := json.Marshal(doc)
		json.Unmarshal(b, &inst)
		err := v.Manifest.Validate(inst)
		if (err == nil) != valid {
			t.Errorf("name %q: Validate = %v, want valid=%v", name, err, valid)
		}
	}
}

func TestServerVariants(t *testing.T) {
	v, _ := ByID(MCPV1)
	tests := []struct {
		typ   string
		doc   string
		valid bool
	}{
		{"stdio", `{"type":"stdio","command":"x","cwd":"./d"}`, true},
		{"stdio", `{"type":"stdio","command":"x","cwd":"${PLUGIN_DATA}"}`, true},
		{"stdio", `{"type":"stdio","command":"x","cwd":"${PLUGIN_ROOTX}"}`, false},
		{"stdio", `{"type":"stdio","command":"x","env":{"PLUGIN_ROOT":"a"}}`, false},
		{"stdio", `{"type":"stdio","command":"x","url":"https://a"}`, false},
		{"streamable-http", `{"type":"streamable-http","url":"https://a","headers":{"A":"b"}}`, true},
		{"sse", `{"type":"sse","url":"https://a","command":"x"}`, false},
	}
	for _, tc := range tests {
		var inst any
		json.Unmarshal([]byte(tc.doc), &inst)
		err := v.Servers[tc.typ].Validate(inst)
		if (err == nil) != tc.valid {
			t.Errorf("%s: Validate = %v, want valid=%v", tc.doc, err, tc.valid)
		}
	}
}
