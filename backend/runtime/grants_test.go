package runtime

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/testhome"
)

// grantsHome is testdata/runtime/grants: the plugin refkit with the skill lookup, whose
// paths are refs (a folder) and data.txt (accepted), .env (a credential inside the
// folder), ../outside and missing (refused); agents reader (claude) and pi-reader.
func grantsHome(t *testing.T) string {
	t.Helper()
	return testhome.CopyTestdata(t, filepath.Join("runtime", "grants"))
}

// A Claude launch grants reading the projected skill folder and each accepted entry in
// it, denies writing the folder and reading the refused entry inside it, and lists the
// refusals; the projected SKILL.md (never the installed one) ends with the note naming
// each refused entry and why.
func TestClaudeGrantsSkillPaths(t *testing.T) {
	pb := grantsHome(t)
	p := build(t, request(pb, "reader"))
	folder := filepath.Join(p.Projection, "plugins", "refkit", "skills", "lookup")
	want := []Grant{{"refkit:lookup", folder, GrantSkillFolder}, {"refkit:lookup", filepath.Join(folder, "refs"), GrantPathsEntry},
		{"refkit:lookup", filepath.Join(folder, "data.txt"), GrantPathsEntry}}
	if !slices.Equal(p.Grants, want) {
		t.Errorf("grants %+v\nwant %+v", p.Grants, want)
	}
	var entries []string
	for _, r := range p.Refused {
		if r.Skill != "refkit:lookup" || r.Reason == "" {
			t.Errorf("refusal %+v", r)
		}
		entries = append(entries, r.Entry)
	}
	if !slices.Equal(entries, []string{".env", "../outside", "missing"}) || p.GrantsUnsupported != "" {
		t.Errorf("refused %v, unsupported %q", entries, p.GrantsUnsupported)
	}

	var st struct {
		Hooks       map[string]any `json:"hooks"`
		Permissions struct {
			Allow []string `json:"allow"`
			Deny  []string `json:"deny"`
		} `json:"permissions"`
	}
	b, err := os.ReadFile(filepath.Join(p.Projection, ActivitySettingsFile))
	if err != nil || json.Unmarshal(b, &st) != nil {
		t.Fatalf("settings: %v\n%s", err, b)
	}
	abs := func(s string) string { return "/" + filepath.Join(folder, s) }
	if want := []string{"Read(/" + folder + "/**)", "Read(" + abs("refs") + "/**)", "Read(" + abs("data.txt") + ")"}; !slices.Equal(st.Permissions.Allow, want) {
		t.Errorf("allow %v\nwant %v", st.Permissions.Allow, want)
	}
	if want := []string{"Edit(/" + folder + "/**)", "Read(" + abs(".env") + ")", "Read(" + abs(".env") + "/**)",
		"Read(" + abs("missing") + ")", "Read(" + abs("missing") + "/**)"}; !slices.Equal(st.Permissions.Deny, want) {
		t.Errorf("deny %v\nwant %v", st.Permissions.Deny, want)
	}
	for _, r := range st.Permissions.Allow {
		if !strings.HasPrefix(r, "Read(//") {
			t.Errorf("an allow rule that is not a read of an absolute path: %s", r)
		}
	}
	if st.Hooks == nil {
		t.Error("the settings lost the activity hooks")
	}
	// The same rules survive the swap to the launcher's recorder.
	if !p.UseActivityServer("http://127.0.0.1:1", "tok") || !strings.Contains(p.Argv[slices.Index(p.Argv, "--settings")+1], `"Edit(/`+folder+`/**)"`) {
		t.Errorf("the recorder's settings lost the rules: %v", p.Argv)
	}

	installed, _ := os.ReadFile(filepath.Join(pb, "plugins", "refkit", "skills", "lookup", "SKILL.md"))
	projected, _ := os.ReadFile(filepath.Join(folder, "SKILL.md"))
	note := string(projected[len(installed):])
	if !strings.HasPrefix(string(projected), string(installed)) || strings.Contains(string(installed), RefusalMarker) ||
		!strings.HasPrefix(note, "\n"+RefusalMarker+"\n") || strings.Count(note, "\n") != 3 {
		t.Fatalf("projected SKILL.md ends with %q", note)
	}
	for _, e := range []string{`".env" (`, `"../outside" (`, `"missing" (it does not exist`} {
		if !strings.Contains(note, e) {
			t.Errorf("the note names no %s: %q", e, note)
		}
	}
	// The projection is sealed with the note: it is reused as it is.
	if again := build(t, request(pb, "reader")); !again.Reused || again.Fingerprint != p.Fingerprint {
		t.Errorf("the second launch: reused %v, rebuilt %q", again.Reused, again.Rebuilt)
	}
}

// PI has no permission system: no grants, the plan says why, and the refusals and the
// note are there as for Claude.
func TestPIGrantsUnsupported(t *testing.T) {
	pb := grantsHome(t)
	p := build(t, request(pb, "pi-reader"))
	if len(p.Grants) != 0 || p.GrantsUnsupported != GrantsUnsupportedPI || len(p.Refused) != 3 || p.Refused[0].Skill != "lookup" {
		t.Errorf("grants %v, unsupported %q, refused %v", p.Grants, p.GrantsUnsupported, p.Refused)
	}
	b, _ := os.ReadFile(filepath.Join(p.Projection, "skills", "lookup", "SKILL.md"))
	if !strings.Contains(string(b), RefusalMarker) {
		t.Errorf("PI's projected SKILL.md has no note:\n%s", b)
	}
}

// The note is part of what the fingerprint covers: a skill whose refusals differ, all else
// equal, is another projection.
func TestFingerprintCoversTheRefusalNote(t *testing.T) {
	pb := grantsHome(t)
	before := build(t, request(pb, "reader"))
	// ../outside is refused for its "..": making it exist outside the folder changes no
	// file of the skill, and must not change the projection; "missing" created inside
	// the skill folder is a new file and a new reason.
	if err := os.MkdirAll(filepath.Join(pb, "plugins", "refkit", "skills", "outside"), 0o755); err != nil {
		t.Fatal(err)
	}
	same := build(t, request(pb, "reader"))
	if same.Fingerprint != before.Fingerprint {
		t.Error("a folder outside the skill changed its fingerprint")
	}
	if err := os.WriteFile(filepath.Join(pb, "plugins", "refkit", "skills", "lookup", "missing"), []byte("now here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	after := build(t, request(pb, "reader"))
	if after.Fingerprint == before.Fingerprint || len(after.Refused) != 2 {
		t.Errorf("after creating the entry: fingerprint same %v, refused %v", after.Fingerprint == before.Fingerprint, after.Refused)
	}
}
