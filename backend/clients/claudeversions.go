package clients

import (
	"strconv"
	"strings"
	"unicode"
)

// claudeRelease is what changes between the Claude Code releases the model follows: the
// rules of the oldest are claudeRules; each later release says only how it differs, every
// difference seen by running that release on the fixtures named in claudeRules328.
type claudeRelease struct {
	version string
	// unchecked are manifest members this release no longer checks: any value loads.
	unchecked map[string]bool
	// checks replace the check of a manifest member (claudeFields) in this release.
	checks map[string]func(any) string
	// needsComponent: a folder with no manifest and nothing Claude loads is skipped
	// (claude.no-component).
	needsComponent bool
	// collapseIDs: two skill folders that end up with one id are listed once.
	collapseIDs bool
	// skipBOM: a byte-order mark before a manifest or a frontmatter block is passed over.
	skipBOM bool
	// boolWords: user-invocable and disable-model-invocation are true when their text is
	// true, yes, on or 1 in any case (a number or a quoted string too).
	boolWords bool
	// hookFiles checks the hooks of hooks/hooks.json and of each hooks file the manifest
	// names, as inline hooks are checked; nil: hooks files are not checked.
	hookFiles func(map[string]any) string
}

// claudeReleases are the modelled releases, oldest first.
var claudeReleases = []claudeRelease{
	{version: "2.1.197"},
	{
		version: "2.1.328",
		unchecked: map[string]bool{"$schema": true, "author": true, "description": true, "displayName": true,
			"homepage": true, "keywords": true, "license": true, "repository": true},
		checks: map[string]func(any) string{
			"name":  claudeName328,
			"hooks": objectOrPaths(claudeHooksOf("PreToolUse", "PermissionRequest"), ".json"),
		},
		needsComponent: true,
		collapseIDs:    true,
		skipBOM:        true,
		boolWords:      true,
		hookFiles:      claudeHooksOf("PreToolUse", "PermissionRequest"),
	},
}

// The rules of 2.1.328 where it differs from 2.1.197 (claudeRules).
var claudeRules328 = []Rule{
	{ID: "claude.manifest-fields", Client: Claude, Says: "2.1.328: $schema, author, description, displayName, homepage, keywords, license and repository are not checked (any value loads); a name with @, :, /, \\ or a control, format or space character is refused; a byte-order mark before the manifest is passed over", Source: "claude 2.1.328: manifest-author-string, manifest-author-object-no-name, manifest-description-number, manifest-homepage-not-url, manifest-keywords-string, manifest-repository-object, manifest-name-with-at, manifest-name-with-colon, manifest-name-with-slash, manifest-name-with-backslash, manifest-name-with-nbsp, manifest-name-with-zero-width-space, manifest-utf8-bom"},
	{ID: "claude.manifest-paths", Client: Claude, Says: "2.1.328: of inline hooks only PreToolUse and PermissionRequest are checked (matchers with hooks of a known type); any other key, an unknown event or a wrongly cased one included, is passed over", Source: "claude 2.1.328: hooks-inline-event-case, hooks-inline-matcher-without-hooks, hooks-invalid-object, hooks-inline-stop-unchecked, hooks-inline-permission-request-checked"},
	{ID: "claude.hooks-files", Client: Claude, Says: "2.1.328: hooks/hooks.json, and every hooks file the manifest names, whose \"hooks\" is there must hold an object of events checked as inline hooks are (PreToolUse and PermissionRequest), or the whole plugin is refused, manifest or not; a hooks file that is not JSON, or has no \"hooks\", is passed over; 2.1.197 reads none of this at load", Source: "claude 2.1.328: hooks-file-hooks-array, hooks-file-pretooluse-no-type, hooks-file-named-bad, hooks-file-no-manifest, hooks-file-hooks-null; jeremylongshore/claude-code-plugins-plus-skills travel-assistant, prettier-markdown-hook"},
	{ID: "claude.no-component", Client: Claude, Says: "2.1.328: a folder with no .claude-plugin/plugin.json and nothing Claude loads (skills/, commands/, agents/, hooks/, output-styles/, workflows/, themes/, monitors/, .mcp.json, .lsp.json, a root SKILL.md) is skipped without a word; 2.1.197 loads it as an empty plugin", Source: "claude 2.1.328: marketplace-root, no-component-readme-only, no-manifest-commands-only, no-manifest-lsp-only"},
	{ID: "claude.skill-id", Client: Claude, Says: "2.1.328: two skill folders that end up with one id are listed once", Source: "claude 2.1.328: skill-folder-name-punctuation"},
	{ID: "claude.frontmatter", Client: Claude, Says: "2.1.328: a byte-order mark before the frontmatter is passed over", Source: "claude 2.1.328: skill-utf8-bom"},
	{ID: "claude.user-invocable", Client: Claude, Says: "2.1.328: user-invocable and disable-model-invocation are true when their text is true, yes, on or 1 in any case (yes, \"yes\", On, 1); false, no, off, y, 0 and empty are not", Source: "claude 2.1.328: skill-user-invocable-yes, skill-user-invocable-on, skill-user-invocable-one, skill-user-invocable-y, command-dmi-on"},
}

