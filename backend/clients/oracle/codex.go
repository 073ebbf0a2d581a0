package oracle

// The Codex oracle asks codex 0.169.0 (npm @openai/codex) what it loads, the way a user
// gets a plugin into Codex: a plugin loads only once installed from a marketplace.
//
// CodexPlugin lays the folder (a symbolic link to it) in a private local marketplace
// (.agents/plugins/marketplace.json) and starts `codex app-server` in a private
// CODEX_HOME, spoken to over stdio (JSON-RPC, one JSON object a line): initialize, the
// initialized notification, plugin/install (what `codex plugin add` does, the copy into
// ~/.codex/plugins/cache and the Claude commands turned into skills; on every fixture
// it gave what `codex plugin marketplace add` and `codex plugin add` give, the same
// refusals (one with "failed to install plugin: " before it), with half the codex
// runs, each of which starts node for the npm launcher),
// plugin/read and skills/list. Then `codex debug prompt-input hi` shows the skills the
// model is told about. CodexSkills does the same for skill folders placed in
// ~/.agents/skills or ~/.codex/skills, with nothing to install.
//
// Nothing reaches the network and no code of the package runs:
//   - every run has a private, empty HOME (CODEX_HOME is its .codex), every proxy
//     variable names a loopback port that closes each connection and, when this process
//     may (root), no network at all (unshare -n). The app-server's start-up sync of
//     OpenAI's curated plugins (git ls-remote of github.com/openai/plugins) then fails at
//     once, and so does plugin/install's look-up of a remote MCP server's OAuth metadata
//     (with no network but no proxy, codex's resolver retried it for 5 s a plugin).
//   - the model provider is a loopback address that answers nothing (the default one
//     makes `debug prompt-input` wait 5 s on a DNS lookup of api.openai.com), with a
//     context window of 100M tokens: the prompt's skill list is bounded by 2% of it and
//     silently drops skills past that (3,000 skills: ~600 listed at the default), which
//     must not pass for a package's choice when many are asked at once.
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
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
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
	got, err := CodexEach(ctx, bin, []string{dir})
	if err != nil {
		return CodexLoad{}, fmt.Errorf("%w for %s", err, dir)
	}
	load, ok := got[dir]
	if !ok {
		return CodexLoad{}, fmt.Errorf("codex gave no answer for %s", dir)
	}
	return load, nil
}

// CodexEach installs every plugin folder of dirs from one private marketplace into one
// private Codex home, with one app-server and one prompt-input run, and returns what the
// codex at bin loads from each, by folder as given. Skills are told apart by the plugin
// id skills/list gives them. A folder that could not be installed under a name of its
// own in that marketplace (two folders whose manifests take one name) is left out: ask
// it alone. A skill missing from the prompt may have been left out because the prompt's
// skill list was full rather than by the package's choice; a caller that must know asks
// such a package alone.
func CodexEach(ctx context.Context, bin string, dirs []string) (map[string]CodexLoad, error) {
	h, err := newCodexHome(bin)
	if err != nil {
		return nil, err
	}
	defer h.close()
	sess, version, err := h.appServer(ctx)
	if err != nil {
		return nil, err
	}
	defer sess.close()
	out := make(map[string]CodexLoad, len(dirs))
	names := map[string]string{} // folder as given -> the name it was installed under
	var servers []string
	m := &codexMarketplace{h: h, file: filepath.Join(h.market, ".agents", "plugins", "marketplace.json")}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, err
		}
		name, refusal, err := m.install(sess, abs)
		switch {
		case err != nil:
			return nil, err
		case name == "" && refusal == "":
			continue // its name is another's in this marketplace
		case refusal != "":
			out[d] = CodexLoad{Error: refusal, Skills: []string{}, Refused: []CodexRefusal{}, Hidden: []string{}, Version: version}
			continue
		}
		var read struct {
			Plugin struct {
				McpServers []string `json:"mcpServers"`
			} `json:"plugin"`
		}
		if err := sess.call("plugin/read", map[string]any{"pluginName": name, "marketplacePath": m.file}, &read); err != nil {
			return nil, err
		}
		servers = append(servers, read.Plugin.McpServers...)
		names[d] = name
	}
	if len(names) == 0 {
		return out, nil
	}
	all, refused, err := sess.skills(h.work)
	if err != nil {
		return nil, err
	}
	prompt, err := h.prompt(ctx, servers)
	if err != nil {
		return nil, err
	}
	for d, name := range names {
		root, err := h.installed(name)
		if err != nil {
			return nil, fmt.Errorf("%w for %s", err, d)
		}
		var mine []codexSkill
		for _, s := range all {
			if s.PluginID == name+"@"+codexMarket {
				mine = append(mine, s)
			}
		}
		load := CodexLoad{Loads: true, Plugin: name, Version: version, Refused: refusedUnder(refused, []codexBase{{real: root}})}
		load.Skills, load.Hidden = sortedSkills(mine, prompt)
		out[d] = load
	}
	return out, nil
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
	sess, version, err := h.appServer(ctx)
	if err != nil {
		return CodexSkillSet{}, err
	}
	defer sess.close()
	all, refused, err := sess.skills(h.work)
	if err != nil {
		return CodexSkillSet{}, err
	}
	set := CodexSkillSet{System: []string{}, Version: version}
	var user []codexSkill
	for _, s := range all {
		switch {
		case s.Scope == "system":
			set.System = append(set.System, s.Name)
		case s.PluginID == "":
			user = append(user, s)
		}
	}
	sort.Strings(set.System)
	set.Refused = refusedUnder(refused, bases)
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
	config := "model_provider = \"plugboard-oracle\"\nmodel_context_window = 100000000\n\n[model_providers.plugboard-oracle]\nname = \"plugboard-oracle\"\nbase_url = \"" + dead + "/v1\"\n"
	if err := os.WriteFile(filepath.Join(h.codex, "config.toml"), []byte(config), 0o644); err != nil {
		h.close()
		return nil, err
	}
	h.env = []string{"HOME=" + h.home, "CODEX_HOME=" + h.codex, "PATH=" + os.Getenv("PATH"), "TERM=dumb"}
	h.prefix = offline(nil)
	for _, v := range []string{"HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy"} {
		h.env = append(h.env, v+"="+dead)
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
	cmd := groupCommand(ctx, append(append(append([]string{}, h.prefix...), h.bin), args...))
	cmd.Dir, cmd.Env = h.work, h.env
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

// nameMismatch is codex's refusal to install a marketplace entry whose name is not the
// plugin's manifest name.
var nameMismatch = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("^plugin.json name `(.*)` does not match marketplace plugin name `.*`$")
})

