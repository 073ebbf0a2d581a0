package mcpconfig

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/plugboard/plugboard/backend/jsondoc"
	"github.com/plugboard/plugboard/schemas"
)

// portable judges the server entries of one portable mcp.json.
type portable struct {
	report
	root string
	ver  *schemas.Version
}

// variants are the portable transports, in the order messages list them.
var variants = []string{"stdio", "streamable-http", "sse"}

// server judges one entry of mcpServers on its own (spec §7.2.2 rule 3).
func (p portable) server(name string, raw any) Server {
	s := Server{Name: name}
	ptr := jsondoc.Pointer("mcpServers", name)
	obj, ok := raw.(map[string]any)
	if !ok {
		p.errorf(&s.Issues, CodeServerNotObject, ptr, "server %s is %s; it must be an object with a \"type\" field", q(name), jsondoc.Kind(raw))
		return s
	}
	fillDeclaration(&s, obj)
	typ := p.serverType(&s, obj, ptr)
	_, hasCmd := obj["command"]
	_, hasURL := obj["url"]
	s.Summary = summarise(obj, typ == "stdio" || (typ == "" && hasCmd), typ != "stdio" && (typ != "" || hasURL))
	if typ == "" {
		return s
	}
	s.Type = typ
	sch := p.ver.Servers[typ]
	p.fields(&s, obj, sch, ptr)
	p.schemaLeaves(&s, obj, sch, ptr)
	if typ == "stdio" {
		p.stdio(&s, obj, ptr)
	} else {
		r := remoteCheck{report: p.report, strict: true}
		r.url(&s, obj, ptr)
		r.headers(&s, obj, ptr)
	}
	return s
}

// serverType returns the entry's transport, or "" after reporting why there is none.
func (p portable) serverType(s *Server, obj map[string]any, ptr string) string {
	allowed := `"stdio", "streamable-http" or "sse"`
	raw, ok := obj["type"]
	if !ok {
		p.errorf(&s.Issues, CodeServerType, ptr, "server %s has no \"type\"; set it to %s", q(s.Name), allowed)
		return ""
	}
	typ, ok := raw.(string)
	if !ok {
		p.errorf(&s.Issues, CodeServerType, ptr+"/type", "server %s: \"type\" is %s; it must be one of %s", q(s.Name), jsondoc.Kind(raw), allowed)
		return ""
	}
	if _, known := p.ver.Servers[typ]; !known {
		hint := ""
		if typ == "http" {
			hint = ` ("http" is the Claude Code name; the portable one is "streamable-http")`
		}
		p.errorf(&s.Issues, CodeServerType, ptr+"/type", "server %s: unknown type %s%s; use %s", q(s.Name), q(typ), hint, allowed)
		return ""
	}
	return typ
}

// fields reports members the variant does not have and required members that are missing.
// The variant's members come from its schema, so the closed variants of spec §7.2.1 and
// the schema cannot drift apart.
func (p portable) fields(s *Server, obj map[string]any, sch *schemas.Schema, ptr string) {
	for _, k := range sortedKeys(obj) {
		if _, ok := sch.Properties[k]; ok {
			continue
		}
		var owners []string
		for _, v := range variants {
			if _, ok := p.ver.Servers[v].Properties[k]; ok {
				owners = append(owners, q(v))
			}
		}
		if len(owners) > 0 {
			noun := "variant"
			if len(owners) > 1 {
				noun = "variants"
			}
			p.errorf(&s.Issues, CodeServerField, ptr+jsondoc.Pointer(k), "server %s: %s belongs to the %s %s, not to %s; remove it or change \"type\"",
				q(s.Name), q(k), strings.Join(owners, " and "), noun, q(s.Type))
			continue
		}
		p.errorf(&s.Issues, CodeServerField, ptr+jsondoc.Pointer(k), "server %s: %s is not a field of a server of type %s; allowed: %s",
			q(s.Name), q(k), q(s.Type), strings.Join(sortedKeys(sch.Properties), ", "))
	}
	for _, k := range sch.Required {
		if _, ok := obj[k]; !ok {
			p.errorf(&s.Issues, CodeServerRequired, ptr, "server %s: a server of type %s needs %s", q(s.Name), q(s.Type), q(k))
		}
	}
}

