-- Skill activity (R8): one row per skill a launched agent invoked, written by the hook the
-- launch passes (plugboard activity record) or imported from the spool it falls back on
-- when this database is busy. Names and ids only, never a prompt, an argument or a
-- result: the target launched, the backend, the launch's fingerprint, the agent's session
-- id, the skill as the agent names it, the plugin id and version and the skill's content
-- hash when the launch's projection knows them, and how it was invoked ("model": the
-- agent's Skill tool; "user": a slash command).
--
-- key makes a record idempotent: the hook derives it from the session and the agent's
-- own id of the call, so a record imported twice (a spool file imported, then imported
-- again after a crash before it was removed) is kept once.
CREATE TABLE activity (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    key         TEXT    NOT NULL UNIQUE,
    time        TEXT    NOT NULL,
    target      TEXT    NOT NULL DEFAULT '',
    backend     TEXT    NOT NULL DEFAULT '',
    fingerprint TEXT    NOT NULL DEFAULT '',
    session     TEXT    NOT NULL DEFAULT '',
    skill       TEXT    NOT NULL,
    plugin      TEXT    NOT NULL DEFAULT '',
    version     TEXT    NOT NULL DEFAULT '',
    hash        TEXT    NOT NULL DEFAULT '',
    how         TEXT    NOT NULL
);

CREATE INDEX activity_time ON activity (time);
