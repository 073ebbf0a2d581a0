// Package schemas embeds Plugboard's own JSON Schemas for the Agent Plugins package format
// and compiles them once, offline, with github.com/santhosh-tekuri/jsonschema/v5 (draft
// 2020-12): a schema is never fetched (Agent Plugins §5.2). The compiled schemas are
// immutable and safe for concurrent use.
package schemas

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/plugboard/plugboard/backend/jsondoc"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

//go:embed 1.0.0/*.json
var files embed.FS

// Canonical identifiers of the Agent Plugins versions this build supports.
const (
	PluginV1 = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"
	MCPV1    = "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json"
)

// Version is one supported Agent Plugins version with its compiled schemas.
type Version struct {
	Name     string // "1.0.0"
	PluginID string
	MCPID    string
	Manifest *Schema
	MCPFile  *Schema
	// Servers holds one schema per MCP server variant, keyed by its "type" value.
	Servers map[string]*Schema
}

// Schema is one compiled schema. Properties and Required are those the schema itself
// declares (not those of a schema it references), for callers that word their own
// messages about members.
type Schema struct {
	Properties map[string]*Schema
	Required   []string
	compiled   *jsonschema.Schema
}

func wrap(s *jsonschema.Schema) *Schema {
	out := &Schema{Required: s.Required, compiled: s}
	if len(s.Properties) > 0 {
		out.Properties = make(map[string]*Schema, len(s.Properties))
		for k, p := range s.Properties {
			out.Properties[k] = wrap(p)
		}
	}
	return out
}

// ValidationError is one failure of jsonschema's detailed output: the keyword that failed
// (its location through the schema, ending in the keyword), the instance location (a JSON
// pointer, RFC 6901) and jsonschema's message. The error Validate returns has the failing
// leaves as Causes, sorted by instance location (in document order) then keyword location.
type ValidationError struct {
	KeywordLocation  string
	InstanceLocation string
	Message          string
	Causes           []*ValidationError
}

func (e *ValidationError) Error() string {
	if len(e.Causes) == 0 {
		return fmt.Sprintf("%s: %s", orRoot(e.InstanceLocation), e.Message)
	}
	parts := make([]string, 0, len(e.Causes))
	for _, c := range e.Causes {
		parts = append(parts, c.Error())
	}
	return strings.Join(parts, "; ")
}

func orRoot(p string) string {
	if p == "" {
		return "(root)"
	}
	return p
}

// Validate checks v (as encoding/json decodes into any, with or without UseNumber) and
// returns nil, a *ValidationError whose Causes are the failing leaves, or jsonschema's
// error for a v that is not a JSON value.
func (s *Schema) Validate(v any) error {
	err := s.compiled.Validate(v)
	var ve *jsonschema.ValidationError
	if err == nil || !errors.As(err, &ve) {
		return err
	}
	var leaves []*ValidationError
	collectLeaves(v, ve, &leaves)
	// jsonschema visits properties in map order: sort, so that the same document always
	// gives the same failures in the same order.
	slices.SortStableFunc(leaves, func(a, b *ValidationError) int { return compareLeaves(v, a, b) })
	return &ValidationError{KeywordLocation: ve.KeywordLocation, InstanceLocation: ve.InstanceLocation, Message: ve.Message, Causes: leaves}
}

func collectLeaves(doc any, e *jsonschema.ValidationError, out *[]*ValidationError) {
	if len(e.Causes) == 0 {
		leaf := &ValidationError{KeywordLocation: e.KeywordLocation, InstanceLocation: instanceLocation(doc, e), Message: e.Message}
		if strings.HasSuffix(e.KeywordLocation, "/additionalProperties") {
			leaf.Message = refused(doc, leaf.InstanceLocation, e)
		}
		*out = append(*out, leaf)
		return
	}
	for _, c := range e.Causes {
		collectLeaves(doc, c, out)
	}
}

// refused words the failure of "additionalProperties": false at e as jsonschema does, but
// with the members it refuses sorted (jsonschema lists them in map order, and its quoting
// cannot always be read back): they are the members of the object at loc (e's instance
// location) that the schema at e's keyword does not declare.
func refused(doc any, loc string, e *jsonschema.ValidationError) string {
	id, ptr, _ := strings.Cut(e.AbsoluteKeywordLocation, "#")
	ptr, ok := strings.CutSuffix(pointer(ptr), "/additionalProperties")
	node, _ := resolve(rawDocs[id], ptr).(map[string]any)
	obj, isObj := resolve(doc, loc).(map[string]any)
	if !ok || node == nil || node["patternProperties"] != nil || !isObj {
		return e.Message
	}
	declared, _ := node["properties"].(map[string]any)
	var names []string
	for k := range obj {
		if _, ok := declared[k]; !ok {
			names = append(names, quote(k))
		}
	}
	slices.Sort(names)
	return "additionalProperties " + strings.Join(names, ", ") + " not allowed"
}

