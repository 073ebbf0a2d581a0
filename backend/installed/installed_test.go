package installed

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plugboard/plugboard/backend/testhome"
)

// root is a fresh folder with its links resolved, so that targets compare equal.
func root(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// write writes body to p with mode, making its folders.
func write(t testing.TB, p, body string, mode os.FileMode) {
	t.Helper()
	testhome.WriteFile(t, p, body)
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// script writes an executable shell script with body.
func script(t testing.TB, p, body string) { t.Helper(); write(t, p, "#!/bin/sh\n"+body+"\n", 0o755) }

// answers writes an executable that prints out for --version: were it run, a test that
// expects a version from a file sees this one instead.
func answers(t testing.TB, p, out string) { t.Helper(); script(t, p, "echo '"+out+"'") }

// link makes at a symbolic link to target (relative or absolute, as given).
func link(t testing.TB, target, at string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
		t.Fatal(err)
	}
	testhome.Symlink(t, target, at)
}

func pkgJSON(name, version string) string {
	return `{"name": "` + name + `", "version": "` + version + `", "bin": {"x": "x"}}`
}

func envOf(path, home string) []string {
	return []string{"PATH=/nowhere", "HOME=/nowhere", "PATH=" + path, "HOME=" + home} // the last counts
}

func get(cs []Client, name string) Client {
	for _, c := range cs {
		if c.Name == name {
			return c
		}
	}
	return Client{}
}

// Each case installs one client the way a real installer lays it out, with real files
// and links, and says what Find reports for it; every other client is not installed.
func TestFind(t *testing.T) {
	cases := []struct {
		name string
		// install lays the client out under r (HOME is r/home) and returns PATH and the
		// Client Find must report.
		install func(t *testing.T, r string) (path string, want Client)
	}{
		{"npm global claude.exe through its bin link", func(t *testing.T, r string) (string, Client) {
			pkg := filepath.Join(r, "lib/node_modules/@anthropic-ai/claude-code")
			write(t, filepath.Join(pkg, "package.json"), pkgJSON("@anthropic-ai/claude-code", "2.1.328"), 0o644)
			answers(t, filepath.Join(pkg, "bin/claude.exe"), "9.9.9 (Claude Code)")
			link(t, "../lib/node_modules/@anthropic-ai/claude-code/bin/claude.exe", filepath.Join(r, "bin/claude"))
			return filepath.Join(r, "bin"), Client{Name: Claude, Found: true, Path: filepath.Join(r, "bin/claude"), OnPath: true,
				Target: filepath.Join(pkg, "bin/claude.exe"), Version: "2.1.328", From: FromPackageJSON}
		}},
		{"npm global cli.js of an older claude", func(t *testing.T, r string) (string, Client) {
			pkg := filepath.Join(r, "lib/node_modules/@anthropic-ai/claude-code")
			write(t, filepath.Join(pkg, "package.json"), pkgJSON("@anthropic-ai/claude-code", "1.0.69"), 0o644)
			answers(t, filepath.Join(pkg, "cli.js"), "9.9.9 (Claude Code)")
			link(t, "../lib/node_modules/@anthropic-ai/claude-code/cli.js", filepath.Join(r, "bin/claude"))
			return filepath.Join(r, "bin"), Client{Name: Claude, Found: true, Path: filepath.Join(r, "bin/claude"), OnPath: true,
				Target: filepath.Join(pkg, "cli.js"), Version: "1.0.69", From: FromPackageJSON}
		}},
		{"npm alias installs claude under another folder name", func(t *testing.T, r string) (string, Client) {
			pkg := filepath.Join(r, "node_modules/claude-code-2.1.328")
			write(t, filepath.Join(pkg, "package.json"), pkgJSON("@anthropic-ai/claude-code", "2.1.328"), 0o644)
			answers(t, filepath.Join(pkg, "bin/claude.exe"), "9.9.9 (Claude Code)")
			link(t, "../claude-code-2.1.328/bin/claude.exe", filepath.Join(r, "node_modules/.bin/claude"))
			return filepath.Join(r, "node_modules/.bin"), Client{Name: Claude, Found: true, Path: filepath.Join(r, "node_modules/.bin/claude"),
				OnPath: true, Target: filepath.Join(pkg, "bin/claude.exe"), Version: "2.1.328", From: FromPackageJSON}
		}},
		{"a package of another name is not claude's: --version tells", func(t *testing.T, r string) (string, Client) {
			pkg := filepath.Join(r, "lib/node_modules/claude-wrapper")
			write(t, filepath.Join(pkg, "package.json"), pkgJSON("claude-wrapper", "5.0.0"), 0o644)
			answers(t, filepath.Join(pkg, "bin/claude"), "2.0.1 (Claude Code)")
			link(t, filepath.Join(pkg, "bin/claude"), filepath.Join(r, "bin/claude"))
			return filepath.Join(r, "bin"), Client{Name: Claude, Found: true, Path: filepath.Join(r, "bin/claude"), OnPath: true,
				Target: filepath.Join(pkg, "bin/claude"), Version: "2.0.1", From: FromVersionFlag}
		}},
		{"native installer on PATH", func(t *testing.T, r string) (string, Client) {
			v := filepath.Join(r, "home/.local/share/claude/versions/2.1.300")
			answers(t, v, "9.9.9 (Claude Code)")
			link(t, v, filepath.Join(r, "home/.local/bin/claude"))
			return filepath.Join(r, "home/.local/bin"), Client{Name: Claude, Found: true, Path: filepath.Join(r, "home/.local/bin/claude"),
				OnPath: true, Target: v, Version: "2.1.300", From: FromInstallFolder}
		}},
		{"native installer, ~/.local/bin not on PATH", func(t *testing.T, r string) (string, Client) {
			v := filepath.Join(r, "home/.local/share/claude/versions/2.1.300")
			answers(t, v, "9.9.9 (Claude Code)")
			link(t, v, filepath.Join(r, "home/.local/bin/claude"))
			return filepath.Join(r, "empty"), Client{Name: Claude, Found: true, Path: filepath.Join(r, "home/.local/bin/claude"),
				Target: v, Version: "2.1.300", From: FromInstallFolder}
		}},
		{"older local install: a launcher script into ~/.claude/local/node_modules", func(t *testing.T, r string) (string, Client) {
			local := filepath.Join(r, "home/.claude/local")
			write(t, filepath.Join(local, "package.json"), pkgJSON("claude-local", "0.0.1"), 0o644)
			pkg := filepath.Join(local, "node_modules/@anthropic-ai/claude-code")
			write(t, filepath.Join(pkg, "package.json"), pkgJSON("@anthropic-ai/claude-code", "1.0.30"), 0o644)
			answers(t, filepath.Join(pkg, "cli.js"), "9.9.9 (Claude Code)")
			link(t, "../@anthropic-ai/claude-code/cli.js", filepath.Join(local, "node_modules/.bin/claude"))
			script(t, filepath.Join(local, "claude"), `exec "$HOME/.claude/local/node_modules/.bin/claude" "$@"`)
			return filepath.Join(r, "empty"), Client{Name: Claude, Found: true, Path: filepath.Join(local, "claude"),
				Target: filepath.Join(local, "claude"), Version: "1.0.30", From: FromPackageJSON}
		}},
		{"first PATH folder wins", func(t *testing.T, r string) (string, Client) {
			for _, v := range []string{"2.0.0", "1.0.0"} {
				pkg := filepath.Join(r, v, "node_modules/@anthropic-ai/claude-code")
				write(t, filepath.Join(pkg, "package.json"), pkgJSON("@anthropic-ai/claude-code", v), 0o644)
				answers(t, filepath.Join(pkg, "cli.js"), "9.9.9")
				link(t, "../@anthropic-ai/claude-code/cli.js", filepath.Join(r, v, "node_modules/.bin/claude"))
			}
			first := filepath.Join(r, "2.0.0/node_modules/.bin")
			return first + ":" + filepath.Join(r, "1.0.0/node_modules/.bin"), Client{Name: Claude, Found: true,
				Path: filepath.Join(first, "claude"), OnPath: true, Target: filepath.Join(r, "2.0.0/node_modules/@anthropic-ai/claude-code/cli.js"),
				Version: "2.0.0", From: FromPackageJSON}
		}},
		{"a file that is not executable is passed over", func(t *testing.T, r string) (string, Client) {
			write(t, filepath.Join(r, "bin/claude"), "#!/bin/sh\necho 1.0.0\n", 0o644)
			return filepath.Join(r, "bin"), Client{Name: Claude}
		}},
		{"a folder named claude is passed over", func(t *testing.T, r string) (string, Client) {
			if err := os.MkdirAll(filepath.Join(r, "bin/claude"), 0o755); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(r, "bin"), Client{Name: Claude}
		}},
		{"codex from npm", func(t *testing.T, r string) (string, Client) {
			pkg := filepath.Join(r, "lib/node_modules/@openai/codex")
			write(t, filepath.Join(pkg, "package.json"), pkgJSON("@openai/codex", "0.169.0"), 0o644)
			answers(t, filepath.Join(pkg, "bin/codex.js"), "codex-cli 9.9.9")
			link(t, "../lib/node_modules/@openai/codex/bin/codex.js", filepath.Join(r, "bin/codex"))
			return filepath.Join(r, "bin"), Client{Name: Codex, Found: true, Path: filepath.Join(r, "bin/codex"), OnPath: true,
				Target: filepath.Join(pkg, "bin/codex.js"), Version: "0.169.0", From: FromPackageJSON}
		}},
		{"codex's native binary in its platform package", func(t *testing.T, r string) (string, Client) {
			plat := filepath.Join(r, "node_modules/@openai/codex-linux-x64")
			write(t, filepath.Join(plat, "package.json"), `{"name": "@openai/codex", "version": "0.169.0-linux-x64", "os": ["linux"], "cpu": ["x64"]}`, 0o644)
			vendor := filepath.Join(plat, "vendor/x86_64-unknown-linux-musl")
			write(t, filepath.Join(vendor, "codex-package.json"), `{"layoutVersion": 1, "version": "0.169.1", "variant": "codex", "entrypoint": "bin/codex"}`, 0o644)
			answers(t, filepath.Join(vendor, "bin/codex"), "codex-cli 9.9.9")
			link(t, filepath.Join(vendor, "bin/codex"), filepath.Join(r, "bin/codex"))
			return filepath.Join(r, "bin"), Client{Name: Codex, Found: true, Path: filepath.Join(r, "bin/codex"), OnPath: true,
				Target: filepath.Join(vendor, "bin/codex"), Version: "0.169.1", From: FromCodexPackageJSON}
		}},
		{"codex's platform package without codex-package.json", func(t *testing.T, r string) (string, Client) {
			plat := filepath.Join(r, "node_modules/@openai/codex-darwin-arm64")
			write(t, filepath.Join(plat, "package.json"), `{"name": "@openai/codex", "version": "0.150.0-darwin-arm64", "os": ["darwin"], "cpu": ["arm64"]}`, 0o644)
			bin := filepath.Join(plat, "vendor/aarch64-apple-darwin/codex/codex")
			answers(t, bin, "codex-cli 9.9.9")
			link(t, bin, filepath.Join(r, "bin/codex"))
			return filepath.Join(r, "bin"), Client{Name: Codex, Found: true, Path: filepath.Join(r, "bin/codex"), OnPath: true,
				Target: bin, Version: "0.150.0", From: FromPackageJSON}
		}},
		{"codex of another variant's package asks --version", func(t *testing.T, r string) (string, Client) {
			dir := filepath.Join(r, "opt/codex-app-server")
			write(t, filepath.Join(dir, "codex-package.json"), `{"version": "0.169.0", "variant": "codex-app-server"}`, 0o644)
			answers(t, filepath.Join(dir, "bin/codex"), "codex-cli 0.168.0")
			return filepath.Join(dir, "bin"), Client{Name: Codex, Found: true, Path: filepath.Join(dir, "bin/codex"), OnPath: true,
				Target: filepath.Join(dir, "bin/codex"), Version: "0.168.0", From: FromVersionFlag}
		}},
		{"codex from a Homebrew formula", func(t *testing.T, r string) (string, Client) {
			bin := filepath.Join(r, "Cellar/codex/0.46.0_1/bin/codex")
			answers(t, bin, "codex-cli 9.9.9")
			link(t, "../Cellar/codex/0.46.0_1/bin/codex", filepath.Join(r, "bin/codex"))
			return filepath.Join(r, "bin"), Client{Name: Codex, Found: true, Path: filepath.Join(r, "bin/codex"), OnPath: true,
				Target: bin, Version: "0.46.0", From: FromInstallFolder}
		}},
		{"a standalone codex binary: only --version tells", func(t *testing.T, r string) (string, Client) {
			answers(t, filepath.Join(r, "usr/local/bin/codex"), "codex-cli 0.170.0")
			return filepath.Join(r, "usr/local/bin"), Client{Name: Codex, Found: true, Path: filepath.Join(r, "usr/local/bin/codex"),
				OnPath: true, Target: filepath.Join(r, "usr/local/bin/codex"), Version: "0.170.0", From: FromVersionFlag}
		}},
		{"pi from npm, past a dist/package.json without a name", func(t *testing.T, r string) (string, Client) {
			pkg := filepath.Join(r, "lib/node_modules/@mariozechner/pi-coding-agent")
			write(t, filepath.Join(pkg, "package.json"), pkgJSON("@mariozechner/pi-coding-agent", "0.73.1"), 0o644)
			write(t, filepath.Join(pkg, "dist/package.json"), `{"type": "module"}`, 0o644)
			answers(t, filepath.Join(pkg, "dist/cli.js"), "9.9.9")
			link(t, "../lib/node_modules/@mariozechner/pi-coding-agent/dist/cli.js", filepath.Join(r, "bin/pi"))
			return filepath.Join(r, "bin"), Client{Name: PI, Found: true, Path: filepath.Join(r, "bin/pi"), OnPath: true,
				Target: filepath.Join(pkg, "dist/cli.js"), Version: "0.73.1", From: FromPackageJSON}
		}},
		{"pi published as @earendil-works", func(t *testing.T, r string) (string, Client) {
			pkg := filepath.Join(r, "node_modules/@earendil-works/pi-coding-agent")
			write(t, filepath.Join(pkg, "package.json"), pkgJSON("@earendil-works/pi-coding-agent", "0.80.0"), 0o644)
			answers(t, filepath.Join(pkg, "dist/cli.js"), "9.9.9")
			link(t, "../@earendil-works/pi-coding-agent/dist/cli.js", filepath.Join(r, "node_modules/.bin/pi"))
			return filepath.Join(r, "node_modules/.bin"), Client{Name: PI, Found: true, Path: filepath.Join(r, "node_modules/.bin/pi"),
				OnPath: true, Target: filepath.Join(pkg, "dist/cli.js"), Version: "0.80.0", From: FromPackageJSON}
		}},
		{"cursor-agent from Cursor's installer", func(t *testing.T, r string) (string, Client) {
			bin := filepath.Join(r, "home/.local/share/cursor-agent/versions/2026.10.01-e373342/cursor-agent")
			answers(t, bin, "9.9.9")
			link(t, bin, filepath.Join(r, "home/.local/bin/cursor-agent"))
			return filepath.Join(r, "home/.local/bin"), Client{Name: CursorAgent, Found: true, Path: filepath.Join(r, "home/.local/bin/cursor-agent"),
				OnPath: true, Target: bin, Version: "2026.10.01-e373342", From: FromInstallFolder}
		}},
		{"cursor-agent by its other name, agent, off PATH", func(t *testing.T, r string) (string, Client) {
			bin := filepath.Join(r, "home/.local/share/cursor-agent/versions/2026.05.09-0afadcc/cursor-agent")
			answers(t, bin, "9.9.9")
			link(t, bin, filepath.Join(r, "home/.local/bin/agent"))
			return filepath.Join(r, "empty"), Client{Name: CursorAgent, Found: true, Path: filepath.Join(r, "home/.local/bin/agent"),
				Target: bin, Version: "2026.05.09-0afadcc", From: FromInstallFolder}
		}},
		{"cursor-agent installed elsewhere: --version tells", func(t *testing.T, r string) (string, Client) {
			answers(t, filepath.Join(r, "bin/cursor-agent"), "2026.01.02-abcdef0")
			return filepath.Join(r, "bin"), Client{Name: CursorAgent, Found: true, Path: filepath.Join(r, "bin/cursor-agent"),
				OnPath: true, Target: filepath.Join(r, "bin/cursor-agent"), Version: "2026.01.02-abcdef0", From: FromVersionFlag}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := root(t)
			path, want := c.install(t, r)
			got := Find(context.Background(), envOf(path, filepath.Join(r, "home")))
			checkAll(t, got, want)
		})
	}
}

// checkAll checks that cs has one entry per client in Find's order, want among them, and
// every other client not installed.
func checkAll(t *testing.T, cs []Client, want Client) {
	t.Helper()
	order := []string{Claude, Codex, PI, CursorAgent}
	if len(cs) != len(order) {
		t.Fatalf("Find returned %d clients, want %d: %#v", len(cs), len(order), cs)
	}
	for i, c := range cs {
		w := Client{Name: order[i]}
		if c.Name == want.Name {
			w = want
		}
		if c != w {
			t.Errorf("Find()[%d] =\n  %#v\nwant\n  %#v", i, c, w)
		}
	}
}

// A file named agent that does not lead into Cursor's versions folder is not Cursor's,
// and is never run to ask.
func TestBorrowedNameIsNotRun(t *testing.T) {
	r := root(t)
	ran := filepath.Join(r, "ran")
	script(t, filepath.Join(r, "bin/agent"), "echo run >> '"+ran+"'\necho 1.0.0")
	checkAll(t, Find(context.Background(), envOf(filepath.Join(r, "bin"), filepath.Join(r, "home"))), Client{Name: CursorAgent})
	if _, err := os.Stat(ran); err == nil {
		t.Error("Find ran bin/agent, which is not Cursor's")
	}
}

// A relative or empty PATH entry (the working folder) is passed over: what it names
// depends on where Plugboard runs.
func TestRelativePathEntry(t *testing.T) {
	r := root(t)
	answers(t, filepath.Join(r, "bin/codex"), "codex-cli 0.1.0")
	for _, c := range []struct{ cwd, path string }{
		{r, "bin"}, {r, "./bin"}, {filepath.Join(r, "bin"), "."}, {filepath.Join(r, "bin"), ":" + filepath.Join(r, "empty")},
	} {
		t.Chdir(c.cwd)
		if got := get(Find(context.Background(), envOf(c.path, "")), Codex); got.Found {
			t.Errorf("PATH=%q in %s: found %#v, want the relative entry passed over", c.path, c.cwd, got)
		}
	}
}

// When only --version can tell, a failure says why, naming the executable.
func TestVersionFlagProblems(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		testhome.CannotRun(t, "no sleep on PATH: %v", err)
	}
	cases := []struct{ name, body, want string }{
		{"exits with an error", `echo "no config" >&2; exit 3`, `--version exited with status 3 ("no config"); run it in a terminal`},
		{"prints no version", `echo "usage: codex [options]"`, `--version printed no version ("usage: codex [options]")`},
		{"cannot start", "", "could not be started ("},
		{"hangs, with a child that holds its output", "'" + sleep + "' 30; echo 1.0.0", "--version did not answer within 2s; run it in a terminal"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := root(t)
			bin := filepath.Join(r, "bin/codex")
			if c.body == "" {
				write(t, bin, "#!/nowhere/interpreter\n", 0o755)
			} else {
				script(t, bin, c.body)
			}
			start := time.Now()
			got := get(Find(context.Background(), envOf(filepath.Join(r, "bin"), r)), Codex)
			took := time.Since(start)
			if !got.Found || got.Version != "" || got.From != "" || !strings.HasPrefix(got.Problem, bin) || !strings.Contains(got.Problem, c.want) {
				t.Errorf("Find() codex = %#v, want found, no version, a problem naming %s and saying %q", got, bin, c.want)
			}
			// The 2 s bound holds: the group is killed at the timeout, and the output is
			// given up at most WaitDelay later.
			if limit := VersionTimeout + 2*time.Second; took > limit {
				t.Errorf("Find took %v, want under %v", took, limit)
			}
		})
	}
}

