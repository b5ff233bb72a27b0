-- select all rows in storage order
SELECT "day", "sales" FROM "data"."store ""sales""";

-- select a page of a time series in a date range
SELECT "day" FROM "data"."s" WHERE rowid IN (SELECT rowid FROM "data"."s" WHERE "day" >= ? AND "day" <= ? ORDER BY "day", rowid LIMIT ? OFFSET ?) ORDER BY "day", rowid;
-- args: [2017-01-01 00:00:00 +0000 UTC 2017-01-02 00:00:00 +0000 UTC 50 100]

-- select a page of a time series stored in time order
SELECT "day" FROM "data"."s" WHERE "day" >= ? AND "day" <= ? LIMIT ? OFFSET ?;
-- args: [2017-01-01 00:00:00 +0000 UTC 2017-01-02 00:00:00 +0000 UTC 50 100]

-- select every row of a time series
SELECT "day", "x" FROM "data"."s" ORDER BY "day", rowid;

-- select a page without a timestamp
SELECT "x" FROM "data"."s" LIMIT ?;
-- args: [10]

-- is the storage order the time order
SELECT count(*) = 0 FROM (SELECT "day" AS v, lag("day") OVER (ORDER BY rowid) AS p, row_number() OVER (ORDER BY rowid) AS n FROM "data"."s") WHERE n > 1 AND (v < p OR (p IS NULL AND v IS NOT NULL));

-- select a page of a time series stored in time order with dense row ids
SELECT "day", "x" FROM "data"."s" WHERE rowid >= ? AND rowid < ?;
-- args: [100 150]

-- select a page without a timestamp, dense row ids
SELECT "x" FROM "data"."s" WHERE rowid >= ? AND rowid < ?;
-- args: [0 10]

-- a date range keeps LIMIT and OFFSET, dense row ids or not
SELECT "day" FROM "data"."s" WHERE "day" >= ? LIMIT ? OFFSET ?;
-- args: [2017-01-01 00:00:00 +0000 UTC 50 100]

-- so does a sort
SELECT "day" FROM "data"."s" WHERE rowid IN (SELECT rowid FROM "data"."s" ORDER BY "day", rowid LIMIT ?) ORDER BY "day", rowid;
-- args: [50]

-- are the row ids 0 to n-1
SELECT count(*) = coalesce(max(rowid) + 1, 0) FROM "data"."s";

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

-- statistics values: DOUBLE as numeric
SELECT v IS NULL AS missing, CAST(v AS DOUBLE) AS num, CAST(NULL AS VARCHAR) AS cat, coalesce(false, false) AS bad, coalesce(false, false) AS nonnum, coalesce(false, false) AS hex FROM (SELECT "x" AS v FROM "data"."s");

-- statistics values: DOUBLE as logical
SELECT v IS NULL AS missing, CAST(NULL AS DOUBLE) AS num, CAST(CASE WHEN v = 1 THEN 'true' WHEN v = 0 AND NOT signbit(v) THEN 'false' END AS VARCHAR) AS cat, coalesce(v IS NOT NULL AND v <> 1 AND (v <> 0 OR signbit(v)), false) AS bad, coalesce(false, false) AS nonnum, coalesce(false, false) AS hex FROM (SELECT "x" AS v FROM "data"."s");

-- statistics values: TIMESTAMP as date
SELECT v IS NULL AS missing, CAST(epoch_us(v) / 1e6 AS DOUBLE) AS num, CAST(NULL AS VARCHAR) AS cat, coalesce(false, false) AS bad, coalesce(false, false) AS nonnum, coalesce(false, false) AS hex FROM (SELECT "x" AS v FROM "data"."s");

