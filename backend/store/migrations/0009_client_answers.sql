-- What the real clients installed here load (backend/clientask): the answer of one client
-- release about one folder's content, keyed by the client's name, its version and the
-- folder's content digest (ctree's sum of every path, execute bit and content), so that
-- an answer is asked once per content and release and never goes stale: an edit makes a
-- new digest, an upgraded client a new version. answer is the answer's JSON (names and
-- counts only); asked is when the client was run (RFC 3339, UTC).
CREATE TABLE client_answers (
    client  TEXT NOT NULL,
    version TEXT NOT NULL,
    digest  TEXT NOT NULL,
    answer  TEXT NOT NULL,
    asked   TEXT NOT NULL,
    PRIMARY KEY (client, version, digest)
) WITHOUT ROWID;
