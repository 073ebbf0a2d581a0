// Command tsgen writes frontend/src/models.gen.ts: the TypeScript types of the JSON the
// page receives from the Go service (app.Page) and sends to it, made by reflection over
// the argument and result types of Page's methods, so that a Go field renamed, removed or
// made optional shows up as a type error in the page (npm run typecheck) instead of
// drifting silently. TestModelsUpToDate fails when the committed file is not what this
// program writes now.
//
// The rules are encoding/json's: a field's name is its json tag's (or the Go name), "-"
// and unexported fields are left out, the fields of an embedded struct are promoted (those
// of an embedded pointer are optional: a nil one sends none), omitempty makes a field that
// json can omit optional (a struct is never omitted; omitzero always can be), and a
// pointer that is not omitted may be null (except setOnSuccess). time.Time is a string,
// []byte a (base64) string, a map a Record, a slice or array an array, any is unknown. A
// nil slice or map is sent as null and a list may hold nil pointers, but neither is
// typed so: the Go side is trusted to send [] and {} where the page relies on them. A
// named string type whose package declares typed constants of it is the union of their
// values. A type the page only sends (an argument's, never in an answer) has every member
// optional: json.Unmarshal takes a missing one as its zero value. A method's answer is
// never null (it answers a value or fails). Types get their Go names, or the one names
// gives them; doc comments come from the Go source.
//
//go:generate go run . -o ../../frontend/src/models.gen.ts
package main

import (
	"bytes"
	"encoding"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/plugboard/plugboard/app"
	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/clientask"
	"github.com/plugboard/plugboard/backend/reload"
	"github.com/plugboard/plugboard/backend/store"
)

const module = "github.com/plugboard/plugboard"

// extraRoots are types the page receives that are no method's result: the error object
// every method may fail with and the payloads of the events that are Go types (the
// others are maps the page types by hand, in types.ts).
var extraRoots = []reflect.Type{
	reflect.TypeFor[app.Error](),          // the error object of a failed call
	reflect.TypeFor[reload.Reload](),      // the catalog:reloaded event
	reflect.TypeFor[reload.State](),       // the watch:state event
	reflect.TypeFor[clientask.Progress](), // the clients:progress event
}

// names gives a TypeScript name to Go types whose own name another reached type has, or
// says too little on its own (Result, Info, Set; the page's names where it had them). The
// program fails on a name used twice, naming both, so a new clash is settled here.
var names = map[string]string{
	module + "/app.Error":                      "ApiErrorBody",
	module + "/backend/activity.Report":        "ActivityReport",
	module + "/backend/activity.Unused":        "UnusedSkill",
	module + "/backend/assign.Ack":             "AckServer",
	module + "/backend/assign.Change":          "AssignChange",
	module + "/backend/assign.Entry":           "TargetEntry",
	module + "/backend/assign.Outcome":         "AssignOutcome",
	module + "/backend/budget.MCP":             "BudgetMCP",
	module + "/backend/budget.MCPServer":       "BudgetServer",
	module + "/backend/budget.Report":          "BudgetReport",
	module + "/backend/budget.Skills":          "BudgetSkills",
	module + "/backend/catalog.List":           "CatalogList",
	module + "/backend/clientask.Answer":       "ClientAnswer",
	module + "/backend/clientask.Progress":     "ClientsProgress",
	module + "/backend/clientask.Result":       "ClientAnswerResult",
	module + "/backend/installed.Client":       "InstalledClient",
	module + "/backend/clients.Component":      "ClientComponent",
	module + "/backend/clients.Dropped":        "ClientDropped",
	module + "/backend/clients.Set":            "ClientVerdicts",
	module + "/backend/clients.Verdict":        "ClientVerdict",
	module + "/backend/devlink.Result":         "LinkResult",
	module + "/backend/install.Changes":        "UpdateChanges",
	module + "/backend/install.Delta":          "NameDelta",
	module + "/backend/install.Result":         "InstallOutcome",
	module + "/backend/install.Server":         "InstallServer",
	module + "/backend/install.Uninstalled":    "UninstallResult",
	module + "/backend/install.Update":         "PluginUpdate",
	module + "/backend/install.Version":        "PluginVersion",
	module + "/backend/catalog.Counts":         "IssueCounts",
	module + "/backend/marketplace.AddResult":  "AddedMarketplace",
	module + "/backend/marketplace.Listed":     "Marketplace",
	module + "/backend/marketplace.ListedItem": "MarketplacePlugin",
	module + "/backend/marketplace.Source":     "MarketplaceSource",
	module + "/backend/mcpconfig.Config":       "McpConfig",
	module + "/backend/mcpconfig.Server":       "McpServer",
	module + "/backend/mcpconfig.Summary":      "McpSummary",
	module + "/backend/mcphealth.Info":         "ServerInfo",
	module + "/backend/mcphealth.Result":       "MCPHealth",
	module + "/backend/mcphealth.Tool":         "MCPTool",
	module + "/backend/reload.Reload":          "ReloadedEvent",
	module + "/backend/reload.State":           "WatchState",
	module + "/backend/runtime.Grant":          "Grant",
	module + "/backend/runtime.Refusal":        "GrantRefusal",
	module + "/backend/skill.Skill":            "PluginSkill",
	module + "/backend/skill.Source":           "SkillSource",
	module + "/backend/snapshot.Info":          "SnapshotInfo",
	module + "/backend/store.Ack":              "HistoryAck",
	module + "/backend/try.Invocation":         "TrySkill",
	module + "/backend/try.Result":             "TryResult",
	module + "/backend/try.ToolCall":           "TryToolCall",
	module + "/backend/version.Info":           "VersionInfo",
}

