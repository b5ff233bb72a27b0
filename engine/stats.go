package engine

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine/sqlgen"
	"github.com/vaticml/vatic/stats"
)

// ColumnStats are the statistics of one column (MODELLING §11).
type ColumnStats struct {
	Name      string
	DataType  columnar.DataType // the type the statistics were computed as
	Suggested columnar.DataType // the type inference would choose
	Total     int64             // rows, including missing values
	Missing   int64
	Errors    int64 // values that do not parse as DataType
	// NonNumeric counts non-missing values that are not numbers.
	NonNumeric int64
	Distinct   int64
	// Numbers summarises the values that are numbers (dates as Unix
	// seconds); nil when there are none. Its Mode, Distinct and Buckets
	// are set for numeric and date columns only: a categorical column's
	// are in Values.
	Numbers *stats.Summary
	// Mode is the most frequent value as text, ModeKind says how to render
	// it: "number", "logical" or "string"; "" when there are no values.
	Mode, ModeKind string
	// Values holds the most frequent values of a string or logical column,
	// by descending count (at most StatsTopValues).
	Values []stats.Count
	// Calculated is when these statistics were computed.
	Calculated time.Time
}

// StatsTopValues caps the distribution of categorical columns.
const StatsTopValues = 20

// statsBuckets is the number of equal-width buckets of a numeric
// distribution (the reference's example edges imply 5).
const statsBuckets = 5

// Stats computes statistics of every stored column of a dataset, or of one
// column (case-insensitive) when column is not "", optionally as if the
// column had type as. DuckDB aggregates each column (sqlgen.StatsValues and
// the queries over it), so memory does not grow with the rows on the Go
// side. Columns run one after the other: DuckDB already spreads each
// aggregate over its threads, and running columns side by side multiplied
// the memory of a request (medians, groupings) for little gain.
//
// A view is a data source like a dataset: when no dataset has the name, a
// view of that name is summarised the same way (its rows as GET /views
// reads them).
func (e *Engine) Stats(ctx context.Context, dataset, column string, as columnar.DataType) (Dataset, []ColumnStats, error) {
	schema := sqlgen.DataSchema
	d, err := e.Dataset(ctx, dataset)
	var tcols map[string]tableColumn
	if err != nil {
		v, verr := e.View(ctx, dataset)
		if verr != nil {
			return d, nil, err // the dataset's 404
		}
		schema, d = sqlgen.ViewSchema, Dataset{Name: v.Name, Columns: v.Columns}
		if tcols, err = e.viewColumns(ctx, v.Name); err != nil {
			return d, nil, err
		}
	} else if tcols, err = e.tableColumns(ctx, d.Name); err != nil {
		return d, nil, err
	}
	var cols []columnar.Column
	for _, c := range d.Columns {
		if column != "" && !strings.EqualFold(c.Name, column) {
			continue
		}
		tc, stored := tcols[strings.ToLower(c.Name)]
		if !stored {
			if column != "" {
				// A column known only by metadata has no values yet.
				cols = append(cols, c)
			}
			continue
		}
		c.Name = tc.Name
		if c.DataType == "" {
			c.DataType = tc.Type
		}
		cols = append(cols, c)
	}
	if column != "" && len(cols) == 0 {
		return d, nil, NotFoundError("column", column)
	}
	out := make([]ColumnStats, len(cols))
	now := e.now()
	for i, c := range cols {
		tc, stored := tcols[strings.ToLower(c.Name)]
		if !stored {
			out[i] = ColumnStats{Name: c.Name, DataType: c.DataType, Suggested: c.DataType, Calculated: now}
			continue
		}
		if out[i], err = e.columnStats(ctx, schema, d.Name, c, tc.SQLType, as); err != nil {
			return d, nil, err
		}
		out[i].Calculated = now
	}
	return d, out, nil
}

