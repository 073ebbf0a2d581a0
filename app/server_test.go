package app

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/plugboard/plugboard/backend/testhome"
)

// fixtureHome copies testdata/homes/full into a temporary folder.
func fixtureHome(t *testing.T) (home, pbHome, ws string) {
	t.Helper()
	dst := testhome.Copy(t, "full")
	home = filepath.Join(dst, "home")
	return home, filepath.Join(home, ".plugboard"), filepath.Join(dst, "ws")
}

// startServer runs a real server on a loopback port and returns its base URL and token.
func startServer(t *testing.T, assets fs.FS) (base, token string, home, ws string) {
	t.Helper()
	return startServerOn(t, assets, "127.0.0.1:0")
}

// startServerOn is startServer listening on addr; the base URL is on 127.0.0.1 either way.
func startServerOn(t *testing.T, assets fs.FS, addr string) (base, token string, home, ws string) {
	t.Helper()
	home, pb, ws := fixtureHome(t)
	broker := NewBroker()
	svc := NewService(home, pb, broker.Emit)
	srv, err := NewServer(svc, broker, assets)
	if err != nil {
		t.Fatal(err)
	}
	liveCtx, stopLive := context.WithCancel(context.Background())
	t.Cleanup(stopLive)
	if err := StartLive(liveCtx, svc, nil, nil, io.Discard); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() { srv.Serve(ctx, l, pw); close(done) }()
	first, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	t.Cleanup(func() { cancel(); <-done })
	first = strings.TrimSpace(first)
	if !strings.HasPrefix(first, "http://127.0.0.1:") || !strings.Contains(first, "/?token=") {
		t.Fatalf("first line = %q, want the URL with a token", first)
	}
	i := strings.Index(first, "/?token=")
	return first[:i], first[i+len("/?token="):], home, ws
}

type req struct {
	method, path, body string
	header             map[string]string
}

