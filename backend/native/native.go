// Package native reads what Claude Code starts itself from a legacy or Cursor package —
// .mcp.json and the manifest's MCP servers, hooks, LSP servers — which stays outside the
// catalog's inventory and acknowledgment gate (requirement F5) and which a person
// installing, updating or reading about the package is still told of.
package native

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/google/shlex"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/backend/pathsafe"
)

// Item is one declaration of code Claude Code starts itself: an MCP server of .mcp.json
// or the manifest's mcpServers ("mcp"), a hook event with command hooks ("hook"), an LSP
// server ("lsp"). Only names and the commands' basenames are kept, never arguments,
// environment values or headers.
type Item struct {
	Kind string   `json:"kind"` // "mcp", "hook" or "lsp"
	Name string   `json:"name"` // the server's name, or the hook's event
	Runs []string `json:"runs"` // the commands' basenames, sorted
	File string   `json:"file"` // where it is declared, relative to the package
	// Sum hashes the whole declaration (values included), to tell a changed one.
	Sum string `json:"-"`
}

// Of reads, keyed "kind\x00name", the Claude-native declarations that run code of the package in dir:
// .mcp.json and the manifest's mcpServers (MCP servers), hooks/hooks.json and the
// manifest's hooks (hook events with command hooks), .lsp.json and the manifest's
// lspServers. A file
// that cannot be read or parsed gives nothing (the catalog reports it).
func Of(dir string) map[string]Item {
	out := map[string]Item{}
	var manifest map[string]json.RawMessage
	if b, err := capread.ReadFile(filepath.Join(dir, ".claude-plugin", "plugin.json"), capread.ManifestMax); err == nil {
		_ = json.Unmarshal(b, &manifest)
	}
	// each field is a path to a file, or the declarations inline
	decl := func(field, def string) (json.RawMessage, string) {
		raw, ok := manifest[field]
		var rel string
		if ok && json.Unmarshal(raw, &rel) != nil {
			return raw, ".claude-plugin/plugin.json"
		}
		if !ok {
			rel = def
		}
		if rel == "" {
			return nil, ""
		}
		p, err := pathsafe.Resolve(dir, path.Clean(strings.TrimPrefix(rel, "./")))
		if err != nil {
			return nil, ""
		}
		b, err := capread.ReadFile(p, capread.MCPMax)
		if err != nil {
			return nil, ""
		}
		return b, path.Clean(strings.TrimPrefix(rel, "./"))
	}
	add := func(kind, name, file string, runs []string, body any) {
		b, _ := json.Marshal(body)
		h := sha256.Sum256(b)
		sort.Strings(runs)
		if runs == nil {
			runs = []string{}
		}
		out[kind+"\x00"+name] = Item{Runs: runs, Sum: hex.EncodeToString(h[:]), File: file, Kind: kind, Name: name}
	}
	servers := func(raw json.RawMessage, file, kind string) {
		var doc struct {
			MCPServers map[string]json.RawMessage `json:"mcpServers"`
		}
		var flat map[string]json.RawMessage
		if json.Unmarshal(raw, &doc) == nil && doc.MCPServers != nil {
			flat = doc.MCPServers
		} else if json.Unmarshal(raw, &flat) != nil {
			return
		}
		for name, s := range flat {
			var srv struct {
				Command string `json:"command"`
			}
			_ = json.Unmarshal(s, &srv)
			var runs []string
			if srv.Command != "" {
				runs = []string{commandName(srv.Command)}
			}
			add(kind, name, file, runs, s)
		}
	}
	if raw, file := decl("mcpServers", ".mcp.json"); raw != nil {
		servers(raw, file, "mcp")
	}
	if raw, file := decl("lspServers", ".lsp.json"); raw != nil {
		servers(raw, file, "lsp")
	}
	if raw, file := decl("hooks", "hooks/hooks.json"); raw != nil {
		var doc struct {
			Hooks map[string]json.RawMessage `json:"hooks"`
		}
		if json.Unmarshal(raw, &doc) == nil {
			for event, groups := range doc.Hooks {
				var gs []struct {
					Hooks []struct {
						Type    string `json:"type"`
						Command string `json:"command"`
					} `json:"hooks"`
				}
				_ = json.Unmarshal(groups, &gs)
				var runs []string
				for _, g := range gs {
					for _, h := range g.Hooks {
						if name := commandName(h.Command); name != "" {
							runs = append(runs, name)
						}
					}
				}
				add("hook", event, file, runs, groups)
			}
		}
	}
	return out
}

// commandName is the basename of the program a command line runs, without the variable
// assignments before it ("FOO=secret ./x" runs x) and the quotes around it: what may be
// shown, never an argument or a value. The line is split as a shell would (shlex); a
// line shlex cannot split (an open quote) is split at spaces.
func commandName(line string) string {
	words, err := shlex.Split(line)
	if err != nil {
		words = strings.Fields(line)
	}
	for _, w := range words {
		if name, _, ok := strings.Cut(w, "="); ok && isVarName(name) {
			continue
		}
		if w = strings.Trim(w, `"'`); w == "" {
			return ""
		}
		return path.Base(w)
	}
	return ""
}

// isVarName says whether s is a shell variable name.
func isVarName(s string) bool {
	for i, c := range s {
		if c != '_' && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && (i == 0 || !(c >= '0' && c <= '9')) {
			return false
		}
	}
	return s != ""
}

// List is Of as a list, sorted by kind and name (the order of Of's keys).
func List(dir string) []Item {
	m := Of(dir)
	out := make([]Item, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[k])
	}
	return out
}
