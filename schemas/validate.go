package schemas

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Schema is one compiled schema of the JSON Schema 2020-12 subset Plugboard's own schemas
// use: type, const, enum, minLength, maxLength, pattern, properties, required,
// additionalProperties, propertyNames, items, allOf, oneOf, not and $ref to a $defs entry
// of the same document. Compiling a schema that uses any other keyword is an error, so a
// schema cannot lean on a rule this validator would skip. Annotations ($schema, $id,
// title, description, $comment, examples, default) are ignored.
//
// The subset replaces a general validator whose package initialisation alone (compiling
// its meta-schemas) took 5 ms of every command's start; checked against a general
// validator by FuzzValidatorAgrees.
type Schema struct {
	Properties map[string]*Schema
	Required   []string

	loc           string // keyword location of this schema from the one compiled
	types         []string
	hasConst      bool
	constVal      any
	enum          []any
	minLen        int                   // -1: none
	maxLen        int                   // -1: none
	pattern       func() *regexp.Regexp // compiled on first use: a valid document needs no regexp
	patternSrc    string
	additional    *Schema // nil: any; see noAdditional
	noAdditional  bool    // additionalProperties: false
	propertyNames *Schema
	items         *Schema
	allOf, oneOf  []*Schema
	not           *Schema
	ref           *Schema
}

// ValidationError is one failure: the keyword that failed (its location through the
// schema, ending in the keyword), the instance location (a JSON pointer) and a message
// that never quotes the instance's values. The error Validate returns has the failures
// as Causes; a failure of allOf, oneOf or items has its own.
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

// Validate checks v (as encoding/json decodes into any: map[string]any, []any, string,
// float64, bool, nil) and returns nil or a *ValidationError whose Causes are the failures.
func (s *Schema) Validate(v any) error {
	var out []*ValidationError
	s.validate(v, "", &out)
	if len(out) == 0 {
		return nil
	}
	return &ValidationError{KeywordLocation: s.loc, Message: "does not validate", Causes: out}
}

func (s *Schema) fail(out *[]*ValidationError, kw, inst, format string, args ...any) {
	*out = append(*out, &ValidationError{KeywordLocation: s.loc + "/" + kw, InstanceLocation: inst, Message: fmt.Sprintf(format, args...)})
}

func (s *Schema) validate(v any, inst string, out *[]*ValidationError) {
	if s.ref != nil {
		s.ref.validate(v, inst, out)
	}
	if len(s.types) > 0 && !typeIn(v, s.types) {
		s.fail(out, "type", inst, "expected %s, but got %s", strings.Join(s.types, " or "), typeOf(v))
		return // the other keywords of a mistyped value say nothing new
	}
	if s.hasConst && !equal(v, s.constVal) {
		s.fail(out, "const", inst, "value must be %s", show(s.constVal))
	}
	if s.enum != nil {
		found := false
		for _, e := range s.enum {
			if equal(v, e) {
				found = true
				break
			}
		}
		if !found {
			vals := make([]string, len(s.enum))
			for i, e := range s.enum {
				vals[i] = show(e)
			}
			s.fail(out, "enum", inst, "value must be one of %s", strings.Join(vals, ", "))
		}
	}
	if str, ok := v.(string); ok {
		n := utf8.RuneCountInString(str)
		if s.minLen >= 0 && n < s.minLen {
			s.fail(out, "minLength", inst, "length must be >= %d, but got %d", s.minLen, n)
		}
		if s.maxLen >= 0 && n > s.maxLen {
			s.fail(out, "maxLength", inst, "length must be <= %d, but got %d", s.maxLen, n)
		}
		if s.pattern != nil && !s.pattern().MatchString(str) {
			s.fail(out, "pattern", inst, "does not match pattern %s", strconv.Quote(s.patternSrc))
		}
	}
	if obj, ok := v.(map[string]any); ok {
		s.validateObject(obj, inst, out)
	}
	if arr, ok := v.([]any); ok && s.items != nil {
		for i, x := range arr {
			s.items.validate(x, inst+"/"+strconv.Itoa(i), out)
		}
	}
	for _, sub := range s.allOf {
		sub.validate(v, inst, out)
	}
	if s.oneOf != nil {
		var branches []*ValidationError
		matched := 0
		for _, sub := range s.oneOf {
			var errs []*ValidationError
			sub.validate(v, inst, &errs)
			if len(errs) == 0 {
				matched++
			}
			branches = append(branches, errs...)
		}
		switch {
		case matched == 0:
			*out = append(*out, &ValidationError{KeywordLocation: s.loc + "/oneOf", InstanceLocation: inst,
				Message: "matches none of the oneOf schemas", Causes: branches})
		case matched > 1:
			s.fail(out, "oneOf", inst, "matches %d of the oneOf schemas, not exactly one", matched)
		}
	}
	if s.not != nil {
		var errs []*ValidationError
		s.not.validate(v, inst, &errs)
		if len(errs) == 0 {
			s.fail(out, "not", inst, "must not match the schema under \"not\"")
		}
	}
}

func (s *Schema) validateObject(obj map[string]any, inst string, out *[]*ValidationError) {
	var missing []string
	for _, k := range s.Required {
		if _, ok := obj[k]; !ok {
			missing = append(missing, "'"+k+"'")
		}
	}
	if len(missing) > 0 {
		s.fail(out, "required", inst, "missing properties: %s", strings.Join(missing, ", "))
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys) // failures in a stable order
	var extra []string
	for _, k := range keys {
		at := inst + "/" + escapePointer(k)
		if s.propertyNames != nil {
			s.propertyNames.validate(k, inst, out)
		}
		if p, ok := s.Properties[k]; ok {
			p.validate(obj[k], at, out)
			continue
		}
		switch {
		case s.noAdditional:
			extra = append(extra, "'"+k+"'")
		case s.additional != nil:
			s.additional.validate(obj[k], at, out)
		}
	}
	if len(extra) > 0 {
		s.fail(out, "additionalProperties", inst, "additionalProperties %s not allowed", strings.Join(extra, ", "))
	}
}

