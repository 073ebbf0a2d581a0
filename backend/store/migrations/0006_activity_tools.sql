-- MCP tool calls and tries (R8, issue 13). A row of activity is now one of two kinds:
-- "skill", a skill a launched agent invoked (every row before this step), or "tool", one
-- MCP tools/call that plugboard mcp-stdio or mcp-proxy relayed, with the server's name as
-- the launch configured it, the tool's name, the time to its answer in milliseconds and
-- whether it failed (a JSON-RPC error, or a result with isError). run is the id that
-- plugboard try gives the agents it starts, so that a try reads back exactly the
-- invocations of its own turn; empty for every other launch. Still names and ids only:
-- never a tool's arguments or its result.
ALTER TABLE activity ADD COLUMN kind   TEXT    NOT NULL DEFAULT 'skill';
ALTER TABLE activity ADD COLUMN server TEXT    NOT NULL DEFAULT '';
ALTER TABLE activity ADD COLUMN tool   TEXT    NOT NULL DEFAULT '';
ALTER TABLE activity ADD COLUMN ms     INTEGER NOT NULL DEFAULT 0;
ALTER TABLE activity ADD COLUMN failed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE activity ADD COLUMN run    TEXT    NOT NULL DEFAULT '';

CREATE INDEX activity_run ON activity (run) WHERE run != '';
