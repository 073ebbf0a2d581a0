package clients

import (
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The shapes Claude Code's manifest schema (zod, read from claude 2.1.197) requires of
// the members whose wrong shape refuses the whole plugin (claude.manifest-fields and
// claude.manifest-paths). A shape returns "" when Claude accepts the value, else what is
// wrong, for "<key> <what>". As in zod, a member that is there must have its shape: null
// is not "left out".

// shape checks one JSON value.
type shape func(any) string

func isStr(v any) string {
	if _, ok := v.(string); !ok {
		return "must be a string, not " + kindOf(v)
	}
	return ""
}

func nonEmpty(v any) string {
	if s, ok := v.(string); !ok || s == "" {
		return "must be a non-empty string"
	}
	return ""
}

func isBool(v any) string {
	if _, ok := v.(bool); !ok {
		return "must be true or false, not " + kindOf(v)
	}
	return ""
}

func anything(any) string { return "" }

// posInt is zod's number().int().positive() and nonNegInt its .nonnegative(): a safe
// integer (at most 2^53-1) above 0, or of 0 or more.
var (
	posInt    = wholeFrom(1, "must be a whole number above 0")
	nonNegInt = wholeFrom(0, "must be a whole number of 0 or more")
)

func wholeFrom(least float64, msg string) shape {
	return func(v any) string {
		if n, ok := v.(float64); !ok || n < least || n != float64(int64(n)) || n > 1<<53-1 {
			return msg
		}
		return ""
	}
}

func posNum(v any) string {
	if n, ok := v.(float64); !ok || n <= 0 {
		return "must be a number above 0"
	}
	return ""
}

func isNum(v any) string {
	if _, ok := v.(float64); !ok {
		return "must be a number, not " + kindOf(v)
	}
	return ""
}

func oneOf(vals ...string) shape {
	return func(v any) string {
		if s, ok := v.(string); !ok || !slices.Contains(vals, s) {
			return "must be one of " + strings.Join(vals, ", ")
		}
		return ""
	}
}

func anyOf(shapes ...shape) shape {
	return func(v any) string {
		msg := ""
		for _, s := range shapes {
			if msg = s(v); msg == "" {
				return ""
			}
		}
		return msg
	}
}

// listOf is a list whose entries all have the shape e.
func listOf(e shape) shape {
	return func(v any) string {
		l, ok := v.([]any)
		if !ok {
			return "must be a list, not " + kindOf(v)
		}
		for i, x := range l {
			if msg := e(x); msg != "" {
				return "entry " + strconv.Itoa(i+1) + " " + msg
			}
		}
		return ""
	}
}

// mapOf is an object whose keys have the shape key (nil: any) and whose values the shape
// val, checked in the order of their keys.
func mapOf(key, val shape) shape {
	return func(v any) string {
		o, ok := v.(map[string]any)
		if !ok {
			return "must be an object, not " + kindOf(v)
		}
		for _, k := range slices.Sorted(maps.Keys(o)) {
			if key != nil {
				if msg := key(k); msg != "" {
					return "key " + strconv.Quote(k) + " " + msg
				}
			}
			if msg := val(o[k]); msg != "" {
				return strconv.Quote(k) + " " + msg
			}
		}
		return ""
	}
}

// object is an object with the members fields lists, required ones first; strict refuses
// any other member (zod's strictObject).
type object struct {
	required, optional map[string]shape
	strict             bool
}

func (o object) check(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return "must be an object, not " + kindOf(v)
	}
	for _, k := range slices.Sorted(maps.Keys(o.required)) {
		if _, ok := m[k]; !ok {
			return "needs \"" + k + "\""
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		s, ok := o.required[k]
		if !ok {
			s, ok = o.optional[k]
		}
		switch {
		case ok:
			if msg := s(m[k]); msg != "" {
				return "\"" + k + "\" " + msg
			}
		case o.strict:
			return "has a member Claude does not know, \"" + k + "\""
		}
	}
	return ""
}

func with(base map[string]shape, more map[string]shape) map[string]shape {
	out := maps.Clone(base)
	maps.Copy(out, more)
	return out
}

// httpsURL is a URL starting with https://.
func httpsURL(v any) string {
	if s, ok := v.(string); !ok || !strings.HasPrefix(s, "https://") || !isURL(s) {
		return "must be an https:// URL"
	}
	return ""
}

func urlString(v any) string {
	if s, ok := v.(string); !ok || !isURL(s) {
		return "must be a URL"
	}
	return ""
}

// The inline MCP servers (mcpServers): one object shape per "type".
var claudeMCPTypes = sync.OnceValue(func() map[string]object {
	common := map[string]shape{"timeout": posInt, "alwaysLoad": isBool, "role": anything}
	oauth := object{optional: map[string]shape{"clientId": isStr, "callbackPort": posInt, "authServerMetadataUrl": httpsURL, "scopes": nonEmpty, "xaa": isBool}}.check
	tool := object{required: map[string]shape{"name": isStr}, optional: map[string]shape{"permission_policy": oneOf("always_allow", "always_ask", "always_deny")}}.check
	perms := mapOf(nil, oneOf("allow", "ask", "blocked"))
	remote := with(common, map[string]shape{"type": anything, "headers": mapOf(nil, isStr), "headersHelper": isStr, "oauth": oauth,
		"tools": listOf(tool), "toolPermissions": perms})
	url := map[string]shape{"url": isStr}
	ide := with(common, map[string]shape{"type": anything, "ideRunningInWindows": isBool})
	return map[string]object{
		"stdio": {required: map[string]shape{"command": nonEmpty},
			optional: with(common, map[string]shape{"type": anything, "args": listOf(isStr), "env": mapOf(nil, isStr)})},
		"sse":             {required: url, optional: remote},
		"http":            {required: url, optional: remote},
		"streamable-http": {required: url, optional: remote},
		"ws":              {required: url, optional: with(common, map[string]shape{"type": anything, "headers": mapOf(nil, isStr), "headersHelper": isStr})},
		"sse-ide":         {required: map[string]shape{"url": isStr, "ideName": isStr}, optional: ide},
		"ws-ide":          {required: map[string]shape{"url": isStr, "ideName": isStr}, optional: with(ide, map[string]shape{"authToken": isStr})},
		"sdk":             {required: map[string]shape{"name": isStr}, optional: with(common, map[string]shape{"type": anything})},
		"claudeai-proxy": {required: map[string]shape{"url": isStr, "id": isStr},
			optional: with(common, map[string]shape{"type": anything, "displayName": isStr, "iconUrl": isStr, "toolPermissions": perms, "stateless": isBool, "cachedInitResponse": anything})},
	}
})

// claudeMCPServers checks inline MCP servers as Claude's server schema does: each is an
// object of a known type with what that type needs.
func claudeMCPServers(o map[string]any) string {
	return mapOf(nil, func(v any) string {
		s, ok := v.(map[string]any)
		if !ok {
			return "must be an object, not " + kindOf(v)
		}
		t, ok := s["type"]
		if !ok {
			t = "stdio"
		}
		name, isName := t.(string)
		form, known := claudeMCPTypes()[name]
		switch {
		case !isName:
			return "\"type\" must be a string, not " + kindOf(t)
		case !known:
			return "has an unknown \"type\" " + strconv.Quote(name) + "; use stdio, http, sse or ws"
		case name == "stdio" && nonEmpty(s["command"]) != "":
			return "needs a non-empty string \"command\" (or a \"type\" of http, sse or ws with a \"url\")"
		}
		return form.check(v)
	})(o)
}

// claudeHookEvents are the events Claude takes hooks for, spelled as it spells them.
var claudeHookEvents = []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification",
	"UserPromptSubmit", "UserPromptExpansion", "SessionStart", "SessionEnd", "Stop", "StopFailure", "SubagentStart",
	"SubagentStop", "PreCompact", "PostCompact", "PermissionRequest", "PermissionDenied", "Setup", "TeammateIdle",
	"TaskCreated", "TaskCompleted", "Elicitation", "ElicitationResult", "ConfigChange", "WorktreeCreate", "WorktreeRemove",
	"InstructionsLoaded", "CwdChanged", "FileChanged", "MessageDisplay"}

