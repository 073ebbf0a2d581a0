package mcpconfig

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/schemas"
)

// Short names for the codes in the table.
const (
	field    = CodeServerField
	required = CodeServerRequired
	kind     = CodeServerSchema
	token    = CodeCommandToken
	form     = CodeCwdForm
	insecure = CodeURLInsecure
	badURL   = CodeURLInvalid
)

// portableCases lists every folder under testdata/mcpconfig/{valid,invalid}: what the file
// as a whole must give (config: its error codes, none meaning MCP stays enabled), each
// server's error codes (none meaning the server is valid), and every warning code.
var portableCases = []struct {
	dir      string
	manifest string // plugin.json $schema; PluginV1 when empty
	config   []string
	servers  map[string][]string
	warnings []string
}{
	{dir: "valid/spec-7.2.1-example", servers: map[string][]string{"local-validator": nil, "deployment-api": nil, "legacy-events": nil}},
	{dir: "valid/spec-4.1-relative-paths", servers: map[string][]string{"server": nil}},
	{dir: "valid/spec-9.2-placeholders", servers: map[string][]string{"database": nil}},
	{dir: "valid/empty-servers", servers: map[string][]string{}},
	{dir: "valid/http-only-to-loopback", servers: map[string][]string{"localhost": nil, "ipv4-127-0-0-1": nil, "ipv4-127-0-0-2": nil, "ipv6-loopback": nil, "https-with-query": nil}},
	{dir: "valid/cwd-permitted-forms", servers: map[string][]string{"relative": nil, "relative-dot": nil, "root-exact": nil, "root-sub": nil, "data-exact": nil, "data-sub": nil, "data-dotdot-inside": nil}},
	{dir: "valid/command-permitted-forms", servers: map[string][]string{"bare": nil, "bare-with-dots": nil, "relative": nil, "relative-inside-dotdot": nil, "args-and-env": nil}},
	{dir: "valid/headers-valid", servers: map[string][]string{"remote": nil}},
	{dir: "valid/env-reserved-name-in-other-case-warns", servers: map[string][]string{"s": nil}, warnings: []string{CodeEnvReserved}},
	{dir: "valid/authorization-header-warns", servers: map[string][]string{"s": nil}, warnings: []string{CodeHeaderSecret}},
	{dir: "valid/duplicate-server-name-warns", servers: map[string][]string{"s": nil}, warnings: []string{CodeDuplicateKey}},

	{dir: "invalid/spec-4.1-relative-paths", servers: map[string][]string{"server": {token, form}}},
	{dir: "invalid/unknown-top-level", config: []string{CodeUnknownTopLevel}},
	{dir: "invalid/schema-unsupported-version", config: []string{CodeSchemaMismatch, CodeSchemaUnsupported}},
	{dir: "invalid/schema-plugin-identifier", config: []string{CodeSchemaUnsupported}},
	{dir: "invalid/schema-foreign-identifier", config: []string{CodeSchemaUnsupported}},
	{dir: "invalid/schema-missing", config: []string{CodeSchemaMissing}},
	{dir: "invalid/schema-not-string", config: []string{CodeSchemaMissing}},
	{dir: "invalid/servers-missing", config: []string{CodeServersMissing}},
	{dir: "invalid/servers-not-object", config: []string{CodeServersNotObject}},
	{dir: "invalid/top-level-array", config: []string{CodeNotObject}},
	{dir: "invalid/syntax-trailing-comma", config: []string{CodeInvalidJSON}},
	{dir: "invalid/syntax-trailing-data", config: []string{CodeInvalidJSON}},
	{dir: "invalid/syntax-empty-file", config: []string{CodeInvalidJSON}},
	{dir: "invalid/not-utf8", config: []string{CodeInvalidJSON}},
	{dir: "invalid/version-mismatch", manifest: "https://agent-plugins.org/schemas/2.0.0/plugin.schema.json", config: []string{CodeSchemaMismatch}},

	{dir: "invalid/entry-isolation", servers: map[string][]string{"local": nil, "remote": nil, "bad": {field}}},
	{dir: "invalid/server-not-object", servers: map[string][]string{"string": {CodeServerNotObject}, "array": {CodeServerNotObject}, "null": {CodeServerNotObject}, "good": nil}},
	{dir: "invalid/server-type-rules", servers: map[string][]string{"missing": {CodeServerType}, "number-42": {CodeServerType}, "claude-http": {CodeServerType}, "unknown": {CodeServerType}, "good": nil}},
	{dir: "invalid/server-variant-fields", servers: map[string][]string{"stdio-with-url": {field}, "stdio-with-unknown": {field}, "http-with-command": {field}, "sse-with-cwd": {field}, "good": nil}},
	{dir: "invalid/server-required-fields", servers: map[string][]string{"stdio-no-command": {required}, "sse-no-url": {required}, "good": nil}},
	{dir: "invalid/server-field-types", servers: map[string][]string{
		"args-string": {kind}, "args-number": {kind}, "cwd-number": {kind}, "command-number": {kind}, "command-empty": {kind},
		"env-not-object": {kind}, "env-value-number": {kind}, "url-empty": {kind}, "url-number": {kind}, "headers-value-bool": {kind}, "good": nil}},
	{dir: "invalid/command-forms", servers: map[string][]string{
		"parent": {token}, "dot-parent": {CodeCommandEscapes}, "absolute": {token}, "home": {token}, "windows-absolute": {token},
		"no-dot-slash": {token}, "shell-line": {token}, "tab": {token}, "backslash": {token}, "dot": {token}, "dotdot": {token},
		"root-folder": {token}, "folder": {token}, "good": nil}},
	{dir: "invalid/cwd-forms", servers: map[string][]string{
		"bare-name": {form}, "absolute": {form}, "parent": {form}, "dot-parent": {CodeCwdEscapes}, "root-parent": {CodeCwdEscapes},
		"data-parent": {CodeCwdEscapes}, "data-deep-parent": {CodeCwdEscapes}, "root-no-slash": {form}, "shell-variable": {form},
		"home": {form}, "empty": {form}, "good": nil}},
	{dir: "invalid/env-rules", servers: map[string][]string{"plugin-data": {CodeEnvReserved}, "plugin-root": {CodeEnvReserved}, "empty-name": {CodeEnvName}, "equals-name": {CodeEnvName}, "good": nil}},
	{dir: "invalid/nul-bytes", servers: map[string][]string{"arg-nul": {CodeNULByte}, "env-value-nul": {CodeNULByte}, "good": nil}},
	{dir: "invalid/url-rules", servers: map[string][]string{
		"https": nil, "http-localhost": nil, "http-127-0-0-2": nil, "http-ipv6-loopback": nil,
		"http-remote": {insecure}, "http-localhost-suffix": {insecure}, "http-localhost-subdomain": {insecure}, "http-unspecified": {insecure},
		"http-link-local-zone": {insecure}, "userinfo": {CodeURLUserinfo}, "fragment": {CodeURLFragment}, "empty-fragment": {CodeURLFragment},
		"ftp": {badURL}, "websocket": {badURL}, "relative": {badURL}, "no-host": {badURL}, "empty-host": {badURL}, "space": {badURL}, "bad-port": {badURL}}},
	{dir: "invalid/header-rules", servers: map[string][]string{
		"duplicate-by-case": {CodeHeaderDuplicate}, "name-with-space": {CodeHeaderName}, "name-with-colon": {CodeHeaderName}, "name-empty": {CodeHeaderName},
		"value-crlf": {CodeHeaderValue}, "value-lf": {CodeHeaderValue}, "value-nul": {CodeHeaderValue}, "good": nil}},
	{dir: "invalid/header-repeated-exactly", servers: map[string][]string{"repeated": {CodeHeaderDuplicate}, "command-repeated": nil}, warnings: []string{CodeDuplicateKey}},
	{dir: "invalid/secrets-planted", servers: map[string][]string{
		"valid-stdio": nil, "valid-remote": nil, "invalid-env": {CodeEnvReserved, CodeNULByte},
		"invalid-header": {CodeHeaderDuplicate, CodeHeaderName, CodeHeaderValue, CodeURLFragment, CodeURLInsecure, CodeURLUserinfo},
		"invalid-type":   {CodeServerType}, "invalid-url": {badURL}}, warnings: []string{CodeHeaderSecret}},
}