// setOnSuccess are pointer fields of an answer that are never nil when the method succeeds
// (app/launch.go and budget.go set them from a call that returns a value or an error), so
// they are not "| null". Any other pointer that is not omitted may be null.
var setOnSuccess = map[string]bool{
	"app.LaunchResult.Plan":  true,
	"app.BudgetState.Report": true,
}

// custom are the types with their own MarshalJSON. A type not listed here that has one
// stops the program: reflection cannot see what it writes.
var custom = map[reflect.Type]struct {
	ts  string // "" : the reflected shape is what it writes
	doc string
}{
	// It writes the fields as they are, with [] for a nil list.
	reflect.TypeFor[store.HistoryEntry](): {},
	// It writes the whole catalog for a small home, else a part ("part": "list") of the
	// same shape with each plugin cut to what a row of the Plugins list shows.
	reflect.TypeFor[catalog.List](): {ts: "Catalog & { part?: 'list' }",
		doc: "CatalogList's answer: the whole catalog of a small home, else its list part (\"part\": \"list\"),\nthe same shape with each plugin cut to what a row of the Plugins list shows (catalog.List)."},
}

func main() {
	out := flag.String("o", "", "write here (default: standard output)")
	flag.Parse()
	b, err := Generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "tsgen:", err)
		os.Exit(1)
	}
	if *out == "" {
		os.Stdout.Write(b)
		return
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "tsgen:", err)
		os.Exit(1)
	}
}