// claudeHookTypes are the shapes of one hook, by its "type".
var claudeHookTypes = sync.OnceValue(func() map[string]object {
	common := map[string]shape{"type": anything, "if": isStr, "timeout": posNum, "statusMessage": isStr, "once": isBool}
	return map[string]object{
		"command": {required: map[string]shape{"command": isStr}, optional: with(common, map[string]shape{"args": listOf(isStr),
			"shell": oneOf("bash", "powershell"), "async": isBool, "asyncRewake": isBool, "rewakeMessage": nonEmpty, "rewakeSummary": nonEmpty})},
		"prompt": {required: map[string]shape{"prompt": isStr}, optional: with(common, map[string]shape{"model": isStr, "continueOnBlock": isBool})},
		"agent":  {required: map[string]shape{"prompt": isStr}, optional: with(common, map[string]shape{"model": isStr})},
		"http": {required: map[string]shape{"url": urlString}, optional: with(common, map[string]shape{"headers": mapOf(nil, isStr),
			"allowedEnvVars": listOf(isStr)})},
		"mcp_tool": {required: map[string]shape{"server": isStr, "tool": isStr}, optional: with(common, map[string]shape{"input": mapOf(nil, anything)})},
	}
})

// claudeHooks checks inline hooks as Claude's settings schema does: each key an event it
// knows, mapped to a list of matchers {matcher, hooks}, each hook of a known type.
func claudeHooks(o map[string]any) string { return claudeHooksOf()(o) }

