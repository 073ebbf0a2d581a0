// Package oracle asks the real clients what they load from a plugin folder, offline and
// without running any of the package's code: Claude Code through the init event of its
// stream-json output (system/init), PI through its RPC mode. It is the test of the load
// models (backend/clients) against the clients themselves, and what `plugboard clients
// verify` and the background asker (backend/clientask) run on the user's packages.
//
// A Claude run has a private, empty HOME, no credentials, every hook off
// (disableAllHooks), no MCP server but those of --mcp-config (--strict-mcp-config, and
// none given), and an API address on loopback that answers nothing; when this process
// may (root), it also runs with no network at all (unshare -n). It ends with "Not
// logged in" after the init event, which is all that is read. TestNothingRuns checks
// with strace that no process of a package starts and nothing but loopback is reached.
// See ../shared/docs/AGENT-BACKENDS.md.
package oracle

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Init is what the real claude reports loading for one plugin folder.
type Init struct {
	Loads   bool     `json:"loads"`
	Plugin  string   `json:"plugin"`
	Skills  []string `json:"skills"`            // plugin entries of "skills" (with a colon), sorted
	Slash   []string `json:"slash"`             // plugin entries of "slash_commands", sorted
	Agents  []string `json:"agents"`            // plugin entries of "agents", sorted
	Version string   `json:"version"`           // claude_code_version
	Plugins []string `json:"plugins,omitempty"` // the names of the plugins loaded, in order
	// Warnings are the messages the client gave about the plugins while loading them
	// (2.1.328: plugin_warnings; 2.1.197 gives none).
	Warnings []string `json:"warnings,omitempty"`
	// Hidden are the skills of Skills the client keeps out of the model's prompt (Codex:
	// what `codex debug prompt-input` leaves out).
	Hidden []string `json:"hidden,omitempty"`

	all []string // every skill, built-in ones too
}

// Claude runs bin (the claude executable) with --plugin-dir dir ("" for none) and
// returns its init event, keeping only what the plugin added.
func Claude(ctx context.Context, bin, dir string) (Init, error) {
	if dir == "" {
		return ClaudeDirs(ctx, bin)
	}
	return ClaudeDirs(ctx, bin, dir)
}

// ClaudeDirs runs bin with a --plugin-dir for each of dirs, in order, and returns its init
// event, keeping only what the plugins added (Plugins names each plugin loaded; Plugin
// the last).
func ClaudeDirs(ctx context.Context, bin string, dirs ...string) (Init, error) {
	home, err := os.MkdirTemp("", "plugboard-oracle-")
	if err != nil {
		return Init{}, err
	}
	defer os.RemoveAll(home)
	var args []string
	for _, d := range dirs {
		d, _ = filepath.Abs(d)
		args = append(args, "--plugin-dir", d)
	}
	in, err := run(ctx, bin, home, args)
	if err != nil && len(dirs) > 0 {
		err = fmt.Errorf("%w for %s", err, strings.Join(dirs, ", "))
	}
	return in, err
}

// run starts claude with HOME=home and the arguments, and reads its init event.
func run(ctx context.Context, bin, home string, args []string) (Init, error) {
	ev, err := runInit(ctx, bin, home, args)
	if err != nil {
		return Init{}, err
	}
	in := Init{Version: ev.Version, Skills: plugged(ev.Skills), Slash: plugged(ev.SlashCommands), Agents: plugged(ev.Agents), all: ev.Skills}
	for _, w := range ev.Warnings {
		in.Warnings = append(in.Warnings, w.Message)
	}
	for _, p := range ev.Plugins {
		if p.Path == "builtin" {
			continue // the client's own plugins (2.1.328: cc-plugin-…@builtin), listed after the --plugin-dir ones
		}
		in.Loads, in.Plugin = true, p.Name
		in.Plugins = append(in.Plugins, p.Name)
	}
	return in, nil
}

// initEvent is the first event of claude's stream-json output, as far as it is read.
type initEvent struct {
	Type, Subtype string
	Plugins       []struct{ Name, Path string }
	Skills        []string
	SlashCommands []string `json:"slash_commands"`
	Agents        []string
	Version       string                             `json:"claude_code_version"`
	Warnings      []struct{ Plugin, Message string } `json:"plugin_warnings"`
}

