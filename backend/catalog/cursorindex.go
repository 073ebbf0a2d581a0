package catalog

import (
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/plugboard/plugboard/backend/capread"
	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/jsondoc"
)

// cursorIndexFile is Cursor's install index inside ~/.cursor/plugins/cache.
const cursorIndexFile = ".cloud-plugin-manifest.json"

// indexEntry is what Plugboard takes from one entry of Cursor's install index.
type indexEntry struct {
	Revision    string
	Unsupported []string // capability kinds listed (commands, subagents)
}

// Cursor does not document this file. Plugboard reads it leniently: "plugins" is a list of
// objects or an object of objects keyed "marketplace/plugin"; each names its marketplace
// (marketplace, marketplaceSlug), its plugin (pluginId, name, id), the installed revision
// (gitSha, sha, commit, revision) and may list "commands" and "subagents" capability
// paths, which Plugboard shows as not supported yet.
var (
	marketKeys   = []string{"marketplace", "marketplaceSlug", "marketplaceId"}
	pluginKeys   = []string{"pluginId", "name", "id", "plugin"}
	revisionKeys = []string{"gitSha", "sha", "commit", "revision"}
	capabilities = []string{"commands", "subagents", "agents"}
)

func readCursorIndex(path string, issues *issue.List) map[string]indexEntry {
	data, err := capread.ReadFile(path, capread.IndexMax)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	bad := func(line int, format string, args ...any) map[string]indexEntry {
		issues.Add(issue.Warning, CodeCursorIndex, path, "", format+"; the newest cached version of each plugin is catalogued instead", args...)
		(*issues)[len(*issues)-1].Line = line
		return nil
	}
	if err != nil {
		return bad(0, "Cursor's install index %s", capread.Describe(err))
	}
	v, err := jsondoc.Decode(data)
	if err != nil {
		return bad(max(jsondoc.ErrorLine(err), 1), "Cursor's install index %v", err)
	}
	top, ok := v.(map[string]any)
	if !ok {
		return bad(1, "Cursor's install index is not a JSON object")
	}
	out := map[string]indexEntry{}
	add := func(key string, obj map[string]any) {
		m, p := first(obj, marketKeys), first(obj, pluginKeys)
		if m != "" && p != "" {
			key = m + "/" + p
		}
		if key == "" {
			return
		}
		e := indexEntry{Revision: first(obj, revisionKeys)}
		for _, c := range capabilities {
			if list, ok := obj[c].([]any); ok && len(list) > 0 {
				e.Unsupported = append(e.Unsupported, c)
			}
		}
		out[key] = e
	}
	switch ps := top["plugins"].(type) {
	case []any:
		for _, item := range ps {
			if obj, ok := item.(map[string]any); ok {
				add("", obj)
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(ps))
		for k := range ps {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if obj, ok := ps[k].(map[string]any); ok {
				add(k, obj)
			}
		}
	default:
		return bad(1, "Cursor's install index has no \"plugins\" list (%s)", fmt.Sprintf("%T", top["plugins"]))
	}
	return out
}

func first(obj map[string]any, keys []string) string {
	for _, k := range keys {
		if s, ok := obj[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}
