package schemas

import (
	"encoding/json"
	"regexp"
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

// A pattern is compiled when a value first reaches it, but a broken one still fails the
// schema's compilation, and a value that does not match names the pattern.
func TestPatternCompiledOnFirstUse(t *testing.T) {
	if c, err := compileDoc([]byte(`{"type": "string", "pattern": "(["}`)); err != nil {
		t.Fatal(err)
	} else if _, err := c.at("", ""); err == nil || !strings.Contains(err.Error(), "missing closing ]") {
		t.Fatalf("a schema with a broken pattern compiled (%v)", err)
	}
	c, err := compileDoc([]byte(`{"type": "string", "pattern": "^a+$"}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.at("", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate("aaa"); err != nil {
		t.Errorf("aaa: %v", err)
	}
	if err := s.Validate("ab"); err == nil || !strings.Contains(err.Error(), `does not match pattern "^a+$"`) {
		t.Errorf("ab: %v, want a pattern failure naming the pattern", err)
	}
}

// VersionOf reads the version segment of a canonical identifier of the kind asked for,
// supported or not.
func TestVersionOf(t *testing.T) {
	for _, tc := range []struct {
		id, kind, want string
		ok             bool
	}{
		{PluginV1, "plugin", "1.0.0", true},
		{MCPV1, "mcp", "1.0.0", true},
		{MCPV1, "plugin", "", false},
		{"https://agent-plugins.org/schemas/2.1.0-rc.1/plugin.schema.json", "plugin", "2.1.0-rc.1", true},
		{"https://agent-plugins.org/schemas//plugin.schema.json", "plugin", "", false},
		{"https://agent-plugins.org/schemas/1/0/plugin.schema.json", "plugin", "", false},
		{"http://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "plugin", "", false},
		{"https://agent-plugins.org/schemas/1.0.0/plugin.schema.json#", "plugin", "", false},
		{"", "mcp", "", false},
	} {
		got, ok := VersionOf(tc.id, tc.kind)
		if got != tc.want || ok != tc.ok {
			t.Errorf("VersionOf(%q, %q) = %q, %v; want %q, %v", tc.id, tc.kind, got, ok, tc.want, tc.ok)
		}
	}
}

// FuzzVersionOf: VersionOf says what the regular expression it replaced says.
func FuzzVersionOf(f *testing.F) {
	for _, s := range []string{PluginV1, MCPV1, "https://agent-plugins.org/schemas/a/b/mcp.schema.json",
		"https://agent-plugins.org/schemas/\n/plugin.schema.json", "https://agent-plugins.org/schemas//mcp.schema.json"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	re := regexp.MustCompile(`^https://agent-plugins\.org/schemas/([^/]+)/(plugin|mcp)\.schema\.json$`)
	f.Fuzz(func(t *testing.T, id string, plugin bool) {
		kind := "mcp"
		if plugin {
			kind = "plugin"
		}
		want, wantOK := "", false
		if m := re.FindStringSubmatch(id); m != nil && m[2] == kind {
			want, wantOK = m[1], true
		}
		if got, ok := VersionOf(id, kind); got != want || ok != wantOK {
			t.Fatalf("VersionOf(%q, %q) = %q, %v; the expression says %q, %v", id, kind, got, ok, want, wantOK)
		}
	})
}
