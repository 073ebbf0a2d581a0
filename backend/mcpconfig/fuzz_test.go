package mcpconfig

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plugboard/plugboard/backend/jsondoc"
	"github.com/plugboard/plugboard/schemas"
)

// seedCorpus adds every fixture and the Claude cases, good and bad.
func seedCorpus(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(fixtures, "*", "*", "mcp.json"))
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	for _, tc := range claudeCases {
		f.Add([]byte(tc.doc))
	}
	f.Add([]byte(`{"mcpServers": {"a": {"command": "x", "env": {"K": "abcdefghij"}}, "b": {"url": "https://x", "headers": {"H": "klmnopqrst"}}}}`))
	f.Add([]byte(`{` + v1 + `, "mcpServers": {"a": {"type": "stdio", "command": "x", "env": {"K": "abcdefghij", "PLUGIN_ROOT": "uvwxyzabcd"}},
		"b": {"type": "sse", "url": "https://x", "headers": {"H": "klmnopqrst", "h": "Bearer zyxwvutsrq"}}}}`))
}

func FuzzParsePortable(f *testing.F) {
	seedCorpus(f)
	root := tempRoot(f)
	parse := func(data []byte) Config { return ParsePortable(data, "mcp.json", root, schemas.PluginV1) }
	f.Fuzz(func(t *testing.T, data []byte) { checkParse(t, data, parse) })
}

func FuzzParseClaude(f *testing.F) {
	seedCorpus(f)
	parse := func(data []byte) Config { return ParseClaude(data, "/home/u/.cursor/mcp.json") }
	f.Fuzz(func(t *testing.T, data []byte) { checkParse(t, data, parse) })
}

// checkParse asserts the invariants every input must keep: no panic, complete issues,
// validity that follows from the errors (checkIssues), and no secret in the output.
func checkParse(t *testing.T, data []byte, parse func([]byte) Config) {
	c := parse(data)
	checkIssues(t, &c)
	out, err := json.Marshal(c)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	for _, v := range plantedSecrets(data) {
		if !bytes.Contains(out, []byte(v)) {
			continue
		}
		// The text may come from our own wording rather than from the input: it leaked
		// only if it disappears when the secret is replaced by other letters.
		other, _ := json.Marshal(parse(bytes.ReplaceAll(data, []byte(v), bytes.Repeat([]byte("Q"), len(v)))))
		if !bytes.Contains(other, []byte(v)) {
			t.Fatalf("secret %q leaked into %s", v, out)
		}
	}
}

// plantedSecrets returns the env and header values of data that can be told apart from
// everything else: longer than 8 letters, found nowhere in the input but inside such
// values (no key, name or other string contains them), and written without escapes.
func plantedSecrets(data []byte) []string {
	v, err := jsondoc.Decode(data)
	if err != nil {
		return nil
	}
	var secrets, others []string
	collect(v, false, &secrets, &others)
	var out []string
	for _, s := range secrets {
		if len(s) <= 8 || strings.IndexFunc(s, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') }) >= 0 {
			continue
		}
		inSecrets := 0
		for _, o := range secrets {
			inSecrets += strings.Count(o, s)
		}
		clean := bytes.Count(data, []byte(s)) == inSecrets
		for _, o := range others {
			if strings.Contains(o, s) {
				clean = false
			}
		}
		if clean {
			out = append(out, s)
		}
	}
	return out
}

// collect sorts every string of a decoded document into secret values (the members of an
// "env" or "headers" object) and everything else (keys included). secretObject says that v
// is such an object.
func collect(v any, secretObject bool, secrets, others *[]string) {
	switch x := v.(type) {
	case string:
		*others = append(*others, x)
	case []any:
		for _, e := range x {
			collect(e, false, secrets, others)
		}
	case map[string]any:
		for k, e := range x {
			*others = append(*others, k)
			if str, ok := e.(string); ok && secretObject {
				*secrets = append(*secrets, str)
				continue
			}
			collect(e, k == "env" || k == "headers", secrets, others)
		}
	}
}
