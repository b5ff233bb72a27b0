-- How many times the server stopped while each import or session ran
-- (counted when the next process finds it started). At the engine's
-- MaxRestarts the job fails instead of running again. DuckDB cannot add a
-- column with a NOT NULL constraint; the default fills existing rows and
-- every insert that does not name the column.
ALTER TABLE catalog.imports ADD COLUMN interrupted INTEGER DEFAULT 0;
ALTER TABLE catalog.sessions ADD COLUMN interrupted INTEGER DEFAULT 0;