// schemaLeaves validates the entry against its variant's schema and turns each failing
// leaf into a message of our own. Leaves that fields, stdio checks or env checks already
// report more precisely are dropped. jsonschema's own messages are never shown: some of
// them quote instance values.
func (p portable) schemaLeaves(s *Server, obj map[string]any, sch *schemas.Schema, ptr string) {
	for _, leaf := range reportedLeaves(obj, sch) {
		kw := leaf.KeywordLocation[strings.LastIndexByte(leaf.KeywordLocation, '/')+1:]
		loc := leaf.InstanceLocation
		at := ptr + loc
		if name, ok := strings.CutPrefix(loc, "/headers/"); ok {
			at = headerPointer(ptr, strings.ReplaceAll(strings.ReplaceAll(name, "~1", "/"), "~0", "~"))
		}
		p.errorf(&s.Issues, CodeServerSchema, at, "server %s: %s", q(s.Name), leafMessage(obj, loc, kw))
	}
}

// reportedLeaves validates obj against sch and returns the failing leaves, sorted by
// instance location, without those that fields, serverType, the cwd form check and the
// env name check report more precisely.
func reportedLeaves(obj map[string]any, sch *schemas.Schema) []*schemas.ValidationError {
	err := sch.Validate(obj)
	var ve *schemas.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	var leaves, out []*schemas.ValidationError
	collectLeaves(ve, &leaves)
	sort.SliceStable(leaves, func(a, b int) bool { return leaves[a].InstanceLocation < leaves[b].InstanceLocation })
	for _, leaf := range leaves {
		kw := leaf.KeywordLocation[strings.LastIndexByte(leaf.KeywordLocation, '/')+1:]
		switch {
		case kw == "additionalProperties" && leaf.InstanceLocation == "", kw == "required", kw == "const":
			continue // fields() and serverType()
		case kw == "pattern" && leaf.InstanceLocation == "/cwd":
			continue // cwdForm()
		case strings.Contains(leaf.KeywordLocation, "/propertyNames/"):
			continue // env()
		}
		out = append(out, leaf)
	}
	return out
}

func collectLeaves(e *schemas.ValidationError, out *[]*schemas.ValidationError) {
	if len(e.Causes) == 0 {
		*out = append(*out, e)
		return
	}
	for _, c := range e.Causes {
		collectLeaves(c, out)
	}
}

// leafMessage words one schema failure from the instance location and the keyword.
func leafMessage(obj map[string]any, loc, kw string) string {
	tokens := strings.Split(strings.TrimPrefix(loc, "/"), "/")
	for i, t := range tokens {
		tokens[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	field := tokens[0]
	what := q(field)
	want := fieldKinds[field]
	if len(tokens) == 2 {
		switch field {
		case "args":
			what = fmt.Sprintf("args[%s]", tokens[1])
		case "env":
			what = fmt.Sprintf("the value of env %s", q(tokens[1]))
		case "headers":
			what = "the value of " + headerLabel(tokens[1])
		}
		want = "a string"
	}
	switch kw {
	case "type":
		return fmt.Sprintf("%s must be %s, not %s", what, want, jsondoc.Kind(lookup(obj, tokens)))
	case "minLength":
		return fmt.Sprintf("%s must not be empty", what)
	}
	return fmt.Sprintf("%s does not satisfy the schema (keyword %s)", what, q(kw))
}

// fieldKinds says what each server field holds, for messages.
var fieldKinds = map[string]string{
	"type": "a string", "command": "a string", "cwd": "a string", "url": "a string", "envFile": "a string",
	"args": "an array of strings", "env": "an object of strings", "headers": "an object of strings",
}

// lookup follows decoded tokens into v.
func lookup(v any, tokens []string) any {
	for _, t := range tokens {
		if v = jsondoc.Child(v, t); v == nil {
			return nil
		}
	}
	return v
}
