package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/testhome"
)

const manifest = `{"$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", "name": "%s"}`

// write writes a file of a test home (testhome.WriteFile).
func write(t testing.TB, p, body string) { t.Helper(); testhome.WriteFile(t, p, body) }

func run(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, Env{Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }})
	return code, out.String(), errb.String()
}

// sample writes a home with one valid and one invalid plugin and a user skill.
func sample(t *testing.T) (home string, env map[string]string) {
	home = t.TempDir()
	pb := filepath.Join(home, ".plugboard")
	good := filepath.Join(pb, "plugins", "good")
	write(t, filepath.Join(good, "plugin.json"), strings.Replace(manifest, "%s", "good", 1))
	write(t, filepath.Join(good, "skills", "greet", "SKILL.md"), "---\nname: greet\ndescription: Say hello\n---\n")
	write(t, filepath.Join(good, "skills", "Bad", "SKILL.md"), "---\nname: Bad\ndescription: x\n---\n")
	write(t, filepath.Join(pb, "plugins", "bad", "plugin.json"), "{\n  \"name\": \"bad\"\n}\n")
	write(t, filepath.Join(home, ".claude", "skills", "greet", "SKILL.md"), "---\nname: greet\ndescription: User greet\n---\n")
	return home, map[string]string{"HOME": home}
}

var compilerLine = regexp.MustCompile(`^[^:]+(:\d+)?: (error|warning|info): .+ \[[a-z.-]+\]$`)