func do(t *testing.T, base string, r req) (int, string, *http.Response) {
	t.Helper()
	hr, _ := http.NewRequest(r.method, base+r.path, strings.NewReader(r.body))
	for k, v := range r.header {
		if k == "Host" {
			hr.Host = v
			continue
		}
		hr.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp
}

func TestGuard(t *testing.T) {
	base, token, _, _ := startServer(t, fstest.MapFS{"index.html": {Data: []byte("<h1>page</h1>")}})
	port := base[strings.LastIndex(base, ":")+1:]
	auth := map[string]string{"X-Plugboard-Token": token}
	with := func(extra map[string]string) map[string]string {
		h := map[string]string{"X-Plugboard-Token": token}
		for k, v := range extra {
			h[k] = v
		}
		return h
	}
	tests := []struct {
		name string
		r    req
		want int
	}{
		{"token header", req{"POST", "/api/Settings", "[]", auth}, 200},
		{"no token", req{"POST", "/api/Settings", "[]", nil}, 403},
		{"wrong token", req{"POST", "/api/Settings", "[]", map[string]string{"X-Plugboard-Token": token[:10]}}, 403},
		{"token in query", req{"POST", "/api/Settings?token=" + token, "[]", nil}, 200},
		{"page without token", req{"GET", "/", "", nil}, 403},
		{"page with token", req{"GET", "/?token=" + token, "", nil}, 200},
		{"rebinding host", req{"POST", "/api/Settings", "[]", with(map[string]string{"Host": "evil.example:" + port})}, 403},
		{"wrong port", req{"POST", "/api/Settings", "[]", with(map[string]string{"Host": "127.0.0.1:1"})}, 403},
		{"another machine's address on loopback", req{"POST", "/api/Settings", "[]", with(map[string]string{"Host": "10.0.0.1:" + port})}, 403},
		{"another loopback address", req{"POST", "/api/Settings", "[]", with(map[string]string{"Host": "127.0.0.2:" + port})}, 200},
		{"data after the array", req{"POST", "/api/Settings", "[] []", auth}, 400},
		{"a body over the limit", req{"POST", "/api/Settings", "[\"" + strings.Repeat("x", 1<<20) + "\"]", auth}, 413},
		{"an argument of the wrong type", req{"POST", "/api/Activity", `["7"]`, auth}, 400},
		{"localhost on loopback", req{"POST", "/api/Settings", "[]", with(map[string]string{"Host": "localhost:" + port})}, 200},
		{"foreign origin", req{"POST", "/api/Settings", "[]", with(map[string]string{"Origin": "http://evil.example"})}, 403},
		{"own origin", req{"POST", "/api/Settings", "[]", with(map[string]string{"Origin": base})}, 200},
		{"cross-site fetch", req{"POST", "/api/Settings", "[]", with(map[string]string{"Sec-Fetch-Site": "cross-site"})}, 403},
		{"unknown method", req{"POST", "/api/Nope", "[]", auth}, 404},
		{"bad body", req{"POST", "/api/SaveSettings", "{", auth}, 400},
		{"missing argument", req{"POST", "/api/OpenWorkspace", "[]", auth}, 400},
		{"GET on a method", req{"GET", "/api/Settings", "", auth}, 405},
	}
	for _, tc := range tests {
		code, body, _ := do(t, base, tc.r)
		if code != tc.want {
			t.Errorf("%s: status %d, want %d (%s)", tc.name, code, tc.want, body)
		}
	}
	// An argument of the wrong type is named by its place and the JSON it must be.
	if _, body, _ := do(t, base, req{"POST", "/api/Activity", `["7"]`, auth}); !strings.Contains(body, "argument 1 must be a number, not a JSON string") {
		t.Errorf("wrong type: %s", body)
	}
	if _, body, _ := do(t, base, req{"POST", "/api/Settings", "[\"" + strings.Repeat("x", 1<<20) + "\"]", auth}); !strings.Contains(body, "over 1024 KiB") {
		t.Errorf("over the limit: %s", body)
	}
	// The page load with the token sets a cookie that authorises later requests.
	_, _, resp := do(t, base, req{"GET", "/?token=" + token, "", nil})
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == cookieName {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode {
		t.Fatalf("no HttpOnly SameSite=Strict cookie: %+v", resp.Cookies())
	}
	if code, _, _ := do(t, base, req{"POST", "/api/Settings", "[]", map[string]string{"Cookie": cookieName + "=" + cookie.Value}}); code != 200 {
		t.Errorf("cookie not accepted: %d", code)
	}
}

// Listening beyond loopback (serve --addr 0.0.0.0:PORT, after its warning), the token
// is still required, and a Host that names the server rather than giving its address is
// refused even as "localhost": off loopback, any name could be a rebinding attacker's.
func TestGuardOffLoopback(t *testing.T) {
	base, token, _, _ := startServerOn(t, fstest.MapFS{"index.html": {Data: []byte("<h1>page</h1>")}}, "0.0.0.0:0")
	port := base[strings.LastIndex(base, ":")+1:]
	auth := map[string]string{"X-Plugboard-Token": token}
	for _, tc := range []struct {
		name string
		r    req
		want int
	}{
		{"token header", req{"POST", "/api/Settings", "[]", auth}, 200},
		{"no token", req{"POST", "/api/Settings", "[]", nil}, 403},
		{"page without token", req{"GET", "/", "", nil}, 403},
		{"localhost off loopback", req{"POST", "/api/Settings", "[]", map[string]string{"X-Plugboard-Token": token, "Host": "localhost:" + port}}, 403},
		{"a name off loopback", req{"POST", "/api/Settings", "[]", map[string]string{"X-Plugboard-Token": token, "Host": "plugboard.example:" + port}}, 403},
	} {
		if code, body, _ := do(t, base, tc.r); code != tc.want {
			t.Errorf("%s: status %d, want %d (%s)", tc.name, code, tc.want, body)
		}
	}
}

func TestNoPage(t *testing.T) {
	base, token, _, _ := startServer(t, fstest.MapFS{})
	code, body, _ := do(t, base, req{"GET", "/?token=" + token, "", nil})
	if code != 503 || !strings.Contains(body, "make frontend") {
		t.Errorf("no page: %d %q", code, body)
	}
}

// TestNoSecretLeaves calls every method and reads the event stream of a fixture home
// with planted env and header values: none may appear in any response.
func TestNoSecretLeaves(t *testing.T) {
	base, token, home, ws := startServer(t, fstest.MapFS{})
	auth := map[string]string{"X-Plugboard-Token": token}
	events := readEvents(t, base, token)
	var all strings.Builder
	wsArg, _ := json.Marshal([]string{ws})
	for _, call := range []struct{ path, body string }{
		{"/api/Catalog", "[]"}, {"/api/Rescan", "[]"}, {"/api/Settings", "[]"},
		{"/api/OpenWorkspace", string(wsArg)}, {"/api/SetWorkspaceTrust", "[true]"}, {"/api/Catalog", "[]"},
		{"/api/Targets", "[]"}, {"/api/WatchState", "[]"}, {"/api/PauseWatching", "[false]"}, {"/api/Links", "[]"},
		{"/api/Snapshots", "[]"}, {"/api/SnapshotDiff", "[1, 1]"},
	} {
		code, body, _ := do(t, base, req{"POST", call.path, call.body, auth})
		if code != 200 {
			t.Fatalf("%s: %d %s", call.path, code, body)
		}
		all.WriteString(body)
	}
	if !strings.Contains(all.String(), `"proj"`) {
		t.Errorf("the trusted workspace's MCP server did not load")
	}
	// A live change to a planted value reaches the page as a change, not as the value.
	mcp := filepath.Join(home, ".plugboard", "plugins", "alpha", "mcp.json")
	b, _ := os.ReadFile(mcp)
	os.WriteFile(mcp, []byte(strings.Replace(string(b), "PLANTED", "PLANTED-AGAIN", 1)), 0o644)
	got := events(3 * time.Second)
	if !strings.Contains(got, "catalog:reloaded") || !strings.Contains(got, "declaration changed") {
		t.Errorf("no live change reached the event stream:\n%s", got)
	}
	all.WriteString(got)
	if strings.Contains(all.String(), "PLANTED") {
		t.Errorf("a planted secret left the backend")
	}
	if !strings.Contains(all.String(), "DB_PASSWORD") {
		t.Errorf("env key names should be shown (the check above would pass vacuously)")
	}
	_ = home
}

// readEvents subscribes to /api/events and returns a function that collects what arrives.
func readEvents(t *testing.T, base, token string) func(time.Duration) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	hr, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/events?token="+token, nil)
	resp, err := http.DefaultClient.Do(hr)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("events: %v %v", err, resp)
	}
	lines := make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	return func(wait time.Duration) string {
		var b strings.Builder
		deadline := time.After(wait)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					return b.String()
				}
				b.WriteString(l + "\n")
			case <-deadline:
				return b.String()
			}
		}
	}
}

