package sqlgen_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine/sqlgen"
)

// TestCompileForecast compiles the statements of forecast sessions and
// compares the SQL text and bound arguments with testdata/forecast.sql:
// names from the data are quoted, never spliced.
func TestCompileForecast(t *testing.T) {
	var b strings.Builder
	add := func(name, q string, args []any, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		fmt.Fprintf(&b, "-- %s\n%s;\n", name, q)
		if len(args) > 0 {
			fmt.Fprintf(&b, "-- args: %v\n", args)
		}
	}
	q, err := sqlgen.BucketSeries(sqlgen.DataSchema, "store sales", `day "of" sale`, "week", 0, []sqlgen.AggColumn{
		{Name: "sales", Aggregation: columnar.AggSum}, {Name: "price", Aggregation: columnar.AggMedian}, {Name: "open", Aggregation: columnar.AggMode},
	})
	add("bucket a dataset by week", q, nil, err)
	q, err = sqlgen.BucketSeries(sqlgen.ViewSchema, "v", "ts", "hour", 0, []sqlgen.AggColumn{{Name: "y", Aggregation: columnar.AggMean}})
	add("bucket a view by hour", q, nil, err)
	q, err = sqlgen.BucketSeries(sqlgen.DataSchema, "d", "ts", "day", 8*3600, []sqlgen.AggColumn{{Name: "y", Aggregation: columnar.AggSum}})
	add("bucket a dataset by day at +08:00", q, nil, err)
	q, err = sqlgen.CreateSeries("s1", "day", "sales")
	add("a forecast's series", q, nil, err)
	q, err = sqlgen.CreateForecast("s1", 3)
	add("a forecast's window", q, nil, err)
	q, args, err := sqlgen.ForecastRows("s1", "day", "sales", 2, 10, 20)
	add("a page of the window at a level", q, args, err)
	q, err = sqlgen.CountForecastRows("s1")
	add("count the window", q, nil, err)
	q, args, err = sqlgen.OutlierRows("s1", "day", "sales", 0, 0)
	add("every outlier", q, args, err)
	q, err = sqlgen.CountOutliers("s1")
	add("count the outliers", q, nil, err)

	if _, err := sqlgen.BucketSeries(sqlgen.DataSchema, "d", "ts", "minute", 0, nil); err == nil {
		t.Error("BucketSeries accepted the interval minute")
	}

	path := filepath.Join("testdata", "forecast.sql")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run go test ./engine/sqlgen -update): %v", err)
	}
	if b.String() != string(want) {
		t.Errorf("compiled SQL differs from %s (run with -update and review):\n%s", path, b.String())
	}
}
