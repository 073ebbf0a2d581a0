package install

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/backend/pathsafe"
)

// NativeChange is one thing Claude Code itself starts from a package and that Plugboard
// does not manage (requirement F5: a legacy or Cursor package's own MCP servers, hooks
// and LSP servers stay outside the catalog's inventory and acknowledgment gate), added,
// changed or removed by an update, or present at an install. Only names and the
// basenames of commands are kept, never arguments, environment values or headers.
type NativeChange struct {
	Kind   string   `json:"kind"`   // "mcp", "hook" or "lsp"
	Name   string   `json:"name"`   // the server's name, or the hook's event
	Change string   `json:"change"` // "added", "changed", "removed"; "present" at an install
	Runs   []string `json:"runs"`   // the commands' basenames (of the new version; of the old when removed)
	File   string   `json:"file"`   // where it is declared, relative to the package
}

// nativeItem is one declaration: what it runs and a hash of all of it.
type nativeItem struct {
	runs       []string
	sum, file  string
	kind, name string
}

// nativeOf reads the Claude-native declarations that run code of the package in dir:
// .mcp.json and the manifest's mcpServers (MCP servers), hooks/hooks.json and the
// manifest's hooks (hook events with command hooks), the manifest's lspServers. A file
// that cannot be read or parsed gives nothing (the catalog reports it).
func nativeOf(dir string) map[string]nativeItem {
	out := map[string]nativeItem{}
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
		out[kind+"\x00"+name] = nativeItem{runs: runs, sum: hex.EncodeToString(h[:]), file: file, kind: kind, name: name}
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
				runs = []string{path.Base(srv.Command)}
			}
			add(kind, name, file, runs, s)
		}
	}
	if raw, file := decl("mcpServers", ".mcp.json"); raw != nil {
		servers(raw, file, "mcp")
	}
	if raw, file := decl("lspServers", ""); raw != nil {
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
						if h.Command != "" {
							first, _, _ := strings.Cut(strings.TrimSpace(h.Command), " ")
							runs = append(runs, path.Base(first))
						}
					}
				}
				add("hook", event, file, runs, groups)
			}
		}
	}
	return out
}

// nativeDiff lists what an update adds, changes and removes of the Claude-native
// declarations, sorted by kind and name.
func nativeDiff(old, next map[string]nativeItem) []NativeChange {
	out := []NativeChange{}
	for k, n := range next {
		switch o, ok := old[k]; {
		case !ok:
			out = append(out, NativeChange{Kind: n.kind, Name: n.name, Change: "added", Runs: nonNil(n.runs), File: n.file})
		case o.sum != n.sum || o.file != n.file:
			out = append(out, NativeChange{Kind: n.kind, Name: n.name, Change: "changed", Runs: nonNil(n.runs), File: n.file})
		}
	}
	for k, o := range old {
		if _, ok := next[k]; !ok {
			out = append(out, NativeChange{Kind: o.kind, Name: o.name, Change: "removed", Runs: nonNil(o.runs), File: o.file})
		}
	}
	sortNative(out)
	return out
}

// NativeIn lists the Claude-native declarations that run code of the package in dir, each
// "present": what an install brings in that Claude starts itself.
func NativeIn(dir string) []NativeChange {
	l := nativeDiff(nil, nativeOf(dir))
	for i := range l {
		l[i].Change = "present"
	}
	return l
}

func sortNative(l []NativeChange) {
	sort.Slice(l, func(i, j int) bool {
		if l[i].Kind != l[j].Kind {
			return l[i].Kind < l[j].Kind
		}
		return l[i].Name < l[j].Name
	})
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}
