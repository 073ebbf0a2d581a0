package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/testhome"
)

// verifyHome is a home with two managed packages and the real claude 2.1.328 as a
// `claude` on PATH.
func verifyHome(t *testing.T) map[string]string {
	t.Helper()
	home := t.TempDir()
	pb := filepath.Join(home, ".plugboard", "plugins")
	write(t, filepath.Join(pb, "greeter", ".claude-plugin", "plugin.json"), `{"name": "greeter"}`)
	write(t, filepath.Join(pb, "greeter", "skills", "hello", "SKILL.md"), "---\nname: hello\ndescription: Says hello.\n---\n")
	write(t, filepath.Join(pb, "empty", "README.md"), "nothing Claude loads\n")
	write(t, filepath.Join(home, ".claude", "skills", "tidy", "SKILL.md"), "---\nname: tidy\ndescription: Tidies up.\n---\n")
	bin := t.TempDir()
	if err := os.Symlink(testhome.AgentBin(t, testhome.ClaudeNewest), filepath.Join(bin, "claude")); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"HOME": home, "PATH": bin}
}

// verify asks the installed claude about every package and, where it agrees with the
// model (judged by the same release), says so in one line and exits 0; a second run
// answers from the database; --json has every answer.
func TestClientsVerify(t *testing.T) {
	env := verifyHome(t)
	code, out, errOut := run(t, env, "clients", "verify")
	if code != ExitOK || out != "claude 2.1.328: 2 packages and 1 standalone skill, 3 agree, 0 differ, 0 could not be asked (0 answers from the database)\n" {
		t.Fatalf("verify = %d\n%s\nstderr %s", code, out, errOut)
	}
	if !strings.Contains(errOut, "asking claude 2.1.328 about 2 packages") {
		t.Errorf("stderr %q", errOut)
	}
	code, out, _ = run(t, env, "clients", "verify", "--json")
	var rep verifyReport
	if err := json.Unmarshal([]byte(out), &rep); code != ExitOK || err != nil {
		t.Fatalf("verify --json = %d, %v\n%s", code, err, out)
	}
	if len(rep.Asked) != 1 || rep.Differ != 0 || len(rep.Asked[0].Results) != 3 {
		t.Fatalf("report %+v", rep)
	}
	for _, r := range rep.Asked[0].Results {
		if !r.Cached || r.Answer == nil || r.Answer.Version != "2.1.328" {
			t.Errorf("%s: %+v %+v", r.Plugin, r, r.Answer)
		}
		if r.Plugin == "greeter" && strings.Join(r.Answer.Skills, ",") != "greeter:hello" {
			t.Errorf("greeter: %+v", r.Answer)
		}
		if r.Skill != "" && (r.Subject() != "skill tidy" || strings.Join(r.Answer.Skills, ",") != "tidy") {
			t.Errorf("the standalone skill: %+v %+v", r, r.Answer)
		}
	}
}

// With no client to ask, verify says so and how to install one, and exits 2; --home on
// the plain list is refused.
func TestClientsVerifyNoClient(t *testing.T) {
	code, _, errOut := run(t, map[string]string{"HOME": t.TempDir(), "PATH": t.TempDir()}, "clients", "verify")
	if code != ExitUsage || !strings.Contains(errOut, "no installed client can be asked") || !strings.Contains(errOut, "npm install -g @anthropic-ai/claude-code") {
		t.Errorf("verify = %d, %q", code, errOut)
	}
	if code, _, errOut := run(t, map[string]string{"HOME": t.TempDir()}, "clients", "--home", t.TempDir()); code != ExitUsage || !strings.Contains(errOut, "verify") {
		t.Errorf("clients --home = %d, %q", code, errOut)
	}
}

// A client that behaves otherwise than the model of the version it reports: here the real
// claude 2.1.197 behind a `claude` that says it is 2.1.328, as a release that changed
// what it loads without the model knowing would. 2.1.328 skips a --plugin-dir folder with
// no manifest and no component, 2.1.197 loads it with no skill: verify prints the package
// with both answers and exits 1.
func TestClientsVerifyDiffers(t *testing.T) {
	env := verifyHome(t)
	old := testhome.AgentBin(t, testhome.ClaudeVersions[0].Bin)
	write(t, filepath.Join(env["PATH"], "claude.sh"), "#!/bin/sh\nif [ \"$1\" = --version ]; then echo '2.1.328 (Claude Code)'; exit 0; fi\nexec '"+old+"' \"$@\"\n")
	if err := os.Remove(filepath.Join(env["PATH"], "claude")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(env["PATH"], "claude.sh"), filepath.Join(env["PATH"], "claude")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(env["PATH"], "claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, env, "clients", "verify")
	if code != ExitInvalid {
		t.Fatalf("verify = %d, want %d\n%s\nstderr %s", code, ExitInvalid, out, errOut)
	}
	if !strings.Contains(out, "DIFFERS empty (~/.plugboard/plugins/empty), claude 2.1.328 against model of claude 2.1.328, claude 2.1.328 installed:\n  the model says it does not load") ||
		!strings.Contains(out, "; claude 2.1.197 here loads it as empty with 0 skills\n") {
		t.Errorf("no DIFFERS line for empty:\n%s", out)
	}
	if !strings.HasSuffix(out, "claude 2.1.328: 2 packages and 1 standalone skill, 2 agree, 1 differ, 0 could not be asked (0 answers from the database)\n") {
		t.Errorf("the tally:\n%s", out)
	}
}