func TestInspect(t *testing.T) {
	home, env := sample(t)
	good := filepath.Join(home, ".plugboard", "plugins", "good")
	bad := filepath.Join(home, ".plugboard", "plugins", "bad")

	// A valid package with one invalid skill: any error anywhere fails the check (exit 1).
	code, out, _ := run(t, env, "inspect", good)
	if code != ExitInvalid {
		t.Errorf("inspect good (with an invalid skill) = %d, want 1\n%s", code, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !compilerLine.MatchString(lines[0]) || !strings.HasPrefix(lines[0], good+"/skills/Bad/SKILL.md:2: error:") {
		t.Errorf("first line %q is not a compiler-style issue under the plugin folder", lines[0])
	}
	verdict := ""
	for _, l := range lines {
		if strings.HasPrefix(l, good+": ") {
			verdict = l
		}
	}
	if !strings.Contains(verdict, "valid portable plugin good, with errors; 2 skills (1 valid)") { // as the page: valid, with errors
		t.Errorf("verdict line = %q\n%s", verdict, out)
	}
	// One line per client after the verdict.
	if !strings.Contains(out, "\nclaude: loads 2 skills as good") || !strings.Contains(out, "\npi: loads 2 skills") ||
		!strings.Contains(out, "\ncodex: loads 2 skills as good") || !strings.Contains(out, "\ncursor: loads") {
		t.Errorf("client lines missing:\n%s", out)
	}

	code, out, _ = run(t, env, "inspect", "--json", bad)
	if code != ExitInvalid {
		t.Errorf("inspect bad = %d, want 1", code)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		t.Fatalf("inspect --json: %v\n%s", err, out)
	}
	for _, k := range []string{"id", "path", "format", "valid", "name", "version", "skills", "mcp", "issues"} {
		if _, ok := obj[k]; !ok {
			t.Errorf("inspect --json lacks %q", k)
		}
	}
	if obj["id"] != "bad" || obj["format"] != "portable" || obj["valid"] != false {
		t.Errorf("inspect --json = %v", obj)
	}
	// Flags after the folder work too; a package with no error anywhere exits 0.
	os.RemoveAll(filepath.Join(good, "skills", "Bad"))
	if code, out, _ := run(t, env, "inspect", good, "--json"); code != ExitOK {
		t.Errorf("inspect DIR --json = %d\n%s", code, out)
	}
	for _, args := range [][]string{{"inspect"}, {"inspect", filepath.Join(home, "missing")}, {"inspect", "--bogus", good}, {"inspect", filepath.Join(good, "plugin.json")}, {"nope"}} {
		if code, _, errOut := run(t, env, args...); code != ExitUsage || errOut == "" {
			t.Errorf("%v = %d (stderr %q), want 2 with a message", args, code, errOut)
		}
	}
}

func TestCatalogAndSkills(t *testing.T) {
	home, env := sample(t)
	code, out, _ := run(t, env, "catalog", "--json")
	if code != ExitOK {
		t.Fatalf("catalog = %d", code)
	}
	var c struct {
		Plugins []struct{ ID string }
		Skills  []struct {
			ID, ShadowedBy string
			Active         bool
		}
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Plugins) != 2 {
		t.Errorf("catalog plugins = %v", c.Plugins)
	}
	// --home overrides $PLUGBOARD_HOME.
	env["PLUGBOARD_HOME"] = filepath.Join(home, "elsewhere")
	_, out, _ = run(t, env, "catalog", "--json")
	if strings.Contains(out, `"good"`) {
		t.Errorf("PLUGBOARD_HOME was not used")
	}
	_, out, _ = run(t, env, "catalog", "--json", "--home", filepath.Join(home, ".plugboard"))
	if !strings.Contains(out, `"good"`) {
		t.Errorf("--home was not used")
	}
	delete(env, "PLUGBOARD_HOME")

	code, out, _ = run(t, env, "skills", "--json")
	var s struct {
		Groups []struct {
			Plugin, Source string
			Skills         []struct {
				ID         string
				Active     bool
				ShadowedBy string
			}
		}
	}
	if code != ExitOK || json.Unmarshal([]byte(out), &s) != nil {
		t.Fatalf("skills --json = %d %s", code, out)
	}
	var ids []string
	for _, g := range s.Groups {
		for _, sk := range g.Skills {
			ids = append(ids, g.Source+"/"+sk.ID)
		}
	}
	want := "user/greet,plugboard/good:Bad,plugboard/good:greet,builtin/plugboard-authoring"
	if strings.Join(ids, ",") != want {
		t.Errorf("skills groups = %v, want %s", ids, want)
	}
	// A plugin skill is namespaced (good:greet): the user's greet hides it in no client.
	if g := s.Groups[1].Skills[1]; !g.Active || g.ShadowedBy != "" {
		t.Errorf("good:greet must be active beside the user greet: %+v", g)
	}

	code, out, _ = run(t, env, "skills")
	if code != ExitOK || !strings.Contains(out, "plugin good (plugboard):") || strings.Contains(out, "shadowed by") {
		t.Errorf("skills text =\n%s", out)
	}
	code, out, _ = run(t, env, "catalog")
	if code != ExitOK || !strings.Contains(out, "INVALID portable plugin bad") || !strings.Contains(out, "plugin.json:1: error:") {
		t.Errorf("catalog text =\n%s", out)
	}
	if code, _, _ := run(t, env, "catalog", "--workspace", filepath.Join(home, "nope")); code != ExitUsage {
		t.Errorf("catalog with a missing workspace = %d, want 2", code)
	}
	if code, _, _ := run(t, map[string]string{}, "catalog"); code != ExitUsage {
		t.Errorf("catalog without HOME = %d, want 2", code)
	}
}

// TestBinary builds the real command and runs it as a plugin author's CI would.
func TestBinary(t *testing.T) {
	bin := testBinary(t)
	home, _ := sample(t)
	cmd := exec.Command(bin, "inspect", "--json", filepath.Join(home, ".plugboard", "plugins", "bad"))
	cmd.Env = []string{"HOME=" + home}
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != ExitInvalid {
		t.Errorf("binary inspect bad: err %v, want exit 1", err)
	}
	if !json.Valid(out) {
		t.Errorf("binary inspect --json output is not JSON: %s", out)
	}
	// With no command and no display, it says so and serves the page instead.
	cmd = exec.Command(bin)
	cmd.Env = []string{"HOME=" + home}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first, _ := bufio.NewReader(stdout).ReadString('\n')
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	if !strings.HasPrefix(first, "http://127.0.0.1:") || !strings.Contains(first, "token=") || !strings.Contains(stderr.String(), "serving the page instead") {
		t.Errorf("no-display start: stdout %q, stderr %q", first, stderr.String())
	}

	cmd = exec.Command(bin, "help")
	cmd.Env = []string{"HOME=" + home}
	if out, _ := cmd.Output(); !strings.Contains(string(out), "Available Commands:") || !strings.Contains(string(out), "\n  inspect ") {
		t.Errorf("no-argument usage = %s", out)
	}
}