// claudeComponents are what makes a folder without a manifest a plugin for 2.1.328.
var claudeComponents = []string{"skills", "commands", "agents", "hooks", "output-styles", "workflows", "themes",
	"monitors", ".mcp.json", ".lsp.json", "SKILL.md"}

// claudeReleaseFor picks the rules for the installed version: the newest modelled release
// not newer than it; the oldest for an older one; the newest when none is installed or its
// version is not known.
func claudeReleaseFor(installed string) claudeRelease {
	newest := claudeReleases[len(claudeReleases)-1]
	if installed == "" {
		return newest
	}
	pick := claudeReleases[0]
	for _, r := range claudeReleases {
		if compareVersions(r.version, installed) <= 0 {
			pick = r
		}
	}
	return pick
}

// ClaudeModelled is the Claude Code release whose rules judge a folder when version is
// installed ("" for none): "2.1.328".
func ClaudeModelled(version string) string { return claudeReleaseFor(version).version }

// compareVersions orders dotted versions ("2.1.197" < "2.1.328" < "2.10.0") number by
// number; a part that is not a number compares as text, and a missing part as 0.
func compareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := range max(len(as), len(bs)) {
		x, y := "0", "0"
		if i < len(as) {
			x = as[i]
		}
		if i < len(bs) {
			y = bs[i]
		}
		xn, errX := strconv.Atoi(x)
		yn, errY := strconv.Atoi(y)
		switch {
		case errX == nil && errY == nil && xn != yn:
			if xn < yn {
				return -1
			}
			return 1
		case (errX != nil || errY != nil) && x != y:
			return strings.Compare(x, y)
		}
	}
	return 0
}

// claudeName328 is the name check of 2.1.328: 2.1.197's (claudeName), and no @, :, /, \
// or control, format, separator or space character.
func claudeName328(v any) string {
	if msg := claudeName(v); msg != "" {
		return msg
	}
	s := v.(string)
	for _, r := range s {
		if strings.ContainsRune(`@:/\`, r) {
			return "must not contain " + strconv.QuoteRune(r) + "; use kebab-case such as \"" + SuggestKebab(s) + "\""
		}
		if unicode.In(r, unicode.C, unicode.Z) {
			return "must not contain the invisible character " + strconv.QuoteRuneToASCII(r) + "; use kebab-case such as \"" + SuggestKebab(s) + "\""
		}
	}
	return ""
}

// boolWord reports whether a frontmatter value reads as true: true or "true", and with
// words (2.1.328) yes, on and 1 in any case, as text or as a number.
func boolWord(v any, words bool) bool {
	if v == true || v == "true" {
		return true
	}
	if !words {
		return false
	}
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case bool:
		return x
	case int:
		s = strconv.Itoa(x)
	case int64:
		s = strconv.FormatInt(x, 10)
	case uint64:
		s = strconv.FormatUint(x, 10)
	case float64:
		s = strconv.FormatFloat(x, 'f', -1, 64)
	default:
		return false
	}
	switch strings.ToLower(s) {
	case "true", "yes", "on", "1":
		return true
	}
	return false
}