// --version runs with no standard input, in /, and sees PATH and HOME but nothing
// else of Plugboard's environment.
func TestVersionFlagRunsPrivately(t *testing.T) {
	r := root(t)
	home := filepath.Join(r, "home")
	t.Setenv("PLUGBOARD_TEST_SECRET", "x")
	bin := filepath.Join(r, "bin/codex")
	script(t, bin, `
[ -z "$PLUGBOARD_TEST_SECRET" ] || { echo "environment leaked" >&2; exit 1; }
[ "$HOME" = '`+home+`' ] || { echo "HOME is $HOME" >&2; exit 1; }
[ "$PATH" = '`+filepath.Join(r, "bin")+`' ] || { echo "PATH is $PATH" >&2; exit 1; }
[ "$(pwd)" = / ] || { echo "runs in $(pwd)" >&2; exit 1; }
if read -r line; then echo "read $line" >&2; exit 1; fi
echo "codex-cli 0.2.0"`)
	got := get(Find(context.Background(), envOf(filepath.Join(r, "bin"), home)), Codex)
	if got.Version != "0.2.0" || got.Problem != "" {
		t.Errorf("Find() codex = %#v, want 0.2.0 from a private run", got)
	}
}

// A --version run the caller's context stops is reported as such and not remembered:
// the next Find asks again.
func TestCancelledRunIsNotRemembered(t *testing.T) {
	r := root(t)
	count := filepath.Join(r, "count")
	script(t, filepath.Join(r, "bin/codex"), "echo run >> '"+count+"'\necho codex-cli 0.3.0")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	env := envOf(filepath.Join(r, "bin"), r)
	if got := get(Find(ctx, env), Codex); got.Version != "" || !strings.Contains(got.Problem, "the look-up stopped before") {
		t.Errorf("Find(cancelled) codex = %#v, want no version and a stopped look-up", got)
	}
	if got := get(Find(context.Background(), env), Codex); got.Version != "0.3.0" {
		t.Errorf("Find() after a cancelled one = %#v, want 0.3.0", got)
	}
}

