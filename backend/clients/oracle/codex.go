package oracle

// The Codex oracle asks codex 0.169.0 (npm @openai/codex) what it loads, the way a user
// gets a plugin into Codex: a plugin loads only once installed from a marketplace.
//
// CodexPlugin lays the folder (a symbolic link to it) in a private local marketplace
// (.agents/plugins/marketplace.json), runs `codex plugin marketplace add` and `codex
// plugin add` in a private CODEX_HOME, then asks `codex app-server` over stdio (JSON-RPC,
// one JSON object a line: initialize, the initialized notification, skills/list and
// plugin/read) and reads `codex debug prompt-input hi` for the skills the model is shown.
// CodexSkills does the same for skill folders placed in ~/.agents/skills or
// ~/.codex/skills, without a marketplace.
//
// Nothing reaches the network and no code of the package runs:
//   - every run has a private, empty HOME (CODEX_HOME is its .codex) and, when this
//     process may (root), no network at all (unshare -n); otherwise every proxy variable
//     names a loopback port that closes each connection. The app-server's start-up sync
//     of OpenAI's curated plugins (git ls-remote of github.com/openai/plugins) then fails
//     at once.
//   - the model provider is a loopback address that answers nothing (the default one
//     makes `debug prompt-input` wait 5 s on a DNS lookup of api.openai.com).
//   - `debug prompt-input` starts the plugin's MCP servers (seen with a server that
//     leaves a marker file). The app-server names them (plugin/read mcpServers) without
//     starting them, and the prompt-input run is given a disabled server of each of
//     those names in its config, which Codex keeps in place of the plugin's (it skips a
//     plugin server whose name is taken).
//   - hooks are off (--disable hooks); 0.169.0 runs none at load anyway, and a hook would
//     first need the user's trust.
//
// Seen 2026-12-06; see ../shared/docs/AGENT-BACKENDS.md, "Newer clients".

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"
)

// CodexLoad is what codex reports loading from one plugin folder once installed.
type CodexLoad struct {
	// Loads is true when `codex plugin add` installed the folder.
	Loads bool `json:"loads"`
	// Error is why `codex plugin add` refused it, as codex says it ("missing or invalid
	// plugin.json").
	Error string `json:"error,omitempty"`
	// Plugin is the name codex installs the plugin under (its id is Plugin@marketplace).
	Plugin string `json:"plugin"`
	// Skills are the names skills/list gives the plugin's skills, as codex spells them
	// ("plugin:skill", "plugin:source-command-cmd" for a Claude command), sorted; a name
	// two skill files share is listed twice.
	Skills []string `json:"skills"`
	// Refused are the skill files codex would not load, with its reason.
	Refused []CodexRefusal `json:"refused"`
	// Hidden are the skills of Skills missing from the model's prompt (agents/openai.yaml
	// allow_implicit_invocation: false), sorted.
	Hidden []string `json:"hidden"`
	// Version is codex's version, from its app-server's user agent ("0.169.0"); "" when
	// the plugin was not installed and the app-server was not asked.
	Version string `json:"-"`
}

// CodexRefusal is one skill file codex refused to load.
type CodexRefusal struct {
	// Path is the SKILL.md relative to the installed plugin (which mirrors the package
	// folder; a converted command's is under .codex-plugin/migrated-command-skills) or to
	// the skills folder, slash form.
	Path   string `json:"path"`
	Reason string `json:"reason"` // codex's message ("missing field `description`")
}

// CodexSkillSet is what codex lists of standalone skill folders.
type CodexSkillSet struct {
	Skills  []string       `json:"skills"`  // sorted, codex's system skills left out
	Refused []CodexRefusal `json:"refused"` // paths relative to the skills folder
	Hidden  []string       `json:"hidden"`  // of Skills, those missing from the model's prompt
	System  []string       `json:"system"`  // codex's own skills (~/.codex/skills/.system), sorted
	Version string         `json:"-"`
}

// CodexSkillsRoots are the folders of standalone skills CodexSkills may place skill
// folders in, relative to HOME: the user's Agent Skills folder and Codex's own.
var CodexSkillsRoots = []string{".agents/skills", ".codex/skills"}

// codexMarket is the name of the oracle's private marketplace.
const codexMarket = "plugboard-oracle"