// Generate returns the content of models.gen.ts.
func Generate() ([]byte, error) {
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	g := &gen{root: root, docs: map[string]*pkgDocs{}, named: map[reflect.Type]string{}, byName: map[string]reflect.Type{},
		out: map[reflect.Type]bool{}, in: map[reflect.Type]bool{}, setUsed: map[string]bool{}}
	page := reflect.TypeFor[*app.Page]()
	type method struct {
		name   string
		result reflect.Type
	}
	var methods []method
	for i := range page.NumMethod() {
		m := page.Method(i)
		ft := m.Type
		errType := reflect.TypeFor[error]()
		if ft.NumOut() == 0 || ft.NumOut() > 2 || ft.Out(ft.NumOut()-1) != errType {
			return nil, fmt.Errorf("Page.%s is %v: a method of the page returns (T, error) or error", m.Name, ft)
		}
		pm := method{name: m.Name} // result nil: null
		if ft.NumOut() == 2 {
			pm.result = ft.Out(0)
		}
		methods = append(methods, pm)
	}
	// What the page receives first, then what it only sends (see sendOnly).
	for _, m := range methods {
		if m.result != nil {
			g.reach(m.result, g.out)
		}
	}
	for _, t := range extraRoots {
		g.reach(t, g.out)
	}
	for _, m := range methods {
		ft, _ := page.MethodByName(m.name)
		for j := 1; j < ft.Type.NumIn(); j++ {
			g.reach(ft.Type.In(j), g.in)
		}
	}
	if g.err != nil {
		return nil, g.err
	}
	if len(g.clashes) > 0 {
		return nil, fmt.Errorf("two Go types would have one TypeScript name (give one a name in names, app/tsgen):\n  %s", strings.Join(g.clashes, "\n  "))
	}
	svc, err := g.pkg(reflect.TypeFor[app.Service]().PkgPath())
	if err != nil {
		return nil, err
	}

	var b bytes.Buffer
	b.WriteString(`// Code generated by go generate ./app/tsgen; DO NOT EDIT.
// The JSON the Go service (app.Page, docs/api.md) sends the page and takes from it, as TypeScript
// types made from the Go types by reflection (app/tsgen says the rules). A Go change that renames,
// removes or changes a field changes this file; TestModelsUpToDate (app/tsgen) fails until
// ` + "`go generate ./app/tsgen`" + ` is run, and then npm run typecheck shows the page code it breaks.
// types.ts gives the page its names for these types and adds the shapes no Go type has.
`)
	// The declarations, sorted by name (the order does not move when Go files do).
	var order []string
	for n := range g.byName {
		order = append(order, n)
	}
	sort.Strings(order)
	for _, n := range order {
		t := g.byName[n]
		b.WriteString("\n")
		if err := g.decl(&b, n, t); err != nil {
			return nil, err
		}
	}
	if g.err != nil {
		return nil, g.err
	}

	for f := range setOnSuccess {
		if !g.setUsed[f] {
			return nil, fmt.Errorf("setOnSuccess names %s, which no type the page receives has (app/tsgen)", f)
		}
	}

	b.WriteString("\n/**\n * The page's methods (app.Page): the arguments each takes and what it answers (over HTTP\n * `POST /api/<Method>` with the arguments as a JSON array; bridge.ts calls them).\n */\nexport interface PageMethods {\n")
	for _, m := range methods {
		doc := svc.funcs[m.name]
		writeDoc(&b, "  ", doc)
		names := svc.params[m.name]
		ft, _ := page.MethodByName(m.name)
		var ps []string
		for j := 1; j < ft.Type.NumIn(); j++ {
			name := "arg" + strconv.Itoa(j)
			if j-1 < len(names) {
				name = names[j-1]
			}
			ps = append(ps, name+": "+g.ts(ft.Type.In(j), "  ", nil, nil))
		}
		result := "null"
		if m.result != nil {
			// A method answers its value or fails: a pointer it answers is never nil.
			rt := m.result
			if rt.Kind() == reflect.Pointer {
				rt = rt.Elem()
			}
			result = g.ts(rt, "  ", nil, nil)
		}
		line := "  " + m.name + "(" + strings.Join(ps, ", ") + "): " + result + ";\n"
		if len(line) > 121 { // prettier's width (120) and the newline
			line = "  " + m.name + "(\n    " + strings.Join(ps, ",\n    ") + ",\n  ): " + result + ";\n"
		}
		b.WriteString(line)
	}
	b.WriteString("}\n")
	return b.Bytes(), g.err
}

type gen struct {
	root   string
	docs   map[string]*pkgDocs     // by package path
	named  map[reflect.Type]string // a declared type's TypeScript name
	byName map[string]reflect.Type
	err    error
	// clashes are the names two Go types would have
	clashes []string
	// out and in are the types the page receives and those it sends: a type only sent
	// has every member optional (see sendOnly)
	out, in map[reflect.Type]bool
	// sendOnly is set while the members of a type the page only sends are written:
	// json.Unmarshal takes a missing member as its zero value, so none is required.
	sendOnly bool
	setUsed  map[string]bool // the entries of setOnSuccess met
}