// columnStats summarises one column, stored as the DuckDB type sqlType.
func (e *Engine) columnStats(ctx context.Context, schema, source string, c columnar.Column, sqlType string, as columnar.DataType) (ColumnStats, error) {
	eff := c.DataType
	if as != "" {
		eff = as
	}
	values, ok, err := sqlgen.StatsValues(schema, source, c.Name, sqlType, eff)
	if err != nil {
		return ColumnStats{}, err
	}
	var s ColumnStats
	hex := int64(0)
	if ok {
		if s, hex, err = e.summarise(ctx, values, eff); err != nil {
			return ColumnStats{}, fmt.Errorf("stats of %q.%q: %w", source, c.Name, err)
		}
	}
	if !ok || hex > 0 {
		table, err := e.statsScratch(ctx, schema, source, c.Name, eff)
		defer func() {
			_, _ = e.store.Exec(context.WithoutCancel(ctx), sqlgen.StatsDropScratch(table))
		}()
		if err != nil {
			return ColumnStats{}, err
		}
		if s, _, err = e.summarise(ctx, sqlgen.StatsScratchValues(table), eff); err != nil {
			return ColumnStats{}, fmt.Errorf("stats of %q.%q: %w", source, c.Name, err)
		}
	}
	s.Name, s.DataType, s.Suggested = c.Name, eff, c.DataType
	return s, nil
}

// summarise runs the aggregates of a values relation (sqlgen.StatsSummary,
// StatsTop, StatsBuckets) and rounds the numbers to statsDecimals places.
// It stops after the first scan when it finds possible hexadecimal floats
// (hex > 0), which the caller must read itself.
func (e *Engine) summarise(ctx context.Context, values string, as columnar.DataType) (s ColumnStats, hex int64, err error) {
	var n int64
	var lo, hi, mean, variance, median sql.NullFloat64
	if err := e.queryRow(ctx, sqlgen.StatsSummary(values), nil,
		&s.Total, &s.Missing, &s.Errors, &s.NonNumeric, &hex, &n, &lo, &hi, &mean, &variance, &median); err != nil {
		return s, 0, err
	}
	if hex > 0 {
		return s, hex, nil
	}
	storage := as.Storage()
	categorical := storage == columnar.String || storage == columnar.Logical
	if categorical {
		top, distinct, err := e.statsTop(ctx, values, "cat", StatsTopValues)
		if err != nil {
			return s, 0, err
		}
		s.Values, s.Distinct = top, distinct
		if len(top) > 0 {
			s.Mode, s.ModeKind = top[0].Value, "string"
			if storage == columnar.Logical {
				s.ModeKind = "logical"
			}
		}
	}
	if n > 0 {
		sum := stats.Summary{N: int(n), Min: lo.Float64, Max: hi.Float64, Mean: mean.Float64, Median: median.Float64,
			Variance: math.NaN()}
		if variance.Valid { // var_samp is NULL for one value
			sum.Variance = variance.Float64
		}
		sum.StdDev = math.Sqrt(sum.Variance)
		if !categorical {
			top, distinct, err := e.statsTop(ctx, values, "num", 1)
			if err != nil {
				return s, 0, err
			}
			sum.Distinct = int(distinct)
			if len(top) > 0 {
				// -0 and 0 are one group; the mode is the one that prints as 0.
				sum.Mode, _ = strconv.ParseFloat(top[0].Value, 64)
				sum.Mode += 0
			}
			if sum.Buckets, err = e.statsBuckets(ctx, values, sum); err != nil {
				return s, 0, err
			}
		}
		sum = roundSummary(sum)
		s.Numbers = &sum
		if !categorical {
			s.Distinct = int64(sum.Distinct)
			s.Mode, s.ModeKind = strconv.FormatFloat(sum.Mode, 'g', -1, 64), "number"
		}
	}
	if storage == columnar.Numeric || storage == columnar.Date {
		s.NonNumeric = s.Errors
	}
	if storage == columnar.Date {
		s.NonNumeric = s.Total - s.Missing
	}
	return s, 0, nil
}

