-- MCP acknowledgments (A4 at launch): one row per (target, plugin, server, digest) the
-- user acknowledged, where digest is mcpconfig.Digest of the server as it was shown
-- (names and counts, never a value). A launch leaves out a portable MCP server whose
-- current digest has no row for its target. Rows are added by the history entry that
-- acknowledged them (a save with the acknowledgment, or an explicit acknowledgment) in
-- the same transaction; the first acknowledgment of a digest is the one kept.
--
-- Homes from before this table have none: the history of those saves recorded
-- "plugin/server" names but not what the servers ran, so it cannot vouch for what they
-- run now, and every portable server asks once more at its next launch.
CREATE TABLE acknowledgments (
    target     TEXT    NOT NULL,
    plugin     TEXT    NOT NULL,
    server     TEXT    NOT NULL,
    digest     TEXT    NOT NULL,
    type       TEXT    NOT NULL DEFAULT '',
    time       TEXT    NOT NULL,
    actor      TEXT    NOT NULL DEFAULT '',
    history_id INTEGER REFERENCES history (id),
    PRIMARY KEY (target, plugin, server, digest)
) WITHOUT ROWID;

-- What each history entry acknowledged, with digests: a JSON array of
-- {"plugin", "server", "type", "digest"}. kind is "" for a save of pluginDirs and "ack"
-- for an explicit acknowledgment, which changes no file.
ALTER TABLE history ADD COLUMN acks TEXT NOT NULL DEFAULT '[]';
ALTER TABLE history ADD COLUMN kind TEXT NOT NULL DEFAULT '';
