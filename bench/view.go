package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Names the view workload gives its datasets and view on the fresh server
// of each run; [ViewSQL] reads the datasets under these names.
const (
	viewBase     = "base"
	viewWeather  = "weather"
	viewStores   = "stores"
	viewName     = "bench-view"
	viewCalendar = "Nexosis.Holidays-US"
)

// usHolidays are the event names of the Nexosis.Holidays-US calendar, in
// the order the server lists their columns.
var usHolidays = []string{
	"New Year's Day", "Martin Luther King Jr. Day", "Presidents' Day", "Memorial Day",
	"Independence Day", "Labor Day", "Columbus Day", "Veterans Day",
	"Thanksgiving Day", "Christmas Day", "Juneteenth",
}

// viewDefinition is the body of PUT /views/{name}: the base joined to the
// daily weather (by day), to the stores (by their key column) and to the
// US holiday calendar.
func viewDefinition() map[string]any {
	return map[string]any{
		"dataSetName": viewBase,
		"joins": []any{
			map[string]any{"dataSet": map[string]any{"name": viewWeather},
				"columnOptions": map[string]any{"day": map[string]any{"joinInterval": "day"}}},
			map[string]any{"dataSet": map[string]any{"name": viewStores}},
			map[string]any{"calendar": map[string]any{"name": viewCalendar}},
		},
	}
}

// ViewSQL is the anchor of ReadView: the query a DuckDB user would write by
// hand for the view's rows, over the server's own tables (data."base",
// data."weather", data."stores" and the calendar table of the catalog).
// Weather numbers are summed per day (their aggregation is sum); stores
// are looked up by key; a row's holiday columns come from the calendar
// events whose [start, stop) holds its ts, grouped per base row (ts is
// unique): eventTimestamp is the earliest start, the indicators are 0 or 1.
// Rows come in base order (ORDER BY ts), as the view returns them.
func ViewSQL() string {
	var b strings.Builder
	ident := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	b.WriteString("SELECT b.ts, b.store, b.sales, w.temp, w.rain, s.region, s.size,\n  h.\"eventTimestamp\",\n")
	b.WriteString("  coalesce(h.\"calendar:US Holidays\", 0) AS \"calendar:US Holidays\"")
	for _, e := range usHolidays {
		col := ident("event:US Holidays:" + e)
		fmt.Fprintf(&b, ",\n  coalesce(h.%s, 0) AS %s", col, col)
	}
	b.WriteString("\nFROM data.base AS b\n")
	b.WriteString("LEFT JOIN (SELECT date_trunc('day', day) AS day, sum(temp) AS temp, sum(rain) AS rain\n" +
		"           FROM data.weather GROUP BY 1) AS w ON w.day = date_trunc('day', b.ts)\n")
	b.WriteString("LEFT JOIN data.stores AS s ON s.store = b.store\n")
	b.WriteString("LEFT JOIN (SELECT b.ts, min(c.start) AS \"eventTimestamp\", 1 AS \"calendar:US Holidays\"")
	for _, e := range usHolidays {
		fmt.Fprintf(&b, ",\n             max((c.event = %s)::INTEGER) AS %s", sqlString(e), ident("event:US Holidays:"+e))
	}
	fmt.Fprintf(&b, "\n           FROM data.base AS b JOIN catalog.%s AS c ON b.ts >= c.start AND b.ts < c.stop\n"+
		"           GROUP BY b.ts) AS h ON h.ts = b.ts\nORDER BY b.ts", ident("calendar "+viewCalendar))
	return b.String()
}

