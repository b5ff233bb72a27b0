-- select all rows in storage order
SELECT "day", "sales" FROM "data"."store ""sales""";

-- select a page of a time series in a date range
SELECT "day" FROM "data"."s" WHERE "day" >= ? AND "day" <= ? ORDER BY "day", rowid LIMIT ? OFFSET ?;
-- args: [2017-01-01 00:00:00 +0000 UTC 2017-01-02 00:00:00 +0000 UTC 50 100]

-- select a page without a timestamp
SELECT "x" FROM "data"."s" ORDER BY rowid LIMIT ?;
-- args: [10]

-- count from a start date
SELECT count(*) FROM "data"."s" WHERE "day" >= ?;
-- args: [2017-01-01 00:00:00 +0000 UTC]

-- delete up to an end date
DELETE FROM "data"."s" WHERE "day" <= ?;
-- args: [2017-01-02 00:00:00 +0000 UTC]

-- upsert: delete matching rows
DELETE FROM "data"."s" WHERE "id" IN (SELECT "id" FROM main."vatic_stage_1" WHERE "id" IS NOT NULL);

-- upsert: insert staged rows
INSERT INTO "data"."s" BY NAME SELECT * FROM main."vatic_stage_1";

-- uniqueness of a column
SELECT count(DISTINCT "day") = count("day") FROM "data"."s";

-- add a column
ALTER TABLE "data"."s" ADD COLUMN "new col" BOOLEAN;

-- widen numbers to text as the API renders them
ALTER TABLE "data"."s" ALTER COLUMN "n" SET DATA TYPE VARCHAR USING CASE WHEN "n" = trunc("n") AND abs("n") < 1e15 THEN CAST(CAST("n" AS BIGINT) AS VARCHAR) ELSE CAST("n" AS VARCHAR) END;

-- convert text to numbers
ALTER TABLE "data"."s" ALTER COLUMN "n" SET DATA TYPE DOUBLE USING CAST("n" AS DOUBLE);

-- drop a dataset
DROP TABLE IF EXISTS "data"."s";

