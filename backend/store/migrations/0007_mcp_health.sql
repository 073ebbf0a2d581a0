-- MCP health (plugboard mcp check, backend/mcphealth): the last check of each MCP server,
-- keyed by the plugin id, the server's name and its acknowledgment digest
-- (mcpconfig.Digest: names and counts, never a value), so that a server whose config
-- changes has no cached result until it is checked again. result is the check's JSON
-- (sanitised: no env or header value); checked is when it ran (RFC 3339, UTC).
CREATE TABLE mcp_health (
    plugin  TEXT NOT NULL,
    server  TEXT NOT NULL,
    digest  TEXT NOT NULL,
    result  TEXT NOT NULL,
    checked TEXT NOT NULL,
    PRIMARY KEY (plugin, server, digest)
) WITHOUT ROWID;