// CodexPlugin installs the plugin folder dir in a private Codex home and returns what
// the codex at bin then loads from it. A folder codex refuses to install is an answer
// (Loads false, Error), not an error; an error means codex could not be asked.
func CodexPlugin(ctx context.Context, bin, dir string) (CodexLoad, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return CodexLoad{}, err
	}
	h, err := newCodexHome(bin)
	if err != nil {
		return CodexLoad{}, err
	}
	defer h.close()
	name := filepath.Base(abs)
	inst, err := h.install(ctx, abs, name)
	if err != nil {
		return CodexLoad{}, fmt.Errorf("%w for %s", err, dir)
	}
	load := CodexLoad{Skills: []string{}, Refused: []CodexRefusal{}, Hidden: []string{}}
	if inst.refusal != "" {
		load.Error = inst.refusal
		return load, nil
	}
	load.Loads, load.Plugin = true, inst.Name
	ans, err := h.ask(ctx, inst.Name)
	if err != nil {
		return CodexLoad{}, fmt.Errorf("%w for %s", err, dir)
	}
	load.Version = ans.version
	root := inst.InstalledPath
	var mine []codexSkill
	for _, s := range ans.skills {
		if s.PluginID == inst.PluginID {
			mine = append(mine, s)
		}
	}
	load.Refused = refusedUnder(ans.errors, []codexBase{{real: root}})
	prompt, err := h.prompt(ctx, ans.servers)
	if err != nil {
		return CodexLoad{}, fmt.Errorf("%w for %s", err, dir)
	}
	load.Skills, load.Hidden = sortedSkills(mine, prompt)
	return load, nil
}

// CodexSkills places every folder of dirs (as a symbolic link under its own name; names
// must be unique) in HOME/under, one of CodexSkillsRoots, and returns what the codex at
// bin lists of them.
func CodexSkills(ctx context.Context, bin, under string, dirs []string) (CodexSkillSet, error) {
	known := false
	for _, r := range CodexSkillsRoots {
		known = known || r == under
	}
	if !known {
		return CodexSkillSet{}, fmt.Errorf("codex reads standalone skills from %s, not %s", strings.Join(CodexSkillsRoots, " or "), under)
	}
	h, err := newCodexHome(bin)
	if err != nil {
		return CodexSkillSet{}, err
	}
	defer h.close()
	root := filepath.Join(h.home, filepath.FromSlash(under))
	if err := os.MkdirAll(root, 0o755); err != nil {
		return CodexSkillSet{}, err
	}
	// skills/list names a linked skill's files by their real path.
	bases := []codexBase{{real: root}}
	for _, d := range dirs {
		d, err := filepath.Abs(d)
		if err != nil {
			return CodexSkillSet{}, err
		}
		if err := os.Symlink(d, filepath.Join(root, filepath.Base(d))); err != nil {
			return CodexSkillSet{}, err
		}
		if real, err := filepath.EvalSymlinks(d); err == nil {
			bases = append(bases, codexBase{real: real, name: filepath.Base(d)})
		}
	}
	ans, err := h.ask(ctx, "")
	if err != nil {
		return CodexSkillSet{}, err
	}
	set := CodexSkillSet{System: []string{}, Version: ans.version}
	var user []codexSkill
	for _, s := range ans.skills {
		switch {
		case s.Scope == "system":
			set.System = append(set.System, s.Name)
		case s.PluginID == "":
			user = append(user, s)
		}
	}
	sort.Strings(set.System)
	set.Refused = refusedUnder(ans.errors, bases)
	prompt, err := h.prompt(ctx, nil)
	if err != nil {
		return CodexSkillSet{}, err
	}
	set.Skills, set.Hidden = sortedSkills(user, prompt)
	return set, nil
}

// codexHome is one private Codex installation: HOME, CODEX_HOME (HOME/.codex), an empty
// working folder and a marketplace folder, all under one temporary folder.
type codexHome struct {
	bin, tmp, home, codex, work, market string
	env                                 []string
	prefix                              []string // unshare -n, when it may
	api                                 io.Closer
}

