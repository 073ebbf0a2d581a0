package manifest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/pathsafe"
)

const fixtures = "../../testdata/manifest"

// checkIssues asserts the F10 shape of every issue.
func checkIssues(t *testing.T, where string, l issue.List) {
	t.Helper()
	for _, i := range l {
		if i.Code == "" || i.Path == "" || i.Message == "" || i.Severity == "" || i.Line < 1 {
			t.Errorf("%s: issue lacks code, path, message, severity or line: %+v", where, i)
		}
	}
}

func codes(l issue.List) string {
	var s []string
	for _, i := range l {
		s = append(s, string(i.Severity)+":"+i.Code)
	}
	return strings.Join(s, ",")
}

func TestPortableFixtures(t *testing.T) {
	tests := []struct {
		dir       string
		valid     bool
		wantCodes string // issues in order, severity:code
		wantText  string // a fragment the message must carry
	}{
		{"valid/minimal", true, "", ""},
		{"valid/full", true, "", ""},
		{"valid/name-dots-digits", true, "", ""},
		{"valid/version-not-semver", true, "", ""},
		{"valid/unknown-field-warned", true, "warning:manifest.unknown-field", `did you mean "description"`},
		{"valid/inline-skills-warned", true, "warning:manifest.unknown-field", "fixed skills/ folder"},
		{"valid/extensions-string-warned", true, "warning:manifest.extensions-not-object", "ignored"},
		{"valid/extensions-null-warned", true, "warning:manifest.extensions-not-object", "not null"},
		{"valid/extension-member-number-warned", true, "warning:manifest.extension-not-object", `"com.example"`},
		{"invalid/schema-missing", false, "error:manifest.schema-missing", "add \"$schema\""},
		{"invalid/schema-number", false, "error:manifest.schema-type", "not a number"},
		{"invalid/schema-unsupported-version", false, "error:manifest.schema-unsupported", "version 9.9.9 is not supported"},
		{"invalid/schema-foreign", false, "error:manifest.schema-unsupported", "not an Agent Plugins manifest schema"},
		{"invalid/name-missing", false, "error:manifest.required", "name"},
		{"invalid/name-empty", false, "error:manifest.name-invalid", "must not be empty"},
		{"invalid/name-uppercase", false, "error:manifest.name-invalid", `try "my-plugin"`},
		{"invalid/name-leading-hyphen", false, "error:manifest.name-invalid", `try "start"`},
		{"invalid/name-trailing-period", false, "error:manifest.name-invalid", "starts or ends"},
		{"invalid/name-double-hyphen", false, "error:manifest.name-invalid", `try "has-double"`},
		{"invalid/name-double-period", false, "error:manifest.name-invalid", `try "too.many.dots"`},
		{"invalid/name-too-long", false, "error:manifest.name-invalid", "65 characters"},
		{"invalid/name-underscore", false, "error:manifest.name-invalid", `try "my-plugin"`},
		{"invalid/name-number", false, "error:manifest.field-type", "string"},
		{"invalid/version-number", false, "error:manifest.field-type", `"version"`},
		{"invalid/keywords-string", false, "error:manifest.field-type", `"keywords"`},
		{"invalid/keywords-non-string-item", false, "error:manifest.field-type", `"keywords/1"`},
		{"invalid/author-string", false, "error:manifest.field-type", `"author"`},
		{"invalid/author-extra-field", false, "error:manifest.field-invalid", "twitter"},
		{"invalid/author-name-number", false, "error:manifest.field-type", `"author/name"`},
		{"invalid/description-array", false, "error:manifest.field-type", `"description"`},
		{"invalid/not-json", false, "error:manifest.invalid-json", "not valid JSON"},
		{"invalid/array-top", false, "error:manifest.not-object", "an array"},
		{"invalid/empty-file", false, "error:manifest.invalid-json", "ends early"},
	}
	for _, tc := range tests {
		root, err := pathsafe.Root(filepath.Join(fixtures, tc.dir))
		if err != nil {
			t.Fatal(err)
		}
		if got := Detect(root, false); got != FormatPortable {
			t.Errorf("%s: Detect = %s, want portable", tc.dir, got)
		}
		m := LoadPortable(root)
		if m.Valid != tc.valid || codes(m.Issues) != tc.wantCodes {
			t.Errorf("%s: LoadPortable valid=%v issues=%q; want valid=%v issues=%q\n%v", tc.dir, m.Valid, codes(m.Issues), tc.valid, tc.wantCodes, m.Issues)
		}
		if tc.wantText != "" && (len(m.Issues) == 0 || !strings.Contains(m.Issues[0].Message, tc.wantText)) {
			t.Errorf("%s: first message %v does not say %q", tc.dir, m.Issues, tc.wantText)
		}
		checkIssues(t, tc.dir, m.Issues)
	}
}

