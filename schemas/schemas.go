// Package schemas embeds Plugboard's own JSON Schemas for the Agent Plugins package format
// and compiles them once, offline: a schema is never fetched (Agent Plugins §5.2). The
// compiled schemas are immutable and safe for concurrent use.
package schemas

import (
	"embed"
	"fmt"
	"strings"
	"sync"
)

//go:embed 1.0.0/*.json
var files embed.FS

// Canonical identifiers of the Agent Plugins versions this build supports.
const (
	PluginV1 = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"
	MCPV1    = "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json"
)

// Version is one supported Agent Plugins version with its compiled schemas.
type Version struct {
	Name     string // "1.0.0"
	PluginID string
	MCPID    string
	Manifest *Schema
	MCPFile  *Schema
	// Servers holds one schema per MCP server variant, keyed by its "type" value.
	Servers map[string]*Schema
}

var (
	once     sync.Once
	versions map[string]*Version
	loadErr  error
)

// load compiles the embedded schemas, on first use: a command that reads no package pays
// nothing for them.
func load() {
	docs := map[string]*compiler{} // each file parsed once, its $refs compiled once
	compile := func(path, pointer string) *Schema {
		c, err := docs[path], error(nil)
		if c == nil {
			var data []byte
			if data, err = files.ReadFile(path); err == nil {
				c, err = compileDoc(data)
			}
			docs[path] = c
		}
		var s *Schema
		if err == nil {
			s, err = c.at(pointer, "")
		}
		if err != nil && loadErr == nil {
			loadErr = fmt.Errorf("schema %s#%s: %w", path, pointer, err)
		}
		return s
	}
	v := &Version{Name: "1.0.0", PluginID: PluginV1, MCPID: MCPV1, Servers: map[string]*Schema{}}
	v.Manifest = compile("1.0.0/plugin.schema.json", "")
	v.MCPFile = compile("1.0.0/mcp.schema.json", "")
	v.Servers["stdio"] = compile("1.0.0/mcp.schema.json", "/$defs/stdioServer")
	v.Servers["streamable-http"] = compile("1.0.0/mcp.schema.json", "/$defs/streamableHttpServer")
	v.Servers["sse"] = compile("1.0.0/mcp.schema.json", "/$defs/sseServer")
	versions = map[string]*Version{PluginV1: v, MCPV1: v}
}

// ByID returns the supported version whose plugin or MCP schema identifier is id.
func ByID(id string) (*Version, bool) {
	once.Do(load)
	if loadErr != nil {
		panic(loadErr) // the embedded schemas are part of the build; a broken one is a build bug
	}
	v, ok := versions[id]
	return v, ok
}

// VersionOf returns the Agent Plugins version an identifier of the canonical form
// https://agent-plugins.org/schemas/VERSION/KIND.schema.json names, whether this build
// supports it or not, when KIND is kind ("plugin" or "mcp").
func VersionOf(id, kind string) (string, bool) {
	rest, ok := strings.CutPrefix(id, "https://agent-plugins.org/schemas/")
	if !ok {
		return "", false
	}
	version, ok := strings.CutSuffix(rest, "/"+kind+".schema.json")
	if !ok || version == "" || strings.Contains(version, "/") {
		return "", false
	}
	return version, true
}

// Supported lists the supported plugin schema identifiers, for messages.
func Supported() []string { return []string{PluginV1} }
