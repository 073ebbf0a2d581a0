-- Whether the target had no pluginDirs member before / after the save (a template slot
-- that uses its agent's defaults), so that a revert can restore inheritance exactly
-- rather than writing an empty list.
ALTER TABLE history ADD COLUMN before_unset INTEGER NOT NULL DEFAULT 0;
ALTER TABLE history ADD COLUMN after_unset INTEGER NOT NULL DEFAULT 0;