func TestPortableLines(t *testing.T) {
	root, _ := pathsafe.Root(filepath.Join(fixtures, "invalid/name-uppercase"))
	m := LoadPortable(root)
	if len(m.Issues) != 1 || m.Issues[0].Line != 3 || m.Issues[0].Pointer != "/name" {
		t.Fatalf("issues = %+v, want one at line 3, pointer /name", m.Issues)
	}
}

func TestPortableFileBoundaries(t *testing.T) {
	base, _ := pathsafe.Root(t.TempDir())
	mk := func(name string) string {
		d := filepath.Join(base, name)
		os.MkdirAll(d, 0o755)
		return d
	}
	outside := mk("outside")
	os.WriteFile(filepath.Join(outside, "plugin.json"), []byte(`{"$schema":"https://agent-plugins.org/schemas/1.0.0/plugin.schema.json","name":"x"}`), 0o644)

	escape := mk("escape")
	os.Symlink("../outside/plugin.json", filepath.Join(escape, "plugin.json"))
	folder := mk("folder")
	os.Mkdir(filepath.Join(folder, "plugin.json"), 0o755)
	loop := mk("loop")
	os.Symlink("plugin.json", filepath.Join(loop, "plugin.json"))
	huge := mk("huge")
	f, _ := os.Create(filepath.Join(huge, "plugin.json"))
	f.Truncate(100 << 20) // a 100 MB sparse file: must be refused by size, not read
	f.Close()
	dangling := mk("dangling")
	os.Symlink("nowhere.json", filepath.Join(dangling, "plugin.json"))

	tests := []struct{ dir, code string }{
		{escape, CodeEscapes}, {folder, CodeNotRegular}, {loop, CodeUnreadable}, {huge, CodeUnreadable}, {dangling, CodeUnreadable},
	}
	for _, tc := range tests {
		if Detect(tc.dir, false) != FormatPortable {
			t.Errorf("%s: not detected as portable", tc.dir)
		}
		m := LoadPortable(tc.dir)
		if m.Valid || len(m.Issues) != 1 || m.Issues[0].Code != tc.code {
			t.Errorf("%s: LoadPortable = valid %v, %v; want invalid with %s", filepath.Base(tc.dir), m.Valid, m.Issues, tc.code)
		}
	}
}

