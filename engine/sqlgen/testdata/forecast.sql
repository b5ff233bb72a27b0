-- bucket a dataset by week
SELECT date_trunc('week', "day ""of"" sale") AS bucket, CAST(sum(CAST("sales" AS DOUBLE)) AS DOUBLE), CAST(quantile_disc(CAST("price" AS DOUBLE), 0.5) AS DOUBLE), CAST(mode(CAST("open" AS DOUBLE)) AS DOUBLE) FROM "data"."store sales" WHERE "day ""of"" sale" IS NOT NULL GROUP BY 1 ORDER BY 1;
-- bucket a view by hour
SELECT date_trunc('hour', "ts") AS bucket, CAST(avg(CAST("y" AS DOUBLE)) AS DOUBLE) FROM "views"."v" WHERE "ts" IS NOT NULL GROUP BY 1 ORDER BY 1;
-- bucket a dataset by day at +08:00
SELECT date_trunc('day', "ts" + to_seconds(28800)) - to_seconds(28800) AS bucket, CAST(sum(CAST("y" AS DOUBLE)) AS DOUBLE) FROM "data"."d" WHERE "ts" IS NOT NULL GROUP BY 1 ORDER BY 1;
-- a forecast's series
CREATE OR REPLACE TABLE "results"."s1/data" (__row BIGINT NOT NULL, "day" TIMESTAMP NOT NULL, "sales" DOUBLE, __smooth DOUBLE);
-- a forecast's window
CREATE OR REPLACE TABLE "results"."s1/forecast" (bucket TIMESTAMP NOT NULL, q0 DOUBLE, q1 DOUBLE, q2 DOUBLE);
-- a page of the window at a level
SELECT bucket AS "day", q2 AS "sales" FROM "results"."s1/forecast" ORDER BY bucket LIMIT ? OFFSET ?;
-- args: [10 20]
-- count the window
SELECT count(*) FROM "results"."s1/forecast";
-- every outlier
SELECT "day", "sales" AS "sales:actual", __smooth AS "sales:smooth" FROM "results"."s1/data" WHERE __smooth IS NOT NULL ORDER BY __row;
-- count the outliers
SELECT count(*) FROM "results"."s1/data" WHERE __smooth IS NOT NULL;
