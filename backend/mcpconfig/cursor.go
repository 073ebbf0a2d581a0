package mcpconfig

import (
	"errors"
	"slices"
	"strings"
)

// Cursor's config interpolation (cursor.com/docs, "Config interpolation"), which applies
// to a Cursor plugin's MCP file as to ~/.cursor/mcp.json: ${env:NAME} (an environment
// variable), ${userHome}, ${workspaceFolder}, ${workspaceFolderBasename}, ${pathSeparator}
// and ${/}, in command, args, env values, url and headers. Cursor's plugins also write
// ${NAME} for an environment variable (cursor/plugins' github plugin does, in a header)
// and ${CURSOR_PLUGIN_ROOT} for the plugin folder (its hooks do); both are read here too.
//
// A launch resolves the folder variables (CursorVars.Expand); the environment references
// are left for the process that starts the server (plugboard mcp-stdio or mcp-proxy) to
// resolve from its own environment (ExpandEnvRefs), so that no environment value is
// written into a projection or changes its fingerprint.

// CursorVars are the values of Cursor's folder variables for one launch.
type CursorVars struct {
	Home       string // ${userHome}
	Workspace  string // ${workspaceFolder}; its base name is ${workspaceFolderBasename}
	PluginRoot string // ${CURSOR_PLUGIN_ROOT}
}

// ErrVarValue refuses a folder whose path holds "${": put into the text, it would read as
// a reference when the environment references are resolved.
var ErrVarValue = errors.New("a folder variable's value contains \"${\"")

// Expand replaces the folder variables in s, once, left to right; environment references
// and unknown ${...} are kept as they are.
func (v CursorVars) Expand(s string) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var bad error
	out := replaceRefs(s, func(name string) (string, bool) {
		var val string
		switch name {
		case "userHome":
			val = v.Home
		case "workspaceFolder":
			val = v.Workspace
		case "workspaceFolderBasename":
			val = baseName(v.Workspace)
		case "pathSeparator", "/":
			val = "/"
		case "CURSOR_PLUGIN_ROOT":
			val = v.PluginRoot
		default:
			return "", false
		}
		if strings.Contains(val, "${") {
			bad = ErrVarValue
		}
		return val, true
	})
	return out, bad
}

// HasEnvRefs reports whether s holds an environment reference: ${env:NAME} or ${NAME}.
func HasEnvRefs(s string) bool {
	found := false
	replaceRefs(s, func(name string) (string, bool) {
		_, ok := envRef(name)
		found = found || ok
		return "", false
	})
	return found
}

// EnvRefNames lists the environment variables s refers to (${env:NAME}, ${NAME}), in
// order, once each.
func EnvRefNames(s string) []string {
	var out []string
	replaceRefs(s, func(name string) (string, bool) {
		if key, ok := envRef(name); ok && !slices.Contains(out, key) {
			out = append(out, key)
		}
		return "", false
	})
	return out
}

// ExpandEnvRefs replaces every environment reference in s, once, with lookup's value
// ("" for an unset variable, as Cursor does); anything else is kept.
func ExpandEnvRefs(s string, lookup func(string) (string, bool)) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return replaceRefs(s, func(name string) (string, bool) {
		key, ok := envRef(name)
		if !ok {
			return "", false
		}
		val, _ := lookup(key)
		return val, true
	})
}

// envRef returns the variable an ${...} body refers to: env:NAME, or a bare NAME.
func envRef(body string) (string, bool) {
	name, prefixed := strings.CutPrefix(body, "env:")
	if !envName(name) {
		return "", false
	}
	// A bare name that is one of the folder variables is not an environment reference.
	return name, prefixed || !folderVar(name)
}

func folderVar(name string) bool {
	switch name {
	case "userHome", "workspaceFolder", "workspaceFolderBasename", "pathSeparator", "CURSOR_PLUGIN_ROOT":
		return true
	}
	return false
}

// envName reports whether s is an environment variable name ([A-Za-z_][A-Za-z0-9_]*).
func envName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// replaceRefs calls sub for the body of each ${...} in s, left to right, and puts its
// value in place when it returns true. Replaced text is not scanned again.
func replaceRefs(s string, sub func(string) (string, bool)) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i+2:], '}')
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		body := s[i+2 : i+2+j]
		b.WriteString(s[:i])
		if val, ok := sub(body); ok {
			b.WriteString(val)
		} else {
			b.WriteString(s[i : i+3+j])
		}
		s = s[i+3+j:]
	}
}

func baseName(p string) string {
	p = strings.TrimRight(p, "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