func TestClientManifests(t *testing.T) {
	base, _ := pathsafe.Root(t.TempDir())
	write := func(dir, rel, body string) string {
		p := filepath.Join(base, dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
		return filepath.Join(base, dir)
	}
	legacy := write("legacy", LegacyPath, `{"name":"Old Plugin","version":"1.0.0","commands":"./cmd"}`)
	if Detect(legacy, true) != FormatLegacy {
		t.Fatal("legacy not detected")
	}
	m := LoadLegacy(legacy)
	if !m.Valid || codes(m.Issues) != "warning:manifest.name-invalid" || !strings.Contains(m.Issues[0].Message, `"old-plugin"`) {
		t.Errorf("LoadLegacy = %v %v", m.Valid, m.Issues)
	}
	noname := write("noname", LegacyPath, `{"version":"1"}`)
	if m := LoadLegacy(noname); m.Valid {
		t.Errorf("legacy without name is valid")
	}

	cursor := write("cursor", CursorPath, `{"name":"huggingface-skills","skills":"./my-skills","mcpServers":".mcp.json","commands":["a"],"agents":"x"}`)
	write("cursor", LegacyPath, `{"name":"both"}`)
	if Detect(cursor, true) != FormatCursor || Detect(cursor, false) != FormatLegacy {
		t.Errorf("Detect preference wrong")
	}
	m = LoadCursor(cursor)
	if !m.Valid || m.MCPFile != ".mcp.json" || len(m.SkillsDirs) != 1 || m.SkillsDirs[0] != "my-skills" || len(m.Unsupported) != 2 {
		t.Errorf("LoadCursor = %+v", m)
	}
	bad := write("cursor-bad", CursorPath, `{"name":"x","skills":"../elsewhere","mcpServers":{"a":{}}}`)
	m = LoadCursor(bad)
	if codes(m.Issues) != "error:manifest.component-path,warning:manifest.not-supported" || m.SkillsDirs != nil {
		t.Errorf("LoadCursor bad = %v %+v", codes(m.Issues), m)
	}
	deflt := write("cursor-default", CursorPath, `{"name":"x"}`)
	write("cursor-default", ".mcp.json", `{}`)
	m = LoadCursor(deflt)
	if m.MCPFile != ".mcp.json" || m.SkillsDirs[0] != "skills" {
		t.Errorf("LoadCursor defaults = %+v", m)
	}
	for _, d := range []string{legacy, noname, cursor, bad} {
		checkIssues(t, d, Load(d, Detect(d, true)).Issues)
	}
	none := filepath.Join(base, "none")
	os.Mkdir(none, 0o755)
	if m := Load(none, Detect(none, false)); m.Format != FormatNone || m.Valid || m.Issues[0].Code != CodeMissing {
		t.Errorf("Load(none) = %+v", m)
	}
}

func FuzzParsePortable(f *testing.F) {
	filepath.Walk(fixtures, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			f.Add(b)
		}
		return nil
	})
	f.Add([]byte(`{"$schema":"https://agent-plugins.org/schemas/1.0.0/plugin.schema.json","name":"a","extensions":{"x":[]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m := ParsePortable(data)
		if m.Valid == m.Issues.HasErrors() {
			t.Fatalf("Valid=%v but issues %v", m.Valid, m.Issues)
		}
		for _, i := range m.Issues {
			if i.Code == "" || i.Message == "" {
				t.Fatalf("issue without code or message: %+v", i)
			}
		}
	})
}

func BenchmarkParsePortable(b *testing.B) {
	data, _ := os.ReadFile(filepath.Join(fixtures, "valid/full/plugin.json"))
	b.ReportAllocs()
	for b.Loop() {
		ParsePortable(data)
	}
}

// The members "author" may not hold are named sorted and as written, whatever order the
// validator visits them in.
func TestAuthorExtraMembers(t *testing.T) {
	data := []byte(`{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "a",
		"author": {"zz": 1, "name": "x", "it's": 2, "a\\b": 3, "mm": 4}}`)
	want := `"author" may hold only "name", "email" and "url": additionalProperties 'a\b', 'it's', 'mm', 'zz' not allowed`
	for range 20 {
		m := ParsePortable(data)
		if m.Valid || len(m.Issues) != 1 || m.Issues[0].Code != CodeFieldInvalid || m.Issues[0].Pointer != "/author" || m.Issues[0].Message != want {
			t.Fatalf("issues = %+v, want one at /author saying %s", m.Issues, want)
		}
	}
}

// FuzzKebab: the legacy name check says what the regular expression it replaced says.
func FuzzKebab(f *testing.F) {
	for _, s := range []string{"my-plugin", "a.b-c9", "a--b", "a-.b", "-a", "a-", ".", "", "A", "é", "ab12.cd"} {
		f.Add(s)
	}
	re := regexp.MustCompile(`^[a-z0-9]+(?:[-.][a-z0-9]+)*$`)
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := kebab(name), re.MatchString(name); got != want {
			t.Fatalf("kebab(%q) = %v, the expression says %v", name, got, want)
		}
	})
}
