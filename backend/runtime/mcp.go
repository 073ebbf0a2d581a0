package runtime

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/plugboard/plugboard/backend/assign"
	"github.com/plugboard/plugboard/backend/catalog"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/manifest"
	"github.com/plugboard/plugboard/backend/mcpconfig"
	"github.com/plugboard/plugboard/backend/pathsafe"
)

// Server is one portable MCP server after the backend-neutral normalisation of R3:
// placeholders expanded in args, env values and cwd only; command resolved against the
// plugin root when it is a "./" path (a bare name is left to the executable search of
// whoever starts it); cwd made absolute (the plugin root when omitted); PLUGIN_ROOT and
// PLUGIN_DATA set after the configured env. Remote servers keep url and headers exactly
// as written (spec §7.2.1: no expansion there). Values are kept in the backend only.
type Server struct {
	Plugin  string            `json:"plugin"`
	Name    string            `json:"name"`
	Type    string            `json:"type"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// EnvRefs is set for a Cursor server whose command, args, env values, url or headers
	// hold ${env:NAME} or ${NAME}: mcp-stdio or mcp-proxy resolves them from its own
	// environment when it starts (mcpconfig.ExpandEnvRefs), so no value is written here.
	EnvRefs bool `json:"envRefs,omitempty"`
}

// EnvRefNames lists the environment variables an EnvRefs server refers to, sorted.
func (s Server) EnvRefNames() []string {
	if !s.EnvRefs {
		return nil
	}
	var out []string
	add := func(v string) {
		for _, n := range mcpconfig.EnvRefNames(v) {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	add(s.Command)
	add(s.Cwd)
	add(s.URL)
	for _, a := range s.Args {
		add(a)
	}
	for _, m := range []map[string]string{s.Env, s.Headers} {
		for _, v := range m {
			add(v)
		}
	}
	slices.Sort(out)
	return out
}

// Stdio reports whether the server is started as a local process.
func (s Server) Stdio() bool { return s.Type == "stdio" }

// DataDir is where a plugin's PLUGIN_DATA lives: $PLUGBOARD_HOME/data/plugin-data/<id>/.
func DataDir(pbHome, pluginID string) string {
	return filepath.Join(pbHome, "data", "plugin-data", pluginID)
}

// mcpServers normalises the valid servers of a valid package whose servers a launch
// starts: a portable mcp.json (normalise) or a Cursor plugin's MCP file (normaliseCursor).
// Servers that the catalog judged invalid, and servers whose cwd or command do not
// resolve inside their folder now, are dropped with the reason; a reason names the field,
// never its text (a command or cwd may hold a token). Nothing is created here: see
// makeDataDirs.
func mcpServers(p *catalog.Plugin, root, pbHome string, v mcpconfig.CursorVars, drop func(Drop)) []Server {
	if !assign.LaunchesMCP(p.Format) || p.MCP == nil {
		return nil
	}
	if !p.MCP.Valid {
		drop(Drop{Plugin: p.ID, What: "mcp", Reason: p.MCP.Path + " is invalid, so MCP is disabled for this plugin: " + firstError(p.MCP.Issues)})
		return nil
	}
	data := DataDir(pbHome, p.ID)
	v.PluginRoot = root
	var out []Server
	for _, s := range p.MCP.Servers {
		if !s.Valid {
			drop(Drop{Plugin: p.ID, What: "server", Name: s.Name, Reason: "invalid in the catalog: " + firstError(s.Issues)})
			continue
		}
		var n Server
		var err error
		if p.Format == manifest.FormatCursor {
			n, err = normaliseCursor(s, p.ID, root, data, v)
		} else {
			n, err = normalise(s, p.ID, root, data)
		}
		if err != nil {
			drop(Drop{Plugin: p.ID, What: "server", Name: s.Name, Reason: err.Error()})
			continue
		}
		out = append(out, n)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out
}

// makeDataDirs creates the data folder of every plugin with a stdio server about to be
// launched (R3: only then), and when it cannot be created leaves out only those stdio
// servers (R5). It runs once the set is known to launch and before the fingerprint. A
// dry run creates nothing and leaves out what the launch would.
func makeDataDirs(units []unit, pbHome string, dry bool, drop func(Drop)) {
	mkdir := func(dir string) error { return os.MkdirAll(dir, 0o700) }
	if dry {
		mkdir = couldMkdir
	}
	for i := range units {
		u := &units[i]
		kept := u.mcp[:0:0]
		var err error
		made := false
		for _, s := range u.mcp {
			if s.Stdio() && !made {
				err, made = mkdir(DataDir(pbHome, u.p.ID)), true
			}
			if s.Stdio() && err != nil {
				drop(Drop{Plugin: u.p.ID, What: "server", Name: s.Name, Reason: fmt.Sprintf("its data folder cannot be created (%v), so this stdio server is left out", err)})
				continue
			}
			kept = append(kept, s)
		}
		u.mcp = kept
	}
}

// couldMkdir says whether os.MkdirAll(dir) would succeed, creating nothing: dir is a
// folder already, or its nearest existing ancestor is a folder this process may add to.
func couldMkdir(dir string) error {
	for p := dir; ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err == nil {
			if !st.IsDir() {
				return &os.PathError{Op: "mkdir", Path: p, Err: syscall.ENOTDIR}
			}
			if p == dir {
				return nil
			}
			if err := syscall.Access(p, 0o3); err != nil { // W_OK|X_OK
				return &os.PathError{Op: "mkdir", Path: p, Err: err}
			}
			return nil
		}
		if !os.IsNotExist(err) || p == filepath.Dir(p) {
			return err
		}
	}
}

// normalise applies R3 to one valid server of a plugin whose resolved root is root and
// whose data folder is data.
func normalise(s mcpconfig.Server, pluginID, root, data string) (Server, error) {
	n := Server{Plugin: pluginID, Name: s.Name, Type: s.Type}
	if s.Type != "stdio" {
		n.URL = s.URL
		n.Headers = copyMap(s.Headers)
		return n, nil
	}
	n.Command = s.Command
	if strings.HasPrefix(s.Command, "./") {
		p, err := pathsafe.Resolve(root, s.Command)
		if err != nil {
			return n, fmt.Errorf("its \"command\" does not resolve inside the plugin folder (%s); "+
				"keep the executable a file inside the plugin", pathsafe.Reason(err))
		}
		n.Command = p
	}
	for _, a := range s.Args {
		n.Args = append(n.Args, mcpconfig.Expand(a, root, data))
	}
	n.Env = make(map[string]string, len(s.Env)+2)
	for k, v := range s.Env {
		n.Env[k] = mcpconfig.Expand(v, root, data)
	}
	// Spec §9.1: set after the configured env, replacing any entry of the same name.
	n.Env["PLUGIN_ROOT"] = root
	n.Env["PLUGIN_DATA"] = data
	cwd, err := resolveCwd(s.Cwd, root, data)
	if err != nil {
		return n, err
	}
	n.Cwd = cwd
	return n, nil
}

// resolveCwd gives the absolute working folder of a stdio server (spec §7.2.1): the
// plugin root when cwd is omitted; otherwise the expanded value, which must stay inside
// the resolved plugin root or the data folder. Like normalise's, its errors name the
// field, never its text.
func resolveCwd(cwd, root, data string) (string, error) {
	switch {
	case cwd == "":
		return root, nil
	case strings.HasPrefix(cwd, "./"):
		p, err := pathsafe.Resolve(root, cwd)
		if err != nil {
			return "", cwdUnresolved(err)
		}
		return p, nil
	}
	exp := mcpconfig.Expand(cwd, root, data)
	base, where := root, "the plugin folder"
	if strings.HasPrefix(cwd, "${PLUGIN_DATA}") {
		base, where = data, "the plugin data folder"
	}
	p := filepath.Clean(exp)
	if !pathsafe.Within(base, p) {
		return "", fmt.Errorf("its \"cwd\" leaves %s; keep it inside", where)
	}
	if base == root {
		r, err := pathsafe.Resolve(root, "."+strings.TrimPrefix(p, root))
		if err != nil {
			return "", cwdUnresolved(err)
		}
		p = r
	}
	return p, nil
}

// cwdUnresolved is the reason for a cwd that pathsafe.Resolve refused.
func cwdUnresolved(err error) error {
	return fmt.Errorf("its \"cwd\" does not resolve inside the plugin folder (%s); "+
		"make it a folder inside the plugin", pathsafe.Reason(err))
}

func copyMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// firstError is the message of the first error in l, for a one-line reason.
func firstError(l issue.List) string {
	for _, i := range l {
		if i.Severity == issue.Error {
			return i.Message
		}
	}
	return "run plugboard inspect on the plugin for details"
}
