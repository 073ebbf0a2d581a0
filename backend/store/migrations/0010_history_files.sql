-- Whole-file changes of a history entry of kind "files" (an agent made, copied, renamed
-- or deleted; a template slot added or removed): a JSON array of
-- {"path", "before", "after"}, path relative to the Plugboard home, before and after the
-- file's text (null: no file). A revert writes each "before" back while the file still
-- holds its "after". Other entries keep [].
ALTER TABLE history ADD COLUMN files TEXT NOT NULL DEFAULT '[]';