func TestPortableFixtures(t *testing.T) {
	for _, tc := range portableCases {
		t.Run(tc.dir, func(t *testing.T) {
			manifest := tc.manifest
			if manifest == "" {
				manifest = schemas.PluginV1
			}
			c := LoadPortable(copyFixture(t, tc.dir), manifest)
			if c == nil {
				t.Fatal("LoadPortable = nil, want a Config")
			}
			checkIssues(t, c)
			if got := errorCodes(c.Issues); !equal(got, tc.config) {
				t.Errorf("config errors = %v, want %v\n%v", got, tc.config, c.Issues)
			}
			if c.Valid != (len(tc.config) == 0) {
				t.Errorf("config Valid = %v, want %v", c.Valid, len(tc.config) == 0)
			}
			if strings.HasPrefix(tc.dir, "valid/") && len(tc.config) > 0 {
				t.Errorf("a valid/ fixture expects errors")
			}
			var names []string
			for _, s := range c.Servers {
				names = append(names, s.Name)
				want, ok := tc.servers[s.Name]
				if !ok {
					t.Errorf("unexpected server %q", s.Name)
					continue
				}
				sort.Strings(want)
				if got := errorCodes(s.Issues); !equal(got, want) {
					t.Errorf("server %q errors = %v, want %v\n%v", s.Name, got, want, s.Issues)
				}
				if strings.HasPrefix(tc.dir, "valid/") && !s.Valid {
					t.Errorf("server %q invalid in a valid/ fixture", s.Name)
				}
			}
			if len(tc.config) == 0 && len(names) != len(tc.servers) {
				t.Errorf("servers = %v, want the %d of the table", names, len(tc.servers))
			}
			if got := warningCodes(*c); !equal(got, tc.warnings) {
				t.Errorf("warnings = %v, want %v", got, tc.warnings)
			}
		})
	}
}

// TestEveryFixtureInTable keeps the corpus and the table in step.
func TestEveryFixtureInTable(t *testing.T) {
	inTable := map[string]bool{}
	for _, tc := range portableCases {
		inTable[tc.dir] = true
	}
	for _, kind := range []string{"valid", "invalid"} {
		entries, err := os.ReadDir(filepath.Join(fixtures, kind))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			dir := kind + "/" + e.Name()
			if !inTable[dir] {
				t.Errorf("fixture %s has no row in portableCases", dir)
			}
			delete(inTable, dir)
		}
	}
	for dir := range inTable {
		t.Errorf("row %s has no fixture folder", dir)
	}
}

func equal(a, b []string) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}