// runInit starts claude with HOME=home and the arguments and returns its init event.
func runInit(ctx context.Context, bin, home string, args []string) (initEvent, error) {
	// The run's working folder is the private home: relative paths would move with it.
	if strings.Contains(bin, "/") {
		bin, _ = filepath.Abs(bin)
	}
	// Hooks would run package code at the session's start (SessionStart) and on the
	// prompt; MCP servers would start the package's commands. Both are off.
	argv := append(append([]string{bin}, args...), "--settings", `{"disableAllHooks":true}`, "--strict-mcp-config",
		"-p", "hi", "--output-format", "stream-json", "--verbose")
	argv = offline(argv)
	api, err := deadAPI()
	if err != nil {
		return initEvent{}, err
	}
	defer api.Close()
	cmd := groupCommand(ctx, argv)
	cmd.Dir = home
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=dumb", "ANTHROPIC_BASE_URL=http://" + api.Addr().String(),
		"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1"}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return initEvent{}, err
	}
	if err := cmd.Start(); err != nil {
		return initEvent{}, err
	}
	defer endGroup(cmd)
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var ev initEvent
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Type != "system" || ev.Subtype != "init" {
			continue
		}
		return ev, nil
	}
	if err := ctx.Err(); err != nil {
		return initEvent{}, fmt.Errorf("claude gave no init event before the time ran out: %w", err)
	}
	return initEvent{}, fmt.Errorf("claude printed no init event")
}

