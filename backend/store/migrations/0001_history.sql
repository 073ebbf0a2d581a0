-- Assignment history (A6): one row per save of an agent definition or template slot.
-- Lists are JSON arrays in text columns; times are fixed-width RFC 3339 UTC text, so
-- they read well in the sqlite3 shell and sort as text.
CREATE TABLE history (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    time         TEXT    NOT NULL,
    target       TEXT    NOT NULL,
    before_dirs  TEXT    NOT NULL DEFAULT '[]',
    after_dirs   TEXT    NOT NULL DEFAULT '[]',
    before_hash  TEXT    NOT NULL DEFAULT '',
    after_hash   TEXT    NOT NULL DEFAULT '',
    acknowledged TEXT    NOT NULL DEFAULT '[]',
    revert_of    INTEGER REFERENCES history (id),
    actor        TEXT    NOT NULL DEFAULT ''
);

CREATE INDEX history_target ON history (target, id);