// quote single-quotes a name as jsonschema's messages do.
func quote(s string) string {
	s = strings.ReplaceAll(strconv.Quote(s), `\"`, `"`)
	return "'" + strings.ReplaceAll(s[1:len(s)-1], "'", `\'`) + "'"
}

// resolve follows a JSON pointer into v, or returns nil.
func resolve(v any, ptr string) any {
	for _, t := range split(ptr) {
		if v = jsondoc.Child(v, unescape(t)); v == nil {
			return nil
		}
	}
	return v
}

// instanceLocation is e's instance location as a plain JSON pointer. jsonschema (v5.3.1)
// leaves out the token of a member named "": when its location has fewer tokens than its
// keyword location steps into the instance, they are put back where the document has them.
func instanceLocation(doc any, e *jsonschema.ValidationError) string {
	loc := pointer(e.InstanceLocation)
	got, steps := split(loc), descents(e.KeywordLocation)
	if len(got) == len(steps) {
		return loc
	}
	if tokens, ok := place(doc, steps, got); ok && len(tokens) > 0 {
		return "/" + strings.Join(tokens, "/")
	}
	return loc
}

// A descent is one step of a keyword location into the instance: into the member name,
// into a member the location does not name (anyKey), into a member's name (keyName) or
// into an item.
type descent struct {
	kind byte
	name string
}

const (
	named   = 'n'
	anyKey  = 'k'
	keyName = 'p'
	item    = 'i'
)

// descents lists the steps into the instance that a keyword location takes.
func descents(keywordLocation string) []descent {
	t := split(keywordLocation)
	var out []descent
	for i := 0; i < len(t); i++ {
		last := i == len(t)-1
		switch t[i] {
		case "properties":
			if !last {
				i++
				out = append(out, descent{named, unescape(pointer(t[i]))})
			}
		case "patternProperties":
			i++
			out = append(out, descent{kind: anyKey})
		case "additionalProperties":
			if !last { // last, it is "additionalProperties": false that failed
				out = append(out, descent{kind: anyKey})
			}
		case "unevaluatedProperties":
			out = append(out, descent{kind: anyKey})
		case "propertyNames":
			out = append(out, descent{kind: keyName})
		case "items", "additionalItems", "unevaluatedItems", "contains":
			out = append(out, descent{kind: item})
		case "prefixItems":
			i++
			out = append(out, descent{kind: item})
		case "allOf", "anyOf", "oneOf", "dependentSchemas", "dependencies", "dependentRequired":
			i++ // an index or a name: the instance stays
		}
	}
	return out
}

// place matches the tokens jsonschema gave (got) to the steps of a keyword location,
// putting "" where a member named "" was stepped into, and returns the full tokens.
func place(doc any, steps []descent, got []string) ([]string, bool) {
	if len(steps) == 0 {
		return nil, len(got) == 0
	}
	step := steps[0]
	next := func(tok string, rest []string) ([]string, bool) {
		inner := resolve(doc, "/"+tok)
		if step.kind == keyName {
			inner = unescape(tok)
		}
		tail, ok := place(inner, steps[1:], rest)
		return append([]string{tok}, tail...), ok
	}
	obj, _ := doc.(map[string]any)
	switch step.kind {
	case named:
		if step.name == "" {
			return next("", got)
		}
		if len(got) > 0 && unescape(got[0]) == step.name {
			return next(got[0], got[1:])
		}
	case item:
		if len(got) > 0 {
			return next(got[0], got[1:])
		}
	default:
		if len(got) > 0 {
			if _, has := obj[unescape(got[0])]; has {
				if tokens, ok := next(got[0], got[1:]); ok {
					return tokens, true
				}
			}
		}
		if _, has := obj[""]; has {
			return next("", got)
		}
	}
	return nil, false
}

// pointer turns jsonschema's instance location, whose tokens are also percent-encoded
// (url.PathEscape), into a plain JSON pointer.
func pointer(loc string) string {
	if !strings.Contains(loc, "%") {
		return loc
	}
	tokens := strings.Split(loc, "/")
	for i, t := range tokens {
		if u, err := url.PathUnescape(t); err == nil {
			tokens[i] = u
		}
	}
	return strings.Join(tokens, "/")
}

