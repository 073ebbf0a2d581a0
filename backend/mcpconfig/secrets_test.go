package mcpconfig

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/schemas"
)

// secretPattern matches every planted value of testdata/mcpconfig/invalid/secrets-planted.
var secretPattern = regexp.MustCompile(`SECRET`)

// TestSecretsNeverLeave: env values, header values, argument values and the user
// information, path, query and fragment of URLs are planted in valid and invalid entries;
// neither the serialised Config nor any message may show them (U2, DESIGN security habits).
func TestSecretsNeverLeave(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(fixtures, "invalid/secrets-planted/mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	portable := ParsePortable(data, "mcp.json", tempRoot(t), schemas.PluginV1)
	claude := ParseClaude(data, "/home/u/.cursor/mcp.json")
	for _, c := range []Config{portable, claude} {
		checkIssues(t, &c)
		out, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if m := secretPattern.Find(out); m != nil {
			t.Errorf("%s: marshalled Config shows a secret: %s", c.Path, out)
		}
		for _, s := range c.Servers {
			for _, i := range s.Issues {
				if secretPattern.MatchString(i.Message) || secretPattern.MatchString(i.String()) {
					t.Errorf("%s: message shows a secret: %s", c.Path, i)
				}
			}
		}
	}
	// The declaration is still there for the runtime, and the summary has the names.
	s := serverByName(&portable, "valid-stdio")
	if s == nil || s.Env["API_TOKEN"] != "SECRET-ENV-VALUE-1234" || len(s.Args) != 2 {
		t.Errorf("declaration lost: %+v", s)
	}
	if got := strings.Join(s.Summary.EnvKeys, ","); got != "API_TOKEN,OTHER" || *s.Summary.Args != 2 || s.Summary.Executable != "server" {
		t.Errorf("summary = %+v", s.Summary)
	}
	r := serverByName(&portable, "valid-remote")
	if r.Summary.Origin != "https://api.example.com" || strings.Join(r.Summary.HeaderNames, ",") != "Authorization,X-Api-Key" {
		t.Errorf("remote summary = %+v", r.Summary)
	}
	if h := serverByName(&portable, "invalid-header"); h.Summary.Origin != "http://example.com" {
		t.Errorf("userinfo must not reach the origin: %+v", h.Summary)
	}
}

// TestSecretTextNeverShown: text a secret may have been written into (a command written
// as a command line, a cwd, a header name that is not a valid field name, a URL's
// scheme) is shown neither in the serialised Server (its summary, its issues and their
// pointers) nor in any message; messages name the field instead. Each planted string is
// distinctive, and matched ignoring case (url.Parse lower-cases a scheme).
func TestSecretTextNeverShown(t *testing.T) {
	type row struct {
		name    string
		claude  bool   // the Claude Code / Cursor shape; otherwise portable
		entry   string // the server entry, without "type" for the Claude shape
		secrets []string
		exe     string                          // the summary's executable, when stdio
		setup   func(t *testing.T, root string) // files below the plugin root
		field   string                          // a field the first message must name
	}
	rows := []row{
		{name: "claude command line", claude: true, entry: `{"command": "npx -y pkg-S3CRET-CL1 --token S3CRET-CL2"}`,
			secrets: []string{"S3CRET-CL1", "S3CRET-CL2", "--token"}, exe: "npx"},
		{name: "claude command line after an assignment", claude: true, entry: `{"command": "TOKEN=S3CRET-EV1 npx -y pkg"}`,
			secrets: []string{"S3CRET-EV1"}, exe: "npx"},
		{name: "claude env key holding a value", claude: true, entry: `{"command": "npx", "env": {"API_KEY=S3CRET-EV2": "v"}}`,
			secrets: []string{"S3CRET-EV2"}, exe: "npx"},
		{name: "portable env key holding a value", entry: `{"type": "stdio", "command": "x", "env": {"API_KEY=S3CRET-EV3": "v"}}`,
			secrets: []string{"S3CRET-EV3"}, exe: "x", field: `"env"`},
		{name: "claude command line with a path", claude: true, entry: `{"command": "/opt/S3CRET-CL3/bin/serve --api-key=S3CRET-CL4"}`,
			secrets: []string{"S3CRET-CL3", "S3CRET-CL4", "/opt/"}, exe: "serve"},
		{name: "portable command line", entry: `{"type": "stdio", "command": "npx -y pkg-S3CRET-PC1 --token S3CRET-PC2"}`,
			secrets: []string{"S3CRET-PC1", "S3CRET-PC2", "--token"}, exe: "npx", field: `"command"`},
		{name: "portable ./ command line", entry: `{"type": "stdio", "command": "./bin/serve --token S3CRET-PC3"}`,
			secrets: []string{"S3CRET-PC3", "--token"}, exe: "serve", field: `"command"`},
		{name: "portable path without ./", entry: `{"type": "stdio", "command": "S3CRET-PC4/serve"}`,
			secrets: []string{"S3CRET-PC4"}, exe: "serve", field: `"command"`},
		{name: "portable absolute command", entry: `{"type": "stdio", "command": "/home/u/S3CRET-PC5/serve"}`,
			secrets: []string{"S3CRET-PC5"}, exe: "serve", field: `"command"`},
		{name: "portable command through a file", entry: `{"type": "stdio", "command": "./S3CRET-PC6/serve"}`,
			secrets: []string{"S3CRET-PC6"}, exe: "serve", field: `"command"`,
			setup: func(t *testing.T, root string) { write(t, root, "S3CRET-PC6", "a file, not a folder") }},
		{name: "portable command out through a link", entry: `{"type": "stdio", "command": "./S3CRET-PC7/serve"}`,
			secrets: []string{"S3CRET-PC7"}, exe: "serve", field: `"command"`,
			setup: func(t *testing.T, root string) { symlink(t, t.TempDir(), filepath.Join(root, "S3CRET-PC7")) }},
		{name: "portable command folder", entry: `{"type": "stdio", "command": "./S3CRET-PC8/"}`,
			secrets: []string{"./S3CRET-PC8/"}, field: `"command"`},
		{name: "cwd bare name", entry: `{"type": "stdio", "command": "x", "cwd": "S3CRET-CWD1/sub"}`,
			secrets: []string{"S3CRET-CWD1"}, exe: "x", field: `"cwd"`},
		{name: "cwd absolute", entry: `{"type": "stdio", "command": "x", "cwd": "/srv/S3CRET-CWD2"}`,
			secrets: []string{"S3CRET-CWD2"}, exe: "x", field: `"cwd"`},
		{name: "cwd escapes", entry: `{"type": "stdio", "command": "x", "cwd": "./S3CRET-CWD3/../../up"}`,
			secrets: []string{"S3CRET-CWD3"}, exe: "x", field: `"cwd"`},
		{name: "cwd escapes the data folder", entry: `{"type": "stdio", "command": "x", "cwd": "${PLUGIN_DATA}/../S3CRET-CWD4"}`,
			secrets: []string{"S3CRET-CWD4"}, exe: "x", field: `"cwd"`},
		{name: "cwd through a file", entry: `{"type": "stdio", "command": "x", "cwd": "${PLUGIN_ROOT}/S3CRET-CWD5/sub"}`,
			secrets: []string{"S3CRET-CWD5"}, exe: "x", field: `"cwd"`,
			setup: func(t *testing.T, root string) { write(t, root, "S3CRET-CWD5", "a file, not a folder") }},
		{name: "portable header name", entry: `{"type": "streamable-http", "url": "https://h.example/mcp", "headers": {"Authorization: Bearer S3CRET-HN1": "x"}}`,
			secrets: []string{"S3CRET-HN1", "Bearer"}, field: `"headers"`},
		{name: "claude header name", claude: true, entry: `{"url": "https://h.example/mcp", "headers": {"Authorization: Bearer S3CRET-HN2": "x"}}`,
			secrets: []string{"S3CRET-HN2", "Bearer"}, field: `"headers"`},
		{name: "portable header name with a bad value", entry: `{"type": "sse", "url": "https://h.example/mcp", "headers": {"X S3CRET-HN3": 5, "Y S3CRET-HN4": "a\nb"}}`,
			secrets: []string{"S3CRET-HN3", "S3CRET-HN4"}, field: `"headers"`},
		{name: "claude header name with a bad value", claude: true, entry: `{"url": "https://h.example/mcp", "headers": {"X S3CRET-HN5": true}}`,
			secrets: []string{"S3CRET-HN5"}},
		{name: "header names differing by case", entry: `{"type": "sse", "url": "https://h.example/mcp", "headers": {"K S3CRET-HN6": "1", "k s3cret-hn6": "2"}}`,
			secrets: []string{"S3CRET-HN6"}, field: `"headers"`},
		{name: "header name repeated", entry: `{"type": "sse", "url": "https://h.example/mcp", "headers": {"K S3CRET-HN7": "1", "K S3CRET-HN7": "2"}}`,
			secrets: []string{"S3CRET-HN7"}, field: `"headers"`},
		{name: "portable url scheme", entry: `{"type": "sse", "url": "S3CRET-SCHEME1://h.example/S3CRET-PATH1?k=S3CRET-Q1"}`,
			secrets: []string{"S3CRET-SCHEME1", "S3CRET-PATH1", "S3CRET-Q1"}, field: "url"},
		{name: "claude url scheme", claude: true, entry: `{"url": "S3CRET-SCHEME2:abcdef"}`,
			secrets: []string{"S3CRET-SCHEME2", "abcdef"}, field: "url"},
		{name: "claude sse url scheme with a host", claude: true, entry: `{"type": "sse", "url": "S3CRET-SCHEME3://h.example/mcp"}`,
			secrets: []string{"S3CRET-SCHEME3"}, field: "url"},
	}
	for _, tc := range rows {
		t.Run(tc.name, func(t *testing.T) {
			root := tempRoot(t)
			if tc.setup != nil {
				tc.setup(t, root)
			}
			var c Config
			if tc.claude {
				c = ParseClaude([]byte(`{"mcpServers": {"srv": `+tc.entry+`}}`), "/home/u/.cursor/mcp.json")
			} else {
				c = ParsePortable([]byte(`{`+v1+`, "mcpServers": {"srv": `+tc.entry+`}}`), "mcp.json", root, schemas.PluginV1)
			}
			checkIssues(t, &c)
			s := serverByName(&c, "srv")
			if s == nil {
				t.Fatalf("no server: %v", c.Issues)
			}
			if len(s.Issues) == 0 && !tc.claude {
				t.Fatalf("no issue for the planted entry; the row tests nothing")
			}
			out, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			shown := []string{string(out)}
			for _, i := range append(append(issue.List{}, c.Issues...), s.Issues...) {
				shown = append(shown, i.Message, i.String())
			}
			for _, text := range shown {
				for _, secret := range tc.secrets {
					if strings.Contains(strings.ToLower(text), strings.ToLower(secret)) {
						t.Errorf("%q is shown: %s", secret, text)
					}
				}
			}
			if tc.exe != "" && s.Summary.Executable != tc.exe {
				t.Errorf("summary executable = %q, want %q", s.Summary.Executable, tc.exe)
			}
			if tc.field != "" && (len(s.Issues) == 0 || !strings.Contains(s.Issues[0].Message, tc.field)) {
				t.Errorf("the message does not name the field %s: %v", tc.field, s.Issues)
			}
		})
	}
}
