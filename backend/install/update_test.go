package install

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/assign"
	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/testhome"
)

// Updates and rollbacks on real repositories: new commits pushed to a bare repository
// served by git http-backend on 127.0.0.1, or read as file://; the checks run the same
// git, staging and validation as Install.

const v2Manifest = `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "greeter", "version": "1.1.0"}`

// diskState is everything an update may touch in a home: every file under plugins/ and
// state/ with its content, and the lockfile's bytes.
func diskState(t *testing.T, pbHome string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, top := range []string{"plugins", "state"} {
		filepath.Walk(filepath.Join(pbHome, top), func(p string, fi os.FileInfo, err error) error {
			if err != nil || fi.IsDir() {
				return nil
			}
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(pbHome, p)
			out[rel] = string(b)
			return nil
		})
	}
	b, _ := os.ReadFile(LockfilePath(pbHome))
	out["lockfile"] = string(b)
	return out
}

// catalogVersion is the version the catalog shows for managed plugin id.
func catalogVersion(t *testing.T, pbHome, id string) string {
	t.Helper()
	c := catalog.Load(catalog.Options{Home: filepath.Dir(pbHome), PlugboardHome: pbHome})
	if p := c.Plugin(id); p != nil {
		return p.Version
	}
	t.Fatalf("the catalog has no %s", id)
	return ""
}

func lockEntry(t *testing.T, pbHome, id string) Entry {
	t.Helper()
	lf, err := ReadLockfile(LockfilePath(pbHome))
	if err != nil {
		t.Fatal(err)
	}
	return lf.Plugins[id]
}

func updOpts(pbHome, name string) UpdateOptions {
	return UpdateOptions{Home: filepath.Dir(pbHome), PlugboardHome: pbHome, Name: name}
}

