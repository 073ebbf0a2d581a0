package skill

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/issue"
)

// doc builds a SKILL.md from frontmatter lines.
func doc(lines ...string) string {
	return "---\n" + strings.Join(lines, "\n") + "\n---\nBody\n"
}

// parseTests run Parse on text built in code: length boundaries, names the fixtures
// cannot hold as folder names, and the peer (skills-ref) cases in their own folders.
var parseTests = []struct {
	name   string
	folder string
	text   string
	errs   []string
	warns  []string
}{
	{"name-64-chars", strings.Repeat("a", 64), doc("name: "+strings.Repeat("a", 64), "description: d"), nil, nil},
	{"name-65-chars", strings.Repeat("a", 65), doc("name: "+strings.Repeat("a", 65), "description: d"), []string{CodeNameTooLong}, nil},
	{"name-70-chars-peer", strings.Repeat("a", 70), doc("name: "+strings.Repeat("a", 70), "description: d"), []string{CodeNameTooLong}, nil},
	{"name-1-char", "a", doc("name: a", "description: d"), nil, nil},
	{"name-digits-only", "2048", doc("name: 2048", "description: d"), nil, nil},
	{"name-uppercase-peer", "MySkill", doc("name: MySkill", "description: d"), []string{CodeNameInvalid}, nil},
	{"name-leading-hyphen-peer", "-my-skill", doc("name: -my-skill", "description: d"), []string{CodeNameInvalid}, nil},
	{"name-consecutive-hyphens-peer", "my--skill", doc("name: my--skill", "description: d"), []string{CodeNameInvalid}, nil},
	{"name-underscore-peer", "my_skill", doc("name: my_skill", "description: d"), []string{CodeNameInvalid}, nil},
	{"name-space", "my-skill", doc("name: my skill", "description: d"), []string{CodeNameInvalid}, nil},
	{"name-mismatch-peer", "wrong-name", doc("name: correct-name", "description: d"), []string{CodeNameMismatch}, nil},
	{"name-null", "my-skill", doc("name:", "description: d"), []string{CodeNameMissing}, nil},
	{"name-mapping", "my-skill", doc("name: {a: b}", "description: d"), []string{CodeFieldType}, nil},
	{"i18n-chinese-name", "技能", doc("name: 技能", "description: d"), []string{CodeNameInvalid}, nil},
	{"i18n-russian-lowercase", "навык", doc("name: навык", "description: d"), []string{CodeNameInvalid}, nil},
	{"i18n-russian-hyphen", "мой-навык", doc("name: мой-навык", "description: d"), []string{CodeNameInvalid}, nil},
	{"i18n-russian-uppercase-peer", "НАВЫК", doc("name: НАВЫК", "description: d"), []string{CodeNameInvalid}, nil},
	{"nfkc-name", "caf\u00e9", doc("name: cafe\u0301", "description: d"), []string{CodeNameInvalid, CodeNameMismatch}, nil},
	{"description-1024", "s", doc("name: s", "description: "+strings.Repeat("x", 1024)), nil, nil},
	{"description-1025", "s", doc("name: s", "description: "+strings.Repeat("x", 1025)), []string{CodeDescriptionTooLong}, nil},
	{"description-1024-runes", "s", doc("name: s", "description: "+strings.Repeat("é", 1024)), nil, nil},
	{"description-1100-peer", "s", doc("name: s", "description: "+strings.Repeat("x", 1100)), []string{CodeDescriptionTooLong}, nil},
	{"description-null", "s", doc("name: s", "description:"), []string{CodeDescriptionMissing}, nil},
	{"compatibility-500", "s", doc("name: s", "description: d", "compatibility: "+strings.Repeat("x", 500)), nil, nil},
	{"compatibility-501", "s", doc("name: s", "description: d", "compatibility: "+strings.Repeat("x", 501)), []string{CodeCompatibilityTooLong}, nil},
	{"compatibility-550-peer", "s", doc("name: s", "description: d", "compatibility: "+strings.Repeat("x", 550)), []string{CodeCompatibilityTooLong}, nil},
	{"compatibility-1", "s", doc("name: s", "description: d", "compatibility: x"), nil, nil},
	{"compatibility-null", "s", doc("name: s", "description: d", "compatibility:"), []string{CodeCompatibilityEmpty}, nil},
	{"license-mapping", "s", doc("name: s", "description: d", "license: {spdx: MIT}"), nil, []string{CodeFieldType}},
	{"metadata-nested-value", "s", doc("name: s", "description: d", "metadata:", "  ok: yes", "  bad: [1, 2]", "  worse: {a: b}"), nil, rep(CodeFieldType, 2)},
	{"metadata-null", "s", doc("name: s", "description: d", "metadata:"), nil, nil},
	{"allowed-tools-bad-items", "s", doc("name: s", "description: d", "allowed-tools:", "  - Read", "  - [x]", "  -"), nil, rep(CodeFieldType, 2)},
	{"disable-model-invocation-false", "s", doc("name: s", "description: d", "disable-model-invocation: false"), nil, nil},
	{"disable-model-invocation-quoted", "s", doc("name: s", "description: d", `disable-model-invocation: "true"`), nil, []string{CodeFieldType}},
	{"disable-model-invocation-null", "s", doc("name: s", "description: d", "disable-model-invocation:"), nil, []string{CodeFieldType}},
	{"paths-item-mapping", "s", doc("name: s", "description: d", "paths:", "  - {a: b}"), nil, []string{CodeFieldType}},
	{"duplicate-nested-key", "s", doc("name: s", "description: d", "metadata:", "  a: 1", "  a: 2"), []string{CodeInvalidYAML}, nil},
	{"merge-key-alias", "s", doc("name: s", "description: d", "base: &b {x: 1}", "metadata:", "  <<: *b"), []string{CodeYAMLAlias}, nil},
	{"unknown-alias", "s", doc("name: s", "description: *nowhere"), []string{CodeInvalidYAML}, nil},
	{"second-document-marker", "s", "---\nname: s\ndescription: d\n--- \nmore\n---\n", nil, nil},
	{"fence-trailing-space", "s", "--- \nname: s\ndescription: d\n---\t\n", nil, nil},
	{"only-opening-fence", "s", "---", []string{CodeUnclosedFrontmatter}, nil},
	{"no-trailing-newline", "s", "---\nname: s\ndescription: d\n---", nil, nil},
}