// newCodexHome makes a private Codex home whose config points the model provider at a
// dead loopback address.
func newCodexHome(bin string) (*codexHome, error) {
	if strings.Contains(bin, "/") {
		bin, _ = filepath.Abs(bin)
	}
	tmp, err := os.MkdirTemp("", "plugboard-codex-")
	if err != nil {
		return nil, err
	}
	// Codex reports resolved paths; /tmp may itself be a link (macOS).
	if real, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = real
	}
	h := &codexHome{bin: bin, tmp: tmp, home: filepath.Join(tmp, "home"), work: filepath.Join(tmp, "work"), market: filepath.Join(tmp, "market")}
	h.codex = filepath.Join(h.home, ".codex")
	for _, d := range []string{h.codex, h.work, filepath.Join(h.market, ".agents", "plugins"), filepath.Join(h.market, "plugins")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			h.close()
			return nil, err
		}
	}
	api, err := deadAPI()
	if err != nil {
		h.close()
		return nil, err
	}
	h.api = api
	dead := "http://" + api.Addr().String()
	config := "model_provider = \"plugboard-oracle\"\n\n[model_providers.plugboard-oracle]\nname = \"plugboard-oracle\"\nbase_url = \"" + dead + "/v1\"\n"
	if err := os.WriteFile(filepath.Join(h.codex, "config.toml"), []byte(config), 0o644); err != nil {
		h.close()
		return nil, err
	}
	h.env = []string{"HOME=" + h.home, "CODEX_HOME=" + h.codex, "PATH=" + os.Getenv("PATH"), "TERM=dumb"}
	if p := offline(nil); len(p) > 0 {
		h.prefix = p
	} else {
		for _, v := range []string{"HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy"} {
			h.env = append(h.env, v+"="+dead)
		}
	}
	return h, nil
}

// close removes the home and stops its dead API address.
func (h *codexHome) close() {
	if h.api != nil {
		_ = h.api.Close()
	}
	_ = os.RemoveAll(h.tmp)
}

