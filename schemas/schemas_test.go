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

// The manifest schema's one RE2 pattern for names is the specification's rule (§5.5, a
// look-ahead pattern RE2 cannot compile): lowercase letters, digits, "." and "-",
// starting and ending with a letter or digit, without "--" or "..". Every name of up
// to seven characters over a, 0, ., - and an uppercase letter is judged the same way.
func TestNamePatternIsTheSpecRule(t *testing.T) {
	data, err := files.ReadFile("1.0.0/plugin.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Properties struct {
			Name struct {
				Pattern string `json:"pattern"`
			} `json:"name"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	ours := regexp.MustCompile(doc.Properties.Name.Pattern)
	ends := regexp.MustCompile(`^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$`)
	spec := func(s string) bool {
		return ends.MatchString(s) && !strings.Contains(s, "--") && !strings.Contains(s, "..")
	}
	const alphabet = "a0.-B"
	checked := 0
	var walk func(prefix string)
	walk = func(prefix string) {
		if got, want := ours.MatchString(prefix), spec(prefix); got != want {
			t.Errorf("name %q: the schema's pattern says %v, the specification's rule %v", prefix, got, want)
		}
		checked++
		if len(prefix) == 7 {
			return
		}
		for _, c := range alphabet {
			walk(prefix + string(c))
		}
	}
	walk("")
	if checked != 97656 {
		t.Fatalf("checked %d names", checked)
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

// A value that does not match a pattern fails at the pattern keyword, at the value's
// instance location, with a message that names the pattern (and not the value).
func TestPatternFailureNamesPattern(t *testing.T) {
	v, _ := ByID(PluginV1)
	err := v.Manifest.Validate(map[string]any{"$schema": PluginV1, "name": "Bad-Name"})
	ve, ok := err.(*ValidationError)
	if !ok {
		t.Fatalf("Validate = %v, want a *ValidationError", err)
	}
	for _, l := range ve.Causes {
		if strings.HasSuffix(l.KeywordLocation, "/pattern") && l.InstanceLocation == "/name" {
			if !strings.Contains(l.Message, "^[a-z0-9]+(?:(?:") || strings.Contains(l.Message, "Bad-Name") {
				t.Errorf("pattern failure says %q", l.Message)
			}
			return
		}
	}
	t.Fatalf("no pattern failure at /name in %v", err)
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

// Failures carry plain JSON pointers: a member named "" has its (empty) token, which
// jsonschema leaves out, and a name jsonschema percent-encodes is as written.
func TestInstanceLocations(t *testing.T) {
	v, _ := ByID(MCPV1)
	for _, tc := range []struct{ doc, want string }{
		{`{"type": "stdio", "command": "x", "env": {"": 1}}`, "/env/"},
		{`{"type": "stdio", "command": "x", "env": {"a b/~%": 1}}`, "/env/a b~1~0%"},
		{`{"type": "stdio", "command": "x", "args": ["a", "b", 3]}`, "/args/2"},
	} {
		var inst any
		json.Unmarshal([]byte(tc.doc), &inst)
		err := v.Servers["stdio"].Validate(inst)
		ve, ok := err.(*ValidationError)
		if !ok || len(ve.Causes) != 1 || ve.Causes[0].InstanceLocation != tc.want || !strings.HasSuffix(ve.Causes[0].KeywordLocation, "/type") {
			t.Errorf("%s: Validate = %v, want one type failure at %q", tc.doc, err, tc.want)
		}
	}
	// A document with members named "" at several levels.
	var inst any
	json.Unmarshal([]byte(`{"$schema": "`+MCPV1+`", "mcpServers": {"": {"type": "sse", "url": "u", "headers": {"": 0, "a": 1}}}}`), &inst)
	err := v.MCPFile.Validate(inst)
	var got []string
	for _, c := range err.(*ValidationError).Causes {
		if strings.HasSuffix(c.KeywordLocation, "/type") {
			got = append(got, c.InstanceLocation)
		}
		if strings.HasSuffix(c.KeywordLocation, "/additionalProperties") && (c.InstanceLocation != "/mcpServers/" ||
			c.Message != "additionalProperties 'headers', 'url' not allowed") { // by the stdio variant
			t.Errorf("additionalProperties failure %+v", c)
		}
	}
	// once for each variant with headers (streamable-http and sse)
	if strings.Join(got, " ") != "/mcpServers//headers/ /mcpServers//headers/ /mcpServers//headers/a /mcpServers//headers/a" {
		t.Errorf("type failures at %q, want two at /mcpServers//headers/ and two at /mcpServers//headers/a", got)
	}
}
