package schemas

import (
	"bytes"
	"encoding/json"
	"sync"
	"testing"
)

// typicalManifest is a plugin.json with every field of the manifest schema set.
const typicalManifest = `{
  "$schema": "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json",
  "name": "plugin-name",
  "version": "1.2.0",
  "description": "Brief",
  "author": {"name": "A", "email": "a@example.com", "url": "https://example.com"},
  "homepage": "https://docs.example.com",
  "repository": "https://github.com/example/plugin",
  "license": "MIT",
  "keywords": ["k1", "k2"],
  "extensions": {"com.example.client": {"setting": true}}
}`

// typicalServer is one stdio entry of mcp.json, as a scan validates thousands of.
const typicalServer = `{"type": "stdio", "command": "./bin/validator", "args": ["--data", "${PLUGIN_DATA}/validator"],
  "env": {"CONFIG": "${PLUGIN_ROOT}/config.json"}, "cwd": "${PLUGIN_ROOT}"}`

func decode(tb testing.TB, doc string) any {
	tb.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(doc)))
	dec.UseNumber() // as jsondoc.Decode
	var v any
	if err := dec.Decode(&v); err != nil {
		tb.Fatal(err)
	}
	return v
}

// BenchmarkFirstUse is what the first command that reads a package pays: compiling the
// embedded schemas and validating one manifest.
func BenchmarkFirstUse(b *testing.B) {
	inst := decode(b, typicalManifest)
	b.ReportAllocs()
	for b.Loop() {
		once, versions, loadErr = sync.Once{}, nil, nil
		v, _ := ByID(PluginV1)
		if err := v.Manifest.Validate(inst); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateManifest(b *testing.B) {
	v, _ := ByID(PluginV1)
	inst := decode(b, typicalManifest)
	b.ReportAllocs()
	for b.Loop() {
		if err := v.Manifest.Validate(inst); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateServer(b *testing.B) {
	v, _ := ByID(MCPV1)
	inst := decode(b, typicalServer)
	b.ReportAllocs()
	for b.Loop() {
		if err := v.Servers["stdio"].Validate(inst); err != nil {
			b.Fatal(err)
		}
	}
}
