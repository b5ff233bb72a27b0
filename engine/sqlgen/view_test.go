package sqlgen_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine/sqlgen"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestCompile compiles every statement kind and compares the SQL text and
// bound arguments with testdata/compile.sql.
func TestCompile(t *testing.T) {
	start := time.Date(2017, 1, 1, 0, 0, 0, 0, time.UTC)
	end := start.Add(24 * time.Hour)
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
		b.WriteString("\n")
	}
	q, args, err := sqlgen.Select{Dataset: `store "sales"`, Columns: []string{"day", "sales"}}.SQL()
	add("select all rows in storage order", q, args, err)
	q, args, err = sqlgen.Select{Dataset: "s", Columns: []string{"day"}, Range: sqlgen.Range{Column: "day", Start: &start, End: &end},
		OrderBy: "day", Limit: 50, Offset: 100}.SQL()
	add("select a page of a time series in a date range", q, args, err)
	q, args, err = sqlgen.Select{Dataset: "s", Columns: []string{"day"}, Range: sqlgen.Range{Column: "day", Start: &start, End: &end},
		OrderBy: "day", Sorted: true, Limit: 50, Offset: 100}.SQL()
	add("select a page of a time series stored in time order", q, args, err)
	q, args, err = sqlgen.Select{Dataset: "s", Columns: []string{"day", "x"}, OrderBy: "day"}.SQL()
	add("select every row of a time series", q, args, err)
	q, args, err = sqlgen.Select{Dataset: "s", Columns: []string{"x"}, Limit: 10}.SQL()
	add("select a page without a timestamp", q, args, err)
	q, err = sqlgen.Sorted("s", "day")
	add("is the storage order the time order", q, nil, err)
	q, args, err = sqlgen.Select{Dataset: "s", Columns: []string{"day", "x"}, Range: sqlgen.Range{Column: "day"},
		OrderBy: "day", Sorted: true, Dense: true, Limit: 50, Offset: 100}.SQL()
	add("select a page of a time series stored in time order with dense row ids", q, args, err)
	q, args, err = sqlgen.Select{Dataset: "s", Columns: []string{"x"}, Dense: true, Limit: 10}.SQL()
	add("select a page without a timestamp, dense row ids", q, args, err)
	q, args, err = sqlgen.Select{Dataset: "s", Columns: []string{"day"}, Range: sqlgen.Range{Column: "day", Start: &start},
		OrderBy: "day", Sorted: true, Dense: true, Limit: 50, Offset: 100}.SQL()
	add("a date range keeps LIMIT and OFFSET, dense row ids or not", q, args, err)
	q, args, err = sqlgen.Select{Dataset: "s", Columns: []string{"day"}, OrderBy: "day", Dense: true, Limit: 50}.SQL()
	add("so does a sort", q, args, err)
	q, err = sqlgen.Dense("s")
	add("are the row ids 0 to n-1", q, nil, err)
	q, args, err = sqlgen.Count("s", sqlgen.Range{Column: "day", Start: &start})
	add("count from a start date", q, args, err)
	q, args, err = sqlgen.DeleteRange("s", sqlgen.Range{Column: "day", End: &end})
	add("delete up to an end date", q, args, err)
	q, err = sqlgen.ReplaceMatching("s", `main."vatic_stage_1"`, "id")
	add("upsert: delete matching rows", q, nil, err)
	q, err = sqlgen.InsertFrom("s", `main."vatic_stage_1"`)
	add("upsert: insert staged rows", q, nil, err)
	q, err = sqlgen.IsUnique("s", "day")
	add("uniqueness of a column", q, nil, err)
	table, _ := sqlgen.Table("s")
	q, err = sqlgen.AddColumn(table, "new col", columnar.Logical)
	add("add a column", q, nil, err)
	q, err = sqlgen.ConvertColumn(table, "n", columnar.Numeric, columnar.String)
	add("widen numbers to text as the API renders them", q, nil, err)
	q, err = sqlgen.ConvertColumn(table, "n", columnar.String, columnar.Numeric)
	add("convert text to numbers", q, nil, err)
	q, err = sqlgen.Drop("s")
	add("drop a dataset", q, nil, err)
	for _, c := range []struct {
		sqlType string
		as      columnar.DataType
	}{
		{"DOUBLE", columnar.Numeric}, {"DOUBLE", columnar.Logical}, {"TIMESTAMP", columnar.Date},
		{"VARCHAR", columnar.String}, {"VARCHAR", columnar.Logical}, {"BOOLEAN", columnar.Logical},
	} {
		v, ok, err := sqlgen.StatsValues(sqlgen.DataSchema, "s", "x", c.sqlType, c.as)
		if !ok && err == nil {
			err = fmt.Errorf("StatsValues(%s as %s) not written in SQL", c.sqlType, c.as)
		}
		add("statistics values: "+c.sqlType+" as "+string(c.as), v, nil, err)
	}
	if _, ok, err := sqlgen.StatsValues(sqlgen.DataSchema, "s", "x", "VARCHAR", columnar.Date); ok || err != nil {
		t.Errorf("StatsValues(VARCHAR as date) = %v, %v; want false (the engine reads dates)", ok, err)
	}
	v, _, _ := sqlgen.StatsValues(sqlgen.DataSchema, "s", "x", "DOUBLE", columnar.Numeric)
	add("statistics: one scan", sqlgen.StatsSummary(v), nil, nil)
	q, err = sqlgen.StatsTop(v, "num")
	add("statistics: most frequent values", q, nil, err)
	add("statistics: buckets", sqlgen.StatsBuckets(v, 4), nil, nil)

	col := func(name string, t columnar.DataType, r columnar.Role) columnar.Column {
		return columnar.Column{Name: name, DataType: t, Role: r}
	}
	base := sqlgen.Source{Dataset: "store sales", Columns: []columnar.Column{
		col("hour", columnar.Date, columnar.RoleTimestamp), col("store", columnar.String, ""), col("sales", columnar.Numeric, columnar.RoleTarget)}}
	weather := sqlgen.Join{
		Right:      sqlgen.Source{Dataset: "weather", Columns: []columnar.Column{col("day", columnar.Date, columnar.RoleTimestamp), col("temp", columnar.NumericMeasure, "")}},
		LeftColumn: "hour", RightColumn: "day", Interval: "day",
		Outputs: []sqlgen.Output{{Column: "temp", As: "temp", Aggregation: columnar.AggMean}},
	}
	stores := sqlgen.Join{
		Right:      sqlgen.Source{Dataset: "stores", Columns: []columnar.Column{col("store", columnar.String, columnar.RoleKey), col("sales", columnar.Numeric, "")}},
		LeftColumn: "store", RightColumn: "store",
		Outputs: []sqlgen.Output{{Column: "sales", As: "store sales", Aggregation: columnar.AggSum}},
	}
	q, err = sqlgen.Compile(base, nil)
	add("view without joins", q, nil, err)
	q, err = sqlgen.Compile(base, []sqlgen.Join{weather, stores})
	add("view joining a dataset by day and a lookup by key, with an alias", q, nil, err)
	holidays := sqlgen.Join{LeftColumn: "hour", Calendar: &sqlgen.CalendarJoin{
		Table: `"catalog"."calendar Nexosis.Holidays-US"`, Interval: "day", TimestampAs: "eventTimestamp", CalendarAs: "calendar:US Holidays",
		Events: []sqlgen.EventColumn{{ID: 0, As: "event:US Holidays:New Year's Day"}, {ID: 1, As: "event:US Holidays:Independence Day"}},
	}}
	q, err = sqlgen.Compile(base, []sqlgen.Join{weather, holidays})
	add("view joining a dataset and a holiday calendar by day", q, nil, err)
	canada := sqlgen.Join{LeftColumn: "hour", Calendar: &sqlgen.CalendarJoin{
		Table: `"catalog"."calendar Nexosis.Holidays-CA"`, CalendarAs: "calendar:CA Holidays",
		Events: []sqlgen.EventColumn{{ID: 3, As: "event:CA Holidays:Canada Day"}},
	}}
	q, err = sqlgen.Compile(base, []sqlgen.Join{holidays, canada})
	add("view joining two calendars, the second's eventTimestamp left out", q, nil, err)
	sameStores := stores
	sameStores.Outputs = nil
	again := sqlgen.Join{LeftColumn: "hour", Calendar: &sqlgen.CalendarJoin{Table: holidays.Calendar.Table}}
	q, err = sqlgen.Compile(base, []sqlgen.Join{weather, sameStores, again})
	add("joins adding no column are left out", q, nil, err)
	q = sqlgen.CalendarTable(`"catalog"."calendar Nexosis.Holidays-US"`)
	add("calendar events table", q, nil, nil)
	q = sqlgen.FillCalendar(`"catalog"."calendar Nexosis.Holidays-US"`)
	add("fill a calendar from one bound JSON array", q, nil, nil)
	q, err = sqlgen.Bounds("store sales", "hour")
	add("date range of a base", q, nil, err)
	q, err = sqlgen.CreateView("sales & weather", "SELECT 1")
	add("define the DuckDB view", q, nil, err)
	q, args, err = sqlgen.Select{Schema: sqlgen.ViewSchema, Dataset: "v", Columns: []string{"hour"}, OrderBy: "hour", Limit: 5}.SQL()
	add("read a page of a view", q, args, err)

	path := filepath.Join("testdata", "compile.sql")
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
		t.Errorf("compiled SQL differs from %s:\ngot:\n%s\nwant:\n%s", path, b.String(), want)
	}
}