func (g *gen) fail(format string, args ...any) {
	if g.err == nil {
		g.err = fmt.Errorf(format, args...)
	}
}

var (
	timeType      = reflect.TypeFor[time.Time]()
	marshaler     = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// declared reports whether t gets a declaration of its own (a named struct, a named string
// type with constants, a type with its own MarshalJSON), rather than being written in place.
func (g *gen) declared(t reflect.Type) bool {
	if t.Name() == "" || t.PkgPath() == "" || t == timeType {
		return false
	}
	if _, ok := custom[t]; ok {
		return true
	}
	switch t.Kind() {
	case reflect.Struct:
		return true
	case reflect.String:
		return len(g.consts(t)) > 0
	}
	return false
}

// reach names every type t leads to that gets a declaration, and marks them in seen.
func (g *gen) reach(t reflect.Type, seen map[reflect.Type]bool) {
	if g.err != nil || seen[t] {
		return
	}
	seen[t] = true
	if t != timeType && t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		if _, ok := custom[t]; !ok && (t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler)) {
			g.fail("%v has its own MarshalJSON: add it to custom in app/tsgen with what it writes", t)
			return
		}
		if t.Kind() != reflect.String && (t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler)) {
			g.fail("%v has its own MarshalText: teach app/tsgen what it writes", t)
			return
		}
	}
	if g.declared(t) {
		full := t.PkgPath() + "." + t.Name()
		name, ok := names[full]
		if !ok {
			name = t.Name()
		}
		if other, ok := g.byName[name]; ok && other != t {
			g.clashes = append(g.clashes, fmt.Sprintf("%s: %s.%s and %s", name, other.PkgPath(), other.Name(), full))
		} else {
			g.byName[name] = t
		}
		g.named[t] = name
		if c, ok := custom[t]; ok && c.ts != "" {
			if t == reflect.TypeFor[catalog.List]() {
				g.reach(reflect.TypeFor[catalog.Catalog](), seen)
			}
			return
		}
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		g.reach(t.Elem(), seen)
	case reflect.Map:
		g.reach(t.Key(), seen)
		g.reach(t.Elem(), seen)
	case reflect.Struct:
		if t == timeType {
			return
		}
		for _, f := range g.fields(t) {
			g.reach(f.t, seen)
		}
	case reflect.Func, reflect.Chan, reflect.Complex64, reflect.Complex128, reflect.UnsafePointer:
		g.fail("%v cannot be sent as JSON", t)
	}
}

// field is one JSON member of a struct.
type field struct {
	name     string
	t        reflect.Type
	optional bool   // json may leave it out
	omitted  bool   // by omitempty or omitzero when it is nil
	str      bool   // the ,string option
	goName   string // for its doc comment
	owner    reflect.Type
}

