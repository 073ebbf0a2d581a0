package skill

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"github.com/plugboard/plugboard/backend/issue"
)

// Limits from the Agent Skills specification, in characters (runes).
const (
	MaxName          = 64
	MaxDescription   = 1024
	MaxCompatibility = 500
)

// ValidName reports whether name follows the Agent Skills name rule as Plugboard reads
// it: 1-64 characters of ASCII a-z and 0-9 in groups joined by single hyphens.
func ValidName(name string) bool {
	return len(name) <= MaxName && nameProblem(name) == ""
}

// nameProblem says what is wrong with name's characters, or "" when they are fine.
func nameProblem(name string) string {
	switch {
	case name == "":
		return "it is empty"
	case strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-"):
		return "it starts or ends with a hyphen"
	case strings.Contains(name, "--"):
		return "it has consecutive hyphens"
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
		case unicode.IsUpper(r):
			return "it has uppercase letters"
		default:
			return fmt.Sprintf("it contains %q", r)
		}
	}
	return ""
}

// suggestName derives a valid name from name, or "" when none can be derived.
func suggestName(name string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(FoldAccents(name)) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			hyphen = false
		} else {
			hyphen = true
		}
	}
	s := b.String()
	if len(s) > MaxName {
		s = strings.TrimRight(s[:MaxName], "-")
	}
	return s
}

// fields checks each known frontmatter key of the root mapping; unknown keys are ignored.
func (c *checker) fields(m *yaml.Node) {
	var named, described bool
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		line := k.Line + 1
		switch k.Value {
		case "name":
			named = true
			c.name(line, v)
		case "description":
			described = true
			c.description(line, v)
		case "compatibility":
			c.compatibility(line, v)
		case "license":
			if t, ok := c.text(issue.Warning, line, "/license", v); ok {
				c.s.License = t
			}
		case "metadata":
			c.metadata(line, v)
		case "allowed-tools":
			c.allowedTools(line, v)
		case "disable-model-invocation":
			c.disableModelInvocation(line, v)
		case "paths":
			c.paths(line, v)
		}
	}
	if !named {
		c.errorf(CodeNameMissing, 1, "/name", "frontmatter has no name; add name: %s", c.folderHint())
	}
	if !described {
		c.errorf(CodeDescriptionMissing, 1, "/description",
			"frontmatter has no description; add description: followed by what the skill does and when to use it")
	}
}

func (c *checker) folderHint() string {
	if ValidName(c.folder) {
		return fmt.Sprintf("%s (the folder's name)", c.folder)
	}
	return "<name> and give the folder the same name (lowercase a-z, 0-9, single hyphens)"
}

// text returns the text of a scalar field. A scalar of any YAML type counts as text (as
// the author wrote it); null is "". A list or mapping is reported with sev.
func (c *checker) text(sev issue.Severity, line int, pointer string, v *yaml.Node) (string, bool) {
	if v.Kind == yaml.ScalarNode {
		if isNull(v) {
			return "", true
		}
		return v.Value, true
	}
	key := strings.TrimPrefix(pointer, "/")
	ignored := ""
	if sev == issue.Warning {
		ignored = " (ignored)"
	}
	c.add(sev, CodeFieldType, line, pointer, "%s must be text, not a %s; write it on one line as %s: <text>%s", key, kindName(v), key, ignored)
	return "", false
}

func (c *checker) name(line int, v *yaml.Node) {
	name, ok := c.text(issue.Error, line, "/name", v)
	if !ok {
		return
	}
	if name == "" {
		c.errorf(CodeNameMissing, line, "/name", "name is empty; set it to %s", c.folderHint())
		return
	}
	c.s.Name = name
	if n := utf8.RuneCountInString(name); n > MaxName {
		c.errorf(CodeNameTooLong, line, "/name",
			"name is %d characters long, over the %d-character limit; shorten it (and its folder) to at most %d", n, MaxName, MaxName)
	}
	if name == c.folder && ValidName(name) {
		return // the usual case: nothing to suggest
	}
	fix := suggestName(name)
	if problem := nameProblem(name); problem != "" {
		c.errorf(CodeNameInvalid, line, "/name", "name %q must use lowercase a-z, 0-9 and single hyphens (%s); %s",
			name, problem, c.renameAdvice(name, fix))
		if fix == c.folder {
			return // renaming to fix also makes it match the folder
		}
	}
	if name != c.folder {
		c.errorf(CodeNameMismatch, line, "/name", "name %q does not match its folder %q; %s", name, c.folder, c.mismatchAdvice(name, fix))
	}
}

func (c *checker) renameAdvice(name, fix string) string {
	switch {
	case fix == "":
		return "rename it using only those characters"
	case name == c.folder:
		return fmt.Sprintf("rename it (and its folder) to %q", fix)
	}
	return fmt.Sprintf("rename it to %q", fix)
}

func (c *checker) mismatchAdvice(name, fix string) string {
	folderFix := name
	if !ValidName(name) {
		folderFix = fix
	}
	switch {
	case ValidName(c.folder) && folderFix != "":
		// name: <folder> first: renaming the folder renames the slash command people type.
		return fmt.Sprintf("set name: %s, or rename the folder to %q (which renames the skill's slash command)", c.folder, folderFix)
	case ValidName(c.folder):
		return fmt.Sprintf("set name: %s", c.folder)
	case folderFix != "":
		return fmt.Sprintf("rename the folder to %q", folderFix)
	}
	return "give the folder and the name the same valid name (lowercase a-z, 0-9, single hyphens)"
}

func (c *checker) description(line int, v *yaml.Node) {
	d, ok := c.text(issue.Error, line, "/description", v)
	if !ok {
		return
	}
	d = strings.TrimSpace(d)
	if d == "" {
		c.errorf(CodeDescriptionMissing, line, "/description", "description is empty; say what the skill does and when to use it")
		return
	}
	c.s.Description = d
	if n := utf8.RuneCountInString(d); n > MaxDescription {
		c.errorf(CodeDescriptionTooLong, line, "/description",
			"description is %d characters long, over the %d-character limit; shorten it by %d characters", n, MaxDescription, n-MaxDescription)
	}
}

func (c *checker) compatibility(line int, v *yaml.Node) {
	t, ok := c.text(issue.Error, line, "/compatibility", v)
	if !ok {
		return
	}
	t = strings.TrimSpace(t)
	if t == "" {
		c.errorf(CodeCompatibilityEmpty, line, "/compatibility",
			"compatibility is empty; describe the environment the skill needs, or remove the key")
		return
	}
	c.s.Compatibility = t
	if n := utf8.RuneCountInString(t); n > MaxCompatibility {
		c.errorf(CodeCompatibilityTooLong, line, "/compatibility",
			"compatibility is %d characters long, over the %d-character limit; shorten it by %d characters", n, MaxCompatibility, n-MaxCompatibility)
	}
}

// FoldAccents turns accented letters into their plain ones (café → cafe), so that a
// suggested name keeps the letters a person wrote instead of turning them into hyphens.
func FoldAccents(s string) string {
	ascii := true
	for i := 0; i < len(s) && ascii; i++ {
		ascii = s[i] < utf8.RuneSelf
	}
	if ascii {
		return s // nothing to fold, and no transformer to allocate
	}
	out, _, err := transform.String(transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC), s)
	if err != nil {
		return s
	}
	return out
}
