package mcpconfig

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/jsondoc"
	"github.com/plugboard/plugboard/backend/pathsafe"
	"github.com/plugboard/plugboard/schemas"
)

// Server is one entry of mcpServers: its judgement, its sanitised summary, and (for the
// backend only) its declaration.
type Server struct {
	Name    string     `json:"name"`
	Type    string     `json:"type"` // "stdio" | "streamable-http" | "sse" | "http" (Claude shape) | "" when unknown
	Valid   bool       `json:"valid"`
	Summary Summary    `json:"summary"`
	Issues  issue.List `json:"issues"` // never null in JSON
	// The declaration, kept in the backend only (never serialised):
	Command string            `json:"-"`
	Args    []string          `json:"-"`
	Env     map[string]string `json:"-"`
	Cwd     string            `json:"-"`
	URL     string            `json:"-"`
	Headers map[string]string `json:"-"`
	// Cursor's members a launch cannot honour: envFile (a file of variables) and auth
	// (Cursor's OAuth sign-in).
	EnvFile string `json:"-"`
	Auth    bool   `json:"-"`
}

// Config is one MCP configuration file.
type Config struct {
	Path    string     `json:"path"`    // as shown, e.g. "mcp.json" or an absolute path for user/project files
	Valid   bool       `json:"valid"`   // false: MCP disabled for this plugin (whole-file problem)
	Servers []Server   `json:"servers"` // sorted by name; never null
	Issues  issue.List `json:"issues"`  // whole-file issues; never null
}

// portableName is the fixed location of the MCP configuration (spec §6.1).
const portableName = "mcp.json"

// LoadPortable loads <root>/mcp.json of an Agent Plugins package. root must be
// pathsafe.Root output. manifestSchema is the plugin.json $schema value (already validated
// by the caller). It returns nil when mcp.json is absent (spec §6.2). An mcp.json that
// resolves outside root, or that is not a regular file, makes the component invalid.
func LoadPortable(root, manifestSchema string) *Config {
	// The common case, a regular mcp.json (or none), costs one open: a file directly in
	// the resolved root that opens without following a link is contained.
	data, err := capread.ReadNoFollow(filepath.Join(root, portableName), capread.MCPMax)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err == nil:
		c := ParsePortable(data, portableName, root, manifestSchema)
		return &c
	case !errors.Is(err, capread.ErrSymlink):
		c := readProblem(portableName, err)
		return &c
	}
	if _, err := os.Lstat(filepath.Join(root, portableName)); errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		c := readProblem(portableName, err)
		return &c
	}
	resolved, err := pathsafe.Resolve(root, portableName)
	if err != nil {
		var c Config
		switch {
		case errors.Is(err, pathsafe.ErrEscapes):
			c = invalidFile(portableName, CodeEscapesRoot, "mcp.json is a symlink that resolves outside the plugin root; "+
				"a package file must stay inside the package (spec §4.1): replace the link with the file")
		case errors.Is(err, pathsafe.ErrLoop):
			c = invalidFile(portableName, CodeNotRegular, "mcp.json is a symlink loop; replace it with a regular file")
		default:
			c = readProblem(portableName, err)
		}
		return &c
	}
	data, err = capread.ReadFile(resolved, capread.MCPMax)
	if err != nil {
		c := readProblem(portableName, err)
		return &c
	}
	c := ParsePortable(data, portableName, root, manifestSchema)
	return &c
}

