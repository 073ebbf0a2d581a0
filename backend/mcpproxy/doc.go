// Package mcpproxy is the `plugboard mcp-proxy` bridge (requirement R4): a stdio MCP server,
// as far as Claude Code can tell, that relays every JSON-RPC message to one remote MCP
// server over Streamable HTTP or the legacy HTTP+SSE transport.
//
// Why it exists: Plugboard hands Claude Code a supplemental MCP config in which every remote
// server is `plugboard mcp-proxy --config FILE`. FILE is a private JSON file (mode 0600,
// written by the launcher) holding the URL and the headers, so header values appear neither
// in argv nor in Claude's config.
//
// Contract:
//
//   - The bridge works at the message level on the official Go MCP SDK: an mcp.IOTransport
//     over stdin/stdout and an mcp.StreamableClientTransport or mcp.SSEClientTransport over
//     the network. Messages are relayed unchanged; the proxy is not an MCP client itself.
//   - Origin rule (the security core): no request, header or body ever leaves for an origin
//     (scheme, host, port) other than the configured URL's. Redirects are refused, not
//     followed, and every request to another origin (such as a legacy SSE "endpoint" event
//     pointing elsewhere) is refused before it is sent.
//   - Configured headers are added only to requests for the configured origin, and never
//     replace a header the SDK or net/http sets itself: client-generated headers take
//     precedence. Protocol headers (Mcp-*, Last-Event-ID) are never taken from the file.
//   - Secrets: no header value and no URL path or query is ever printed. Errors and the log
//     name origins (scheme://host:port) and header names only.
//   - A request the remote refuses or cannot take gets a JSON-RPC error response on stdout,
//     so the client never waits forever, and one line in the log.
//   - Tool calls are counted (R8, backend/mcptap) when the config names the server for
//     activity records: each tools/call from the client is paired by id with the answer
//     from the remote, or with the error the bridge answers itself, and handed to the
//     caller's mcptap.Sink with its tool name, time and failure only.
//   - Run is safe to call concurrently with different arguments; one Run owns its in and
//     out until it returns.
//
// Known limit: at the message level the SDK does not open the optional standalone GET
// stream of Streamable HTTP (it is started from an unexported hook of its own Client), so
// server-initiated messages arrive only on the streams of the client's own POSTs. The legacy
// SSE transport has one stream for everything and is not affected.
package mcpproxy
