package manifest

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/plugboard/plugboard/backend/editdist"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/jsondoc"
	"github.com/plugboard/plugboard/backend/skill"
	"github.com/plugboard/plugboard/schemas"
)

// portableFields are the only top-level members of a 1.0.0 manifest (spec §5.2).
var portableFields = []string{"$schema", "name", "version", "description", "author", "homepage", "repository", "license", "keywords", "extensions"}

// componentHints explains fields that authors carry over from client-native manifests.
var componentHints = map[string]string{
	"skills":     "skills are found in the fixed skills/ folder; plugin.json cannot move them (spec §6.1)",
	"mcpServers": "MCP servers belong in mcp.json at the plugin root, not inline (spec §7.2.1)",
	"mcp":        "MCP servers belong in mcp.json at the plugin root (spec §7.2.1)",
	"commands":   "commands are not a portable component; put client data under \"extensions\" (spec §8)",
	"agents":     "agents are not a portable component; put client data under \"extensions\" (spec §8)",
	"hooks":      "hooks are not a portable component; put client data under \"extensions\" (spec §8)",
}

// LoadPortable reads and validates root plugin.json (root resolved by pathsafe.Root).
func LoadPortable(root string) Manifest {
	m := Manifest{Format: FormatPortable, Path: PortablePath}
	data, obj, ok := readObject(root, PortablePath, &m.Issues)
	if ok {
		m.Valid = validatePortable(&m, data, obj)
	}
	m.Issues = m.Issues.NonNil()
	return m
}

// ParsePortable validates plugin.json content already read (by DetectLoad, which reads
// it without a look-up first, and by the fuzz target).
func ParsePortable(data []byte) Manifest {
	m := Manifest{Format: FormatPortable, Path: PortablePath}
	if obj, ok := decodeObject(data, PortablePath, &m.Issues); ok {
		m.Valid = validatePortable(&m, data, obj)
	}
	m.Issues = m.Issues.NonNil()
	return m
}

func validatePortable(m *Manifest, data []byte, obj map[string]any) bool {
	rel := PortablePath
	add := func(sev issue.Severity, code, ptr, msg string) { addAt(&m.Issues, data, sev, code, rel, ptr, msg) }

	ver, ok := selectVersion(obj, add)
	if !ok {
		return false
	}
	m.Schema, m.SpecVersion = ver.PluginID, ver.Name

	// Non-fatal exceptions first (§5.2, §8.1): report, then drop before schema validation.
	clean := make(map[string]any, len(obj))
	for _, k := range sortedKeys(obj) {
		if !contains(portableFields, k) {
			add(issue.Warning, CodeUnknownField, jsondoc.Pointer(k), unknownFieldMessage(k))
			continue
		}
		clean[k] = obj[k]
	}
	if ext, present := clean["extensions"]; present {
		if em, isObj := ext.(map[string]any); !isObj {
			add(issue.Warning, CodeExtensionsType, "/extensions",
				fmt.Sprintf("\"extensions\" must be an object keyed by reverse-domain namespaces (for example {\"com.example.client\": {}}), not %s; it is ignored", jsondoc.Kind(ext)))
			delete(clean, "extensions")
		} else {
			kept := make(map[string]any, len(em))
			for _, ns := range sortedKeys(em) {
				if _, isObj := em[ns].(map[string]any); !isObj {
					// §8.1: values of namespaces we do not implement are not validated, so a
					// non-object value is reported and ignored rather than fatal.
					add(issue.Warning, CodeExtensionType, jsondoc.Pointer("extensions", ns),
						fmt.Sprintf("extension namespace %q should hold an object, not %s; it is ignored", ns, jsondoc.Kind(em[ns])))
					continue
				}
				kept[ns] = em[ns]
			}
			clean["extensions"] = kept
		}
	}

	valid := true
	if err := ver.Manifest.Validate(clean); err != nil {
		var ve *schemas.ValidationError
		if !errors.As(err, &ve) {
			add(issue.Error, CodeFieldInvalid, "", err.Error())
			return false
		}
		seen := map[string]bool{}
		for _, leaf := range schemaLeaves(ve) {
			code, msg := describeSchemaError(leaf, clean)
			if key := leaf.InstanceLocation + "\x00" + msg; !seen[key] {
				seen[key] = true
				add(issue.Error, code, leaf.InstanceLocation, msg)
			}
		}
		valid = false
	}
	fill(m, clean)
	return valid
}

