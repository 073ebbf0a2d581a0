-- Catalog snapshots (U6): one row per scan whose plugin rows differ from the previous
-- snapshot's, and the plugin rows in catalog order (seq). A plugin id may appear more
-- than once in a snapshot (the same id in two roots), so rows are keyed by position.
CREATE TABLE snapshots (
    id   INTEGER PRIMARY KEY AUTOINCREMENT,
    time TEXT NOT NULL,
    hash TEXT NOT NULL
);

CREATE TABLE snapshot_plugins (
    snapshot_id  INTEGER NOT NULL REFERENCES snapshots (id) ON DELETE CASCADE,
    seq          INTEGER NOT NULL,
    plugin_id    TEXT    NOT NULL,
    source       TEXT    NOT NULL,
    path         TEXT    NOT NULL,
    content_hash TEXT    NOT NULL,
    valid        INTEGER NOT NULL,
    errors       INTEGER NOT NULL,
    warnings     INTEGER NOT NULL,
    skills       INTEGER NOT NULL,
    servers      INTEGER NOT NULL,
    PRIMARY KEY (snapshot_id, seq)
) WITHOUT ROWID;
