// Package schemas embeds Plugboard's own JSON Schemas for the Agent Plugins package format
// and compiles them once, offline: a schema is never fetched (Agent Plugins §5.2). The
// compiled schemas are immutable and safe for concurrent use.
package schemas

import (
	"bytes"
	"embed"
	"fmt"
	"io"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
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
	Manifest *jsonschema.Schema
	MCPFile  *jsonschema.Schema
	// Servers holds one schema per MCP server variant, keyed by its "type" value.
	Servers map[string]*jsonschema.Schema
}

var (
	once     sync.Once
	versions map[string]*Version
	loadErr  error
)

func load() {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.LoadURL = func(url string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("schema %s is not embedded; Plugboard never fetches schemas", url)
	}
	for path, id := range map[string]string{"1.0.0/plugin.schema.json": PluginV1, "1.0.0/mcp.schema.json": MCPV1} {
		data, err := files.ReadFile(path)
		if err != nil {
			loadErr = err
			return
		}
		if err := c.AddResource(id, bytes.NewReader(data)); err != nil {
			loadErr = fmt.Errorf("schema %s: %w", path, err)
			return
		}
	}
	v := &Version{Name: "1.0.0", PluginID: PluginV1, MCPID: MCPV1, Servers: map[string]*jsonschema.Schema{}}
	compile := func(url string) *jsonschema.Schema {
		s, err := c.Compile(url)
		if err != nil && loadErr == nil {
			loadErr = fmt.Errorf("compile %s: %w", url, err)
		}
		return s
	}
	v.Manifest = compile(PluginV1)
	v.MCPFile = compile(MCPV1)
	v.Servers["stdio"] = compile(MCPV1 + "#/$defs/stdioServer")
	v.Servers["streamable-http"] = compile(MCPV1 + "#/$defs/streamableHttpServer")
	v.Servers["sse"] = compile(MCPV1 + "#/$defs/sseServer")
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

// Supported lists the supported plugin schema identifiers, for messages.
func Supported() []string { return []string{PluginV1} }