// selectVersion reads $schema and picks the embedded rules for it (§5.2).
func selectVersion(obj map[string]any, add func(issue.Severity, string, string, string)) (*schemas.Version, bool) {
	raw, present := obj["$schema"]
	if !present {
		add(issue.Error, CodeSchemaMissing, "", fmt.Sprintf("plugin.json has no \"$schema\"; add \"$schema\": %q", schemas.PluginV1))
		return nil, false
	}
	id, isStr := raw.(string)
	if !isStr {
		add(issue.Error, CodeSchemaType, "/$schema", fmt.Sprintf("\"$schema\" must be the string %q, not %s", schemas.PluginV1, jsondoc.Kind(raw)))
		return nil, false
	}
	ver, ok := schemas.ByID(id)
	if !ok || id != ver.PluginID {
		what := fmt.Sprintf("%q is not an Agent Plugins manifest schema", id)
		if v, named := schemas.VersionOf(id, "plugin"); named {
			what = fmt.Sprintf("Agent Plugins version %s is not supported", v)
		}
		add(issue.Error, CodeSchemaUnsupported, "/$schema", fmt.Sprintf("%s; this build supports %s (\"$schema\": %q)", what, "1.0.0", schemas.PluginV1))
		return nil, false
	}
	return ver, true
}

func unknownFieldMessage(k string) string {
	msg := fmt.Sprintf("unknown top-level field %q is ignored", k)
	if hint, ok := componentHints[k]; ok {
		return msg + ": " + hint
	}
	if near := nearest(k, portableFields); near != "" {
		return msg + fmt.Sprintf("; did you mean %q?", near)
	}
	return msg + "; client-specific data belongs under \"extensions\" (spec §8)"
}

// schemaLeaves flattens a validation error to the causes that have no causes.
func schemaLeaves(ve *schemas.ValidationError) []*schemas.ValidationError {
	if len(ve.Causes) == 0 {
		return []*schemas.ValidationError{ve}
	}
	var out []*schemas.ValidationError
	for _, c := range ve.Causes {
		out = append(out, schemaLeaves(c)...)
	}
	return out
}

// describeSchemaError turns one schema failure into a code and a message with the fix.
func describeSchemaError(e *schemas.ValidationError, doc map[string]any) (string, string) {
	ptr := e.InstanceLocation
	kw := e.KeywordLocation[strings.LastIndex(e.KeywordLocation, "/")+1:]
	field := strings.TrimPrefix(ptr, "/")
	switch {
	case strings.HasPrefix(ptr, "/name") && kw != "type":
		name, _ := doc["name"].(string)
		return CodeNameInvalid, nameMessage(name)
	case kw == "required":
		missing := strings.TrimPrefix(e.Message, "missing properties: ")
		return CodeRequired, fmt.Sprintf("%s has no %s; add it (\"name\" is a lowercase id such as \"my-plugin\")", where(ptr), strings.ReplaceAll(missing, "'", "\""))
	case kw == "type":
		var want, got string
		if _, err := fmt.Sscanf(strings.ReplaceAll(e.Message, ",", ""), "expected %s but got %s", &want, &got); err == nil {
			return CodeFieldType, fmt.Sprintf("%q must be %s, not %s", field, article(want), article(got))
		}
		return CodeFieldType, fmt.Sprintf("%q %s", field, e.Message)
	case kw == "additionalProperties" && strings.HasPrefix(ptr, "/author"):
		// Sorted and as written (jsonschema escapes quotes, backslashes and control characters).
		author, _ := doc["author"].(map[string]any)
		var extra []string
		for _, k := range sortedKeys(author) {
			if k != "name" && k != "email" && k != "url" {
				extra = append(extra, "'"+k+"'")
			}
		}
		return CodeFieldInvalid, fmt.Sprintf("\"author\" may hold only \"name\", \"email\" and \"url\": additionalProperties %s not allowed", strings.Join(extra, ", "))
	case kw == "const" && ptr == "/$schema":
		return CodeSchemaUnsupported, fmt.Sprintf("\"$schema\" must be %q", schemas.PluginV1)
	}
	return CodeFieldInvalid, fmt.Sprintf("%s: %s", where(ptr), e.Message)
}