func TestEventsAndSettings(t *testing.T) {
	base, token, home, _ := startServer(t, fstest.MapFS{})
	auth := map[string]string{"X-Plugboard-Token": token}
	events := readEvents(t, base, token)
	if code, _, _ := do(t, base, req{"POST", "/api/Rescan", "[]", auth}); code != 200 {
		t.Fatal("rescan failed")
	}
	got := events(time.Second)
	if !strings.Contains(got, "event: catalog:progress") || !strings.Contains(got, "event: catalog:updated") {
		t.Errorf("events = %q", got)
	}

	// Round trip.
	_, body, _ := do(t, base, req{"POST", "/api/Settings", "[]", auth})
	var st SettingsState
	json.Unmarshal([]byte(body), &st)
	st.Settings.SkillPluginPaths = append(st.Settings.SkillPluginPaths, "/opt/plugins/x")
	args, _ := json.Marshal([]any{st.Settings, st.Hash})
	code, body, _ := do(t, base, req{"POST", "/api/SaveSettings", string(args), auth})
	if code != 200 {
		t.Fatalf("save: %d %s", code, body)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".plugboard", "settings.json")); !strings.Contains(string(b), "/opt/plugins/x") {
		t.Errorf("settings.json not written: %s", b)
	}
	// The same hash again is stale now: 409, nothing written.
	before, _ := os.ReadFile(filepath.Join(home, ".plugboard", "settings.json"))
	code, body, _ = do(t, base, req{"POST", "/api/SaveSettings", string(args), auth})
	var e Error
	json.Unmarshal([]byte(body), &e)
	after, _ := os.ReadFile(filepath.Join(home, ".plugboard", "settings.json"))
	if code != 409 || e.Code != CodeStale || string(before) != string(after) {
		t.Errorf("stale save: %d %s", code, body)
	}
	// No hash (null, a page that lost it) is not "save unguarded": 400, nothing written.
	for _, h := range []any{nil, ""} {
		args, _ := json.Marshal([]any{st.Settings, h})
		code, body, _ := do(t, base, req{"POST", "/api/SaveSettings", string(args), auth})
		if now, _ := os.ReadFile(filepath.Join(home, ".plugboard", "settings.json")); code != 400 || !strings.Contains(body, "hash is missing") || string(now) != string(before) {
			t.Errorf("save with hash %v: %d %s", h, code, body)
		}
	}
	// A relative path is refused with the reason.
	st.Settings.SkillPluginPaths = []string{"relative/dir"}
	args, _ = json.Marshal([]any{st.Settings, st.Hash})
	if code, body, _ := do(t, base, req{"POST", "/api/SaveSettings", string(args), auth}); code != 400 || !strings.Contains(body, "absolute") {
		t.Errorf("relative path: %d %s", code, body)
	}
	// Trust without a workspace is refused.
	if code, _, _ := do(t, base, req{"POST", "/api/SetWorkspaceTrust", "[true]", auth}); code != 400 {
		t.Errorf("trust without workspace: %d", code)
	}
	if code, _, _ := do(t, base, req{"POST", "/api/OpenWorkspace", `["/no/such/dir"]`, auth}); code != 404 {
		t.Errorf("missing workspace: %d", code)
	}
}

