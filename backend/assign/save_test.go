package assign

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Saves keep every other byte, the key order and the mode: the file after the save is
// compared with an expected file.
func TestSaveByteExact(t *testing.T) {
	for _, c := range []struct {
		name, target, file, expected string
		change                       Change
	}{
		{"agent: other members, order, escapes and numbers kept", "agent:keeper", "agents/keeper.json", "keeper-add-legacy-one.json",
			Change{Add: []string{"legacy-one"}}},
		{"slot defaults: only that slot's pluginDirs deleted", "template:review/bare", "templates/review.json", "review-bare-defaults.json",
			Change{Defaults: true}},
		{"inheriting slot: a custom snapshot of its agent appended to that slot only", "template:pair/researcher@0", "templates/pair.json", "pair-researcher0-add-legacy-one.json",
			Change{Add: []string{"legacy-one"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			pb, cat := mainHome(t)
			p := filepath.Join(pb, c.file)
			if err := os.Chmod(p, 0o640); err != nil {
				t.Fatal(err)
			}
			agentBefore := readFile(t, filepath.Join(pb, "agents", "researcher.json"))
			if _, err := Apply(pb, cat, c.target, c.change, "", false); err != nil {
				t.Fatalf("Apply: %v", err)
			}
			got, want := readFile(t, p), readFile(t, filepath.Join(fixtureDir("expected"), c.expected))
			if !bytes.Equal(got, want) {
				t.Errorf("%s after the save =\n%s\nwant\n%s", c.file, got, want)
			}
			if st, _ := os.Stat(p); st.Mode().Perm() != 0o640 {
				t.Errorf("mode after the save = %v; want 0640", st.Mode().Perm())
			}
			if !bytes.Equal(readFile(t, filepath.Join(pb, "agents", "researcher.json")), agentBefore) {
				t.Errorf("a slot save changed its agent's file")
			}
		})
	}
}

// A slot without pluginDirs inherits; a custom slot is a snapshot that no longer tracks
// its agent; "use defaults" returns to inheriting.
func TestSlotInheritCustomDefaults(t *testing.T) {
	pb, cat := mainHome(t)
	id := "template:review/researcher"
	out, err := Apply(pb, cat, id, Change{Add: []string{"legacy-one"}}, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if !out.BeforeInherits || out.Target.Inherits || !eq(out.Before, []string{"notes", "broken"}) || !eq(out.After, []string{"notes", "broken", "legacy-one"}) {
		t.Errorf("Outcome = %+v; want a custom snapshot of the agent plus legacy-one", out)
	}
	// The agent changes; the snapshot does not follow.
	if _, err := Apply(pb, cat, "agent:researcher", Change{Remove: []string{"notes"}}, "", false); err != nil {
		t.Fatal(err)
	}
	if got := target(t, pb, cat, id).Effective; !eq(got, []string{"notes", "broken", "legacy-one"}) {
		t.Errorf("custom slot effective after its agent changed = %v", got)
	}
	out, err = Apply(pb, cat, id, Change{Defaults: true}, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Target.Inherits || !eq(out.After, []string{"broken"}) || out.AfterDirs != nil {
		t.Errorf("after defaults = %+v; want inheriting the agent's [broken]", out)
	}
	if _, present := dirsIn(t, filepath.Join(pb, "templates", "review.json"), 0); present {
		t.Errorf("defaults left the slot's pluginDirs")
	}
	// Defaults on a slot that inherits already writes nothing.
	out, err = Apply(pb, cat, id, Change{Defaults: true}, "", false)
	if err != nil || out.Written || out.AfterHash != out.BeforeHash {
		t.Errorf("defaults again = %+v, %v; want nothing written", out, err)
	}
	// A custom slot set to nothing is an empty custom set, not inheriting.
	out, err = Apply(pb, cat, "template:pair/researcher@1", Change{Remove: []string{"tools"}}, "", false)
	if err != nil || out.Target.Inherits || len(out.After) != 0 {
		t.Errorf("empty custom slot = %+v, %v", out.Target, err)
	}
	if got, present := dirsIn(t, filepath.Join(pb, "templates", "pair.json"), 1); !present || len(got) != 0 {
		t.Errorf("empty custom slot pluginDirs = %v, present %v; want []", got, present)
	}
}

func TestStaleNeverWrites(t *testing.T) {
	pb, cat := mainHome(t)
	p := filepath.Join(pb, "agents", "keeper.json")
	old := target(t, pb, cat, "agent:keeper").Hash
	if _, err := Apply(pb, cat, "agent:keeper", Change{Add: []string{"mcp-off"}}, old, false); err != nil {
		t.Fatal(err)
	}
	saved := readFile(t, p)
	_, err := Apply(pb, cat, "agent:keeper", Change{Add: []string{"legacy-one"}}, old, false)
	var se *StaleError
	if !errors.As(err, &se) || !errors.Is(err, ErrStale) {
		t.Fatalf("Apply with an old hash = %v; want *StaleError", err)
	}
	if !bytes.Equal(readFile(t, p), saved) {
		t.Errorf("a stale save wrote the file")
	}
	if fresh := target(t, pb, cat, "agent:keeper"); se.Fresh.Hash != fresh.Hash || !eq(se.Fresh.Managed, []string{"notes", "mcp-off"}) {
		t.Errorf("StaleError.Fresh = %+v; want the target as on disk", se.Fresh)
	}
}

// Without a caller's hash, Apply still compares, under the lock, with the hash it read
// at its start: a write between the read and the lock makes it stale.
func TestStaleUnderLock(t *testing.T) {
	pb, cat := mainHome(t)
	p := filepath.Join(pb, "agents", "keeper.json")
	other := []byte("{\n  \"name\": \"keeper\",\n  \"pluginDirs\": []\n}\n")
	beforeLock = func(string) { os.WriteFile(p, other, 0o644) }
	defer func() { beforeLock = nil }()
	_, err := Apply(pb, cat, "agent:keeper", Change{Add: []string{"legacy-one"}}, "", false)
	if !errors.Is(err, ErrStale) {
		t.Fatalf("Apply = %v; want ErrStale", err)
	}
	if !bytes.Equal(readFile(t, p), other) {
		t.Errorf("the other writer's file was overwritten")
	}
	var se *StaleError
	if errors.As(err, &se); se == nil || len(se.Fresh.Managed) != 0 || se.Fresh.Hash == "" {
		t.Errorf("Fresh = %+v; want the other writer's target", se)
	}
}

// Revert: SetDirs with BeforeDirs restores the file (byte for byte, except that a
// pluginDirs deleted by "use defaults" comes back at the end of its slot object), and
// Set with Before restores a managed list with the unmanaged entries in place.
func TestRevert(t *testing.T) {
	for _, c := range []struct {
		target, file string
		change       Change
		moved        bool // the restored member is appended, so compare values
	}{
		{"template:review/bare", "templates/review.json", Change{Defaults: true}, true},
		{"template:review/researcher", "templates/review.json", Change{Add: []string{"legacy-one"}}, false},
		{"agent:researcher", "agents/researcher.json", Change{Set: []string{"legacy-one", "broken"}}, false},
		{"agent:bare", "agents/bare.json", Change{Add: []string{"notes"}}, false},
	} {
		pb, cat := mainHome(t)
		p := filepath.Join(pb, c.file)
		orig := readFile(t, p)
		same := func() bool {
			if !c.moved {
				return bytes.Equal(readFile(t, p), orig)
			}
			var a, b any
			json.Unmarshal(readFile(t, p), &a)
			json.Unmarshal(orig, &b)
			return reflect.DeepEqual(a, b)
		}
		out, err := Apply(pb, cat, c.target, c.change, "", false)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := SetDirs(pb, cat, c.target, out.BeforeDirs, out.AfterHash, false); err != nil || !same() {
			t.Errorf("%s: SetDirs(BeforeDirs) = %v; file\n%s\nwant\n%s", c.target, err, readFile(t, p), orig)
		}
		if out.BeforeInherits || c.change.Defaults || c.target == "agent:bare" {
			// Set cannot express "inherit" or "no member", nor bring back the unmanaged
			// entries "use defaults" deleted with the slot's pluginDirs; SetDirs does.
			continue
		}
		Apply(pb, cat, c.target, c.change, "", false)
		if _, err := Apply(pb, cat, c.target, Change{Set: append([]string{}, out.Before...)}, "", false); err != nil || !same() {
			t.Errorf("%s: Set(Before) = %v; file\n%s\nwant\n%s", c.target, err, readFile(t, p), orig)
		}
	}
}

// A revert is a save like any other: it cannot bring back an invalid plugin.
func TestRevertKeepsRules(t *testing.T) {
	pb, cat := mainHome(t)
	out, err := Apply(pb, cat, "agent:researcher", Change{Remove: []string{"broken"}}, "", false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = SetDirs(pb, cat, "agent:researcher", out.BeforeDirs, out.AfterHash, false)
	var re *RuleError
	if !errors.As(err, &re) || re.Code != RuleInvalid || !eq(re.Names, []string{"broken"}) {
		t.Errorf("SetDirs re-adding an invalid plugin = %v; want RuleError invalid-plugin [broken]", err)
	}
}

func TestPreviewWritesNothing(t *testing.T) {
	pb, cat := mainHome(t)
	p := filepath.Join(pb, "agents", "bare.json")
	orig := readFile(t, p)
	out, err := Preview(pb, cat, "agent:bare", Change{Add: []string{"tools", "notes"}})
	var ae *AckError
	if !errors.As(err, &ae) || len(ae.Servers) != 2 || !eq(out.After, []string{"tools", "notes"}) || out.Written {
		t.Fatalf("Preview = %+v, %v; want the outcome and an *AckError", out, err)
	}
	if !bytes.Equal(readFile(t, p), orig) {
		t.Errorf("Preview wrote the file")
	}
	saved, err := Apply(pb, cat, "agent:bare", Change{Add: []string{"tools", "notes"}}, out.BeforeHash, true)
	if err != nil || saved.AfterHash != out.AfterHash {
		t.Errorf("Apply after Preview = %v, hash %s; preview said %s", err, saved.AfterHash, out.AfterHash)
	}
}

// No env value, header value or URL query of a planted mcp.json reaches any JSON or
// error the package returns.
func TestSecretsNeverShown(t *testing.T) {
	pb, cat := mainHome(t)
	var shown []string
	show := func(v any) {
		b, _ := json.Marshal(v)
		shown = append(shown, string(b))
		if err, ok := v.(error); ok {
			shown = append(shown, err.Error())
		}
	}
	ts, issues := Targets(pb, cat)
	show(ts)
	show(issues)
	out, err := Preview(pb, cat, "agent:bare", Change{Add: []string{"tools"}})
	show(out)
	show(err)
	out, err = Apply(pb, cat, "agent:bare", Change{Add: []string{"tools"}}, "", false)
	show(out)
	show(err)
	_, err = Apply(pb, cat, "agent:forms", Change{Add: []string{"db-tools"}}, "", true)
	show(err)
	out, err = Apply(pb, cat, "agent:bare", Change{Add: []string{"tools"}}, "", true)
	show(out)
	if err != nil || len(out.Acknowledged) == 0 {
		t.Fatalf("Apply with ack = %v", err)
	}
	for _, s := range shown {
		if strings.Contains(s, "PLANTED") {
			t.Errorf("a planted secret is shown: %s", s)
		}
	}
}

func TestSaveCleansOldTemps(t *testing.T) {
	pb, cat := mainHome(t)
	dir := filepath.Join(pb, "agents")
	old, fresh := filepath.Join(dir, ".keeper.json.tmp-111"), filepath.Join(dir, ".keeper.json.tmp-222")
	for _, p := range []string{old, fresh} {
		os.WriteFile(p, []byte("{"), 0o600)
	}
	past := time.Now().Add(-2 * time.Minute)
	os.Chtimes(old, past, past)
	if _, err := Apply(pb, cat, "agent:keeper", Change{Add: []string{"legacy-one"}}, "", false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a temporary file two minutes old survived the save")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a fresh temporary file (maybe another save's) was removed: %v", err)
	}
}

func TestSaveThroughSymlink(t *testing.T) {
	pb, cat := mainHome(t)
	real := filepath.Join(pb, "keeper-real.json")
	link := filepath.Join(pb, "agents", "keeper.json")
	os.Rename(link, real)
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(pb, cat, "agent:keeper", Change{Add: []string{"legacy-one"}}, "", false); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced by a file")
	}
	if !bytes.Equal(readFile(t, real), readFile(t, filepath.Join(fixtureDir("expected"), "keeper-add-legacy-one.json"))) {
		t.Errorf("the link's target was not saved")
	}
}

// A save changes the bytes of the pluginDirs member and nothing else: the file keeps its
// indentation (four spaces, tabs), its CRLF line endings, its key order and the other
// members as written; a new value follows the file's style (several lines with its indent,
// or one line where the old value was on one line); a deleted member takes its comma.
func TestSaveKeepsFileStyle(t *testing.T) {
	crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
	for _, c := range []struct {
		name, file, before, target string
		change                     Change
		after                      string
	}{
		{"agent, four spaces, CRLF", "agents/four.json",
			crlf("{\n    \"name\": \"four\",\n    \"pluginDirs\": [\n        \"plugins/notes\"\n    ],\n    \"profile\": {\"model\": \"m\", \"n\": 1.50}\n}\n"),
			"agent:four", Change{Add: []string{"legacy-one"}},
			crlf("{\n    \"name\": \"four\",\n    \"pluginDirs\": [\n        \"plugins/notes\",\n        \"plugins/legacy-one\"\n    ],\n    \"profile\": {\"model\": \"m\", \"n\": 1.50}\n}\n")},
		{"agent, tabs, member added", "agents/tabs.json",
			"{\n\t\"profile\": \"p\",\n\t\"name\": \"tabs\"\n}",
			"agent:tabs", Change{Add: []string{"notes"}},
			"{\n\t\"profile\": \"p\",\n\t\"name\": \"tabs\",\n\t\"pluginDirs\": [\n\t\t\"plugins/notes\"\n\t]\n}"},
		{"agent, a value on one line stays on one line", "agents/inline.json",
			"{\n  \"name\": \"inline\",\n  \"pluginDirs\": [\"plugins/notes\"],\n  \"zeta\": null\n}\n",
			"agent:inline", Change{Add: []string{"legacy-one"}},
			"{\n  \"name\": \"inline\",\n  \"pluginDirs\": [\"plugins/notes\", \"plugins/legacy-one\"],\n  \"zeta\": null\n}\n"},
		{"slot defaults, tabs, CRLF: the member and its comma go", "templates/tabs.json",
			crlf("{\n\t\"name\": \"tabs\",\n\t\"agents\": [\n\t\t{\n\t\t\t\"ref\": \"bare\",\n\t\t\t\"pluginDirs\": [\n\t\t\t\t\"plugins/notes\"\n\t\t\t],\n\t\t\t\"label\": \"l\"\n\t\t},\n\t\t{\n\t\t\t\"ref\": \"researcher\"\n\t\t}\n\t]\n}\n"),
			"template:tabs/bare", Change{Defaults: true},
			crlf("{\n\t\"name\": \"tabs\",\n\t\"agents\": [\n\t\t{\n\t\t\t\"ref\": \"bare\",\n\t\t\t\"label\": \"l\"\n\t\t},\n\t\t{\n\t\t\t\"ref\": \"researcher\"\n\t\t}\n\t]\n}\n")},
		{"inheriting slot, four spaces: the snapshot appended to that slot", "templates/four.json",
			"{\n    \"name\": \"four\",\n    \"agents\": [\n        {\n            \"ref\": \"bare\"\n        },\n        {\"ref\": \"researcher\"}\n    ]\n}\n",
			"template:four/bare", Change{Add: []string{"notes"}},
			"{\n    \"name\": \"four\",\n    \"agents\": [\n        {\n            \"ref\": \"bare\",\n            \"pluginDirs\": [\n                \"plugins/notes\"\n            ]\n        },\n        {\"ref\": \"researcher\"}\n    ]\n}\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			pb, cat := mainHome(t)
			p := filepath.Join(pb, c.file)
			if err := os.WriteFile(p, []byte(c.before), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := Apply(pb, cat, c.target, c.change, "", false)
			if err != nil || !out.Written {
				t.Fatalf("Apply = %+v, %v", out, err)
			}
			if got := readFile(t, p); string(got) != c.after {
				t.Errorf("%s after the save =\n%q\nwant\n%q", c.file, got, c.after)
			}
			if fresh := target(t, pb, cat, c.target); fresh.Hash != out.AfterHash {
				t.Errorf("hash on disk %s; the outcome says %s", fresh.Hash, out.AfterHash)
			}
		})
	}
}

// An agent or template file its owner may not write (mode 0444) is refused, naming the
// file and the fix, and left as it is: the atomic rename would replace it, since only the
// folder needs to be writable for that. It is a check of the mode bits, so it holds when
// the tests run as root.
func TestSaveRefusesReadOnlyFile(t *testing.T) {
	for _, c := range []struct {
		target, file string
		change       Change
		link         bool
	}{
		{"agent:keeper", "agents/keeper.json", Change{Add: []string{"legacy-one"}}, false},
		{"template:review/bare", "templates/review.json", Change{Defaults: true}, false},
		{"agent:keeper", "agents/keeper.json", Change{Add: []string{"legacy-one"}}, true},
	} {
		pb, cat := mainHome(t)
		p := filepath.Join(pb, c.file)
		real := p
		if c.link {
			real = filepath.Join(pb, "keeper-real.json")
			os.Rename(p, real)
			if err := os.Symlink(real, p); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chmod(real, 0o444); err != nil {
			t.Fatal(err)
		}
		before := readFile(t, real)
		_, err := Apply(pb, cat, c.target, c.change, "", false)
		if err == nil || !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "chmod u+w "+real) {
			t.Errorf("%s (link %v): Apply = %v; want ErrReadOnly naming %s and chmod u+w %s", c.target, c.link, err, p, real)
		}
		if st, _ := os.Stat(real); !bytes.Equal(readFile(t, real), before) || st.Mode().Perm() != 0o444 {
			t.Errorf("%s (link %v): the read-only file was replaced (mode now %v)", c.target, c.link, st.Mode().Perm())
		}
		if st, err := os.Lstat(p); c.link && (err != nil || st.Mode()&os.ModeSymlink == 0) {
			t.Errorf("the symlink was replaced")
		}
	}
}
