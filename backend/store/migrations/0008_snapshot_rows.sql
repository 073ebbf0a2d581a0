-- Catalog snapshots stored as changes (issue 16): a plugin row is stored once for the
-- run of consecutive snapshots it stays the same in, from first_id to last_id (NULL while
-- it is in the newest snapshot), so a scan that changed one plugin of a thousand writes
-- one row, not a thousand. Snapshot S's rows are those with first_id <= S and last_id
-- NULL or >= S; at most one per seq.
CREATE TABLE snapshot_rows (
    seq          INTEGER NOT NULL,
    first_id     INTEGER NOT NULL,
    last_id      INTEGER,
    plugin_id    TEXT    NOT NULL,
    source       TEXT    NOT NULL,
    path         TEXT    NOT NULL,
    content_hash TEXT    NOT NULL,
    valid        INTEGER NOT NULL,
    errors       INTEGER NOT NULL,
    warnings     INTEGER NOT NULL,
    skills       INTEGER NOT NULL,
    servers      INTEGER NOT NULL,
    PRIMARY KEY (first_id, seq)
) WITHOUT ROWID;

CREATE INDEX snapshot_rows_last ON snapshot_rows (last_id, seq);

-- The snapshots stored before: each row as a run of its own snapshot, the newest
-- snapshot's rows open-ended (where the next snapshot's changes start from).
INSERT INTO snapshot_rows (seq, first_id, last_id, plugin_id, source, path, content_hash, valid, errors, warnings, skills, servers)
SELECT seq, snapshot_id,
       CASE WHEN snapshot_id = (SELECT max(id) FROM snapshots) THEN NULL ELSE snapshot_id END,
       plugin_id, source, path, content_hash, valid, errors, warnings, skills, servers
FROM snapshot_plugins;

DROP TABLE snapshot_plugins;
