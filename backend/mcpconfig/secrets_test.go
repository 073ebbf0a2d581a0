package mcpconfig

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

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