// RunView measures GET /views/{name} as CSV, every row, of a view joining
// a base dataset of vf.Rows rows to daily weather, a store lookup and the
// US holiday calendar, against [ViewSQL] written to a CSV file by DuckDB's
// COPY, cfg.Runs times. Every run starts a fresh server, loads the three
// datasets, creates the view and times the GET; the server is then stopped
// and its database file copied, and the anchor runs on a copy of the
// latest one (the data is the same in every run). It needs servers the
// harness starts.
func RunView(ctx context.Context, cfg Config, vf ViewFiles) ([]Result, error) {
	cfg = cfg.withDefaults()
	const w = "ReadView"
	if cfg.BaseURL != "" {
		return nil, errors.New("bench: the view workload needs the server's database file; it cannot run against -url")
	}
	scratch, err := scratchDir(cfg)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	template := filepath.Join(scratch, "view.duckdb") // the latest server's database
	var header string                                 // the view's CSV header as the server sent it

	ours := func(run int) (Result, error) {
		t, err := openTarget(ctx, cfg, scratch, fmt.Sprintf("view-%d", run))
		if err != nil {
			return Result{}, err
		}
		defer t.close(cfg)
		if err := loadView(ctx, t.c, vf); err != nil {
			return Result{}, t.explain(err)
		}
		start := time.Now()
		rows, n, h, err := t.c.GetViewCSV(ctx, viewName)
		elapsed := time.Since(start)
		if err != nil {
			return Result{}, t.explain(err)
		}
		if rows != int64(vf.Rows) {
			return Result{}, fmt.Errorf("bench: GET view %s as CSV gave %d rows, want %d", viewName, rows, vf.Rows)
		}
		header = h
		// Stop the server (it checkpoints on the way out) and keep its
		// database for the anchor before close removes the data directory.
		if err := t.srv.Stop(); err != nil {
			return Result{}, t.explain(err)
		}
		removeDB(template)
		data := filepath.Join(t.dir, "data", "vatic.duckdb")
		if err := copyFile(data, template); err != nil {
			return Result{}, err
		}
		if fileSize(data+".wal") >= 0 {
			if err := copyFile(data+".wal", template+".wal"); err != nil {
				return Result{}, err
			}
		}
		return Result{Name: w + "/impl=vatic", Elapsed: elapsed, Metrics: speed(vf.Rows, n, elapsed)}, nil
	}
	q := ViewSQL()
	anchor := func(run int) (Result, error) {
		if fileSize(template) < 0 {
			return Result{}, errors.New("bench: no server database to run the anchor on")
		}
		db := filepath.Join(scratch, fmt.Sprintf("anchor-%d.duckdb", run))
		out := filepath.Join(scratch, "anchor.csv")
		defer func() {
			removeDB(db)
			os.Remove(out)
		}()
		if err := copyFile(template, db); err != nil {
			return Result{}, err
		}
		if fileSize(template+".wal") >= 0 {
			if err := copyFile(template+".wal", db+".wal"); err != nil {
				return Result{}, err
			}
		}
		times, _, err := DuckDB{Bin: cfg.Vatic}.Exec(ctx, db, "COPY ("+q+") TO "+sqlString(out)+" (HEADER)")
		if err != nil {
			return Result{}, err
		}
		f, err := os.Open(out)
		if err != nil {
			return Result{}, err
		}
		hr := &headerReader{r: f}
		lines, n, err := CountLines(hr)
		f.Close()
		if err != nil {
			return Result{}, err
		}
		if lines-1 != int64(vf.Rows) {
			return Result{}, fmt.Errorf("bench: anchor wrote %d rows to %s, want %d", lines-1, out, vf.Rows)
		}
		if header != "" && hr.header() != header {
			return Result{}, fmt.Errorf("bench: anchor's CSV header differs from the view's:\n  anchor: %s\n  view:   %s", hr.header(), header)
		}
		return Result{Name: w + "/impl=duckdb", Elapsed: times[0], Metrics: speed(vf.Rows, n, times[0])}, nil
	}
	return alternate(cfg, w, ours, anchor)
}

// loadView creates the view workload's datasets (the stores with their key
// column declared first) and the view.
func loadView(ctx context.Context, c *Client, vf ViewFiles) error {
	put, err := c.PutCSV(ctx, viewBase, vf.Base, false)
	if err != nil {
		return err
	}
	if put.RowCount >= 0 && put.RowCount != int64(vf.Rows) {
		return fmt.Errorf("bench: PUT %s answered rowCount %d, want %d", viewBase, put.RowCount, vf.Rows)
	}
	if _, err := c.PutCSV(ctx, viewWeather, vf.Weather, false); err != nil {
		return err
	}
	key := map[string]any{"columns": map[string]any{"store": map[string]any{"role": "key", "dataType": "string"}}}
	if _, err := c.PutJSON(ctx, "/data/"+viewStores, key); err != nil {
		return err
	}
	if _, err := c.PutCSV(ctx, viewStores, vf.Stores, false); err != nil {
		return err
	}
	_, err = c.PutJSON(ctx, "/views/"+viewName, viewDefinition())
	return err
}

func copyFile(src, dst string) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	defer func() {
		if e := out.Close(); err == nil {
			err = e
		}
	}()
	_, err = io.Copy(out, in)
	return err
}
