package mcpconfig

// Issue codes. They are a stable API: tools and tests match on them, so a code is never
// renamed or reused for another meaning.
const (
	// Whole-file problems (the Config is invalid; MCP is disabled for the plugin).
	CodeUnreadable        = "mcp.unreadable"         // the file exists but cannot be read
	CodeNotRegular        = "mcp.not-regular"        // a folder, device, dangling link or symlink loop
	CodeEscapesRoot       = "mcp.escapes-root"       // mcp.json is a symlink that leaves the plugin root
	CodeTooLarge          = "mcp.too-large"          // larger than capread.MCPMax
	CodeInvalidJSON       = "mcp.invalid-json"       // not JSON, not UTF-8, nested too deep, trailing data
	CodeNotObject         = "mcp.not-object"         // the top-level value is not an object
	CodeUnknownTopLevel   = "mcp.unknown-top-level"  // a portable top-level member other than $schema and mcpServers
	CodeSchemaMissing     = "mcp.schema-missing"     // $schema absent or not a string
	CodeSchemaUnsupported = "mcp.schema-unsupported" // $schema is not a supported MCP schema identifier
	CodeSchemaMismatch    = "mcp.schema-mismatch"    // $schema version differs from plugin.json's (spec §10.1)
	CodeServersMissing    = "mcp.servers-missing"    // no mcpServers member
	CodeServersNotObject  = "mcp.servers-not-object" // mcpServers is not an object
	CodeDuplicateKey      = "mcp.duplicate-key"      // warning: a member name repeats in one object; the last one counts

	// Server problems (only that Server is invalid).
	CodeServerNotObject = "mcp.server-not-object" // the entry is not an object
	CodeServerType      = "mcp.server-type"       // type missing, not a string or not a known transport
	CodeServerField     = "mcp.server-field"      // a field unknown or belonging to another variant
	CodeServerRequired  = "mcp.server-required"   // a required field of the variant is missing
	CodeServerSchema    = "mcp.server-schema"     // any other schema failure (a field of the wrong JSON type, empty string)
	CodeCommandToken    = "mcp.command-token"     // command is not one bare name or "./" path
	CodeCommandEscapes  = "mcp.command-escapes"   // a "./" command resolves outside the plugin root
	CodeCommandResolve  = "mcp.command-unresolvable"
	CodeCwdForm         = "mcp.cwd-form"    // cwd is not "./…", "${PLUGIN_ROOT}[/…]" or "${PLUGIN_DATA}[/…]"
	CodeCwdEscapes      = "mcp.cwd-escapes" // cwd leaves the plugin root or the plugin data folder
	CodeCwdResolve      = "mcp.cwd-unresolvable"
	CodeEnvReserved     = "mcp.env-reserved" // env sets PLUGIN_ROOT or PLUGIN_DATA (spec §9.2)
	CodeEnvName         = "mcp.env-name"     // an env name no process environment can hold ("", "=", NUL)
	CodeNULByte         = "mcp.nul-byte"     // an argument or env value holds a NUL byte
	CodeURLInvalid      = "mcp.url-invalid"  // not an absolute http(s) URL with a host
	CodeURLUserinfo     = "mcp.url-userinfo"
	CodeURLFragment     = "mcp.url-fragment"
	CodeURLInsecure     = "mcp.url-insecure" // plain http to a host that is not loopback
	CodeHeaderName      = "mcp.header-name"
	CodeHeaderValue     = "mcp.header-value"
	CodeHeaderDuplicate = "mcp.header-duplicate"  // the same name twice, ignoring case
	CodeHeaderSecret    = "mcp.header-credential" // warning: a header meant for credentials in package data

	// Claude Code / Cursor shape.
	CodeClaudeUnknownField = "mcp.claude-unknown-field" // warning: a member Plugboard does not read
	CodeClaudeTransport    = "mcp.claude-transport"     // neither command nor url, or both without a type
	CodeClaudeURLUnchecked = "mcp.claude-url-unchecked" // warning: a url with ${…} placeholders that cannot be checked
)