func TestParse(t *testing.T) {
	for _, tt := range parseTests {
		t.Run(tt.name, func(t *testing.T) {
			s := Parse([]byte(tt.text), tt.folder, "", Options{Path: "skills/s/SKILL.md"})
			checkSkill(t, s)
			if got := codes(s, issue.Error); !slices.Equal(got, tt.errs) {
				t.Errorf("error codes = %v, want %v; issues: %v", got, tt.errs, s.Issues)
			}
			if got := codes(s, issue.Warning); !slices.Equal(got, tt.warns) {
				t.Errorf("warning codes = %v, want %v; issues: %v", got, tt.warns, s.Issues)
			}
		})
	}
}

func TestValidName(t *testing.T) {
	good := []string{"a", "pdf-processing", "data-analysis", "code-review", "a1-b2-c3", strings.Repeat("z", 64)}
	bad := []string{"", "-", "-pdf", "pdf-", "pdf--processing", "PDF-Processing", "my_skill", "my skill",
		"навык", "技能", "café", strings.Repeat("z", 65), "a.b", "a/b", "ＡＢＣ"}
	for _, n := range good {
		if !ValidName(n) {
			t.Errorf("ValidName(%q) = false, want true", n)
		}
	}
	for _, n := range bad {
		if ValidName(n) {
			t.Errorf("ValidName(%q) = true, want false", n)
		}
	}
}

func TestNameMessages(t *testing.T) {
	tests := []struct {
		folder, name, code string
		wantIn             []string
	}{
		{"pdf-tool", "PDF-Tool", CodeNameInvalid, []string{`name "PDF-Tool" must use lowercase a-z, 0-9 and single hyphens`, `rename it to "pdf-tool"`}},
		{"PDF-Tool", "PDF-Tool", CodeNameInvalid, []string{`rename it (and its folder) to "pdf-tool"`}},
		{"PDF-Tool", "PDF-Tool", CodeNameMismatch, nil}, // same text: no mismatch
		{"wrong-name", "correct-name", CodeNameMismatch, []string{`"correct-name"`, `"wrong-name"`, "set name: wrong-name, or rename the folder to \"correct-name\""}},
		{"My_Folder", "my-skill", CodeNameMismatch, []string{`rename the folder to "my-skill"`}},
		{"café-tools", "Café Tools", CodeNameInvalid, []string{`"cafe-tools"`}},
		{"навык", "навык", CodeNameInvalid, []string{"rename it using only those characters"}},
		{"my-skill", "My Skill!", CodeNameInvalid, []string{`rename it to "my-skill"`}},
	}
	for _, tt := range tests {
		s := Parse([]byte(doc("name: "+tt.name, "description: d")), tt.folder, "", Options{Path: "SKILL.md"})
		checkSkill(t, s)
		if tt.wantIn == nil {
			if slices.Contains(codes(s, issue.Error), tt.code) {
				t.Errorf("folder %q name %q: unexpected %s in %v", tt.folder, tt.name, tt.code, s.Issues)
			}
			continue
		}
		i := find(t, s, tt.code)
		for _, w := range tt.wantIn {
			if !strings.Contains(i.Message, w) {
				t.Errorf("folder %q name %q: message %q lacks %q", tt.folder, tt.name, i.Message, w)
			}
		}
		if i.Line != 2 || i.Pointer != "/name" {
			t.Errorf("issue at line %d pointer %q, want line 2 /name", i.Line, i.Pointer)
		}
	}
}

