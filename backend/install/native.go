package install

import (
	"maps"
	"slices"

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
// declarations, sorted by kind and name (native.Of's keys sort so).
func nativeDiff(old, next map[string]native.Item) []NativeChange {
	keys := slices.Collect(maps.Keys(next))
	for k := range old {
		if _, ok := next[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	out := []NativeChange{}
	for _, k := range keys {
		o, had := old[k]
		n, has := next[k]
		switch {
		case !had:
			out = append(out, nativeChange(n, "added"))
		case !has:
			out = append(out, nativeChange(o, "removed"))
		case o.Sum != n.Sum || o.File != n.File:
			out = append(out, nativeChange(n, "changed"))
		}
	}
	return out
}

func nativeChange(it native.Item, change string) NativeChange {
	return NativeChange{Kind: it.Kind, Name: it.Name, Change: change, Runs: it.Runs, File: it.File}
}

// NativeIn lists the Claude-native declarations that run code of the package in dir, each
// "present": what an install brings in that Claude starts itself.
func NativeIn(dir string) []NativeChange {
	out := []NativeChange{}
	for _, it := range native.List(dir) {
		out = append(out, nativeChange(it, "present"))
	}
	return out
}
