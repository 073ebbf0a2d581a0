// Package manifest reads the three plugin manifest formats Plugboard catalogs and turns
// each into one Manifest value:
//
//   - portable: root plugin.json of an Agent Plugins package, validated against the
//     embedded schema selected by its $schema (spec §5; requirement F1);
//   - legacy: .claude-plugin/plugin.json, considered only when root plugin.json is absent,
//     never as a fallback for an invalid one (F5);
//   - cursor: .cursor-plugin/plugin.json of a Cursor Marketplace plugin, whose skills and
//     mcpServers fields name a folder and a file (F6).
//
// Every problem becomes an issue with a code, the file, a JSON pointer and a line; a
// manifest error makes the plugin invalid, a warning is reported and ignored. Functions
// only read the filesystem and are safe for concurrent use.
package manifest

// Format names a package format.
type Format string

// The formats, as they appear in JSON output.
const (
	FormatPortable Format = "portable"
	FormatLegacy   Format = "legacy"
	FormatCursor   Format = "cursor"
	FormatNone     Format = "none"
)

// Manifest file locations inside a plugin root.
const (
	PortablePath = "plugin.json"
	LegacyPath   = ".claude-plugin/plugin.json"
	CursorPath   = ".cursor-plugin/plugin.json"
)

// Issue codes. They are stable: tools and tests match on them.
const (
	CodeMissing           = "manifest.missing"
	CodeEscapes           = "manifest.escapes-root"
	CodeNotRegular        = "manifest.not-regular"
	CodeUnreadable        = "manifest.unreadable"
	CodeInvalidJSON       = "manifest.invalid-json"
	CodeNotObject         = "manifest.not-object"
	CodeSchemaMissing     = "manifest.schema-missing"
	CodeSchemaType        = "manifest.schema-type"
	CodeSchemaUnsupported = "manifest.schema-unsupported"
	CodeUnknownField      = "manifest.unknown-field"
	CodeExtensionsType    = "manifest.extensions-not-object"
	CodeExtensionType     = "manifest.extension-not-object"
	CodeNameInvalid       = "manifest.name-invalid"
	CodeRequired          = "manifest.required"
	CodeFieldType         = "manifest.field-type"
	CodeFieldInvalid      = "manifest.field-invalid"
	CodeUnsupported       = "manifest.not-supported"
	CodeComponentPath     = "manifest.component-path"
)

// Author is the manifest's author object.
type Author struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
	URL   string `json:"url,omitempty"`
}