// installed returns the folder codex installed the plugin name into:
// CODEX_HOME/plugins/cache/<marketplace>/<name>/<version, or "local">.
func (h *codexHome) installed(name string) (string, error) {
	dir := filepath.Join(h.codex, "plugins", "cache", codexMarket, name)
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 || !entries[0].IsDir() {
		return "", fmt.Errorf("codex installed the plugin %s in no single folder of %s", name, dir)
	}
	return filepath.Join(dir, entries[0].Name()), nil
}

// codexSkill is one skill of skills/list.
type codexSkill struct {
	Name     string `json:"name"`
	Path     string `json:"path"`
	Scope    string `json:"scope"`
	PluginID string `json:"pluginId"`
}

// codexMarketplace is the home's private marketplace: one entry a plugin folder, each
// linked as plugins/<entry name>.
type codexMarketplace struct {
	h       *codexHome
	file    string
	entries []string // entry names, in the order installed
}

// install adds the plugin folder dir to the marketplace and installs it (plugin/install,
// as `codex plugin add` does: the copy, the commands turned into skills), under its
// folder's name or, when codex asks for it, its manifest's. It returns the name it was
// installed under, or codex's reason for not installing it, or neither when the name
// codex asks for is another entry's.
func (m *codexMarketplace) install(sess *codexSession, dir string) (name, refusal string, err error) {
	// A marketplace entry's name is ASCII letters, digits, ".", "_" and "-" (codex refuses
	// any other before it reads the manifest); the folder's name is the user's, not the
	// package's (a checkout named "owner+repo"), so its other characters become "-".
	name = strings.Map(func(r rune) rune {
		if r < 0x80 && (r == '.' || r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '-'
	}, filepath.Base(dir))
	if slices.Contains(m.entries, name) {
		name = fmt.Sprintf("%s-%d", name, len(m.entries)) // codex then names the manifest's
	}
	for try := 0; ; try++ {
		if slices.Contains(m.entries, name) {
			return "", "", m.write("", "")
		}
		if err := m.write(dir, name); err != nil {
			return "", "", err
		}
		err = sess.call("plugin/install", map[string]any{"pluginName": name, "marketplacePath": m.file}, nil)
		var refused *codexRefused
		if !errors.As(err, &refused) {
			if err == nil {
				m.entries = append(m.entries, name)
			}
			return name, "", err
		}
		_ = os.Remove(filepath.Join(m.h.market, "plugins", name))
		if mm := nameMismatch().FindStringSubmatch(refused.msg); mm != nil && try == 0 {
			name = mm[1]
			continue
		}
		// the entry goes: codex reads the whole file at each install
		return "", refused.msg, m.write("", "")
	}
}

// write links dir as plugins/name and writes the marketplace file with the entries
// installed so far and, when name is not "", name.
func (m *codexMarketplace) write(dir, name string) error {
	entries := m.entries
	if name != "" {
		if strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
			return fmt.Errorf("%q cannot name a plugin folder in a marketplace", name)
		}
		if err := os.Symlink(dir, filepath.Join(m.h.market, "plugins", name)); err != nil && !os.IsExist(err) {
			return err
		}
		entries = append(slices.Clip(entries), name)
	}
	plugins := make([]any, len(entries))
	for i, n := range entries {
		plugins[i] = map[string]any{
			"name":     n,
			"source":   map[string]any{"source": "local", "path": "./plugins/" + n},
			"policy":   map[string]any{"installation": "AVAILABLE", "authentication": "ON_INSTALL"},
			"category": "Productivity",
		}
	}
	b, _ := json.MarshalIndent(map[string]any{"name": codexMarket, "plugins": plugins}, "", "  ")
	return os.WriteFile(m.file, b, 0o644)
}