// TestLines checks that issue lines are SKILL.md lines, BOM and CRLF included.
func TestLines(t *testing.T) {
	tests := []struct {
		text string
		code string
		line int
		ptr  string
	}{
		{"---\nname: s\ndescription: d\ncompatibility: ''\n---\n", CodeCompatibilityEmpty, 4, "/compatibility"},
		{"\ufeff---\r\nname: s\r\ndescription: d\r\nlicense: [a]\r\n---\r\n", CodeFieldType, 4, "/license"},
		{"---\nname: s\ndescription: d\nmetadata:\n  a/b~c: [1]\n---\n", CodeFieldType, 5, "/metadata/a~1b~0c"},
		{"---\nname: s\ndescription: d\npaths:\n  - ok\n  - /abs\n---\n", CodePathsRefused, 6, "/paths/1"},
		{"---\nname: s\ndescription: d\n\nfoo: [\n---\n", CodeInvalidYAML, 5, ""},
		{"ok\n\xff\n", CodeInvalidUTF8, 2, ""},
	}
	for _, tt := range tests {
		s := Parse([]byte(tt.text), "s", "", Options{Path: "SKILL.md"})
		checkSkill(t, s)
		i := find(t, s, tt.code)
		if i.Line != tt.line || i.Pointer != tt.ptr {
			t.Errorf("%q: %s at line %d pointer %q, want line %d pointer %q", tt.text, tt.code, i.Line, i.Pointer, tt.line, tt.ptr)
		}
	}
}

// TestHostile feeds inputs built to cost time or memory; each must give an issue quickly.
func TestHostile(t *testing.T) {
	bomb := "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
	for i, prev := 'b', 'a'; i <= 'i'; i, prev = i+1, i {
		bomb += string(i) + ": &" + string(i) + " [" + strings.TrimSuffix(strings.Repeat("*"+string(prev)+",", 9), ",") + "]\n"
	}
	tests := []struct {
		name, text, code string
	}{
		{"alias-bomb", "---\nname: s\ndescription: d\n" + bomb + "---\n", CodeYAMLAlias},
		{"nesting-100000-deep", "---\nname: s\ndescription: " + strings.Repeat("[", 100000) + "\n---\n", CodeFrontmatterTooLarge},
		{"nesting-60000-deep-under-cap", "---\nname: s\ndescription: " + strings.Repeat("[", 60000) + "\n---\n", CodeInvalidYAML},
		{"nesting-60000-deep-maps", "---\nname: s\nx: " + strings.Repeat("{", 60000) + "\n---\n", CodeInvalidYAML},
		{"frontmatter-over-64KiB", "---\nname: s\ndescription: d\nx: \"" + strings.Repeat("y", MaxFrontmatter) + "\"\n---\n", CodeFrontmatterTooLarge},
		{"frontmatter-over-64KiB-unclosed", "---\n" + strings.Repeat("a: b\n", 20000), CodeFrontmatterTooLarge},
		{"many-duplicate-keys", "---\nname: s\ndescription: d\n" + strings.Repeat("k: v\n", 5000) + "---\n", CodeInvalidYAML},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			s := Parse([]byte(tt.text), "s", "", Options{Path: "SKILL.md"})
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("Parse took %v", d)
			}
			checkSkill(t, s)
			find(t, s, tt.code)
			if s.Valid || len(s.Issues) > maxTreeIssues+1 {
				t.Errorf("Valid = %v with %d issues, want invalid with a bounded list", s.Valid, len(s.Issues))
			}
		})
	}
	t.Run("nesting-9000-deep-within-parser-limit", func(t *testing.T) {
		text := "---\nname: s\ndescription: d\nmetadata:\n  deep: " + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + "\n---\n"
		s := Parse([]byte(text), "s", "", Options{Path: "SKILL.md"})
		checkSkill(t, s)
		if !s.Valid || find(t, s, CodeFieldType).Pointer != "/metadata/deep" {
			t.Errorf("Valid = %v, issues %v; want valid with a warning on /metadata/deep", s.Valid, s.Issues)
		}
	})
	t.Run("frontmatter-exactly-64KiB", func(t *testing.T) {
		body := "name: s\ndescription: d\nx: \""
		body += strings.Repeat("y", MaxFrontmatter-len(body)-2) + "\"\n"
		s := Parse([]byte("---\n"+body+"---\n"), "s", "", Options{Path: "SKILL.md"})
		checkSkill(t, s)
		if !s.Valid {
			t.Errorf("a %d-byte frontmatter is refused: %v", len(body), s.Issues)
		}
	})
}

func TestJSON(t *testing.T) {
	s := Parse([]byte(doc("name: s", "description: d", "paths: [x]")), "s", "", Options{Path: "SKILL.md"})
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, w := range []string{`"issues":[]`, `"valid":true`, `"modelInvocable":true`, `"paths":[{"entry":"x","accepted":true}]`} {
		if !strings.Contains(got, w) {
			t.Errorf("JSON %s lacks %s", got, w)
		}
	}
	if strings.Contains(got, "Resolved") || strings.Contains(got, "resolved") {
		t.Errorf("JSON %s shows the resolved path", got)
	}
}

func TestParseDefaultPath(t *testing.T) {
	s := Parse([]byte("nothing"), "greet", "", Options{})
	checkSkill(t, s)
	want(t, "Path", s.Path, "greet/SKILL.md")
}
