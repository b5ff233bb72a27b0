-- The prediction count's row exists from the start, so that a predict's
-- usage record is a plain UPDATE: DuckDB's INSERT … ON CONFLICT took about
-- twice as long, on the path every predict request waits for.
INSERT INTO catalog.usage
    SELECT 'predictions', 0
    WHERE NOT EXISTS (SELECT 1 FROM catalog.usage WHERE what = 'predictions');