// command makes a codex command in the home's working folder. Its process group is
// killed when ctx ends or the command returns (the npm launcher is node, which starts
// the native codex as its child).
func (h *codexHome) command(ctx context.Context, args ...string) *exec.Cmd {
	argv := append(append(append([]string{}, h.prefix...), h.bin), args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = h.work, h.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// run runs a short codex command and returns its standard output, or its standard error
// (the WARNING lines codex prints in a temporary folder left out) as the error.
func (h *codexHome) run(ctx context.Context, args ...string) ([]byte, error) {
	cmd := h.command(ctx, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := codexMessage(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return out, &codexRefused{msg: msg}
	}
	return out, nil
}

// codexRefused is a codex command's failure, in codex's words.
type codexRefused struct{ msg string }

func (e *codexRefused) Error() string { return e.msg }

// codexMessage is the first line of codex's error output that is not a warning, without
// its "Error: " prefix.
func codexMessage(stderr string) string {
	for _, line := range strings.Split(stderr, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "WARNING:") {
			continue
		}
		return strings.TrimPrefix(line, "Error: ")
	}
	return ""
}

// codexInstall is codex plugin add's answer (--json).
type codexInstall struct {
	PluginID      string `json:"pluginId"`
	Name          string `json:"name"`
	InstalledPath string `json:"installedPath"`

	refusal string // why codex refused to install it
}

// nameMismatch is codex plugin add's refusal of a marketplace entry whose name is not
// the plugin's manifest name.
var nameMismatch = regexp.MustCompile("^plugin.json name `(.*)` does not match marketplace plugin name `.*`$")

// install adds the home's marketplace with dir as its one plugin, named name, and
// installs it. Codex insists that the entry's name is the manifest's: when it says
// which name the manifest gives, the entry is named so and installed again.
func (h *codexHome) install(ctx context.Context, dir, name string) (codexInstall, error) {
	if err := h.list(dir, name); err != nil {
		return codexInstall{}, err
	}
	if _, err := h.run(ctx, "plugin", "marketplace", "add", "--json", h.market); err != nil {
		return codexInstall{}, fmt.Errorf("codex plugin marketplace add: %w", err)
	}
	for try := 0; ; try++ {
		// "--" because a plugin's name may start with a hyphen.
		out, err := h.run(ctx, "plugin", "add", "--json", "--", name+"@"+codexMarket)
		var refused *codexRefused
		if errors.As(err, &refused) {
			if m := nameMismatch.FindStringSubmatch(refused.msg); m != nil && try == 0 {
				name = m[1]
				if err := h.list(dir, name); err != nil {
					return codexInstall{}, err
				}
				continue
			}
			return codexInstall{refusal: refused.msg}, nil
		}
		if err != nil {
			return codexInstall{}, err
		}
		var inst codexInstall
		if err := json.Unmarshal(out, &inst); err != nil || inst.PluginID == "" {
			return codexInstall{}, fmt.Errorf("codex plugin add printed no plugin: %q", out)
		}
		return inst, nil
	}
}

// list writes the marketplace file with dir as its one plugin, linked as plugins/name.
func (h *codexHome) list(dir, name string) error {
	link := filepath.Join(h.market, "plugins", name)
	if strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return fmt.Errorf("%q cannot name a plugin folder in a marketplace", name)
	}
	if err := os.Symlink(dir, link); err != nil && !os.IsExist(err) {
		return err
	}
	market := map[string]any{
		"name": codexMarket,
		"plugins": []any{map[string]any{
			"name":     name,
			"source":   map[string]any{"source": "local", "path": "./plugins/" + name},
			"policy":   map[string]any{"installation": "AVAILABLE", "authentication": "ON_INSTALL"},
			"category": "Productivity",
		}},
	}
	b, _ := json.MarshalIndent(market, "", "  ")
	return os.WriteFile(filepath.Join(h.market, ".agents", "plugins", "marketplace.json"), b, 0o644)
}

// codexSkill is one skill of skills/list.
type codexSkill struct {
	Name     string `json:"name"`
	Path     string `json:"path"`
	Scope    string `json:"scope"`
	PluginID string `json:"pluginId"`
}

// codexAnswer is what the app-server said: every skill, every refused skill file, the
// plugin's MCP server names and codex's version.
type codexAnswer struct {
	skills  []codexSkill
	errors  []CodexRefusal // absolute paths
	servers []string
	version string
}

// ask starts `codex app-server` on stdio and asks it skills/list and, for a plugin,
// plugin/read (for its MCP server names).
func (h *codexHome) ask(ctx context.Context, plugin string) (codexAnswer, error) {
	cmd := h.command(ctx, "--disable", "hooks", "app-server")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return codexAnswer{}, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return codexAnswer{}, err
	}
	if err := cmd.Start(); err != nil {
		return codexAnswer{}, err
	}
	defer func() { stdin.Close(); _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() }()
	send := func(v any) error {
		b, _ := json.Marshal(v)
		_, err := stdin.Write(append(b, '\n'))
		return err
	}
	if err := send(rpc{ID: 1, Method: "initialize", Params: map[string]any{"clientInfo": map[string]string{"name": "plugboard-oracle", "version": "0"}}}); err != nil {
		return codexAnswer{}, err
	}
	var ans codexAnswer
	pending := map[int]bool{1: true}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil || !pending[*m.ID] {
			continue // a notification
		}
		delete(pending, *m.ID)
		if m.Error != nil {
			return codexAnswer{}, fmt.Errorf("codex app-server answered request %d with an error: %s", *m.ID, m.Error.Message)
		}
		switch *m.ID {
		case 1:
			ans.version = userAgentVersion(m.Result)
			reqs := []rpc{{ID: 2, Method: "skills/list", Params: map[string]any{"cwds": []string{h.work}, "forceReload": true}}}
			if plugin != "" {
				reqs = append(reqs, rpc{ID: 3, Method: "plugin/read", Params: map[string]any{"pluginName": plugin, "marketplacePath": filepath.Join(h.market, ".agents", "plugins", "marketplace.json")}})
			}
			if err := send(rpc{Method: "initialized"}); err != nil {
				return codexAnswer{}, err
			}
			for _, r := range reqs {
				pending[r.ID] = true
				if err := send(r); err != nil {
					return codexAnswer{}, err
				}
			}
		case 2:
			if err := ans.readSkills(m.Result); err != nil {
				return codexAnswer{}, err
			}
		case 3:
			var r struct {
				Plugin struct {
					McpServers []string `json:"mcpServers"`
				} `json:"plugin"`
			}
			if err := json.Unmarshal(m.Result, &r); err != nil {
				return codexAnswer{}, fmt.Errorf("codex app-server's plugin/read answer: %w", err)
			}
			ans.servers = r.Plugin.McpServers
		}
		if len(pending) == 0 {
			return ans, nil
		}
	}
	if ctx.Err() != nil {
		return codexAnswer{}, ctx.Err()
	}
	return codexAnswer{}, fmt.Errorf("codex app-server ended before it answered")
}

// rpc is one JSON-RPC request or notification (no ID) to the app-server.
type rpc struct {
	ID     int    `json:"id,omitempty"`
	Method string `json:"method"`
	Params any    `json:"params,omitempty"`
}

// userAgentVersion reads codex's version from initialize's userAgent
// ("plugboard-oracle/0.169.0 (Debian 12.0.0; x86_64) …").
func userAgentVersion(result json.RawMessage) string {
	var r struct {
		UserAgent string `json:"userAgent"`
	}
	_ = json.Unmarshal(result, &r)
	_, rest, _ := strings.Cut(r.UserAgent, "/")
	v, _, _ := strings.Cut(rest, " ")
	return v
}