// claudeHooksOf checks inline hooks as claudeHooks does, but only the events named (with
// none, every key must be an event Claude knows and is checked): 2.1.328 checks
// PreToolUse and PermissionRequest and passes over every other key.
func claudeHooksOf(events ...string) func(map[string]any) string {
	hook := func(v any) string {
		h, ok := v.(map[string]any)
		if !ok {
			return "must be an object, not " + kindOf(v)
		}
		t, _ := h["type"].(string)
		form, known := claudeHookTypes()[t]
		if !known {
			return "needs a \"type\" of command, prompt, agent, http or mcp_tool"
		}
		return form.check(h)
	}
	matcher := object{required: map[string]shape{"hooks": listOf(hook)}, optional: map[string]shape{"matcher": isStr}}.check
	event := func(v any) string {
		if s, _ := v.(string); !slices.Contains(claudeHookEvents, s) {
			return "is not an event Claude knows (such as PreToolUse, PostToolUse, SessionStart, Stop; the case matters)"
		}
		return ""
	}
	return func(o map[string]any) string {
		if len(events) > 0 {
			checked := map[string]any{}
			for _, e := range events {
				if v, ok := o[e]; ok {
					checked[e] = v
				}
			}
			o, event = checked, nil
		}
		if msg := mapOf(event, listOf(matcher))(o); msg != "" {
			return "(inline) " + msg
		}
		return ""
	}
}

// claudeLSPServers checks inline LSP servers: Claude's strict server object.
func claudeLSPServers(o map[string]any) string {
	command := func(v any) string {
		s, ok := v.(string)
		switch {
		case !ok || s == "":
			return "must be a non-empty string"
		case strings.Contains(s, " ") && !strings.HasPrefix(s, "/"):
			return "must not contain spaces; put the arguments in \"args\""
		}
		return ""
	}
	ext := func(v any) string {
		if s, _ := v.(string); len(s) < 2 || s[0] != '.' {
			return "must be a file extension starting with a dot, such as \".ts\""
		}
		return ""
	}
	extensions := func(v any) string {
		if m, ok := v.(map[string]any); ok && len(m) == 0 {
			return "must map at least one extension to a language"
		}
		return mapOf(ext, nonEmpty)(v)
	}
	server := object{strict: true, required: map[string]shape{"command": command, "extensionToLanguage": extensions},
		optional: map[string]shape{"args": listOf(nonEmpty), "transport": oneOf("stdio", "socket"), "env": mapOf(nil, isStr),
			"initializationOptions": anything, "settings": anything, "workspaceFolder": isStr, "startupTimeout": posInt,
			"shutdownTimeout": posInt, "restartOnCrash": isBool, "maxRestarts": nonNegInt, "diagnostics": isBool}}
	return mapOf(nil, server.check)(o)
}

// claudeUserOption is one userConfig (or channel userConfig) entry.
var claudeUserOption = object{strict: true,
	required: map[string]shape{"type": oneOf("string", "number", "boolean", "directory", "file"), "title": isStr, "description": isStr},
	optional: map[string]shape{"required": isBool, "default": anyOf(isStr, isNum, isBool, listOf(isStr)), "multiple": isBool,
		"sensitive": isBool, "min": isNum, "max": isNum}}.check

var claudeOptionKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