func article(t string) string {
	if t == "" || t == "null" {
		return t
	}
	if strings.ContainsRune("aeiou", rune(t[0])) {
		return "an " + t
	}
	return "a " + t
}

func where(ptr string) string {
	if ptr == "" {
		return "plugin.json"
	}
	return fmt.Sprintf("%q", strings.TrimPrefix(ptr, "/"))
}

// nameMessage explains the plugin name rules of §5.5 and suggests a fixed name.
func nameMessage(name string) string {
	var why []string
	switch {
	case name == "":
		return "\"name\" must not be empty; use a lowercase id such as \"my-plugin\""
	case len(name) > 64:
		why = append(why, fmt.Sprintf("is %d characters long (at most 64)", len(name)))
	}
	if strings.ToLower(name) != name {
		why = append(why, "has uppercase letters")
	}
	if strings.Contains(name, "--") || strings.Contains(name, "..") {
		why = append(why, "has \"--\" or \"..\"")
	}
	if strings.Trim(name, "-.") != name {
		why = append(why, "starts or ends with \"-\" or \".\"")
	}
	if strings.IndexFunc(strings.ToLower(name), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.') }) >= 0 {
		why = append(why, "has characters other than a-z, 0-9, \"-\" and \".\"")
	}
	msg := fmt.Sprintf("plugin name %q %s; names are 1-64 characters of a-z, 0-9, \"-\" and \".\", start and end alphanumeric, with no \"--\" or \"..\" (spec §5.5)", name, strings.Join(why, ", "))
	if s := SuggestName(name); s != "" && s != name {
		msg += fmt.Sprintf("; try %q", s)
	}
	return msg
}

var (
	nameBad    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9.-]+`) })
	nameRepeat = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`--+|\.\.+|[-.]{2,}`) })
)

// SuggestName derives a valid plugin name from an invalid one, or "" when none is left.
func SuggestName(name string) string {
	s := nameBad().ReplaceAllString(strings.ToLower(skill.FoldAccents(name)), "-")
	s = nameRepeat().ReplaceAllStringFunc(s, func(r string) string { return r[:1] })
	s = strings.Trim(s, "-.")
	if len(s) > 64 {
		s = strings.Trim(s[:64], "-.")
	}
	return s
}

func fill(m *Manifest, obj map[string]any) {
	str := func(k string) string { s, _ := obj[k].(string); return s }
	m.Name, m.Version, m.Description = str("name"), str("version"), str("description")
	m.Homepage, m.Repository, m.License = str("homepage"), str("repository"), str("license")
	if a, ok := obj["author"].(map[string]any); ok {
		au := &Author{}
		au.Name, _ = a["name"].(string)
		au.Email, _ = a["email"].(string)
		au.URL, _ = a["url"].(string)
		m.Author = au
	}
	if kw, ok := obj["keywords"].([]any); ok {
		for _, k := range kw {
			if s, ok := k.(string); ok {
				m.Keywords = append(m.Keywords, s)
			}
		}
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// nearest returns the candidate within edit distance 2 of s, if one is.
func nearest(s string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := editdist.Distance(strings.ToLower(s), c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}