// readSkills reads skills/list's answer for the one working folder asked.
func (a *codexAnswer) readSkills(result json.RawMessage) error {
	var r struct {
		Data []struct {
			Skills []codexSkill `json:"skills"`
			Errors []struct {
				Path    string `json:"path"`
				Message string `json:"message"`
			} `json:"errors"`
		} `json:"data"`
	}
	if err := json.Unmarshal(result, &r); err != nil || len(r.Data) != 1 {
		return fmt.Errorf("codex app-server's skills/list answer is not one list: %s", result)
	}
	a.skills = r.Data[0].Skills
	for _, e := range r.Data[0].Errors {
		a.errors = append(a.errors, CodexRefusal{Path: e.Path, Reason: e.Message})
	}
	return nil
}

// codexBase is a folder whose files' paths are reported relative to it: real is its
// path as codex reports it, name the path it is reported under ("" for the root).
type codexBase struct{ real, name string }

// refusedUnder keeps the refusals of files under one of bases (the most specific one),
// relative to it, sorted by path.
func refusedUnder(all []CodexRefusal, bases []codexBase) []CodexRefusal {
	out := []CodexRefusal{}
	for _, e := range all {
		best := ""
		for _, b := range bases {
			rel, err := filepath.Rel(b.real, e.Path)
			if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
				continue
			}
			if p := filepath.ToSlash(filepath.Join(b.name, rel)); best == "" || len(p) < len(best) {
				best = p
			}
		}
		if best != "" {
			out = append(out, CodexRefusal{Path: best, Reason: e.Reason})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// sortedSkills returns the names of skills, and of those whose SKILL.md the prompt does
// not list, both sorted.
func sortedSkills(skills []codexSkill, prompt map[string]bool) (names, hidden []string) {
	names, hidden = []string{}, []string{}
	for _, s := range skills {
		names = append(names, s.Name)
		if !prompt[realPath(s.Path)] {
			hidden = append(hidden, s.Name)
		}
	}
	sort.Strings(names)
	sort.Strings(hidden)
	return names, hidden
}

// prompt runs `codex debug prompt-input hi` and returns the SKILL.md files its skills
// section lists, as absolute paths. servers are the installed plugin's MCP server names:
// the run's config holds a disabled server of each name, so that none of the plugin's
// starts.
func (h *codexHome) prompt(ctx context.Context, servers []string) (map[string]bool, error) {
	if len(servers) > 0 {
		// In the config file, not with -c: -c splits its path at every dot.
		var b strings.Builder
		for _, s := range servers {
			b.WriteString("\n[mcp_servers." + tomlKey(s) + "]\ncommand = \"false\"\nenabled = false\n")
		}
		f, err := os.OpenFile(filepath.Join(h.codex, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		_, err = f.WriteString(b.String())
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
	}
	out, err := h.run(ctx, "--disable", "hooks", "debug", "prompt-input", "hi")
	if err != nil {
		return nil, fmt.Errorf("codex debug prompt-input: %w", err)
	}
	var items []struct {
		Type    string `json:"type"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(out, &items); err != nil {
		return nil, fmt.Errorf("codex debug prompt-input printed no JSON list: %w", err)
	}
	for _, it := range items {
		for _, c := range it.Content {
			if strings.HasPrefix(c.Text, "<skills_instructions>") {
				return promptSkills(c.Text), nil
			}
		}
	}
	return nil, fmt.Errorf("codex debug prompt-input printed no <skills_instructions>")
}

var (
	// "- `r1` = `/tmp/…/plugins/cache/plugboard-oracle`"
	promptRoot = regexp.MustCompile("(?m)^- `(r[0-9]+)` = `([^`]*)`$")
	// "- demo:hello: A test skill. (file: r1/demo/local/skills/hello/SKILL.md)"
	promptFile = regexp.MustCompile(`\(file: (r[0-9]+)/([^)\n]*)\)$`)
)

// promptSkills reads the skills section of the prompt: a table of roots, then one line a
// skill ending in its SKILL.md under one of the roots.
func promptSkills(text string) map[string]bool {
	roots := map[string]string{}
	for _, m := range promptRoot.FindAllStringSubmatch(text, -1) {
		roots[m[1]] = m[2]
	}
	files := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		if m := promptFile.FindStringSubmatch(line); m != nil && roots[m[1]] != "" {
			files[realPath(filepath.Join(roots[m[1]], filepath.FromSlash(m[2])))] = true
		}
	}
	return files
}

// realPath is p with its symbolic links resolved (the prompt names a linked skill by its
// link, skills/list by its target), or p cleaned when it cannot be resolved.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// tomlKey quotes s as a TOML key.
func tomlKey(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