// statsTop reads the limit most frequent values of key ("num" or "cat")
// with the number of distinct values. Numbers come back as their shortest
// text, which ParseFloat reads back exactly.
func (e *Engine) statsTop(ctx context.Context, values, key string, limit int) ([]stats.Count, int64, error) {
	q, err := sqlgen.StatsTop(values, key)
	if err != nil {
		return nil, 0, err
	}
	rows, err := e.store.Rows(ctx, q, limit)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []stats.Count
	var distinct int64
	for rows.Next() {
		var c stats.Count
		var v any
		if err := rows.Scan(&v, &c.N, &distinct); err != nil {
			return nil, 0, err
		}
		switch v := v.(type) {
		case float64:
			c.Value = strconv.FormatFloat(v, 'g', -1, 64)
		case string:
			c.Value = v
		default:
			return nil, 0, fmt.Errorf("stats value of type %T", v)
		}
		out = append(out, c)
	}
	return out, distinct, rows.Err()
}

// statsBuckets counts the numbers into statsBuckets equal-width buckets
// over [sum.Min, sum.Max] (one bucket when they are equal), with the edges
// and the bucket rule of stats.Describe.
func (e *Engine) statsBuckets(ctx context.Context, values string, sum stats.Summary) ([]stats.Bucket, error) {
	if sum.Min == sum.Max {
		return []stats.Bucket{{Min: sum.Min, Max: sum.Max, Count: sum.N}}, nil
	}
	edges := stats.Edges(sum.Min, sum.Max, statsBuckets)
	out := make([]stats.Bucket, statsBuckets)
	inner := make([]any, statsBuckets-1)
	for i := range out {
		out[i].Min, out[i].Max = edges[i], edges[i+1]
		if i < len(inner) {
			inner[i] = edges[i+1]
		}
	}
	rows, err := e.store.Rows(ctx, sqlgen.StatsBuckets(values, len(inner)), inner...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var b, n int64
		if err := rows.Scan(&b, &n); err != nil {
			return nil, err
		}
		out[b].Count = int(n)
	}
	return out, rows.Err()
}

