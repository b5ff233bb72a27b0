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

-- view without joins
SELECT b."hour", b."store", b."sales" FROM "data"."store sales" AS b ORDER BY b.rowid;

-- view joining a dataset by day and a lookup by key, with an alias
SELECT b."hour", b."store", b."sales", j1."temp", j2."store sales" FROM "data"."store sales" AS b LEFT JOIN (SELECT date_trunc('day', "day") AS vatic_join_key, avg("temp") AS "temp" FROM "data"."weather" WHERE "day" IS NOT NULL GROUP BY 1) AS j1 ON j1.vatic_join_key = date_trunc('day', b."hour") LEFT JOIN (SELECT "store" AS vatic_join_key, sum("sales") AS "store sales" FROM "data"."stores" WHERE "store" IS NOT NULL GROUP BY 1) AS j2 ON j2.vatic_join_key = b."store" ORDER BY b.rowid;

-- view joining a dataset and a holiday calendar by day
SELECT b."hour", b."store", b."sales", j1."temp", j2."eventTimestamp", coalesce(j2."calendar:US Holidays", 0) AS "calendar:US Holidays", coalesce(j2."event:US Holidays:New Year's Day", 0) AS "event:US Holidays:New Year's Day", coalesce(j2."event:US Holidays:Independence Day", 0) AS "event:US Holidays:Independence Day" FROM "data"."store sales" AS b LEFT JOIN (SELECT date_trunc('day', "day") AS vatic_join_key, avg("temp") AS "temp" FROM "data"."weather" WHERE "day" IS NOT NULL GROUP BY 1) AS j1 ON j1.vatic_join_key = date_trunc('day', b."hour") LEFT JOIN (SELECT b2.rowid AS vatic_row, min(c.start) AS "eventTimestamp", 1 AS "calendar:US Holidays", max(CASE WHEN c.event_id = 0 THEN 1 ELSE 0 END) AS "event:US Holidays:New Year's Day", max(CASE WHEN c.event_id = 1 THEN 1 ELSE 0 END) AS "event:US Holidays:Independence Day" FROM "data"."store sales" AS b2 JOIN "catalog"."calendar Nexosis.Holidays-US" AS c ON date_trunc('day', b2."hour") >= date_trunc('day', c.start) AND date_trunc('day', b2."hour") <= date_trunc('day', c.stop - INTERVAL 1 MICROSECOND) GROUP BY b2.rowid) AS j2 ON j2.vatic_row = b.rowid ORDER BY b.rowid;

-- view joining two calendars, the second's eventTimestamp left out
SELECT b."hour", b."store", b."sales", j1."eventTimestamp", coalesce(j1."calendar:US Holidays", 0) AS "calendar:US Holidays", coalesce(j1."event:US Holidays:New Year's Day", 0) AS "event:US Holidays:New Year's Day", coalesce(j1."event:US Holidays:Independence Day", 0) AS "event:US Holidays:Independence Day", coalesce(j2."calendar:CA Holidays", 0) AS "calendar:CA Holidays", coalesce(j2."event:CA Holidays:Canada Day", 0) AS "event:CA Holidays:Canada Day" FROM "data"."store sales" AS b LEFT JOIN (SELECT b2.rowid AS vatic_row, min(c.start) AS "eventTimestamp", 1 AS "calendar:US Holidays", max(CASE WHEN c.event_id = 0 THEN 1 ELSE 0 END) AS "event:US Holidays:New Year's Day", max(CASE WHEN c.event_id = 1 THEN 1 ELSE 0 END) AS "event:US Holidays:Independence Day" FROM "data"."store sales" AS b2 JOIN "catalog"."calendar Nexosis.Holidays-US" AS c ON date_trunc('day', b2."hour") >= date_trunc('day', c.start) AND date_trunc('day', b2."hour") <= date_trunc('day', c.stop - INTERVAL 1 MICROSECOND) GROUP BY b2.rowid) AS j1 ON j1.vatic_row = b.rowid LEFT JOIN (SELECT b2.rowid AS vatic_row, 1 AS "calendar:CA Holidays", max(CASE WHEN c.event_id = 3 THEN 1 ELSE 0 END) AS "event:CA Holidays:Canada Day" FROM "data"."store sales" AS b2 JOIN "catalog"."calendar Nexosis.Holidays-CA" AS c ON b2."hour" >= c.start AND b2."hour" < c.stop GROUP BY b2.rowid) AS j2 ON j2.vatic_row = b.rowid ORDER BY b.rowid;

-- joins adding no column are left out
SELECT b."hour", b."store", b."sales", j1."temp" FROM "data"."store sales" AS b LEFT JOIN (SELECT date_trunc('day', "day") AS vatic_join_key, avg("temp") AS "temp" FROM "data"."weather" WHERE "day" IS NOT NULL GROUP BY 1) AS j1 ON j1.vatic_join_key = date_trunc('day', b."hour") ORDER BY b.rowid;

-- calendar events table
CREATE TABLE "catalog"."calendar Nexosis.Holidays-US" (event_id INTEGER NOT NULL, event VARCHAR NOT NULL, start TIMESTAMP NOT NULL, stop TIMESTAMP NOT NULL);

-- fill a calendar from one bound JSON array
INSERT INTO "catalog"."calendar Nexosis.Holidays-US" SELECT e.event_id, e.event, e.start, e.stop FROM (SELECT unnest(from_json(?, '[{"event_id":"INTEGER","event":"VARCHAR","start":"TIMESTAMP","stop":"TIMESTAMP"}]')) AS e);

-- date range of a base
SELECT min("hour"), max("hour") FROM "data"."store sales";

-- define the DuckDB view
CREATE OR REPLACE VIEW "views"."sales & weather" AS SELECT 1;

-- read a page of a view
SELECT "hour" FROM "views"."v" ORDER BY "hour" LIMIT ?;
-- args: [5]