// fields lists the JSON members of struct t in encoding/json's order, promoting those of
// embedded structs by its rules (the shallowest wins; at one depth a tagged one wins; else
// none).
func (g *gen) fields(t reflect.Type) []field {
	type cand struct {
		field
		depth  int
		tagged bool
		index  []int
	}
	var all []cand
	var walk func(t reflect.Type, depth int, index []int, viaPointer bool, seen map[reflect.Type]bool)
	walk = func(t reflect.Type, depth int, index []int, viaPointer bool, seen map[reflect.Type]bool) {
		if seen[t] {
			return
		}
		seen[t] = true
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			ft := sf.Type
			if sf.Anonymous {
				et := ft
				if et.Kind() == reflect.Pointer {
					et = et.Elem()
				}
				if !sf.IsExported() && et.Kind() != reflect.Struct {
					continue
				}
				if name == "" && et.Kind() == reflect.Struct {
					walk(et, depth+1, append(slices.Clone(index), i), viaPointer || ft.Kind() == reflect.Pointer, seen)
					continue
				}
			} else if !sf.IsExported() {
				continue
			}
			tagged := name != ""
			if name == "" {
				name = sf.Name
			}
			optional := viaPointer
			hasOpt := func(o string) bool { return slices.Contains(strings.Split(opts, ","), o) }
			if hasOpt("omitzero") {
				optional = true
			}
			if hasOpt("omitempty") {
				switch ft.Kind() {
				case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
					reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
					reflect.Float32, reflect.Float64, reflect.String, reflect.Slice, reflect.Map,
					reflect.Pointer, reflect.Interface:
					optional = true
				case reflect.Array:
					optional = optional || ft.Len() == 0
				}
			}
			str := hasOpt("string")
			omitted := hasOpt("omitempty") || hasOpt("omitzero")
			all = append(all, cand{field: field{name: name, t: ft, optional: optional, omitted: omitted, str: str, goName: sf.Name, owner: t},
				depth: depth, tagged: tagged, index: append(slices.Clone(index), i)})
		}
		delete(seen, t)
	}
	walk(t, 0, nil, false, map[reflect.Type]bool{})

	byName := map[string][]cand{}
	for _, c := range all {
		byName[c.name] = append(byName[c.name], c)
	}
	var kept []cand
	for _, cs := range byName {
		shallowest := cs[0].depth
		for _, c := range cs {
			shallowest = min(shallowest, c.depth)
		}
		var at, tagged []cand
		for _, c := range cs {
			if c.depth == shallowest {
				at = append(at, c)
				if c.tagged {
					tagged = append(tagged, c)
				}
			}
		}
		switch {
		case len(at) == 1:
			kept = append(kept, at[0])
		case len(tagged) == 1:
			kept = append(kept, tagged[0])
		}
	}
	sort.Slice(kept, func(i, j int) bool { return slices.Compare(kept[i].index, kept[j].index) < 0 })
	out := make([]field, len(kept))
	for i, c := range kept {
		out[i] = c.field
	}
	return out
}

// ts is the TypeScript type of t, written in place; indent is the indentation of the line
// it is on (for an anonymous struct's members), and owner and path say where an anonymous
// struct is declared (the named type and the fields that lead to it), for its docs.
func (g *gen) ts(t reflect.Type, indent string, owner reflect.Type, path []string) string {
	if name, ok := g.named[t]; ok {
		return name
	}
	if c, ok := custom[t]; ok && c.ts != "" {
		return c.ts
	}
	switch t {
	case timeType:
		return "string"
	case reflect.TypeFor[[]byte]():
		return "string"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return "number"
	case reflect.String:
		return "string"
	case reflect.Interface:
		return "unknown"
	case reflect.Pointer:
		return g.ts(t.Elem(), indent, owner, path) + " | null"
	case reflect.Slice, reflect.Array:
		e := g.ts(notNil(t.Elem()), indent, owner, path)
		if strings.Contains(e, " | ") && !strings.HasPrefix(e, "{") {
			e = "(" + e + ")"
		}
		return e + "[]"
	case reflect.Map:
		return "Record<string, " + g.ts(notNil(t.Elem()), indent, owner, path) + ">"
	case reflect.Struct:
		var b strings.Builder
		b.WriteString("{\n")
		g.members(&b, t, indent+"  ", owner, path)
		b.WriteString(indent + "}")
		return b.String()
	}
	g.fail("no TypeScript for %v", t)
	return "unknown"
}