func claudeUserConfig(v any) string {
	key := func(v any) string {
		if !claudeOptionKey().MatchString(v.(string)) {
			return "must be letters, digits and _, not starting with a digit (it becomes CLAUDE_PLUGIN_OPTION_<KEY>)"
		}
		return ""
	}
	return mapOf(key, claudeUserOption)(v)
}

var claudeChannels = listOf(object{strict: true, required: map[string]shape{"server": nonEmpty},
	optional: map[string]shape{"displayName": isStr, "userConfig": mapOf(nil, claudeUserOption)}}.check)

// claudeMonitors is a .json path or a list of monitors with unique names.
func claudeMonitors(v any) string {
	if s, ok := v.(string); ok {
		if !strings.HasPrefix(s, "./") || !strings.HasSuffix(s, ".json") {
			return "must be a ./ path of a .json file, or a list of monitors"
		}
		return ""
	}
	when := func(v any) string {
		if s, ok := v.(string); ok && (s == "always" || strings.HasPrefix(s, "on-skill-invoke:") && len(s) > 16) {
			return ""
		}
		return "must be \"always\" or \"on-skill-invoke:<skill>\""
	}
	monitor := object{strict: true, required: map[string]shape{"name": nonEmpty, "command": nonEmpty, "description": nonEmpty},
		optional: map[string]shape{"when": when}}.check
	if msg := listOf(monitor)(v); msg != "" {
		return msg
	}
	seen := map[string]bool{}
	for _, m := range v.([]any) {
		name := m.(map[string]any)["name"].(string)
		if seen[name] {
			return "must have unique names; " + strconv.Quote(name) + " is there twice"
		}
		seen[name] = true
	}
	return ""
}

// claudeExperimental is Claude's "experimental" member: anything but an object is
// ignored; an object's themes, monitors, outputStyles and evals are checked.
func claudeExperimental(v any) string {
	if _, ok := v.(map[string]any); !ok {
		return ""
	}
	return object{optional: map[string]shape{"themes": componentPaths(""), "monitors": claudeMonitors,
		"outputStyles": componentPaths(""), "evals": anyOf(isStr, listOf(isStr))}}.check(v)
}

// claudeCommandMap checks the object form of "commands": each name maps to an object with
// either a source path (./…) or inline content, not both.
func claudeCommandMap(o map[string]any) string {
	entry := object{optional: map[string]shape{"source": isStr, "content": isStr, "description": isStr, "argumentHint": isStr,
		"model": isStr, "allowedTools": listOf(isStr)}}.check
	return mapOf(nil, func(v any) string {
		if msg := entry(v); msg != "" {
			return msg
		}
		c := v.(map[string]any)
		src, hasSrc := c["source"].(string)
		content, _ := c["content"].(string)
		if msg := componentPaths("")(src); hasSrc && msg != "" {
			return "\"source\": " + msg
		}
		if (src != "") == (content != "") {
			return "must have either \"source\" (a file path) or \"content\" (inline markdown), not both and not neither"
		}
		return ""
	})(o)
}

// claudeDependency is a plugin name, optionally @marketplace and a version pin (@^…).
var (
	claudeDependency = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[A-Za-z0-9][-A-Za-z0-9._]*(@[A-Za-z0-9][-A-Za-z0-9._]*)?(@\^[^@]*)?$`)
	})
	claudePluginName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][-A-Za-z0-9._]*$`) })
	claudeVersionPin = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`@\^[^@]*$`) })
)

func claudeDependencies(v any) string {
	l, ok := v.([]any)
	if !ok {
		return "must be a list of plugin names such as [\"other-plugin\"], not " + kindOf(v)
	}
	for _, e := range l {
		switch x := e.(type) {
		case string:
			if !claudeDependency().MatchString(x) {
				return "entry " + strconv.Quote(x) + " is not a plugin name (letters, digits, '.', '_' and '-'), optionally with @marketplace"
			}
		case map[string]any:
			name, _ := x["name"].(string)
			if !claudePluginName().MatchString(name) {
				return "entries that are objects need a \"name\" of letters, digits, '.', '_' and '-'"
			}
			if mk, ok := x["marketplace"]; ok {
				if s, _ := mk.(string); !claudePluginName().MatchString(s) {
					return "an entry's \"marketplace\" must be a marketplace name of letters, digits, '.', '_' and '-'"
				}
			}
		default:
			return "entries must be plugin names or {\"name\": …} objects, not " + kindOf(e)
		}
	}
	return ""
}