-- statistics values: VARCHAR as string
SELECT v IS NULL AS missing, CAST(n AS DOUBLE) AS num, CAST(v AS VARCHAR) AS cat, coalesce(false, false) AS bad, coalesce(v IS NOT NULL AND n IS NULL, false) AS nonnum, coalesce((contains(v, '0x') OR contains(v, '0X')) AND regexp_full_match(v, '[\x{9}\x{A}\x{B}\x{C}\x{D}\x{20}\x{85}\x{A0}\x{1680}\x{2000}\x{2001}\x{2002}\x{2003}\x{2004}\x{2005}\x{2006}\x{2007}\x{2008}\x{2009}\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]*[+-]?0[xX][0-9a-fA-F_.]*[pP][+-]?[0-9_]+[\x{9}\x{A}\x{B}\x{C}\x{D}\x{20}\x{85}\x{A0}\x{1680}\x{2000}\x{2001}\x{2002}\x{2003}\x{2004}\x{2005}\x{2006}\x{2007}\x{2008}\x{2009}\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]*'), false) AS hex FROM (SELECT v, CASE WHEN isfinite(p) THEN p END AS n FROM (SELECT v, CASE WHEN regexp_full_match(v, '[\x{9}\x{A}\x{B}\x{C}\x{D}\x{20}\x{85}\x{A0}\x{1680}\x{2000}\x{2001}\x{2002}\x{2003}\x{2004}\x{2005}\x{2006}\x{2007}\x{2008}\x{2009}\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]*[+-]?([0-9]+(_[0-9]+)*(\.([0-9]+(_[0-9]+)*)?)?|\.[0-9]+(_[0-9]+)*)([eE][+-]?[0-9]+(_[0-9]+)*)?[\x{9}\x{A}\x{B}\x{C}\x{D}\x{20}\x{85}\x{A0}\x{1680}\x{2000}\x{2001}\x{2002}\x{2003}\x{2004}\x{2005}\x{2006}\x{2007}\x{2008}\x{2009}\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]*') THEN TRY_CAST(replace(trim(v, (chr(9) || chr(10) || chr(11) || chr(12) || chr(13) || chr(32) || chr(133) || chr(160) || chr(5760) || chr(8192) || chr(8193) || chr(8194) || chr(8195) || chr(8196) || chr(8197) || chr(8198) || chr(8199) || chr(8200) || chr(8201) || chr(8202) || chr(8232) || chr(8233) || chr(8239) || chr(8287) || chr(12288))), '_', '') AS DOUBLE) END AS p FROM (SELECT "x" AS v FROM "data"."s")));

-- statistics values: VARCHAR as logical
SELECT v IS NULL AS missing, CAST(NULL AS DOUBLE) AS num, CAST(CASE WHEN regexp_full_match(v, '[\x{9}\x{A}\x{B}\x{C}\x{D}\x{20}\x{85}\x{A0}\x{1680}\x{2000}\x{2001}\x{2002}\x{2003}\x{2004}\x{2005}\x{2006}\x{2007}\x{2008}\x{2009}\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]*([tT][rR][uU][eE]|[yY][eE][sS]|[oO][nN]|1)[\x{9}\x{A}\x{B}\x{C}\x{D}\x{20}\x{85}\x{A0}\x{1680}\x{2000}\x{2001}\x{2002}\x{2003}\x{2004}\x{2005}\x{2006}\x{2007}\x{2008}\x{2009}\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]*') THEN 'true' WHEN regexp_full_match(v, '[\x{9}\x{A}\x{B}\x{C}\x{D}\x{20}\x{85}\x{A0}\x{1680}\x{2000}\x{2001}\x{2002}\x{2003}\x{2004}\x{2005}\x{2006}\x{2007}\x{2008}\x{2009}\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]*([fF][aA][lL][sS][eE]|[nN][oO]|[oO][fF][fF]|0)[\x{9}\x{A}\x{B}\x{C}\x{D}\x{20}\x{85}\x{A0}\x{1680}\x{2000}\x{2001}\x{2002}\x{2003}\x{2004}\x{2005}\x{2006}\x{2007}\x{2008}\x{2009}\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]*') THEN 'false' END AS VARCHAR) AS cat, coalesce(v IS NOT NULL AND CASE WHEN regexp_full_match(v, '[\x{9}\x{A}\x{B}\x{C}\x{D}\x{20}\x{85}\x{A0}\x{1680}\x{2000}\x{2001}\x{2002}\x{2003}\x{2004}\x{2005}\x{2006}\x{2007}\x{2008}\x{2009}\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]*([tT][rR][uU][eE]|[yY][eE][sS]|[oO][nN]|1)[\x{9}\x{A}\x{B}\x{C}\x{D}\x{20}\x{85}\x{A0}\x{1680}\x{2000}\x{2001}\x{2002}\x{2003}\x{2004}\x{2005}\x{2006}\x{2007}\x{2008}\x{2009}\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]*') THEN 'true' WHEN regexp_full_match(v, '[\x{9}\x{A}\x{B}\x{C}\x{D}\x{20}\x{85}\x{A0}\x{1680}\x{2000}\x{2001}\x{2002}\x{2003}\x{2004}\x{2005}\x{2006}\x{2007}\x{2008}\x{2009}\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]*([fF][aA][lL][sS][eE]|[nN][oO]|[oO][fF][fF]|0)[\x{9}\x{A}\x{B}\x{C}\x{D}\x{20}\x{85}\x{A0}\x{1680}\x{2000}\x{2001}\x{2002}\x{2003}\x{2004}\x{2005}\x{2006}\x{2007}\x{2008}\x{2009}\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]*') THEN 'false' END IS NULL, false) AS bad, coalesce(v IS NOT NULL AND n IS NULL, false) AS nonnum, coalesce((contains(v, '0x') OR contains(v, '0X')) AND regexp_full_match(v, '[\x{9}\x{A}\x{B}\x{C}\x{D}\x{20}\x{85}\x{A0}\x{1680}\x{2000}\x{2001}\x{2002}\x{2003}\x{2004}\x{2005}\x{2006}\x{2007}\x{2008}\x{2009}\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]*[+-]?0[xX][0-9a-fA-F_.]*[pP][+-]?[0-9_]+[\x{9}\x{A}\x{B}\x{C}\x{D}\x{20}\x{85}\x{A0}\x{1680}\x{2000}\x{2001}\x{2002}\x{2003}\x{2004}\x{2005}\x{2006}\x{2007}\x{2008}\x{2009}\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]*'), false) AS hex FROM (SELECT v, CASE WHEN isfinite(p) THEN p END AS n FROM (SELECT v, CASE WHEN regexp_full_match(v, '[\x{9}\x{A}\x{B}\x{C}\x{D}\x{20}\x{85}\x{A0}\x{1680}\x{2000}\x{2001}\x{2002}\x{2003}\x{2004}\x{2005}\x{2006}\x{2007}\x{2008}\x{2009}\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]*[+-]?([0-9]+(_[0-9]+)*(\.([0-9]+(_[0-9]+)*)?)?|\.[0-9]+(_[0-9]+)*)([eE][+-]?[0-9]+(_[0-9]+)*)?[\x{9}\x{A}\x{B}\x{C}\x{D}\x{20}\x{85}\x{A0}\x{1680}\x{2000}\x{2001}\x{2002}\x{2003}\x{2004}\x{2005}\x{2006}\x{2007}\x{2008}\x{2009}\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]*') THEN TRY_CAST(replace(trim(v, (chr(9) || chr(10) || chr(11) || chr(12) || chr(13) || chr(32) || chr(133) || chr(160) || chr(5760) || chr(8192) || chr(8193) || chr(8194) || chr(8195) || chr(8196) || chr(8197) || chr(8198) || chr(8199) || chr(8200) || chr(8201) || chr(8202) || chr(8232) || chr(8233) || chr(8239) || chr(8287) || chr(12288))), '_', '') AS DOUBLE) END AS p FROM (SELECT "x" AS v FROM "data"."s")));