// members writes the members of struct t, each on its own line at indent. For an
// anonymous t, owner is the named type that declares it and path the fields that lead to
// it; for a named t, owner is t and path empty.
func (g *gen) members(b *strings.Builder, t reflect.Type, indent string, owner reflect.Type, path []string) {
	for _, f := range g.fields(t) {
		// The doc: of the named struct that declares the field (an embedded one for a
		// promoted field), or found through owner and path in an anonymous one.
		o, fpath := f.owner, []string{f.goName}
		if o.Name() == "" {
			o, fpath = owner, append(slices.Clone(path), f.goName)
		}
		var doc string
		if d := g.docsOf(o); d != nil {
			doc = d.fields[o.Name()+"."+strings.Join(fpath, ".")]
		}
		writeDoc(b, indent, doc)
		ft := f.t
		set := setOnSuccess[o.String()+"."+f.goName]
		if set {
			g.setUsed[o.String()+"."+f.goName] = true
		}
		if ft.Kind() == reflect.Pointer && (f.omitted || set) {
			ft = ft.Elem() // a nil one is left out (or there is none), never null
		}
		typ := g.ts(ft, indent, o, fpath)
		if f.str {
			typ = "string"
		}
		name := f.name
		if !isIdent(name) {
			name = quote(name)
		}
		opt := ""
		if f.optional || g.sendOnly {
			opt = "?"
		}
		b.WriteString(indent + name + opt + ": " + typ + ";\n")
	}
}

// notNil is t, or what t points to: the elements of a list or map are trusted never to be
// nil pointers, as its nil lists are trusted to be sent as [].
func notNil(t reflect.Type) reflect.Type {
	if t.Kind() == reflect.Pointer {
		return t.Elem()
	}
	return t
}

func isIdent(s string) bool {
	for i, r := range s {
		if !(r == '_' || r == '$' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9') {
			return false
		}
	}
	return s != ""
}

// decl writes the declaration of the named type t.
func (g *gen) decl(b *bytes.Buffer, name string, t reflect.Type) error {
	d := g.docsOf(t)
	var doc string
	if d != nil {
		doc = d.types[t.Name()]
	}
	if c, ok := custom[t]; ok && c.ts != "" {
		writeDoc(b, "", c.doc)
		fmt.Fprintf(b, "export type %s = %s;\n", name, c.ts)
		return nil
	}
	writeDoc(b, "", doc)
	switch t.Kind() {
	case reflect.String:
		var vals []string
		for _, v := range g.consts(t) {
			vals = append(vals, quote(v))
		}
		line := "export type " + name + " = " + strings.Join(vals, " | ") + ";\n"
		if len(line) > 121 {
			line = "export type " + name + " =\n  | " + strings.Join(vals, "\n  | ") + ";\n"
		}
		b.WriteString(line)
	case reflect.Struct:
		var sb strings.Builder
		g.sendOnly = g.in[t] && !g.out[t]
		g.members(&sb, t, "  ", t, nil)
		g.sendOnly = false
		if sb.Len() == 0 {
			fmt.Fprintf(b, "export interface %s {}\n", name)
		} else {
			fmt.Fprintf(b, "export interface %s {\n%s}\n", name, sb.String())
		}
	default:
		return fmt.Errorf("no declaration for %v", t)
	}
	return nil
}

// quote writes s as a single-quoted TypeScript string (prettier's choice here).
func quote(s string) string {
	q := strconv.Quote(s)
	q = q[1 : len(q)-1]
	q = strings.ReplaceAll(q, `\"`, `"`)
	q = strings.ReplaceAll(q, `'`, `\'`)
	return "'" + q + "'"
}

// writeDoc writes a Go doc comment as a JSDoc comment at indent.
func writeDoc(b interface{ WriteString(string) (int, error) }, indent, doc string) {
	doc = strings.TrimSpace(doc)
	if doc == "" {
		return
	}
	doc = strings.ReplaceAll(doc, "*/", "*\\/")
	lines := strings.Split(doc, "\n")
	if len(lines) == 1 && len(indent)+len(lines[0])+7 <= 120 {
		b.WriteString(indent + "/** " + lines[0] + " */\n")
		return
	}
	b.WriteString(indent + "/**\n")
	for _, l := range lines {
		l = strings.TrimRight(l, " \t")
		if l == "" {
			b.WriteString(indent + " *\n")
		} else {
			b.WriteString(indent + " * " + l + "\n")
		}
	}
	b.WriteString(indent + " */\n")
}

// ---- the Go source: doc comments and constants ------------------------------------------

