package mcpproxy

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// secret is a header value; no error may show it.
const secret = "Bearer s3cret-0b5e"

var readConfigTests = []struct {
	name    string
	content string      // written to dir/proxy.json
	mode    fs.FileMode // of dir/proxy.json
	// place returns the path given to ReadConfig; nil means dir/proxy.json itself.
	place   func(t *testing.T, dir, file string) string
	want    Config
	wantErr string // part of the error; "" means success
	io      bool   // an I/O error, not a refusal (ErrBadConfig)
}{
	{name: "streamable-http", mode: 0o600,
		content: `{"type":"streamable-http","url":"https://mcp.example.com/mcp","headers":{"Authorization":"` + secret + `"}}`,
		want:    Config{Type: TypeStreamableHTTP, URL: "https://mcp.example.com/mcp", Headers: map[string]string{"Authorization": secret}}},
	{name: "sse-no-headers-owner-read-only", mode: 0o400,
		content: `{"type":"sse","url":"http://127.0.0.1:8080/sse"}`,
		want:    Config{Type: TypeSSE, URL: "http://127.0.0.1:8080/sse"}},
	{name: "world-readable", mode: 0o644, content: `{"type":"sse","url":"https://h/sse"}`, wantErr: "chmod 600"},
	{name: "group-writable", mode: 0o620, content: `{"type":"sse","url":"https://h/sse"}`, wantErr: "chmod 600"},
	{name: "symlink-to-private-file", mode: 0o600, content: `{"type":"sse","url":"https://h/sse"}`, wantErr: "symlink",
		place: func(t *testing.T, dir, file string) string {
			link := filepath.Join(dir, "link.json")
			if err := os.Symlink(file, link); err != nil {
				t.Fatal(err)
			}
			return link
		}},
	{name: "folder", wantErr: "folder",
		place: func(t *testing.T, dir, _ string) string { return dir }},
	{name: "missing", wantErr: "no such file", io: true,
		place: func(t *testing.T, dir, _ string) string { return filepath.Join(dir, "absent.json") }},
	{name: "too-large", mode: 0o600, wantErr: "65536",
		content: `{"type":"sse","url":"https://h/sse"}` + strings.Repeat(" ", maxConfigSize)},
	{name: "stdio-type", mode: 0o600, content: `{"type":"stdio","url":"https://h/"}`, wantErr: `type "stdio"`},
	{name: "relative-url", mode: 0o600, content: `{"type":"sse","url":"/sse"}`, wantErr: "absolute"},
	{name: "ftp-url", mode: 0o600, content: `{"type":"sse","url":"ftp://h/sse"}`, wantErr: "absolute"},
	{name: "url-without-host", mode: 0o600, content: `{"type":"sse","url":"https:///sse"}`, wantErr: "no host"},
	{name: "unknown-field", mode: 0o600, content: `{"type":"sse","url":"https://h/","command":"x"}`, wantErr: `unknown field "command"`},
	{name: "array", mode: 0o600, content: `[]`, wantErr: "not a JSON object"},
	{name: "two-objects", mode: 0o600, content: `{"type":"sse","url":"https://h/"} {}`, wantErr: "data after"},
	{name: "bad-header-name", mode: 0o600, content: `{"type":"sse","url":"https://h/","headers":{"X Bad":"` + secret + `"}}`,
		wantErr: `a header name is not a valid HTTP field name`},
	{name: "header-value-with-newline", mode: 0o600,
		content: `{"type":"sse","url":"https://h/","headers":{"X-Key":"` + secret + `\r\nX-Evil: 1"}}`, wantErr: `header "X-Key"`},
	{name: "same-header-twice", mode: 0o600,
		content: `{"type":"sse","url":"https://h/","headers":{"x-key":"` + secret + `","X-Key":"` + secret + `"}}`, wantErr: "same header"},
}

func TestReadConfig(t *testing.T) {
	for _, tt := range readConfigTests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "proxy.json")
			if tt.mode != 0 {
				if err := os.WriteFile(file, []byte(tt.content), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(file, tt.mode); err != nil { // WriteFile's mode is subject to umask
					t.Fatal(err)
				}
			}
			path := file
			if tt.place != nil {
				path = tt.place(t, dir, file)
			}
			got, err := ReadConfig(path)
			if tt.wantErr == "" {
				if err != nil || !reflect.DeepEqual(got, tt.want) {
					t.Fatalf("ReadConfig = %+v, %v; want %+v", got, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("ReadConfig = %+v, nil; want an error containing %q", got, tt.wantErr)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.wantErr) || !strings.Contains(msg, path) {
				t.Errorf("ReadConfig error = %q, want it to name %s and contain %q", msg, path, tt.wantErr)
			}
			if errors.Is(err, ErrBadConfig) == tt.io {
				t.Errorf("errors.Is(%q, ErrBadConfig) = %v, want %v", msg, !tt.io, !tt.io)
			}
			if strings.Contains(msg, "s3cret") {
				t.Errorf("ReadConfig error = %q shows a header value", msg)
			}
		})
	}
}

// TestReadConfigReportsEveryProblem: one error lists all the problems of a file, so that a
// person fixes them in one go.
func TestReadConfigReportsEveryProblem(t *testing.T) {
	err := parseConfigErr(t, `{"type":"ws","url":"ws://h/","headers":{"X Bad":"v"}}`)
	for _, want := range []string{`type "ws"`, "url is not", `a header name is not a valid`} {
		if !strings.Contains(err, want) {
			t.Errorf("parseConfig error = %q, want it to contain %q", err, want)
		}
	}
	if strings.Contains(err, "X Bad") {
		t.Errorf("the error quotes the invalid header name: %q", err)
	}
}

func parseConfigErr(t *testing.T, content string) string {
	t.Helper()
	_, err := parseConfig([]byte(content), os.LookupEnv)
	if err == nil {
		t.Fatalf("parseConfig(%s) = nil error", content)
	}
	return err.Error()
}

// TestConfigEnvRefs: a config marked envRefs (a Cursor server) gets its url and header
// values' ${env:NAME} and ${NAME} from the proxy's environment; one without keeps them.
func TestConfigEnvRefs(t *testing.T) {
	env := map[string]string{"TENANT": "acme", "TOKEN": "tok"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	const body = `"type":"streamable-http","url":"https://h.example/${env:TENANT}/mcp","headers":{"Authorization":"Bearer ${TOKEN}"}`
	cfg, err := parseConfig([]byte(`{`+body+`,"envRefs":true}`), lookup)
	if err != nil || cfg.URL != "https://h.example/acme/mcp" || cfg.Headers["Authorization"] != "Bearer tok" {
		t.Errorf("with envRefs: %+v, %v", cfg, err)
	}
	cfg, err = parseConfig([]byte(`{`+body+`}`), lookup)
	if err != nil || cfg.Headers["Authorization"] != "Bearer ${TOKEN}" {
		t.Errorf("without envRefs: %+v, %v", cfg, err)
	}
	// A value that makes the header invalid is refused like a written one, unnamed.
	env["TOKEN"] = "a\r\nInjected: 1"
	if _, err := parseConfig([]byte(`{`+body+`,"envRefs":true}`), lookup); err == nil || strings.Contains(err.Error(), "Injected") {
		t.Errorf("a header value with CR LF from the environment: %v", err)
	}
}