// ClaudeEach runs bin once with every folder of dirs (each a --plugin-dir) and returns
// what it loaded from each, by the folder as given: one run answers for many packages,
// as a run costs the same for one folder or a hundred. A folder is left out of the
// answer when it cannot be told apart from another (the client named two of them
// alike): ask it alone. Folders that depend on one another load differently together:
// give such a folder alone.
func ClaudeEach(ctx context.Context, bin string, dirs []string) (map[string]Init, error) {
	home, err := os.MkdirTemp("", "plugboard-oracle-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(home)
	var args []string
	abs := make([]string, len(dirs))
	for i, d := range dirs {
		abs[i], _ = filepath.Abs(d)
		args = append(args, "--plugin-dir", abs[i])
	}
	ev, err := runInit(ctx, bin, home, args)
	if err != nil {
		return nil, err
	}
	named := map[string]int{}
	for _, p := range ev.Plugins {
		if p.Path != "builtin" {
			named[p.Name]++
		}
	}
	out := make(map[string]Init, len(dirs))
	for i, d := range dirs {
		in := Init{Version: ev.Version, Skills: []string{}, Slash: []string{}, Agents: []string{}}
		real, _ := filepath.EvalSymlinks(abs[i])
		ambiguous := false
		for _, p := range ev.Plugins {
			if p.Path == "builtin" || p.Path != abs[i] && p.Path != real {
				continue
			}
			if named[p.Name] > 1 || prefixOfAnother(p.Name, named) {
				ambiguous = true
			}
			in.Loads, in.Plugin, in.Plugins = true, p.Name, append(in.Plugins, p.Name)
		}
		if ambiguous {
			continue
		}
		if in.Loads {
			in.Skills, in.Slash, in.Agents = ofPlugin(ev.Skills, in.Plugin), ofPlugin(ev.SlashCommands, in.Plugin), ofPlugin(ev.Agents, in.Plugin)
		}
		for _, w := range ev.Warnings {
			if w.Plugin == filepath.Base(abs[i])+"@inline" || in.Loads && w.Plugin == in.Plugin+"@inline" {
				in.Warnings = append(in.Warnings, w.Message)
			}
		}
		out[d] = in
	}
	return out, nil
}

// prefixOfAnother reports whether another loaded plugin's name starts with name and a
// colon ("a" and "a:b", which 2.1.197 takes): their entries cannot be told apart.
func prefixOfAnother(name string, names map[string]int) bool {
	for n := range names {
		if n != name && strings.HasPrefix(n, name+":") {
			return true
		}
	}
	return false
}

// ofPlugin keeps the entries of plugin (plugin:name), sorted.
func ofPlugin(l []string, plugin string) []string {
	out := []string{}
	for _, s := range l {
		if strings.HasPrefix(s, plugin+":") {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// offline runs argv with no network when this process may make a network namespace (as
// root); otherwise as it is (the clients are then kept on loopback by their settings).
func offline(argv []string) []string {
	if os.Geteuid() == 0 && unshareWorks() {
		return append([]string{"unshare", "-n"}, argv...)
	}
	return argv
}

// groupCommand makes a client command in a process group of its own, killed whole when
// ctx ends: a client's children (a worker, a search tool) must not outlive the run and
// write into its private home after that home is removed (seen: claude's session file
// recreating HOME/.claude/projects).
func groupCommand(ctx context.Context, argv []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// endGroup kills a started groupCommand's whole process group and waits for it.
func endGroup(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()
}

var unshareWorks = sync.OnceValue(func() bool { return exec.Command("unshare", "-n", "true").Run() == nil })

// deadAPI listens on a loopback port and closes every connection at once: the address a
// client is given as its model API, so that whatever it sends goes nowhere (a client
// with no credentials sends nothing, but 2.1.197 opens a connection).
func deadAPI() (net.Listener, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("a loopback port for the client's API address: %w", err)
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	return l, nil
}

// plugged keeps the entries a plugin added (plugin:name; built-ins have no colon).
func plugged(l []string) []string {
	out := []string{}
	for _, s := range l {
		if strings.Contains(s, ":") {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// PI runs bin (the pi executable) in RPC mode with every folder of dirs given with
// --skill and nothing discovered on its own, and returns the skill names it lists
// (get_commands), sorted.
func PI(ctx context.Context, bin string, dirs []string) ([]string, error) {
	each, err := PIEach(ctx, bin, dirs)
	if err != nil {
		return nil, err
	}
	skills := []string{}
	for _, names := range each {
		skills = append(skills, names...)
	}
	sort.Strings(skills)
	return skills, nil
}

// PIEach runs bin as PI does, with every folder of dirs given with --skill, and returns
// the skill names it lists by the folder each came from (as given, made absolute). A
// folder PI did not load is not in the map. PI keeps the first of two skills of one
// name: give folders whose names may collide to different runs.
func PIEach(ctx context.Context, bin string, dirs []string) (map[string][]string, error) {
	home, err := os.MkdirTemp("", "plugboard-oracle-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(home)
	if strings.Contains(bin, "/") {
		bin, _ = filepath.Abs(bin)
	}
	argv := []string{bin, "--mode", "rpc", "--no-session", "--offline", "--no-extensions", "--no-skills", "--no-prompt-templates", "--no-context-files"}
	given := map[string]string{} // what PI reports (resolved or as given) → the folder as given
	for _, d := range dirs {
		abs, _ := filepath.Abs(d)
		argv = append(argv, "--skill", abs)
		given[abs] = abs
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			given[real] = abs
		}
	}
	argv = offline(argv)
	cmd := groupCommand(ctx, argv)
	cmd.Dir = home
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=dumb"}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() { stdin.Close(); endGroup(cmd) }()
	if _, err := stdin.Write([]byte(`{"id":"1","type":"get_commands"}` + "\n")); err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var ev struct {
			ID, Type string
			Data     struct {
				Commands []struct {
					Name, Source string
					SourceInfo   struct{ BaseDir string }
				}
			}
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.ID != "1" || ev.Type != "response" {
			continue
		}
		each := map[string][]string{}
		for _, c := range ev.Data.Commands {
			if c.Source != "skill" {
				continue
			}
			dir, ok := given[c.SourceInfo.BaseDir]
			if !ok {
				dir = c.SourceInfo.BaseDir
			}
			each[dir] = append(each[dir], strings.TrimPrefix(c.Name, "skill:"))
		}
		return each, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("pi answered no get_commands before the time ran out: %w", err)
	}
	return nil, fmt.Errorf("pi answered no get_commands")
}

// ClaudeUserSkills places every folder of dirs in a private ~/.claude/skills (as a
// symlink under its own name; names must be unique) and returns the names the real
// claude lists among its skills, minus its built-in ones, and the built-in names (a user
// skill of a built-in's name cannot be told apart from it in the listing).
func ClaudeUserSkills(ctx context.Context, bin string, dirs []string) (listed, builtins []string, err error) {
	base, err := Claude(ctx, bin, "")
	if err != nil {
		return nil, nil, err
	}
	home, err := os.MkdirTemp("", "plugboard-oracle-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(home)
	root := filepath.Join(home, ".claude", "skills")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, nil, err
	}
	for _, d := range dirs {
		d, _ = filepath.Abs(d)
		if err := os.Symlink(d, filepath.Join(root, filepath.Base(d))); err != nil {
			return nil, nil, err
		}
	}
	in, err := run(ctx, bin, home, nil)
	if err != nil {
		return nil, nil, err
	}
	builtin := map[string]bool{}
	for _, s := range base.all {
		builtin[s] = true
	}
	for _, s := range in.all {
		if !builtin[s] {
			listed = append(listed, s)
		}
	}
	sort.Strings(listed)
	return listed, base.all, nil
}
