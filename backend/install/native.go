package install

import (
	"sort"

	"github.com/plugboard/plugboard/backend/native"
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

// nativeDiff lists what an update adds, changes and removes of the Claude-native
// declarations, sorted by kind and name.
func nativeDiff(old, next map[string]native.Item) []NativeChange {
	out := []NativeChange{}
	change := func(it native.Item, what string) NativeChange {
		return NativeChange{Kind: it.Kind, Name: it.Name, Change: what, Runs: it.Runs, File: it.File}
	}
	for k, n := range next {
		switch o, ok := old[k]; {
		case !ok:
			out = append(out, change(n, "added"))
		case o.Sum != n.Sum || o.File != n.File:
			out = append(out, change(n, "changed"))
		}
	}
	for k, o := range old {
		if _, ok := next[k]; !ok {
			out = append(out, change(o, "removed"))
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// NativeIn lists the Claude-native declarations that run code of the package in dir, each
// "present": what an install brings in that Claude starts itself.
func NativeIn(dir string) []NativeChange {
	l := nativeDiff(nil, native.Of(dir))
	for i := range l {
		l[i].Change = "present"
	}
	return l
}