// One plugin through a whole cycle over smart HTTP: check (nothing changes), apply,
// rollback, rollback again.
func TestUpdateCheckApplyRollback(t *testing.T) {
	needGit(t)
	_, pbHome := homes(t)
	work := t.TempDir()
	writePlugin(t, work, "greeter")
	testhome.WriteFile(t, filepath.Join(work, "skills", "bye", "SKILL.md"), "---\nname: bye\ndescription: Says goodbye.\n---\nBye.\n")
	testhome.WriteFile(t, filepath.Join(work, "mcp.json"), `{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {
		"db": {"type": "stdio", "command": "./bin/db", "env": {"DB_PASSWORD": "PLANTED-ENV-SECRET"}},
		"docs": {"type": "stdio", "command": "./bin/docs", "env": {"LEVEL": "1"}}}}`)
	first := commitAll(t, work, "one")
	root := t.TempDir()
	bare := bareRepo(t, work, root, "greeter")
	u := serveGit(t, root, nil) + "/greeter.git"
	o := opts(t, pbHome, u)
	o.Ref = "main"
	if _, err := Install(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	before := lockEntry(t, pbHome, "greeter")
	testhome.WriteFile(t, filepath.Join(pbHome, "agents", "coder.json"), `{"name": "coder", "pluginDirs": ["plugins/greeter"]}`)
	// agent:coder acknowledges db as it is now; the update changes what db runs.
	inst := catalog.Inspect(filepath.Join(pbHome, "plugins", "greeter"), filepath.Dir(pbHome))
	var acks []assign.Ack
	for _, s := range inst.MCP.Servers {
		if s.Name == "db" {
			acks = append(acks, assign.NewAck("greeter", s))
		}
	}
	if _, _, err := assign.Acknowledge(context.Background(), pbHome, "agent:coder", acks, "test"); err != nil {
		t.Fatal(err)
	}

	// The new commit: another version, a skill added, a skill changed, a server added,
	// one whose command changed, one whose env value alone changed.
	testhome.WriteFile(t, filepath.Join(work, "plugin.json"), v2Manifest)
	testhome.WriteFile(t, filepath.Join(work, "skills", "greet", "SKILL.md"), "---\nname: greet\ndescription: Greets the user by name.\n---\nSay hello warmly.\n")
	testhome.WriteFile(t, filepath.Join(work, "skills", "wave", "SKILL.md"), "---\nname: wave\ndescription: Waves at the user.\n---\nWave.\n")
	testhome.WriteFile(t, filepath.Join(work, "mcp.json"), `{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {
		"db": {"type": "stdio", "command": "./bin/db2", "env": {"DB_PASSWORD": "PLANTED-ENV-SECRET"}},
		"docs": {"type": "stdio", "command": "./bin/docs", "env": {"LEVEL": "2"}},
		"api": {"type": "streamable-http", "url": "https://api.example.com/mcp"}}}`)
	second := commitAll(t, work, "two")
	gitIn(t, work, "push", "--quiet", bare, "main")

	state := diskState(t, pbHome)
	ups, err := Check(context.Background(), updOpts(pbHome, ""))
	if err != nil {
		t.Fatal(err)
	}
	if len(ups) != 1 {
		t.Fatalf("check: %+v", ups)
	}
	c := ups[0]
	if !c.Changed || c.Applied || c.From.Commit != first || c.To.Commit != second || c.From.Content != before.Content || c.To.Content == before.Content {
		t.Errorf("check: %+v", c)
	}
	ch := c.Changes
	if !slices.Equal(ch.Version, []string{"1.0.0", "1.1.0"}) {
		t.Errorf("version %v", ch.Version)
	}
	if !slices.Equal(ch.Skills.Added, []string{"wave"}) || !slices.Equal(ch.Skills.Changed, []string{"greet"}) || len(ch.Skills.Removed) != 0 {
		t.Errorf("skills %+v (bye is the same)", ch.Skills)
	}
	if !slices.Equal(ch.Servers.Added, []string{"api"}) || !slices.Equal(ch.Servers.Changed, []string{"db", "docs"}) || len(ch.Servers.Removed) != 0 {
		t.Errorf("servers %+v", ch.Servers)
	}
	// api is new and db runs another program: both need acknowledgment for agent:coder,
	// and its acknowledgment of db no longer matches. docs changed an env value only,
	// which the digest leaves out: changed, but no acknowledgment needed.
	need := map[string]NeedsAck{}
	for _, n := range ch.NeedsAck {
		need[n.Server] = n
	}
	if n, ok := need["api"]; !ok || !slices.Equal(n.Targets, []string{"agent:coder"}) || len(n.Lost) != 0 || n.Plugin != "greeter" || !strings.HasPrefix(n.Digest, "sha256:") {
		t.Errorf("api: %+v", n)
	}
	if n, ok := need["db"]; !ok || !slices.Equal(n.Targets, []string{"agent:coder"}) || !slices.Equal(n.Lost, []string{"agent:coder"}) {
		t.Errorf("db: %+v", n)
	}
	if _, ok := need["docs"]; ok || len(need) != 2 {
		t.Errorf("needsAck %+v, want api and db only", ch.NeedsAck)
	}
	if got := diskState(t, pbHome); !mapsEqual(got, state) {
		t.Error("check changed the home")
	}
	checkNoLeftovers(t, pbHome)

	// Applied.
	ups, err = Apply(context.Background(), updOpts(pbHome, "greeter"))
	if err != nil || len(ups) != 1 || !ups[0].Applied || !ups[0].Changed {
		t.Fatalf("apply: %+v %v", ups, err)
	}
	if v := catalogVersion(t, pbHome, "greeter"); v != "1.1.0" {
		t.Errorf("catalog shows %s after the update", v)
	}
	after := lockEntry(t, pbHome, "greeter")
	if after.Commit != second || after.Content != ups[0].To.Content || after.Ref != "main" || after.Source != u {
		t.Errorf("lockfile after the update: %+v", after)
	}
	if !sameContent(filepath.Join(pbHome, "plugins", "greeter"), after.Content) {
		t.Error("the installed folder is not the content the lockfile records")
	}
	keep := filepath.Join(pbHome, "state", "rollback", "greeter")
	kept, err := readKept(keep, "greeter")
	if err != nil || kept != before || !sameContent(filepath.Join(keep, rollbackFolder), before.Content) {
		t.Errorf("rollback copy: %+v %v, want %+v", kept, err, before)
	}
	checkNoLeftovers(t, pbHome)
	if ups, err := Check(context.Background(), updOpts(pbHome, "")); err != nil || ups[0].Changed {
		t.Errorf("check after the update: %+v %v", ups, err)
	}

	// Rolled back: the old version exactly, and its lockfile entry.
	res, err := Rollback(context.Background(), RollbackOptions{Home: filepath.Dir(pbHome), PlugboardHome: pbHome, Name: "greeter"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Commit != first || res.Content != before.Content || !res.Replaced || !res.Valid {
		t.Errorf("rollback: %+v", res)
	}
	if got := lockEntry(t, pbHome, "greeter"); got != before {
		t.Errorf("lockfile after rollback %+v, want %+v", got, before)
	}
	if _, sum := fileSums(filepath.Join(pbHome, "plugins", "greeter")); sum != before.Content {
		t.Errorf("rolled back content %s, want the lockfile's old %s", sum, before.Content)
	}
	if v := catalogVersion(t, pbHome, "greeter"); v != "1.0.0" {
		t.Errorf("catalog shows %s after the rollback", v)
	}
	// Rolled back again: the new version returns.
	if res, err := Rollback(context.Background(), RollbackOptions{Home: filepath.Dir(pbHome), PlugboardHome: pbHome, Name: "greeter"}); err != nil || res.Commit != second {
		t.Fatalf("second rollback: %+v %v", res, err)
	}
	if got := lockEntry(t, pbHome, "greeter"); got != after {
		t.Errorf("lockfile after the second rollback %+v, want %+v", got, after)
	}
	if _, sum := fileSums(filepath.Join(pbHome, "plugins", "greeter")); sum != after.Content {
		t.Errorf("content after the second rollback %s, want %s", sum, after.Content)
	}
	if kept, err := readKept(keep, "greeter"); err != nil || kept != before {
		t.Errorf("rollback copy after the second rollback: %+v %v", kept, err)
	}
	if v := catalogVersion(t, pbHome, "greeter"); v != "1.1.0" {
		t.Errorf("catalog shows %s after the second rollback", v)
	}
	raw, _ := os.ReadFile(filepath.Join(keep, rollbackEntry))
	if strings.Contains(string(raw), "PLANTED") {
		t.Errorf("the rollback entry carries a secret: %s", raw)
	}
	// Uninstalled, the kept version goes too: nothing to roll back to.
	if _, err := Uninstall(context.Background(), UninstallOptions{Home: filepath.Dir(pbHome), PlugboardHome: pbHome, Name: "greeter", Force: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(keep); !os.IsNotExist(err) {
		t.Errorf("the rollback copy %s is left after uninstall: %v", keep, err)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// A plugin installed at a commit id is up to date without a fetch; one at a tag follows
// the tag; both read through file://.
func TestUpdatePinnedCommitAndMovedTag(t *testing.T) {
	needGit(t)
	_, pbHome := homes(t)
	work := t.TempDir()
	writePlugin(t, work, "greeter")
	first := commitAll(t, work, "one")
	gitIn(t, work, "tag", "v1")
	o := opts(t, pbHome, "file://"+work)
	o.Ref, o.Name = first, "pinned"
	if _, err := Install(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	o.Ref, o.Name = "v1", "tagged"
	if _, err := Install(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	testhome.WriteFile(t, filepath.Join(work, "plugin.json"), v2Manifest)
	second := commitAll(t, work, "two")
	gitIn(t, work, "tag", "-f", "v1")

	state := diskState(t, pbHome)
	ups, err := Check(context.Background(), updOpts(pbHome, ""))
	if err != nil || len(ups) != 2 {
		t.Fatalf("check: %+v %v", ups, err)
	}
	p, tg := ups[0], ups[1]
	if p.ID != "pinned" || !p.Pinned || p.Changed || p.To != p.From || p.From.Commit != first {
		t.Errorf("pinned: %+v", p)
	}
	if tg.ID != "tagged" || !tg.Changed || tg.To.Commit != second || !slices.Equal(tg.Changes.Version, []string{"1.0.0", "1.1.0"}) {
		t.Errorf("tagged: %+v", tg)
	}
	if !mapsEqual(diskState(t, pbHome), state) {
		t.Error("check changed the home")
	}
	ups, err = Apply(context.Background(), updOpts(pbHome, ""))
	if err != nil || ups[0].Applied || !ups[1].Applied {
		t.Fatalf("apply: %+v %v", ups, err)
	}
	if e := lockEntry(t, pbHome, "pinned"); e.Commit != first {
		t.Errorf("the pinned plugin moved to %s", e.Commit)
	}
	if e := lockEntry(t, pbHome, "tagged"); e.Commit != second || e.Ref != "v1" {
		t.Errorf("tagged: %+v", e)
	}
	if _, err := os.Stat(filepath.Join(pbHome, "state", "rollback", "pinned")); err == nil {
		t.Error("a rollback copy for a plugin that was not updated")
	}
}

// A new version with errors is refused, naming the file and the fix; the installed one
// stays, and so does everything else.
func TestUpdateInvalidVersionRefused(t *testing.T) {
	needGit(t)
	_, pbHome := homes(t)
	work := t.TempDir()
	writePlugin(t, work, "greeter")
	commitAll(t, work, "one")
	if _, err := Install(context.Background(), opts(t, pbHome, work)); err != nil {
		t.Fatal(err)
	}
	testhome.WriteFile(t, filepath.Join(work, "plugin.json"), `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "Bad_Name", "version": "2.0.0"}`)
	commitAll(t, work, "broken")
	state := diskState(t, pbHome)
	for name, fn := range map[string]func(context.Context, UpdateOptions) ([]Update, error){"check": Check, "apply": Apply} {
		ups, err := fn(context.Background(), updOpts(pbHome, "greeter"))
		if !errors.Is(err, ErrInvalid) {
			t.Fatalf("%s: err = %v, want ErrInvalid", name, err)
		}
		for _, want := range []string{"plugin.json", "plugboard update greeter", "stays"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: the refusal lacks %q:\n%v", name, want, err)
			}
		}
		if strings.Contains(err.Error(), "--force") {
			t.Errorf("%s: the refusal offers --force, which update does not take:\n%v", name, err)
		}
		if len(ups) != 1 || ups[0].Applied || ups[0].Error == "" {
			t.Errorf("%s: %+v", name, ups)
		}
		if !mapsEqual(diskState(t, pbHome), state) {
			t.Errorf("%s changed the home", name)
		}
	}
	if v := catalogVersion(t, pbHome, "greeter"); v != "1.0.0" {
		t.Errorf("catalog shows %s", v)
	}
	checkNoLeftovers(t, pbHome)
}

// serveGitStoppable is serveGit with a stop: after it, the address refuses connections.
func serveGitStoppable(t *testing.T, root string) (string, func()) {
	t.Helper()
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		testhome.CannotRun(t, "git --exec-path: %v", err)
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		testhome.CannotRun(t, "git-http-backend is not installed: %v", err)
	}
	srv := httptest.NewServer(&cgi.Handler{Path: backend, Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}})
	t.Cleanup(srv.Close)
	return srv.URL, srv.Close
}

// A source that cannot be fetched (its server is gone) leaves everything as it was, and
// says which URL failed.
func TestUpdateFailingFetchLeavesAll(t *testing.T) {
	needGit(t)
	_, pbHome := homes(t)
	work := t.TempDir()
	writePlugin(t, work, "greeter")
	commitAll(t, work, "one")
	root := t.TempDir()
	bare := bareRepo(t, work, root, "greeter")
	base, stop := serveGitStoppable(t, root)
	u := base + "/greeter.git"
	if _, err := Install(context.Background(), opts(t, pbHome, u)); err != nil {
		t.Fatal(err)
	}
	testhome.WriteFile(t, filepath.Join(work, "plugin.json"), v2Manifest)
	commitAll(t, work, "two")
	gitIn(t, work, "push", "--quiet", bare, "main")
	stop()

	state := diskState(t, pbHome)
	for name, fn := range map[string]func(context.Context, UpdateOptions) ([]Update, error){"check": Check, "apply": Apply} {
		ups, err := fn(context.Background(), updOpts(pbHome, ""))
		if err == nil || !strings.Contains(err.Error(), u) || errors.Is(err, ErrInvalid) {
			t.Fatalf("%s: err = %v, want a fetch error naming %s", name, err, u)
		}
		if len(ups) != 1 || ups[0].Applied || ups[0].Changed || !strings.Contains(ups[0].Error, u) {
			t.Errorf("%s: %+v", name, ups)
		}
		if !mapsEqual(diskState(t, pbHome), state) {
			t.Errorf("%s changed the home", name)
		}
	}
	checkNoLeftovers(t, pbHome)
}

// Rollback without a kept version is refused, clearly, and changes nothing; so is one
// of a plugin that is not installed, and an update of a name the lockfile lacks.
func TestRollbackWithoutCopyRefused(t *testing.T) {
	_, pbHome := homes(t)
	installFolder(t, pbHome, "greeter")
	state := diskState(t, pbHome)
	ro := RollbackOptions{Home: filepath.Dir(pbHome), PlugboardHome: pbHome, Name: "greeter"}
	_, err := Rollback(context.Background(), ro)
	if !errors.Is(err, ErrNoRollback) || !strings.Contains(err.Error(), "no previous version") || !strings.Contains(err.Error(), "plugboard update") {
		t.Errorf("err = %v, want ErrNoRollback saying what keeps one", err)
	}
	if !mapsEqual(diskState(t, pbHome), state) {
		t.Error("a refused rollback changed the home")
	}
	ro.Name = "nothing"
	if _, err := Rollback(context.Background(), ro); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("not installed: %v", err)
	}
	if _, err := Check(context.Background(), updOpts(pbHome, "nothing")); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("update of a name the lockfile lacks: %v", err)
	}
}

// A folder source updates to its content now, an archive to the file as it is now; a
// kept copy whose content was changed is refused.
func TestUpdateFolderAndArchive(t *testing.T) {
	_, pbHome := homes(t)
	src := installFolder(t, pbHome, "folder-one")
	arch := filepath.Join(t.TempDir(), "tarred.tar.gz")
	buildTarGz(t, arch, "tarred", pluginFiles("tarred"))
	if _, err := Install(context.Background(), opts(t, pbHome, arch)); err != nil {
		t.Fatal(err)
	}
	if ups, err := Check(context.Background(), updOpts(pbHome, "")); err != nil || ups[0].Changed || ups[1].Changed {
		t.Fatalf("unchanged sources: %+v %v", ups, err)
	}
	testhome.WriteFile(t, filepath.Join(src, "skills", "extra", "SKILL.md"), "---\nname: extra\ndescription: One more.\n---\nx\n")
	files := pluginFiles("tarred")
	files["skills/greet/SKILL.md"] = "---\nname: greet\ndescription: Greets the user by name.\n---\nChanged.\n"
	buildTarGz(t, arch, "tarred", files)
	ups, err := Apply(context.Background(), updOpts(pbHome, ""))
	if err != nil || len(ups) != 2 {
		t.Fatalf("apply: %+v %v", ups, err)
	}
	if f := ups[0]; f.ID != "folder-one" || !f.Applied || !slices.Equal(f.Changes.Skills.Added, []string{"extra"}) {
		t.Errorf("folder: %+v", f)
	}
	if a := ups[1]; a.ID != "tarred" || !a.Applied || a.To.Archive == a.From.Archive || !slices.Equal(a.Changes.Skills.Changed, []string{"greet"}) {
		t.Errorf("archive: %+v", a)
	}
	// The kept copy edited: rollback refuses it rather than restore what it is not.
	testhome.WriteFile(t, filepath.Join(pbHome, "state", "rollback", "tarred", rollbackFolder, "plugin.json"), "{}")
	_, err = Rollback(context.Background(), RollbackOptions{Home: filepath.Dir(pbHome), PlugboardHome: pbHome, Name: "tarred"})
	if !errors.Is(err, ErrTampered) {
		t.Errorf("edited copy: %v, want ErrTampered", err)
	}
}

// A legacy Claude plugin whose update adds an .mcp.json server and a hook and changes
// nothing the catalog inventories: the update's review lists each as Claude-native
// (names and the commands' basenames, never arguments or values), and the install's
// review lists what the package has of them already.
func TestUpdateReviewsClaudeNativeCode(t *testing.T) {
	home, pbHome := homes(t)
	src := filepath.Join(t.TempDir(), "legacy")
	testhome.WriteFile(t, filepath.Join(src, ".claude-plugin", "plugin.json"), `{"name": "legacy", "version": "1.0.0", "lspServers": {"gopls": {"command": "/usr/bin/gopls", "args": ["serve"], "extensionToLanguage": {".go": "go"}}}}`)
	testhome.WriteFile(t, filepath.Join(src, "skills", "s", "SKILL.md"), "---\nname: s\ndescription: A skill.\n---\n")
	res, err := Install(context.Background(), opts(t, pbHome, src))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Native) != 1 || res.Native[0].Kind != "lsp" || res.Native[0].Name != "gopls" || res.Native[0].Change != "present" || strings.Join(res.Native[0].Runs, ",") != "gopls" {
		t.Errorf("install's native = %+v", res.Native)
	}
	testhome.WriteFile(t, filepath.Join(src, ".mcp.json"), `{"mcpServers": {"db": {"command": "node", "args": ["server.js", "--token", "PLANTED-ARG"], "env": {"K": "PLANTED-ENV"}}}}`)
	testhome.WriteFile(t, filepath.Join(src, "hooks", "hooks.json"), `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/bin/check.sh --strict"}]}]}}`)
	ups, err := Check(context.Background(), UpdateOptions{Home: home, PlugboardHome: pbHome})
	if err != nil || len(ups) != 1 {
		t.Fatalf("Check = %+v, %v", ups, err)
	}
	n := ups[0].Changes.Native
	b, _ := json.Marshal(n)
	if len(n) != 2 || n[0].Kind != "hook" || n[0].Name != "PreToolUse" || n[0].Change != "added" || strings.Join(n[0].Runs, ",") != "check.sh" ||
		n[1].Kind != "mcp" || n[1].Name != "db" || n[1].Change != "added" || n[1].File != ".mcp.json" || strings.Join(n[1].Runs, ",") != "node" {
		t.Errorf("native changes = %s", b)
	}
	if strings.Contains(string(b), "PLANTED") || strings.Contains(string(b), "server.js") {
		t.Errorf("a value or argument is in the review: %s", b)
	}
}