// compareLeaves orders failures by instance location in document order (a value before its
// members, object members by name, array items by index), except that the failure of
// "additionalProperties": false, which names members, follows the failures of the members;
// then by keyword location.
func compareLeaves(doc any, a, b *ValidationError) int {
	c, nested := comparePointers(doc, a.InstanceLocation, b.InstanceLocation)
	if nested { // one location is the other or inside it
		pa, pb := closing(a), closing(b)
		switch {
		case pa && pb && c != 0:
			return -c // the inner object's closing failure first
		case pa != pb:
			if pa {
				return 1
			}
			return -1
		}
	}
	if c != 0 {
		return c
	}
	return strings.Compare(a.KeywordLocation, b.KeywordLocation)
}

func closing(e *ValidationError) bool {
	return strings.HasSuffix(e.KeywordLocation, "/additionalProperties")
}

// comparePointers orders two JSON pointers into doc in document order, and says whether
// one is the other or a location inside it.
func comparePointers(doc any, a, b string) (int, bool) {
	if a == b {
		return 0, true
	}
	ta, tb := split(a), split(b)
	for i := 0; i < len(ta) && i < len(tb); i++ {
		x, y := unescape(ta[i]), unescape(tb[i])
		if x == y {
			doc = jsondoc.Child(doc, x)
			continue
		}
		if _, isArray := doc.([]any); isArray {
			m, errM := strconv.Atoi(x)
			n, errN := strconv.Atoi(y)
			if errM == nil && errN == nil {
				return m - n, false
			}
		}
		return strings.Compare(x, y), false
	}
	return len(ta) - len(tb), true
}

func split(p string) []string {
	if p == "" {
		return nil
	}
	return strings.Split(strings.TrimPrefix(p, "/"), "/")
}

func unescape(t string) string {
	if !strings.Contains(t, "~") {
		return t
	}
	return strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
}

var (
	once     sync.Once
	versions map[string]*Version
	rawDocs  map[string]any // the embedded schemas as JSON values, by identifier
	loadErr  error
)

// load compiles the embedded schemas, on first use: a command that reads no package pays
// nothing for them.
func load() {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("%s is not embedded, and schemas are never fetched", u)
	}
	rawDocs = map[string]any{}
	for id, path := range map[string]string{PluginV1: "1.0.0/plugin.schema.json", MCPV1: "1.0.0/mcp.schema.json"} {
		var doc any
		data, err := files.ReadFile(path)
		if err == nil {
			err = json.Unmarshal(data, &doc)
		}
		if err == nil {
			rawDocs[id] = doc
			err = c.AddResource(id, bytes.NewReader(data))
		}
		if err != nil && loadErr == nil {
			loadErr = fmt.Errorf("schema %s: %w", path, err)
		}
	}
	compile := func(id string) *Schema {
		s, err := c.Compile(id)
		if err != nil {
			if loadErr == nil {
				loadErr = err
			}
			return nil
		}
		return wrap(s)
	}
	v := &Version{Name: "1.0.0", PluginID: PluginV1, MCPID: MCPV1, Servers: map[string]*Schema{}}
	v.Manifest = compile(PluginV1)
	v.MCPFile = compile(MCPV1)
	v.Servers["stdio"] = compile(MCPV1 + "#/$defs/stdioServer")
	v.Servers["streamable-http"] = compile(MCPV1 + "#/$defs/streamableHttpServer")
	v.Servers["sse"] = compile(MCPV1 + "#/$defs/sseServer")
	versions = map[string]*Version{PluginV1: v, MCPV1: v}
}

// ByID returns the supported version whose plugin or MCP schema identifier is id.
func ByID(id string) (*Version, bool) {
	once.Do(load)
	if loadErr != nil {
		panic(loadErr) // the embedded schemas are part of the build; a broken one is a build bug
	}
	v, ok := versions[id]
	return v, ok
}

// VersionOf returns the Agent Plugins version an identifier of the canonical form
// https://agent-plugins.org/schemas/VERSION/KIND.schema.json names, whether this build
// supports it or not, when KIND is kind ("plugin" or "mcp").
func VersionOf(id, kind string) (string, bool) {
	rest, ok := strings.CutPrefix(id, "https://agent-plugins.org/schemas/")
	if !ok {
		return "", false
	}
	version, ok := strings.CutSuffix(rest, "/"+kind+".schema.json")
	if !ok || version == "" || strings.Contains(version, "/") {
		return "", false
	}
	return version, true
}

// Supported lists the supported plugin schema identifiers, for messages.
func Supported() []string { return []string{PluginV1} }
