package runtime

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/plugboard/plugboard/backend/mcpconfig"
	"github.com/plugboard/plugboard/backend/pathsafe"
)

// cursorTypes maps the transports of Cursor's shape to mcp-proxy's.
var cursorTypes = map[string]string{"http": "streamable-http", "streamable-http": "streamable-http", "sse": "sse"}

// normaliseCursor applies Cursor's rules to one valid server of a Cursor plugin whose
// resolved root is root (v.PluginRoot) and whose data folder is data, so that it runs as
// Cursor would run it, through the same mcp-stdio and mcp-proxy as a portable server:
//
//   - Cursor's folder variables (${userHome}, ${workspaceFolder}, ${CURSOR_PLUGIN_ROOT}…)
//     are resolved in command, args, env values, cwd, url and headers; environment
//     references (${env:NAME}, ${NAME}) are left for the starting process (EnvRefs);
//   - a "./" command, and a relative cwd, resolve inside the plugin folder; an absolute
//     cwd is taken as written (a Cursor plugin may name the workspace); no cwd is the
//     plugin folder, as for a portable server;
//   - PLUGIN_ROOT, PLUGIN_DATA and CURSOR_PLUGIN_ROOT are set after the configured env;
//   - envFile and auth, which only Cursor reads, leave the server out with the reason.
//
// Reasons name the field, never its text (commands and URLs may hold tokens).
func normaliseCursor(s mcpconfig.Server, pluginID, root, data string, v mcpconfig.CursorVars) (Server, error) {
	n := Server{Plugin: pluginID, Name: s.Name, Type: s.Type}
	switch {
	case s.EnvFile != "":
		return n, errors.New("it reads its variables from an envFile, which only Cursor loads; move them into env to launch it here")
	case s.Auth:
		return n, errors.New("it signs in with Cursor's OAuth (auth), which only Cursor can do")
	}
	var bad error
	exp := func(field, text string) string {
		out, err := v.Expand(text)
		if err != nil && bad == nil {
			bad = fmt.Errorf("%s: %w, so it cannot be put in safely", field, err)
		}
		n.EnvRefs = n.EnvRefs || mcpconfig.HasEnvRefs(out)
		return out
	}
	if s.Type != "stdio" {
		n.Type = cursorTypes[s.Type]
		n.URL = exp("url", s.URL)
		if len(s.Headers) > 0 {
			n.Headers = make(map[string]string, len(s.Headers))
			for k, val := range s.Headers {
				n.Headers[k] = exp("header "+k, val)
			}
		}
		return n, bad
	}
	n.Command = exp("command", s.Command)
	if strings.HasPrefix(n.Command, "./") {
		p, err := pathsafe.Resolve(root, n.Command)
		if err != nil {
			return n, fmt.Errorf("its \"command\" does not resolve inside the plugin folder (%s); keep the executable a file inside the plugin", pathsafe.Reason(err))
		}
		n.Command = p
	}
	for _, a := range s.Args {
		n.Args = append(n.Args, exp("an argument", a))
	}
	n.Env = make(map[string]string, len(s.Env)+3)
	for k, val := range s.Env {
		n.Env[k] = exp("env "+k, val)
	}
	n.Env["PLUGIN_ROOT"], n.Env["PLUGIN_DATA"], n.Env["CURSOR_PLUGIN_ROOT"] = root, data, root
	refs := n.EnvRefs
	cwd := exp("cwd", s.Cwd)
	switch {
	case bad != nil:
		return n, bad
	case mcpconfig.HasEnvRefs(cwd):
		return n, errors.New("its cwd refers to an environment variable, which a launch does not resolve; write the folder")
	case cwd == "":
		n.Cwd = root
	case filepath.IsAbs(cwd):
		n.Cwd = filepath.Clean(cwd)
	default:
		p, err := pathsafe.Resolve(root, cwd)
		if err != nil {
			return n, fmt.Errorf("its \"cwd\" does not resolve inside the plugin folder (%s); keep it inside, or write an absolute folder", pathsafe.Reason(err))
		}
		n.Cwd = p
	}
	n.EnvRefs = refs
	return n, nil
}