// ParsePortable judges mcp.json content; path is what to show; root (pathsafe.Root output)
// is used for command and cwd containment and may be "" to check paths lexically only.
// manifestSchema is plugin.json's $schema; when it names no Agent Plugins version the
// version match of spec §10.1 is not checked.
func ParsePortable(data []byte, path, root, manifestSchema string) Config {
	r := newReport(data, path)
	c := Config{Path: path}
	top, ok := r.topObject(&c.Issues)
	if !ok {
		return finishConfig(c)
	}
	for _, k := range sortedKeys(top) {
		if k != "$schema" && k != "mcpServers" {
			r.errorf(&c.Issues, CodeUnknownTopLevel, jsondoc.Pointer(k), "%s has the unknown top-level member %s; "+
				"only \"$schema\" and \"mcpServers\" are allowed (spec §7.2.1): remove it", r.name, q(k))
		}
	}
	ver := r.schemaVersion(&c.Issues, top, manifestSchema)
	servers := r.serversObject(&c.Issues, top)
	fileDups, serverDups := splitDups(r.index.dups)
	r.fileDups(&c.Issues, fileDups)
	if c.Issues.HasErrors() || ver == nil || servers == nil {
		return finishConfig(c)
	}
	p := portable{report: r, root: root, ver: ver}
	c.Servers = make([]Server, 0, len(servers))
	for _, name := range sortedKeys(servers) {
		s := p.server(name, servers[name])
		r.serverDups(&s, serverDups[name])
		c.Servers = append(c.Servers, finishServer(s))
	}
	return finishConfig(c)
}

// serversObject checks mcpServers and returns it (nil when unusable).
func (r report) serversObject(l *issue.List, top map[string]any) map[string]any {
	raw, ok := top["mcpServers"]
	if !ok {
		r.errorf(l, CodeServersMissing, "", "%s has no \"mcpServers\" member; add \"mcpServers\": {} (it may be empty)", r.name)
		return nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		r.errorf(l, CodeServersNotObject, "/mcpServers", "\"mcpServers\" is %s; it must be an object whose members are servers", jsondoc.Kind(raw))
		return nil
	}
	return m
}

// supportedMCP lists the MCP schema identifiers this build understands, for messages.
func supportedMCP() string {
	var ids []string
	for _, id := range schemas.Supported() {
		if v, ok := schemas.ByID(id); ok {
			ids = append(ids, q(v.MCPID))
		}
	}
	return strings.Join(ids, ", ")
}

// schemaVersion checks $schema (spec §7.2.1, §10.1) and returns the rules it selects.
func (r report) schemaVersion(l *issue.List, top map[string]any, manifestSchema string) *schemas.Version {
	raw, ok := top["$schema"]
	if !ok {
		r.errorf(l, CodeSchemaMissing, "", "%s has no \"$schema\"; add \"$schema\": %s", r.name, supportedMCP())
		return nil
	}
	id, ok := raw.(string)
	if !ok {
		r.errorf(l, CodeSchemaMissing, "/$schema", "\"$schema\" is %s; it must be the string %s", jsondoc.Kind(raw), supportedMCP())
		return nil
	}
	found, named := schemas.VersionOf(id, "mcp")
	manifest, manifestNamed := schemas.VersionOf(manifestSchema, "plugin")
	if mv, ok := schemas.ByID(manifestSchema); ok {
		manifest, manifestNamed = mv.Name, true
	}
	v, ok := schemas.ByID(id)
	switch {
	case ok && v.MCPID != id:
		r.errorf(l, CodeSchemaUnsupported, "/$schema", "\"$schema\" is the plugin.json schema identifier; mcp.json needs the MCP one: %s", supportedMCP())
		v = nil
	case !ok && named:
		r.errorf(l, CodeSchemaUnsupported, "/$schema", "\"$schema\" targets Agent Plugins %s, which this build does not support; supported: %s", q(found), supportedMCP())
	case !ok:
		r.errorf(l, CodeSchemaUnsupported, "/$schema", "\"$schema\" %s is not an Agent Plugins MCP schema identifier; use %s", q(id), supportedMCP())
	}
	if named && manifestNamed && found != manifest {
		r.errorf(l, CodeSchemaMismatch, "/$schema", "\"$schema\" targets Agent Plugins %s but plugin.json targets %s; "+
			"both files must target the same version (spec §10.1)", q(found), q(manifest))
	}
	return v
}
