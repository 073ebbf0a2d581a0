package skill

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/pathsafe"
)

// pathsWorld builds, under a temporary folder, a home folder with SSH keys, a shared
// folder outside the skill, and a skill folder full of symlinks.
func pathsWorld(t *testing.T) (skill, home string) {
	t.Helper()
	base, err := pathsafe.Root(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home = filepath.Join(base, "home", "user")
	outside := filepath.Join(base, "outside", "shared")
	skill = filepath.Join(base, "skills", "paths-skill")
	writeFile(t, filepath.Join(home, ".ssh", "id_rsa"), "key")
	writeFile(t, filepath.Join(outside, "file.txt"), "shared")
	writeFile(t, filepath.Join(skill, "references", "schema.json"), "{}")
	writeFile(t, filepath.Join(skill, "secrets", ".aws", "config"), "[default]")
	mkdirs(t, filepath.Join(skill, "data"))
	links := map[string]string{
		"out":           "../../outside/shared",
		"out-abs":       outside,
		"data/link-out": outside,
		"to-home":       home,
		"to-root":       "/",
		"to-parent":     filepath.Dir(home),
		"to-ssh":        filepath.Join(home, ".ssh"),
		"to-ssh-key":    filepath.Join(home, ".ssh", "id_rsa"),
		"cfg":           "secrets/.aws",
		"loop-a":        "loop-b",
		"loop-b":        "loop-a",
		"dangling":      "../../nowhere",
	}
	for link, target := range links {
		mustSymlink(t, target, filepath.Join(skill, link))
	}
	return skill, home
}

// ok marks an accepted entry in pathTests.
const ok = ""

// pathTests judge one `paths` entry against pathsWorld, untrusted then trusted.
var pathTests = []struct {
	entry     string
	untrusted string // "" when accepted, else a word the reason must contain
	trusted   string
	resolved  string // for accepted entries, relative to the skill folder when not absolute
}{
	{"data", ok, ok, "data"},
	{"references/schema.json", ok, ok, "references/schema.json"},
	{"./data", ok, ok, "data"},
	{".", ok, ok, "."},
	{"/etc", "absolute", "absolute", ""},
	{"/", "absolute", "absolute", ""},
	{"~", "~", "~", ""},
	{"~/notes", "~", "~", ""},
	{"~root/x", "~", "~", ""},
	{"$HOME", "$", "$", ""},
	{"data/$X", "$", "$", ""},
	{"${HOME}/x", "$", "$", ""},
	{"..", "..", "..", ""},
	{"../paths-skill", "..", "..", ""},
	{"data/../../x", "..", "..", ""},
	{"", "empty", "empty", ""},
	{"  ", "empty", "empty", ""},
	{".env", "credential", "credential", ""},
	{".env.local", "credential", "credential", ""},
	{".envrc", "credential", "credential", ""},
	{".ssh", "credential", "credential", ""},
	{"x/.ssh/config", "credential", "credential", ""},
	{".SSH", "credential", "credential", ""},
	{".aws/credentials", "credential", "credential", ""},
	{".gnupg", "credential", "credential", ""},
	{".kube/config", "credential", "credential", ""},
	{".docker/config.json", "credential", "credential", ""},
	{".netrc", "credential", "credential", ""},
	{".npmrc", "credential", "credential", ""},
	{".pypirc", "credential", "credential", ""},
	{".git-credentials", "credential", "credential", ""},
	{".pgpass", "credential", "credential", ""},
	{"credentials", "credential", "credential", ""},
	{"id_rsa", "credential", "credential", ""},
	{"keys/id_dsa", "credential", "credential", ""},
	{"id_ecdsa", "credential", "credential", ""},
	{"id_ed25519.pub", "credential", "credential", ""},
	{"certs/server.pem", "credential", "credential", ""},
	{"tls.key", "credential", "credential", ""},
	{"store.p12", "credential", "credential", ""},
	{"store.pfx", "credential", "credential", ""},
	{"app.keystore", "credential", "credential", ""},
	{"missing", "does not exist", "does not exist", ""},
	{"data/missing.txt", "does not exist", "does not exist", ""},
	{"out", "outside the skill folder", ok, "/outside/shared"},
	{"out-abs/file.txt", "outside the skill folder", ok, "/outside/shared/file.txt"},
	{"data/link-out/file.txt", "outside the skill folder", ok, "/outside/shared/file.txt"},
	{"to-home", "outside the skill folder", "your home folder", ""},
	{"to-root", "outside the skill folder", "filesystem root", ""},
	{"to-parent", "outside the skill folder", "contains your home folder", ""},
	{"to-ssh", "outside the skill folder", `".ssh"`, ""},
	{"to-ssh-key", "outside the skill folder", `".ssh"`, ""},
	{"cfg", `".aws"`, `".aws"`, ""},
	{"cfg/config", `".aws"`, `".aws"`, ""},
	{"loop-a", "loop", "loop", ""},
	{"dangling", "outside the skill folder", "does not exist", ""},
}

func TestPaths(t *testing.T) {
	skill, home := pathsWorld(t)
	base := filepath.Dir(filepath.Dir(skill))
	for _, tt := range pathTests {
		for _, trusted := range []bool{false, true} {
			wantReason := tt.untrusted
			if trusted {
				wantReason = tt.trusted
			}
			text := doc("name: paths-skill", "description: d", "paths:", "  - "+strconv.Quote(tt.entry))
			s := Parse([]byte(text), "paths-skill", skill, Options{Trusted: trusted, Home: home, Path: "SKILL.md"})
			checkSkill(t, s)
			if !s.Valid || len(s.Paths) != 1 {
				t.Fatalf("entry %q: Valid = %v, Paths = %+v, issues %v", tt.entry, s.Valid, s.Paths, s.Issues)
			}
			pe := s.Paths[0]
			if pe.Entry != tt.entry {
				t.Errorf("Entry = %q, want %q", pe.Entry, tt.entry)
			}
			if wantReason == ok {
				wantResolved := filepath.Join(skill, tt.resolved)
				if strings.HasPrefix(tt.resolved, "/") {
					wantResolved = filepath.Join(base, tt.resolved)
				}
				if !pe.Accepted || pe.Reason != "" || pe.Resolved != wantResolved || len(s.Issues) != 0 {
					t.Errorf("entry %q trusted=%v: got %+v, issues %v; want accepted, resolved %s", tt.entry, trusted, pe, s.Issues, wantResolved)
				}
				continue
			}
			if pe.Accepted || pe.Resolved != "" || !strings.Contains(pe.Reason, wantReason) {
				t.Errorf("entry %q trusted=%v: got %+v; want refused with %q in the reason", tt.entry, trusted, pe, wantReason)
				continue
			}
			i := find(t, s, CodePathsRefused)
			if !strings.Contains(i.Message, strconv.Quote(tt.entry)) || !strings.Contains(i.Message, pe.Reason) || i.Pointer != "/paths/0" || i.Line != 5 {
				t.Errorf("entry %q: issue %v (pointer %q) should name the entry, the reason, /paths/0 and line 5", tt.entry, i, i.Pointer)
			}
		}
	}
}

// TestPathsWithoutDir checks that Parse with no folder judges only the written form.
func TestPathsWithoutDir(t *testing.T) {
	text := doc("name: s", "description: d", "paths: [data, /abs, missing]")
	s := Parse([]byte(text), "s", "", Options{Path: "SKILL.md"})
	checkSkill(t, s)
	got := []bool{s.Paths[0].Accepted, s.Paths[1].Accepted, s.Paths[2].Accepted}
	if got[0] != true || got[1] != false || got[2] != true || s.Paths[0].Resolved != "" {
		t.Errorf("Paths = %+v, want data and missing accepted unresolved, /abs refused", s.Paths)
	}
}

// TestPathsSkillFolderGone: a folder that cannot be resolved refuses every entry.
func TestPathsSkillFolderGone(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gone")
	mustSymlink(t, "gone", dir) // a loop: the folder cannot be resolved
	s := Parse([]byte(doc("name: gone", "description: d", "paths: [data]")), "gone", dir, Options{Path: "SKILL.md"})
	checkSkill(t, s)
	if s.Paths[0].Accepted || !strings.Contains(s.Paths[0].Reason, "cannot be resolved") {
		t.Errorf("Paths = %+v, want refused: the skill folder cannot be resolved", s.Paths)
	}
}

func TestCredentialIn(t *testing.T) {
	for p, want := range map[string]string{
		"a/b/c": "", "environment": "", "keys.txt": "", "monkey": "", "ssh": "", "credentials.md": "",
		"a/.Env/b": ".Env", "deploy/id_rsa_work": "id_rsa_work", "x.PEM": "x.PEM",
	} {
		if got, _ := credentialIn(p); got != want {
			t.Errorf("credentialIn(%q) = %q, want %q", p, got, want)
		}
	}
}