// queryRow runs a query of one row and scans it into dest.
func (e *Engine) queryRow(ctx context.Context, q string, args []any, dest ...any) error {
	rows, err := e.store.Rows(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := rows.Scan(dest...); err != nil {
		return err
	}
	return rows.Close()
}

// statsScratchPrefix names the scratch tables of column statistics.
const statsScratchPrefix = "vatic_stats_"

// statsScratchSchema is the values relation of sqlgen.StatsValues as Arrow.
var statsScratchSchema = arrow.NewSchema([]arrow.Field{
	{Name: "missing", Type: arrow.FixedWidthTypes.Boolean},
	{Name: "num", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "cat", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "bad", Type: arrow.FixedWidthTypes.Boolean},
	{Name: "nonnum", Type: arrow.FixedWidthTypes.Boolean},
}, nil)

// statsScratch computes the values relation of a column in Go, for the
// readings DuckDB cannot reproduce (text as dates, numbers and dates as
// their text, hexadecimal floats, view columns of other types), into a new
// scratch table in schema main, which it returns quoted; the caller drops
// it. The column streams through batch by batch; the aggregates then run
// in DuckDB as for any column.
func (e *Engine) statsScratch(ctx context.Context, schema, source, column string, as columnar.DataType) (string, error) {
	table := "main." + columnar.MustQuoteIdent(statsScratchPrefix+randomID())
	if err := e.store.CreateTable(ctx, table, statsScratchSchema); err != nil {
		return table, err
	}
	q, args, err := sqlgen.Select{Schema: schema, Dataset: source, Columns: []string{column}}.SQL()
	if err != nil {
		return table, err
	}
	rr, err := e.store.Query(ctx, q, args...)
	if err != nil {
		return table, fmt.Errorf("read column %q of %q: %w", column, source, err)
	}
	vr := &valueReader{ctx: ctx, mem: e.opts.Allocator, src: rr, as: as}
	vr.refs.Store(1)
	defer vr.Release()
	if _, err := e.store.Append(ctx, table, vr); err != nil {
		return table, fmt.Errorf("stats of %q.%q: %w", source, column, err)
	}
	return table, nil
}

// valueReader turns the batches of one column into rows of the values
// relation, reading each value's text as the effective type the way the
// API always has (parseNumber, columnar.ParseTime, parseLogical).
type valueReader struct {
	ctx  context.Context // checked once per batch
	mem  memory.Allocator
	src  array.RecordReader
	as   columnar.DataType
	cur  arrow.RecordBatch
	err  error
	refs atomic.Int64
}

func (r *valueReader) Retain() { r.refs.Add(1) }

// Release releases the current batch and the source on the last reference.
func (r *valueReader) Release() {
	if r.refs.Add(-1) > 0 {
		return
	}
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	r.src.Release()
}

func (r *valueReader) Schema() *arrow.Schema          { return statsScratchSchema }
func (r *valueReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *valueReader) Record() arrow.RecordBatch      { return r.cur }
func (r *valueReader) Err() error                     { return r.err }

func (r *valueReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil {
		return false
	}
	if r.err = r.ctx.Err(); r.err != nil {
		return false
	}
	if !r.src.Next() {
		r.err = r.src.Err()
		return false
	}
	arr := r.src.RecordBatch().Column(0)
	b := array.NewRecordBuilder(r.mem, statsScratchSchema)
	defer b.Release()
	missing := b.Field(0).(*array.BooleanBuilder)
	num := b.Field(1).(*array.Float64Builder)
	cat := b.Field(2).(*array.StringBuilder)
	bad := b.Field(3).(*array.BooleanBuilder)
	nonnum := b.Field(4).(*array.BooleanBuilder)
	for i := range arr.Len() {
		if arr.IsNull(i) {
			missing.Append(true)
			num.AppendNull()
			cat.AppendNull()
			bad.Append(false)
			nonnum.Append(false)
			continue
		}
		missing.Append(false)
		text := valueText(arr, i)
		f, isNum := parseNumber(text)
		nonnum.Append(!isNum)
		ok := true
		switch r.as.Storage() {
		case columnar.Numeric:
			ok = isNum
			appendNumber(num, f, ok)
			cat.AppendNull()
		case columnar.Date:
			t, parsed := columnar.ParseTime(text)
			ok = parsed
			appendNumber(num, float64(t.UnixMicro())/1e6, ok)
			cat.AppendNull()
		case columnar.Logical:
			v, parsed := parseLogical(text)
			ok = parsed
			num.AppendNull()
			if ok {
				cat.Append(strconv.FormatBool(v))
			} else {
				cat.AppendNull()
			}
		default:
			appendNumber(num, f, isNum)
			cat.Append(text)
		}
		bad.Append(!ok)
	}
	r.cur = b.NewRecordBatch()
	return true
}

func appendNumber(b *array.Float64Builder, f float64, ok bool) {
	if ok {
		b.Append(f)
	} else {
		b.AppendNull()
	}
}

// valueText renders one value of an Arrow array as text.
func valueText(arr arrow.Array, i int) string {
	switch v := arr.(type) {
	case *array.String:
		return v.Value(i)
	case *array.LargeString:
		return v.Value(i)
	case *array.Float64:
		return strconv.FormatFloat(v.Value(i), 'g', -1, 64)
	case *array.Boolean:
		return strconv.FormatBool(v.Value(i))
	case *array.Timestamp:
		return time.UnixMicro(int64(v.Value(i))).UTC().Format(time.RFC3339Nano)
	}
	return arr.ValueStr(i)
}

// parseNumber reads finite decimal numbers only.
func parseNumber(s string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// parseLogical reads the logical pairs of REFERENCE §2.1 and 1/0.
func parseLogical(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "on", "1":
		return true, true
	case "false", "no", "off", "0":
		return false, true
	}
	return false, false
}

// statsDecimals is the rounding of column statistics (MODELLING §0, §11).
const statsDecimals = 6

// roundSummary rounds every number of s to statsDecimals places.
func roundSummary(s stats.Summary) stats.Summary {
	for _, p := range []*float64{&s.Min, &s.Max, &s.Mean, &s.Median, &s.Variance, &s.StdDev, &s.Mode} {
		*p = stats.Round(*p, statsDecimals)
	}
	for i := range s.Buckets {
		s.Buckets[i].Min = stats.Round(s.Buckets[i].Min, statsDecimals)
		s.Buckets[i].Max = stats.Round(s.Buckets[i].Max, statsDecimals)
	}
	return s
}
