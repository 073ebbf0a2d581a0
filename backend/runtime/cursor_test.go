package runtime

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/mcptap"
	"github.com/plugboard/plugboard/backend/testhome"
)

const cursorToken = "cursor-token-do-not-leak"

// cursorHome is a user home whose Cursor cache holds plugin tool of marketplace mk at
// revision rev, with servers in Cursor's shape, and a Plugboard home whose agent cur
// assigns it by its entry (no revision in it).
func cursorHome(t *testing.T, rev string) (home, pb string) {
	t.Helper()
	home = t.TempDir()
	pb = filepath.Join(home, ".plugboard")
	cursorRevision(t, home, rev)
	testhome.WriteFile(t, filepath.Join(pb, "agents", "cur.json"), `{"name": "cur", "pluginDirs": ["~/.cursor/plugins/cache/mk/tool"]}`)
	return home, pb
}

func cursorRevision(t *testing.T, home, rev string) string {
	t.Helper()
	dir := filepath.Join(home, ".cursor", "plugins", "cache", "mk", "tool", rev)
	testhome.WriteFile(t, filepath.Join(dir, ".cursor-plugin", "plugin.json"), `{"name": "tool", "version": "`+rev+`"}`)
	testhome.WriteFile(t, filepath.Join(dir, "skills", "tool-tip", "SKILL.md"), "---\nname: tool-tip\ndescription: A tip. Use when asked.\n---\nTip body.\n")
	testhome.WriteFile(t, filepath.Join(dir, "bin", "serve"), "#!/bin/sh\n")
	os.Chmod(filepath.Join(dir, "bin", "serve"), 0o755)
	testhome.WriteFile(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers": {
  "tool-srv": {"command": "./bin/serve",
    "args": ["--home", "${userHome}", "--ws", "${workspaceFolderBasename}", "--tok", "${env:TOOL_TOKEN}"],
    "env": {"ROOT": "${CURSOR_PLUGIN_ROOT}", "TOKEN": "${TOOL_TOKEN}"}},
  "tool-remote": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${env:TOOL_TOKEN}"}},
  "tool-envfile": {"command": "serve", "envFile": ".env"},
  "tool-oauth": {"url": "https://mcp.example.com/oauth", "auth": {"CLIENT_ID": "x"}}
}}`)
	return dir
}

func cursorRequest(home, pb string) Request {
	return Request{Home: home, PlugboardHome: pb, Target: "cur", Self: "/opt/plugboard/bin/plugboard",
		Workspace: "/src/proj", Acked: func(_, _, _, _ string) bool { return true }}
}

// A cached Cursor plugin assigned by its entry launches the revision installed now, its
// skills projected and its servers normalised with Cursor's interpolation and started
// through mcp-stdio / mcp-proxy; environment references stay references in the
// projection (resolved by the starting process), so the token is written nowhere.
func TestCursorPluginLaunches(t *testing.T) {
	t.Setenv("TOOL_TOKEN", cursorToken)
	home, pb := cursorHome(t, "r1")
	root := filepath.Join(home, ".cursor", "plugins", "cache", "mk", "tool", "r1")
	p := build(t, cursorRequest(home, pb))
	if len(p.Plugins) != 1 || p.Plugins[0].ID != "tool@mk" || p.Plugins[0].Path != root || p.Plugins[0].How != "projected" {
		t.Fatalf("plugins = %+v", p.Plugins)
	}
	if !slices.Equal(p.Skills, []string{"tool:tool-tip"}) || !slices.Equal(p.Servers, []string{"tool-remote", "tool-srv"}) {
		t.Errorf("skills %v servers %v", p.Skills, p.Servers)
	}
	dropped := map[string]string{}
	for _, d := range p.Dropped {
		dropped[d.Name] = d.Reason
	}
	if !strings.Contains(dropped["tool-envfile"], "envFile") || !strings.Contains(dropped["tool-oauth"], "OAuth") || len(dropped) != 2 {
		t.Errorf("dropped %v; want tool-envfile (envFile) and tool-oauth (auth)", dropped)
	}
	var stdio StdioConfig
	var remote proxyConfig
	readJSON(t, filepath.Join(p.Projection, "stdio", "2.json"), &stdio)
	readJSON(t, filepath.Join(p.Projection, "remote", "1.json"), &remote)
	data := DataDir(pb, "tool@mk")
	want := StdioConfig{Command: filepath.Join(root, "bin", "serve"), Cwd: root, EnvRefs: true,
		Args:     []string{"--home", home, "--ws", "proj", "--tok", "${env:TOOL_TOKEN}"},
		Env:      map[string]string{"ROOT": root, "TOKEN": "${TOOL_TOKEN}", "PLUGIN_ROOT": root, "PLUGIN_DATA": data, "CURSOR_PLUGIN_ROOT": root},
		Activity: &mcptap.Info{Home: pb, Backend: Claude, Fingerprint: p.Fingerprint, Plugin: "tool@mk", Server: "tool-srv"}}
	if got, w := mustJSON(stdio), mustJSON(want); !bytes.Equal(got, w) {
		t.Errorf("stdio config\n got %s\nwant %s", got, w)
	}
	if remote.Type != "streamable-http" || remote.URL != "https://mcp.example.com/mcp" || remote.Headers["Authorization"] != "Bearer ${env:TOOL_TOKEN}" || !remote.EnvRefs {
		t.Errorf("remote config %+v", remote)
	}
	// What mcp-stdio does with the references when it starts: the environment's values.
	stdio.expandEnvRefs(func(k string) (string, bool) { return os.LookupEnv(k) })
	if stdio.Args[5] != cursorToken || stdio.Env["TOKEN"] != cursorToken || stdio.Env["ROOT"] != root {
		t.Errorf("expanded at start: args %v env %v", stdio.Args, stdio.Env)
	}
	noValueIn(t, p.Projection, cursorToken)
	if st, err := os.Stat(data); err != nil || !st.IsDir() {
		t.Errorf("the data folder of tool@mk was not made: %v", err)
	}
}

// A Cursor update (a new revision folder, the install index pointing at it) is launched
// at the next launch from the same stored entry: same id and data folder, new folder and
// fingerprint. Without the index, the newest revision is.
func TestCursorUpdateIsLaunched(t *testing.T) {
	home, pb := cursorHome(t, "r1")
	first := build(t, cursorRequest(home, pb))
	r2 := cursorRevision(t, home, "r2")
	cache := filepath.Join(home, ".cursor", "plugins", "cache")
	testhome.WriteFile(t, filepath.Join(cache, ".cloud-plugin-manifest.json"), `{"plugins": [{"marketplace": "mk", "pluginId": "tool", "gitSha": "r2"}]}`)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(r2, old, old) // the index, not the age, picks r2
	second := build(t, cursorRequest(home, pb))
	if second.Plugins[0].Path != r2 || second.Plugins[0].ID != "tool@mk" || second.Fingerprint == first.Fingerprint {
		t.Errorf("after the update: %+v fingerprint changed %v", second.Plugins, second.Fingerprint != first.Fingerprint)
	}
	var stdio StdioConfig
	readJSON(t, filepath.Join(second.Projection, "stdio", "2.json"), &stdio)
	if stdio.Env["PLUGIN_DATA"] != DataDir(pb, "tool@mk") || stdio.Cwd != r2 {
		t.Errorf("after the update the server runs in %s with data %s", stdio.Cwd, stdio.Env["PLUGIN_DATA"])
	}
	os.Remove(filepath.Join(cache, ".cloud-plugin-manifest.json"))
	if p := build(t, cursorRequest(home, pb)); p.Plugins[0].Path != filepath.Join(filepath.Dir(r2), "r1") {
		t.Errorf("without the index the newest revision (r1) launches, not %s", p.Plugins[0].Path)
	}
}

// A Cursor plugin's servers are acknowledged like portable ones: not acknowledged, they
// are left out with the acknowledgment to give.
func TestCursorServersNeedAcknowledgment(t *testing.T) {
	home, pb := cursorHome(t, "r1")
	req := cursorRequest(home, pb)
	req.Acked = func(_, _, _, _ string) bool { return false }
	p := build(t, req)
	if len(p.Servers) != 0 {
		t.Errorf("servers %v launched without an acknowledgment", p.Servers)
	}
	acks := 0
	for _, d := range p.Dropped {
		if d.Ack != nil && d.Ack.Plugin == "tool@mk" {
			acks++
		}
	}
	if acks != 2 {
		t.Errorf("%d servers dropped for an acknowledgment, want 2: %+v", acks, p.Dropped)
	}
}

// noValueIn fails when any file under dir holds value.
func noValueIn(t *testing.T, dir, value string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(value)) {
				t.Errorf("%s holds an environment value", p)
			}
		}
		return nil
	})
}

// A local Cursor plugin and a skillPluginPaths package launch from their entries under
// the catalog's ids (which name their data folders), their skills projected and their
// servers started like a cached plugin's.
func TestLocalAndPluginPathEntriesLaunch(t *testing.T) {
	home, pb := cursorHome(t, "r1")
	local := filepath.Join(home, ".cursor", "plugins", "local", "loc")
	extra := filepath.Join(home, "src", "extra")
	for dir, name := range map[string]string{local: "loc", extra: "extra"} {
		testhome.WriteFile(t, filepath.Join(dir, ".cursor-plugin", "plugin.json"), `{"name": "`+name+`"}`)
		testhome.WriteFile(t, filepath.Join(dir, "skills", name+"-tip", "SKILL.md"), "---\nname: "+name+"-tip\ndescription: A tip. Use when asked.\n---\nTip.\n")
		testhome.WriteFile(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers": {"`+name+`-srv": {"command": "serve"}}}`)
	}
	testhome.WriteFile(t, filepath.Join(pb, "settings.json"), `{"skillPluginPaths": ["~/src/extra"]}`)
	testhome.WriteFile(t, filepath.Join(pb, "agents", "cur.json"), `{"name": "cur", "pluginDirs": ["~/.cursor/plugins/local/loc", "~/src/extra"]}`)
	p := build(t, cursorRequest(home, pb))
	var ids []string
	for _, u := range p.Plugins {
		ids = append(ids, u.ID+" "+u.How)
	}
	if !slices.Equal(ids, []string{"loc@cursor-local projected", "extra@plugin-path projected"}) {
		t.Errorf("plugins %v", ids)
	}
	if !slices.Equal(p.Skills, []string{"extra:extra-tip", "loc:loc-tip"}) || !slices.Equal(p.Servers, []string{"extra-srv", "loc-srv"}) {
		t.Errorf("skills %v servers %v (dropped %+v)", p.Skills, p.Servers, p.Dropped)
	}
	for _, id := range []string{"loc@cursor-local", "extra@plugin-path"} {
		if _, err := os.Stat(DataDir(pb, id)); err != nil {
			t.Errorf("data folder of %s: %v", id, err)
		}
	}
}
