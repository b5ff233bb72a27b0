package sqlgen

import (
	"fmt"
	"strconv"

	"github.com/vaticml/vatic/columnar"
)

// ForecastTable is the name of a forecast session's window forecast: one
// row per window bucket with the bucket start and one column per quantile
// level (QuantileColumn).
func ForecastTable(session string) string { return session + "/forecast" }

// SmoothColumn of a forecast session's series table holds the value the
// Smoothed variant put in place of an outlier; NULL elsewhere.
const SmoothColumn = "__smooth"

// QuantileColumn names the column of ForecastTable holding the i-th
// quantile level.
func QuantileColumn(i int) string { return "q" + strconv.Itoa(i) }

// BucketIntervals are the resultInterval values, which are DuckDB's
// date_trunc parts too (MODELLING §2.2: date_trunc's week starts on ISO
// Monday).
var BucketIntervals = []string{"hour", "day", "week", "month", "year"}

// AggColumn is one column to aggregate per bucket.
type AggColumn struct {
	Name        string
	Aggregation columnar.Aggregation
}

// BucketSeries compiles the aggregation of a dataset (DataSchema) or view
// (ViewSchema) into resultInterval buckets of its timestamp column
// (MODELLING §2.2, §2.3 steps 1–2): the bucket start then each column
// aggregated with its aggregation, cast to DOUBLE, ascending by bucket.
// Buckets are cut in the fixed zone offset seconds east of UTC (the
// stored timestamps are UTC); the bucket start is returned in UTC. Rows
// without a timestamp are left out; a bucket whose values are all missing
// aggregates to NULL (empty, imputed later), never to a sum of 0.
func BucketSeries(schema, source, ts, interval string, offset int, cols []AggColumn) (string, error) {
	if !containsString(BucketIntervals, interval) {
		return "", fmt.Errorf("sqlgen: unknown bucket interval %q", interval)
	}
	src, err := sourceTable(schema, source)
	if err != nil {
		return "", err
	}
	t, err := columnar.QuoteIdent(ts)
	if err != nil {
		return "", err
	}
	q := "SELECT date_trunc('" + interval + "', " + t + ") AS bucket"
	if offset != 0 {
		off := "to_seconds(" + strconv.Itoa(offset) + ")"
		q = "SELECT date_trunc('" + interval + "', " + t + " + " + off + ") - " + off + " AS bucket"
	}
	for _, c := range cols {
		n, err := columnar.QuoteIdent(c.Name)
		if err != nil {
			return "", err
		}
		q += ", CAST(" + aggregate(c.Aggregation, "CAST("+n+" AS DOUBLE)") + " AS DOUBLE)"
	}
	return q + " FROM " + src + " WHERE " + t + " IS NOT NULL GROUP BY 1 ORDER BY 1", nil
}

// CreateSeries creates a forecast session's series table (its
// SnapshotTable): the history's buckets numbered by RowColumn, the bucket
// start under the timestamp column's name, the target's imputed value
// under its name and SmoothColumn.
func CreateSeries(session, ts, target string) (string, error) {
	dst, err := resultsTable(SnapshotTable(session))
	if err != nil {
		return "", err
	}
	t, err := columnar.QuoteIdent(ts)
	if err != nil {
		return "", err
	}
	y, err := columnar.QuoteIdent(target)
	if err != nil {
		return "", err
	}
	return "CREATE OR REPLACE TABLE " + dst + " (" + RowColumn + " BIGINT NOT NULL, " + t + " TIMESTAMP NOT NULL, " +
		y + " DOUBLE, " + SmoothColumn + " DOUBLE)", nil
}

// CreateForecast creates a forecast session's ForecastTable with levels
// quantile columns.
func CreateForecast(session string, levels int) (string, error) {
	dst, err := resultsTable(ForecastTable(session))
	if err != nil {
		return "", err
	}
	q := "CREATE OR REPLACE TABLE " + dst + " (bucket TIMESTAMP NOT NULL"
	for i := range levels {
		q += ", " + QuantileColumn(i) + " DOUBLE"
	}
	return q + ")", nil
}

// ForecastRows selects a page of a forecast session's window: the bucket
// start under ts and quantile level i under target, ascending.
func ForecastRows(session, ts, target string, level, limit, offset int) (string, []any, error) {
	src, err := resultsTable(ForecastTable(session))
	if err != nil {
		return "", nil, err
	}
	t, err := columnar.QuoteIdent(ts)
	if err != nil {
		return "", nil, err
	}
	y, err := columnar.QuoteIdent(target)
	if err != nil {
		return "", nil, err
	}
	q := "SELECT bucket AS " + t + ", " + QuantileColumn(level) + " AS " + y + " FROM " + src + " ORDER BY bucket"
	var args []any
	if limit > 0 {
		q += " LIMIT ? OFFSET ?"
		args = append(args, limit, offset)
	}
	return q, args, nil
}

// CountForecastRows counts a forecast session's window rows.
func CountForecastRows(session string) (string, error) {
	src, err := resultsTable(ForecastTable(session))
	if err != nil {
		return "", err
	}
	return "SELECT count(*) FROM " + src, nil
}

// OutlierRows selects a page of the buckets of a forecast session's
// history that the Smoothed variant replaced (MODELLING §4): the bucket
// start under ts, the observed value under "<target>:actual" and the
// replacement under "<target>:smooth".
func OutlierRows(session, ts, target string, limit, offset int) (string, []any, error) {
	src, err := resultsTable(SnapshotTable(session))
	if err != nil {
		return "", nil, err
	}
	t, err := columnar.QuoteIdent(ts)
	if err != nil {
		return "", nil, err
	}
	y, err := columnar.QuoteIdent(target)
	if err != nil {
		return "", nil, err
	}
	actual, err := columnar.QuoteIdent(target + ":actual")
	if err != nil {
		return "", nil, err
	}
	smooth, err := columnar.QuoteIdent(target + ":smooth")
	if err != nil {
		return "", nil, err
	}
	q := "SELECT " + t + ", " + y + " AS " + actual + ", " + SmoothColumn + " AS " + smooth + " FROM " + src +
		" WHERE " + SmoothColumn + " IS NOT NULL ORDER BY " + RowColumn
	var args []any
	if limit > 0 {
		q += " LIMIT ? OFFSET ?"
		args = append(args, limit, offset)
	}
	return q, args, nil
}

// CountOutliers counts the outliers of a forecast session's history.
func CountOutliers(session string) (string, error) {
	src, err := resultsTable(SnapshotTable(session))
	if err != nil {
		return "", err
	}
	return "SELECT count(*) FROM " + src + " WHERE " + SmoothColumn + " IS NOT NULL", nil
}