// codexSession is a running `codex app-server`, spoken to in JSON-RPC over stdio, one
// message a line.
type codexSession struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines *bufio.Scanner
	ctx   context.Context
	id    int
}

// appServer starts the app-server (hooks off) and introduces itself: the session and
// codex's version, from the app-server's user agent.
func (h *codexHome) appServer(ctx context.Context) (*codexSession, string, error) {
	cmd := h.command(ctx, "--disable", "hooks", "app-server")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, "", err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	sess := &codexSession{cmd: cmd, stdin: stdin, lines: sc, ctx: ctx}
	var init struct {
		UserAgent string `json:"userAgent"`
	}
	if err := sess.call("initialize", map[string]any{"clientInfo": map[string]string{"name": "plugboard-oracle", "version": "0"}}, &init); err != nil {
		sess.close()
		return nil, "", err
	}
	if err := sess.notify("initialized"); err != nil {
		sess.close()
		return nil, "", err
	}
	return sess, userAgentVersion(init.UserAgent), nil
}

// close ends the app-server and every process it started.
func (s *codexSession) close() {
	_ = s.stdin.Close()
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	_ = s.cmd.Wait()
}

// notify sends a notification.
func (s *codexSession) notify(method string) error {
	return s.send(map[string]any{"method": method})
}

func (s *codexSession) send(msg any) error {
	b, _ := json.Marshal(msg)
	_, err := s.stdin.Write(append(b, '\n'))
	return err
}

// call sends one request and reads lines (notifications passed over) up to its answer,
// decoded into result (when not nil); an error answer is a *codexRefused.
func (s *codexSession) call(method string, params, result any) error {
	s.id++
	if err := s.send(map[string]any{"id": s.id, "method": method, "params": params}); err != nil {
		return fmt.Errorf("codex app-server %s: %w", method, err)
	}
	for s.lines.Scan() {
		var m struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(s.lines.Bytes(), &m) != nil || m.ID == nil || *m.ID != s.id {
			continue // a notification
		}
		if m.Error != nil {
			return &codexRefused{msg: m.Error.Message}
		}
		if result == nil {
			return nil
		}
		if err := json.Unmarshal(m.Result, result); err != nil {
			return fmt.Errorf("codex app-server's %s answer: %w", method, err)
		}
		return nil
	}
	if s.ctx.Err() != nil {
		return s.ctx.Err()
	}
	return fmt.Errorf("codex app-server ended before it answered %s", method)
}

// userAgentVersion reads codex's version from initialize's userAgent
// ("plugboard-oracle/0.169.0 (Debian 12.0.0; x86_64) …").
func userAgentVersion(ua string) string {
	_, rest, _ := strings.Cut(ua, "/")
	v, _, _ := strings.Cut(rest, " ")
	return v
}

// skillsList is skills/list's answer.
type skillsList struct {
	Data []struct {
		Skills []codexSkill `json:"skills"`
		Errors []struct {
			Path    string `json:"path"`
			Message string `json:"message"`
		} `json:"errors"`
	} `json:"data"`
}

// skills asks skills/list for the working folder work: every skill, and every skill
// file codex refused (absolute paths).
func (s *codexSession) skills(work string) ([]codexSkill, []CodexRefusal, error) {
	var list skillsList
	if err := s.call("skills/list", map[string]any{"cwds": []string{work}, "forceReload": true}, &list); err != nil {
		return nil, nil, err
	}
	if len(list.Data) != 1 {
		return nil, nil, fmt.Errorf("codex app-server's skills/list answered for %d folders, not one", len(list.Data))
	}
	var refused []CodexRefusal
	for _, e := range list.Data[0].Errors {
		refused = append(refused, CodexRefusal{Path: e.Path, Reason: e.Message})
	}
	return list.Data[0].Skills, refused, nil
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
		// In the config file, not with -c: -c splits its path at every dot. Once a name:
		// two packages of one run may each have a server "github", and a second table of
		// one name is a TOML error codex refuses the whole file for.
		servers = slices.Compact(slices.Sorted(slices.Values(servers)))
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
	promptRoot = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(?m)^- `(r[0-9]+)` = `([^`]*)`$") })
	// "- demo:hello: A test skill. (file: r1/demo/local/skills/hello/SKILL.md)"
	promptFile = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\(file: (r[0-9]+)/([^)\n]*)\)$`) })
)

// promptSkills reads the skills section of the prompt: a table of roots, then one line a
// skill ending in its SKILL.md under one of the roots.
func promptSkills(text string) map[string]bool {
	roots := map[string]string{}
	for _, m := range promptRoot().FindAllStringSubmatch(text, -1) {
		roots[m[1]] = m[2]
	}
	files := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		if m := promptFile().FindStringSubmatch(line); m != nil && roots[m[1]] != "" {
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