-- statistics values: BOOLEAN as logical
SELECT v IS NULL AS missing, CAST(NULL AS DOUBLE) AS num, CAST(CAST(v AS VARCHAR) AS VARCHAR) AS cat, coalesce(false, false) AS bad, coalesce(v IS NOT NULL, false) AS nonnum, coalesce(false, false) AS hex FROM (SELECT "x" AS v FROM "data"."s");

-- statistics: one scan
SELECT count(*), count(*) FILTER (WHERE missing), count(*) FILTER (WHERE bad), count(*) FILTER (WHERE nonnum), count(*) FILTER (WHERE hex), count(num), min(num), max(num), avg(num), var_samp(num), median(num) FROM (SELECT v IS NULL AS missing, CAST(v AS DOUBLE) AS num, CAST(NULL AS VARCHAR) AS cat, coalesce(false, false) AS bad, coalesce(false, false) AS nonnum, coalesce(false, false) AS hex FROM (SELECT "x" AS v FROM "data"."s"));

-- statistics: most frequent values
WITH g AS MATERIALIZED (SELECT num AS v, count(*) AS n FROM (SELECT v IS NULL AS missing, CAST(v AS DOUBLE) AS num, CAST(NULL AS VARCHAR) AS cat, coalesce(false, false) AS bad, coalesce(false, false) AS nonnum, coalesce(false, false) AS hex FROM (SELECT "x" AS v FROM "data"."s")) WHERE num IS NOT NULL GROUP BY num) SELECT v, n, (SELECT count(*) FROM g) FROM g ORDER BY n DESC, v LIMIT ?;

-- statistics: buckets
SELECT CASE WHEN num < ? THEN 0 WHEN num < ? THEN 1 WHEN num < ? THEN 2 WHEN num < ? THEN 3 ELSE 4 END AS bucket, count(*) FROM (SELECT v IS NULL AS missing, CAST(v AS DOUBLE) AS num, CAST(NULL AS VARCHAR) AS cat, coalesce(false, false) AS bad, coalesce(false, false) AS nonnum, coalesce(false, false) AS hex FROM (SELECT "x" AS v FROM "data"."s")) WHERE num IS NOT NULL GROUP BY bucket;

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

