package app

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

// offPage are the exported Service methods that are for the Go shells, not the page: the
// window does not bind them and HTTP does not serve them.
var offPage = []string{"Close", "DraftDirty", "RequestOpen", "SetActor", "Workspace"}

// TestAPISurface ties together the places that name the page's methods: Page (what the
// desktop window binds), pageMethods (what POST /api/<Method> dispatches), the Service's
// exported methods, frontend/src/bridge.ts and docs/api.md. Each must name the same
// methods, except that the Service also has offPage, which no door may offer.
func TestAPISurface(t *testing.T) {
	pageType := reflect.TypeOf(&Page{})
	page := methodNames(pageType)
	table := slices.Sorted(maps.Keys(pageMethods))
	sameNames(t, "the HTTP table (pageMethods)", table, "Page's methods (the window's bindings)", page)

	// Each entry calls the method it is filed under.
	pkg := reflect.TypeOf(Page{}).PkgPath()
	for name, m := range pageMethods {
		fn := runtime.FuncForPC(reflect.ValueOf(m.method).Pointer()).Name()
		if want := pkg + ".(*Page)." + name; fn != want {
			t.Errorf("pageMethods[%q] calls %s, want %s", name, fn, want)
		}
	}

	// Page is the Service minus offPage, with the same signatures.
	svcType := reflect.TypeOf(&Service{})
	sameNames(t, "the Service's exported methods", methodNames(svcType),
		"Page's methods plus "+strings.Join(offPage, ", "), append(slices.Clone(page), offPage...))
	for _, name := range page {
		pm, _ := pageType.MethodByName(name)
		if sm, ok := svcType.MethodByName(name); ok && !sameSignature(pm.Type, sm.Type) {
			t.Errorf("Page.%s is %v, Service.%s is %v", name, pm.Type, name, sm.Type)
		}
	}

	// bridge.ts: its Method type, the methods its api calls, and where it finds the
	// window's bindings (Wails puts a bound struct at window.go.<package>.<type>).
	bridge := readRepoFile(t, "../frontend/src/bridge.ts")
	union := regexp.MustCompile(`(?s)\btype Method =([^;]*);`).FindStringSubmatch(bridge)
	if union == nil {
		t.Fatal("bridge.ts has no `type Method = ...;`")
	}
	sameNames(t, "bridge.ts's Method type", matchNames(t, "bridge.ts's Method type", `'(\w+)'`, union[1]), "the HTTP table", table)
	called := slices.Compact(matchNames(t, "", `\b(?:call|invoke)(?:<[^()]*?>)?\(\s*'(\w+)'`, bridge))
	sameNames(t, "the methods bridge.ts calls", called, "the HTTP table", table)
	bound := reflect.TypeOf(Page{}).String() // "app.Page", as Wails names it
	paths := regexp.MustCompile(`window\.go\?\.(\w+)\?\.(\w+)`).FindAllStringSubmatch(bridge, -1)
	if len(paths) == 0 {
		t.Errorf("bridge.ts never reads window.go?.<package>?.<type>")
	}
	for _, m := range paths {
		if got := m[1] + "." + m[2]; got != bound {
			t.Errorf("bridge.ts reads window.go.%s; the window binds %s", got, bound)
		}
	}

	// docs/api.md: the rows of the method tables, from "## Methods" to the next section.
	doc := readRepoFile(t, "../docs/api.md")
	_, section, ok := strings.Cut(doc, "\n## Methods\n")
	if !ok {
		t.Fatal("docs/api.md has no ## Methods section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	sameNames(t, "the methods docs/api.md documents", matchNames(t, "docs/api.md", "(?m)^\\| `(\\w+)` \\|", section), "the HTTP table", table)
	if !strings.Contains(doc, "window.go."+bound+".<Method>") {
		t.Errorf("docs/api.md does not say the window binds window.go.%s", bound)
	}

	// Over HTTP: offPage is no method, and each method decodes as many arguments as it
	// takes (one fewer is refused before the method runs).
	srv, err := NewServer(NewService(t.TempDir(), t.TempDir(), nil), NewBroker(), fstest.MapFS{})
	if err != nil {
		t.Fatal(err)
	}
	srv.port, srv.loopback = "80", true
	post := func(method string, args []any) (int, Error) {
		b, _ := json.Marshal(args)
		r := httptest.NewRequest("POST", "/api/"+method, strings.NewReader(string(b)))
		r.Host = "127.0.0.1:80"
		r.Header.Set("X-Plugboard-Token", srv.Token())
		w := httptest.NewRecorder()
		srv.Handler().ServeHTTP(w, r)
		var e Error
		json.Unmarshal(w.Body.Bytes(), &e)
		return w.Code, e
	}
	for _, name := range offPage {
		if code, e := post(name, []any{}); code != http.StatusNotFound || e.Code != CodeNotFound || e.Message != "no method "+name {
			t.Errorf("POST /api/%s: %d %+v, want 404 no method", name, code, e)
		}
	}
	for _, name := range page {
		m, _ := pageType.MethodByName(name)
		n := m.Type.NumIn() - 1 // without the receiver
		if n == 0 {
			continue // it would run
		}
		args := []any{}
		for i := 1; i < n; i++ {
			args = append(args, reflect.Zero(m.Type.In(i)).Interface())
		}
		want := "argument " + strconv.Itoa(n) + " is missing"
		if code, e := post(name, args); code != http.StatusBadRequest || e.Code != CodeInvalid || !strings.HasPrefix(e.Message, want) {
			t.Errorf("POST /api/%s with %d of its %d arguments: %d %+v, want 400 %q", name, n-1, n, code, e, want)
		}
	}
}

// methodNames lists the exported methods of t, sorted (reflect lists them so).
func methodNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumMethod() {
		out = append(out, t.Method(i).Name)
	}
	return out
}

// matchNames returns, sorted, the first group of every match of re in s. With what set,
// a name matched twice is an error.
func matchNames(t *testing.T, what, re, s string) []string {
	t.Helper()
	var out []string
	for _, m := range regexp.MustCompile(re).FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	if what != "" {
		for i := 1; i < len(out); i++ {
			if out[i] == out[i-1] {
				t.Errorf("%s names %s twice", what, out[i])
			}
		}
	}
	return out
}

// sameNames reports the names that only one of a and b has.
func sameNames(t *testing.T, aName string, a []string, bName string, b []string) {
	t.Helper()
	for _, n := range a {
		if !slices.Contains(b, n) {
			t.Errorf("%s has %s; %s does not", aName, n, bName)
		}
	}
	for _, n := range b {
		if !slices.Contains(a, n) {
			t.Errorf("%s has %s; %s does not", bName, n, aName)
		}
	}
}

// sameSignature compares two method types without their receivers.
func sameSignature(a, b reflect.Type) bool {
	if a.NumIn() != b.NumIn() || a.NumOut() != b.NumOut() || a.IsVariadic() != b.IsVariadic() {
		return false
	}
	for i := 1; i < a.NumIn(); i++ {
		if a.In(i) != b.In(i) {
			return false
		}
	}
	for i := range a.NumOut() {
		if a.Out(i) != b.Out(i) {
			return false
		}
	}
	return true
}

func readRepoFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