func TestCompileRejectsBadInput(t *testing.T) {
	if _, _, err := (sqlgen.Select{Dataset: "", Columns: []string{"a"}}).SQL(); err == nil {
		t.Errorf("Select with an empty dataset name compiled")
	}
	if _, _, err := (sqlgen.Select{Dataset: "s"}).SQL(); err == nil {
		t.Errorf("Select without columns compiled")
	}
	if _, _, err := (sqlgen.Select{Dataset: "s", Columns: []string{"a\x00b"}}).SQL(); err == nil {
		t.Errorf("Select with a NUL in a column name compiled")
	}
	bad := sqlgen.Join{Right: sqlgen.Source{Dataset: "w"}, LeftColumn: "a", RightColumn: "b", Interval: "fortnight", Outputs: []sqlgen.Output{{Column: "c", As: "c"}}}
	if _, err := sqlgen.Compile(sqlgen.Source{Dataset: "s", Columns: []columnar.Column{{Name: "a"}}}, []sqlgen.Join{bad}); err == nil {
		t.Errorf("Compile with an unknown join interval compiled")
	}
	if _, _, err := sqlgen.DeleteRange("s", sqlgen.Range{Column: "day"}); err == nil {
		t.Errorf("DeleteRange without bounds compiled (it would delete everything)")
	}
}