// runs counts the lines a counting script appended.
func runs(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// A Find where nothing changed starts no process; a changed executable is asked again.
func TestWarmCacheStartsNoProcess(t *testing.T) {
	r := root(t)
	count := filepath.Join(r, "count")
	bin := filepath.Join(r, "bin/codex")
	script(t, bin, "echo run >> '"+count+"'\necho codex-cli 0.4.0")
	env := envOf(filepath.Join(r, "bin"), r)
	for i := range 3 {
		if got := get(Find(context.Background(), env), Codex); got.Version != "0.4.0" {
			t.Fatalf("Find #%d codex = %#v, want 0.4.0", i+1, got)
		}
	}
	if n := runs(t, count); n != 1 {
		t.Errorf("three Finds ran codex --version %d times, want once", n)
	}
	newest := time.Now().UnixNano()
	testhome.AfterCtime(t, r, newest)
	script(t, bin, "echo run >> '"+count+"'\necho codex-cli 0.5.0")
	if got := get(Find(context.Background(), env), Codex); got.Version != "0.5.0" {
		t.Errorf("Find after codex changed = %#v, want 0.5.0", got)
	}
	if n := runs(t, count); n != 2 {
		t.Errorf("codex --version ran %d times, want twice (once more after it changed)", n)
	}
}

// Finds at the same time (a scan and the CLI's look-up in one process) each get the
// whole answer; go test -race checks the cache's locking.
func TestFindConcurrently(t *testing.T) {
	r := root(t)
	answers(t, filepath.Join(r, "bin/codex"), "codex-cli 0.6.0")
	pkg := filepath.Join(r, "node_modules/@mariozechner/pi-coding-agent")
	write(t, filepath.Join(pkg, "package.json"), pkgJSON("@mariozechner/pi-coding-agent", "0.7.0"), 0o644)
	answers(t, filepath.Join(pkg, "dist/cli.js"), "9.9.9")
	link(t, filepath.Join(pkg, "dist/cli.js"), filepath.Join(r, "bin/pi"))
	env := envOf(filepath.Join(r, "bin"), r)
	var wg sync.WaitGroup
	results := make([][]Client, 8)
	for i := range results {
		wg.Go(func() { results[i] = Find(context.Background(), env) })
	}
	wg.Wait()
	for i, cs := range results {
		if get(cs, Codex).Version != "0.6.0" || get(cs, PI).Version != "0.7.0" || len(cs) != 4 {
			t.Errorf("Find #%d = %#v, want codex 0.6.0 and pi 0.7.0", i, cs)
		}
	}
}

// A remembered version follows the installs: a link re-pointed to a new version, and a
// package.json updated beside a launcher that stayed as it was.
func TestCacheFollowsChanges(t *testing.T) {
	t.Run("native installer re-points its link", func(t *testing.T) {
		r := root(t)
		bin := filepath.Join(r, "home/.local/bin/claude")
		for _, v := range []string{"2.1.1", "2.1.2"} {
			answers(t, filepath.Join(r, "home/.local/share/claude/versions", v), v)
		}
		link(t, filepath.Join(r, "home/.local/share/claude/versions/2.1.1"), bin)
		env := envOf(filepath.Dir(bin), filepath.Join(r, "home"))
		if got := get(Find(context.Background(), env), Claude); got.Version != "2.1.1" {
			t.Fatalf("Find() claude = %#v, want 2.1.1", got)
		}
		if err := os.Remove(bin); err != nil {
			t.Fatal(err)
		}
		link(t, filepath.Join(r, "home/.local/share/claude/versions/2.1.2"), bin)
		if got := get(Find(context.Background(), env), Claude); got.Version != "2.1.2" || got.Target != filepath.Join(r, "home/.local/share/claude/versions/2.1.2") {
			t.Errorf("Find() after the link moved = %#v, want 2.1.2", got)
		}
	})
	t.Run("package updated beside an unchanged launcher", func(t *testing.T) {
		r := root(t)
		local := filepath.Join(r, "home/.claude/local")
		pj := filepath.Join(local, "node_modules/@anthropic-ai/claude-code/package.json")
		write(t, pj, pkgJSON("@anthropic-ai/claude-code", "1.0.30"), 0o644)
		script(t, filepath.Join(local, "claude"), `exec "$HOME/.claude/local/node_modules/.bin/claude" "$@"`)
		env := envOf(filepath.Join(r, "empty"), filepath.Join(r, "home"))
		if got := get(Find(context.Background(), env), Claude); got.Version != "1.0.30" {
			t.Fatalf("Find() claude = %#v, want 1.0.30", got)
		}
		testhome.AfterCtime(t, r, time.Now().UnixNano())
		write(t, pj, pkgJSON("@anthropic-ai/claude-code", "1.0.31"), 0o644)
		if got := get(Find(context.Background(), env), Claude); got.Version != "1.0.31" {
			t.Errorf("Find() after the package was updated = %#v, want 1.0.31", got)
		}
	})
}

func TestVersionToken(t *testing.T) {
	for _, c := range []struct{ out, want string }{
		{"2.1.328 (Claude Code)\n", "2.1.328"},
		{"codex-cli 0.169.0\n", "0.169.0"},
		{"0.73.1\n", "0.73.1"},
		{"2026.10.01-e373342\n", "2026.10.01-e373342"},
		{"tool v1.2.3, built with go1.26", "1.2.3"},
		{"version (0.170.0-alpha.1).", "0.170.0-alpha.1"},
		{"x86_64 build 7\n1.4", "1.4"},
		{"Python 3", ""},
		{"1.2- 3.4", "3.4"},
		{"1..2", ""},
		{"", ""},
	} {
		if got := versionToken(c.out); got != c.want {
			t.Errorf("versionToken(%q) = %q, want %q", c.out, got, c.want)
		}
	}
}

func TestString(t *testing.T) {
	for _, c := range []struct {
		c    Client
		want string
	}{
		{Client{Name: Claude, Found: true, Version: "2.1.328"}, "claude 2.1.328 installed"},
		{Client{Name: Codex, Found: true, Problem: "x"}, "codex installed, version unknown"},
		{Client{Name: PI}, "pi not installed"},
	} {
		if got := c.c.String(); got != c.want {
			t.Errorf("%#v.String() = %q, want %q", c.c, got, c.want)
		}
	}
}

// oracle runs bin --version as a person would and returns the field-th word it prints
// (on either output).
func oracle(t *testing.T, bin string, field int) string {
	t.Helper()
	out, err := exec.Command(bin, "--version").CombinedOutput() // pi prints it on standard error
	f := strings.Fields(string(out))
	if err != nil || len(f) <= field {
		t.Fatalf("%s --version: %v, %q", bin, err, out)
	}
	return f[field]
}

// The pinned clients of build/agents are found where npm put them, with the version the
// client itself prints for --version, read from their package.json (or Codex's native
// binary's codex-package.json) without running them.
func TestFindRealInstalls(t *testing.T) {
	check := func(t *testing.T, name, bin, want, from string) {
		t.Helper()
		dir := root(t)
		link(t, bin, filepath.Join(dir, name))
		target, err := filepath.EvalSymlinks(bin)
		if err != nil {
			t.Fatal(err)
		}
		got := get(Find(context.Background(), envOf(dir, dir)), name)
		w := Client{Name: name, Found: true, Path: filepath.Join(dir, name), OnPath: true, Target: target, Version: want, From: from}
		if got != w {
			t.Errorf("Find() %s =\n  %#v\nwant\n  %#v", name, got, w)
		}
	}
	for _, v := range testhome.ClaudeVersions {
		bin := testhome.AgentBin(t, v.Bin)
		if got := oracle(t, bin, 0); got != v.Version {
			t.Fatalf("%s --version = %s, want the pinned %s", bin, got, v.Version)
		}
		check(t, Claude, bin, v.Version, FromPackageJSON)
	}
	codex := testhome.AgentBin(t, ".bin/codex")
	check(t, Codex, codex, oracle(t, codex, 1), FromPackageJSON)
	pi := testhome.AgentBin(t, ".bin/pi")
	check(t, PI, pi, oracle(t, pi, 0), FromPackageJSON)

	nm := filepath.Dir(filepath.Dir(codex))
	natives, _ := filepath.Glob(filepath.Join(nm, "@openai/codex-*/vendor/*/bin/codex"))
	if len(natives) != 1 {
		testhome.CannotRun(t, "want one native codex in %s/@openai, found %v: make deps-agents installs it", nm, natives)
		return
	}
	check(t, Codex, natives[0], oracle(t, natives[0], 1), FromCodexPackageJSON)
}

// BenchmarkFind measures Find over this machine's PATH with the pinned clients of
// build/agents in front: cold (nothing remembered: links resolved, package.json files
// read), warm (nothing changed since the last Find), and cold with one client that only
// --version can tell (a shell script: the cost of starting a process).
func BenchmarkFind(b *testing.B) {
	bins := filepath.Dir(testhome.AgentBin(b, ".bin/codex"))
	env := []string{"PATH=" + bins + ":" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	ctx := context.Background()
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			forget()
			Find(ctx, env)
		}
	})
	b.Run("warm", func(b *testing.B) {
		Find(ctx, env)
		for b.Loop() {
			Find(ctx, env)
		}
	})
	b.Run("cold-version-flag", func(b *testing.B) {
		dir := root(b)
		answers(b, filepath.Join(dir, "cursor-agent"), "2026.01.02-abcdef0")
		env := []string{"PATH=" + dir + ":" + bins + ":" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
		for b.Loop() {
			forget()
			if c := Find(ctx, env)[3]; c.Version == "" {
				b.Fatalf("Find() cursor-agent = %+v", c)
			}
		}
	})
}