type pkgDocs struct {
	types  map[string]string   // a type's doc
	fields map[string]string   // "Type.Field" (and "Type.Field.Sub" in an anonymous struct)
	funcs  map[string]string   // a method of Service
	params map[string][]string // the parameter names of a method of pageSurface
	consts map[string][]string // a type's constants' values, in source order
}

func (g *gen) docsOf(t reflect.Type) *pkgDocs {
	if t == nil || t.PkgPath() == "" {
		return nil
	}
	d, err := g.pkg(t.PkgPath())
	if err != nil {
		g.fail("%v", err)
		return nil
	}
	return d
}

func (g *gen) consts(t reflect.Type) []string {
	if !strings.HasPrefix(t.PkgPath(), module) {
		return nil
	}
	d := g.docsOf(t)
	if d == nil {
		return nil
	}
	return d.consts[t.Name()]
}

// pkg reads the doc comments and constants of one package of this module.
func (g *gen) pkg(path string) (*pkgDocs, error) {
	if d, ok := g.docs[path]; ok {
		return d, nil
	}
	d := &pkgDocs{types: map[string]string{}, fields: map[string]string{}, funcs: map[string]string{},
		params: map[string][]string{}, consts: map[string][]string{}}
	g.docs[path] = d
	if !strings.HasPrefix(path, module) {
		return d, nil
	}
	dir := filepath.Join(g.root, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(path, module), "/")))
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.GenDecl:
				switch decl.Tok {
				case token.TYPE:
					for _, s := range decl.Specs {
						ts := s.(*ast.TypeSpec)
						doc := ts.Doc
						if doc == nil && len(decl.Specs) == 1 {
							doc = decl.Doc
						}
						d.types[ts.Name.Name] = doc.Text()
						if st, ok := ts.Type.(*ast.StructType); ok {
							structDocs(d, ts.Name.Name, st)
						}
						if it, ok := ts.Type.(*ast.InterfaceType); ok && ts.Name.Name == "pageSurface" {
							for _, m := range it.Methods.List {
								ft, ok := m.Type.(*ast.FuncType)
								if !ok || len(m.Names) == 0 {
									continue
								}
								var ps []string
								for _, p := range ft.Params.List {
									for _, pn := range p.Names {
										ps = append(ps, pn.Name)
									}
								}
								d.params[m.Names[0].Name] = ps
							}
						}
					}
				case token.CONST:
					for _, s := range decl.Specs {
						vs := s.(*ast.ValueSpec)
						id, ok := vs.Type.(*ast.Ident)
						if !ok {
							continue
						}
						for _, v := range vs.Values {
							if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
								if s, err := strconv.Unquote(lit.Value); err == nil && !slices.Contains(d.consts[id.Name], s) {
									d.consts[id.Name] = append(d.consts[id.Name], s)
								}
							}
						}
					}
				}
			case *ast.FuncDecl:
				if decl.Recv != nil && len(decl.Recv.List) == 1 {
					if st, ok := decl.Recv.List[0].Type.(*ast.StarExpr); ok {
						if id, ok := st.X.(*ast.Ident); ok && id.Name == "Service" {
							d.funcs[decl.Name.Name] = decl.Doc.Text()
						}
					}
				}
			}
		}
	}
	return d, nil
}

// structDocs records the docs of the fields of st, and of those of its anonymous structs.
func structDocs(d *pkgDocs, prefix string, st *ast.StructType) {
	for _, f := range st.Fields.List {
		doc := f.Doc.Text()
		if doc == "" {
			doc = f.Comment.Text()
		}
		inner := f.Type
		for {
			switch x := inner.(type) {
			case *ast.ArrayType:
				inner = x.Elt
				continue
			case *ast.StarExpr:
				inner = x.X
				continue
			}
			break
		}
		for _, n := range f.Names {
			d.fields[prefix+"."+n.Name] = doc
			if sub, ok := inner.(*ast.StructType); ok {
				structDocs(d, prefix+"."+n.Name, sub)
			}
		}
	}
}

// repoRoot is the folder of this module's go.mod, above the working directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.Contains(b, []byte("module "+module+"\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod of %s above the working directory", module)
		}
		dir = parent
	}
}
