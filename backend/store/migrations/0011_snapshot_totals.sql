-- The catalog's own totals at the snapshot (issue 35: one status everywhere): errors and
-- warnings over everything the scan found — plugins, standalone skills, the catalog's own
-- issues — as the header and catalog --json count them. A snapshot's rows are plugins
-- only, so their sum can be lower. NULL for the snapshots stored before.
ALTER TABLE snapshots ADD COLUMN errors INTEGER;
ALTER TABLE snapshots ADD COLUMN warnings INTEGER;
