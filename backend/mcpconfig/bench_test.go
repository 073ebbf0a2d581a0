package mcpconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/schemas"
)

// BenchmarkParsePortable judges the spec's three-server example (stdio with a bundled
// command, Streamable HTTP with a header, legacy SSE) against a real plugin root.
func BenchmarkParsePortable(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(fixtures, "valid/spec-7.2.1-example/mcp.json"))
	if err != nil {
		b.Fatal(err)
	}
	root := tempRoot(b)
	write(b, root, "bin/validator", "#!/bin/sh\n")
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		c := ParsePortable(data, "mcp.json", root, schemas.PluginV1)
		if !c.Valid || len(c.Servers) != 3 {
			b.Fatalf("unexpected result: %+v", c)
		}
	}
}

// BenchmarkParsePortableHostile judges a 1 MB file (the read cap) of ~84,000 server
// entries that are all invalid: every issue needs a line, which must not cost a walk of
// the document each.
func BenchmarkParsePortableHostile(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("{" + v1 + `, "mcpServers": {`)
	for i := 0; sb.Len() < capread.MCPMax-100; i++ {
		fmt.Fprintf(&sb, "\"s%d\":1,\n", i)
	}
	sb.WriteString(`"z":1}}`)
	data := []byte(sb.String())
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if c := ParsePortable(data, "mcp.json", "", schemas.PluginV1); len(c.Servers) < 80000 {
			b.Fatalf("%d servers", len(c.Servers))
		}
	}
}