func escapePointer(k string) string {
	if !strings.ContainsAny(k, "~/") {
		return k
	}
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

func typeOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		return "number"
	case json.Number:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	default:
		return fmt.Sprintf("%T", x)
	}
}

func typeIn(v any, types []string) bool {
	got := typeOf(v)
	for _, t := range types {
		if t == got {
			return true
		}
		if t == "integer" && got == "number" {
			if f, ok := v.(float64); ok && f == math.Trunc(f) && !math.IsInf(f, 0) {
				return true
			}
		}
	}
	return false
}

func equal(a, b any) bool { return reflect.DeepEqual(a, b) }

func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// compile builds the schema at the JSON pointer ptr ("" the root) of doc.
type compiler struct {
	doc  map[string]any
	done map[string]*Schema
}

func compileDoc(data []byte) (*compiler, error) {
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	return &compiler{doc: doc, done: map[string]*Schema{}}, nil
}

// at compiles the schema at pointer ("" or "/$defs/name"), its keyword locations from loc.
func (c *compiler) at(pointer, loc string) (*Schema, error) {
	node := any(c.doc)
	for _, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		if tok == "" {
			continue
		}
		m, ok := node.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("no schema at #%s", pointer)
		}
		if node, ok = m[strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")]; !ok {
			return nil, fmt.Errorf("no schema at #%s", pointer)
		}
	}
	return c.compile(node, loc)
}

var annotations = map[string]bool{"$schema": true, "$id": true, "title": true, "description": true, "$comment": true,
	"examples": true, "default": true, "$defs": true}

func (c *compiler) compile(node any, loc string) (*Schema, error) {
	m, ok := node.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: a schema must be an object", orRoot(loc))
	}
	s := &Schema{loc: loc, minLen: -1, maxLen: -1}
	sub := func(kw string, v any) (*Schema, error) { return c.compile(v, loc+"/"+kw) }
	list := func(kw string, v any) ([]*Schema, error) {
		arr, ok := v.([]any)
		if !ok || len(arr) == 0 {
			return nil, fmt.Errorf("%s/%s: must be a non-empty array of schemas", loc, kw)
		}
		out := make([]*Schema, len(arr))
		for i, x := range arr {
			var err error
			if out[i], err = c.compile(x, loc+"/"+kw+"/"+strconv.Itoa(i)); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	length := func(kw string, v any) (int, error) {
		f, ok := v.(float64)
		if !ok || f < 0 || f != math.Trunc(f) {
			return 0, fmt.Errorf("%s/%s: must be a non-negative integer", loc, kw)
		}
		return int(f), nil
	}
	var err error
	for kw, v := range m {
		switch kw {
		case "type":
			switch t := v.(type) {
			case string:
				s.types = []string{t}
			case []any:
				for _, x := range t {
					str, _ := x.(string)
					s.types = append(s.types, str)
				}
			}
			for _, t := range s.types {
				if !strings.Contains(" null boolean object array number integer string ", " "+t+" ") {
					return nil, fmt.Errorf("%s/type: unknown type %q", loc, t)
				}
			}
		case "const":
			s.hasConst, s.constVal = true, v
		case "enum":
			arr, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%s/enum: must be an array", loc)
			}
			s.enum = arr
		case "minLength":
			s.minLen, err = length(kw, v)
		case "maxLength":
			s.maxLen, err = length(kw, v)
		case "pattern":
			p, _ := v.(string)
			// The syntax is checked now, so a broken schema fails to compile; the
			// matcher is built when a value first reaches the keyword.
			if _, err = syntax.Parse(p, syntax.Perl); err == nil {
				s.patternSrc = p
				s.pattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(p) })
			}
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s/properties: must be an object", loc)
			}
			s.Properties = make(map[string]*Schema, len(props))
			for k, p := range props {
				if s.Properties[k], err = c.compile(p, loc+"/properties/"+escapePointer(k)); err != nil {
					return nil, err
				}
			}
		case "required":
			arr, _ := v.([]any)
			for _, x := range arr {
				str, _ := x.(string)
				s.Required = append(s.Required, str)
			}
		case "additionalProperties":
			if b, ok := v.(bool); ok {
				s.noAdditional = !b
			} else {
				s.additional, err = sub(kw, v)
			}
		case "propertyNames":
			s.propertyNames, err = sub(kw, v)
		case "items":
			s.items, err = sub(kw, v)
		case "not":
			s.not, err = sub(kw, v)
		case "allOf":
			s.allOf, err = list(kw, v)
		case "oneOf":
			s.oneOf, err = list(kw, v)
		case "$ref":
			ref, _ := v.(string)
			ptr, ok := strings.CutPrefix(ref, "#")
			if !ok {
				return nil, fmt.Errorf("%s/$ref: only references into the same document (#/...) are supported, not %q", loc, ref)
			}
			if done := c.done[ptr]; done != nil {
				s.ref = done
			} else {
				// Compiled once per target; a reference cycle is not allowed in these schemas.
				c.done[ptr] = &Schema{}
				if s.ref, err = c.at(ptr, loc+"/$ref"); err == nil {
					*c.done[ptr] = *s.ref
					s.ref = c.done[ptr]
				}
			}
		default:
			if !annotations[kw] {
				return nil, fmt.Errorf("%s: keyword %q is not supported by Plugboard's schema validator", orRoot(loc), kw)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s/%s: %w", loc, kw, err)
		}
	}
	return s, nil
}
