// Package mcpconfig reads and judges MCP server configuration files: the portable mcp.json
// of an Agent Plugins 1.0.0 package (spec §7.2, requirements F3 and F4) and the Claude Code
// / Cursor shape used by ~/.cursor/mcp.json, a workspace .cursor/mcp.json or .mcp.json, and
// a Cursor plugin's mcpServers file (F6, F9). It also performs the placeholder expansion of
// spec §9.2 for the runtime.
//
// Contract:
//
//   - Parse functions are pure: they look only at the bytes they are given and, for
//     portable files, at the filesystem below the plugin root (Lstat and Readlink, to
//     check that a "./" command or a plugin-root cwd stays inside the root). Load
//     functions also read the one file. Nothing is written, nothing is fetched, nothing is
//     executed. Every function is safe for concurrent use.
//   - Problems never stop the reading: a whole-file problem makes the Config invalid (MCP
//     disabled for that plugin, spec §7.2.2 rule 2); a problem in one server entry makes
//     only that Server invalid (rule 3). Every problem is an issue.Issue with a code from
//     codes.go, the shown path, a JSON pointer and a line.
//   - Secrets: env values, header values, argument values and the path, query and user
//     information of a URL are kept in the Server declaration fields, which are never
//     serialised (json:"-"), and never appear in a Summary or an issue message. Nor does
//     any text a secret may have been written into: the command (written as a command
//     line, "npx -y pkg --token abc", it carries its arguments), the cwd, a header name
//     that is not a valid field name (it may be a whole "Authorization: Bearer …" line),
//     and a URL's scheme other than http and https. What is shown is names and counts:
//     the base name of the command's first white-space-separated word ("npx"), the
//     number of arguments, env key names, the origin (scheme://host[:port]) of an http or
//     https URL and the valid header names. Messages name the field and the rule it
//     breaks and say how to fix it, never quoting the field's text; they may quote server
//     names, field names, env key names, valid header names, the host of an http(s) URL,
//     "type" values and $schema values. JSON pointers name members, never values; an
//     issue about a header whose name is not valid points at the "headers" object.
package mcpconfig