// The catalog document is encoded once per scan: two pages asking for the same scan get
// the same bytes, and a rescan that finds a change serves the new document at once.
func TestCatalogEncodedOncePerScan(t *testing.T) {
	base, token, home, _ := startServer(t, nil)
	auth := map[string]string{"X-Plugboard-Token": token}
	code, first, resp := do(t, base, req{"POST", "/api/Catalog", "[]", auth})
	if code != 200 || resp.Header.Get("Content-Length") != strconv.Itoa(len(first)) {
		t.Fatalf("Catalog: %d, Content-Length %q for %d bytes", code, resp.Header.Get("Content-Length"), len(first))
	}
	if _, again, _ := do(t, base, req{"POST", "/api/Catalog", "[]", auth}); again != first {
		t.Error("the same scan was served differently")
	}
	// the list part of the same scan, the same way: for this small home, the document itself
	code, list, resp := do(t, base, req{"POST", "/api/CatalogList", "[]", auth})
	if code != 200 || resp.Header.Get("Content-Length") != strconv.Itoa(len(list)) || list != first {
		t.Fatalf("CatalogList: %d, Content-Length %q for %d bytes, want the document's %d: %.80s", code, resp.Header.Get("Content-Length"), len(list), len(first), list)
	}
	if _, again, _ := do(t, base, req{"POST", "/api/CatalogList", "[]", auth}); again != list {
		t.Error("the same scan's list was served differently")
	}
	manifest := filepath.Join(home, ".plugboard", "plugins", "alpha", "plugin.json")
	b, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(manifest, []byte(strings.Replace(string(b), `"version": "1.0.0"`, `"version": "1.0.1"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := do(t, base, req{"POST", "/api/Rescan", "[]", auth}); code != 200 {
		t.Fatalf("Rescan: %d", code)
	}
	if _, after, _ := do(t, base, req{"POST", "/api/Catalog", "[]", auth}); after == first || !strings.Contains(after, `"version":"1.0.1"`) {
		t.Errorf("after the rescan the catalog is unchanged (%v)", after == first)
	}
	if _, after, _ := do(t, base, req{"POST", "/api/CatalogList", "[]", auth}); after == list || !strings.Contains(after, `"version":"1.0.1"`) {
		t.Errorf("after the rescan the list is unchanged (%v)", after == list)
	}
}
