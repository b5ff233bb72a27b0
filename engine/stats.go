package engine

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

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
	// seconds); nil when there are none.
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
// column had type as. Columns are read one at a time, in parallel up to
// GOMAXPROCS, so memory follows one column per core, not the table.
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
		tcols = map[string]tableColumn{}
		for _, c := range v.Columns {
			tcols[strings.ToLower(c.Name)] = tableColumn{Name: c.Name, Type: c.DataType.Storage()}
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
	errs := make([]error, len(cols))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	now := e.now()
	for i, c := range cols {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			if _, stored := tcols[strings.ToLower(c.Name)]; !stored {
				out[i] = ColumnStats{Name: c.Name, DataType: c.DataType, Suggested: c.DataType, Calculated: now}
				return
			}
			out[i], errs[i] = e.columnStats(ctx, schema, d.Name, c, as)
			out[i].Calculated = now
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return d, nil, err
		}
	}
	return d, out, nil
}

// columnStats scans one column and summarises it.
func (e *Engine) columnStats(ctx context.Context, schema, dataset string, c columnar.Column, as columnar.DataType) (ColumnStats, error) {
	q, args, err := sqlgen.Select{Schema: schema, Dataset: dataset, Columns: []string{c.Name}}.SQL()
	if err != nil {
		return ColumnStats{}, err
	}
	rr, err := e.store.Query(ctx, q, args...)
	if err != nil {
		return ColumnStats{}, fmt.Errorf("read column %q of %q: %w", c.Name, dataset, err)
	}
	defer rr.Release()
	eff := c.DataType
	if as != "" {
		eff = as
	}
	acc := newAccumulator(eff)
	for rr.Next() {
		if err := ctx.Err(); err != nil {
			return ColumnStats{}, err
		}
		acc.add(rr.RecordBatch().Column(0), c.DataType.Storage() == eff.Storage())
	}
	if err := rr.Err(); err != nil {
		return ColumnStats{}, fmt.Errorf("read column %q of %q: %w", c.Name, dataset, err)
	}
	s := acc.result()
	s.Name, s.DataType, s.Suggested = c.Name, eff, c.DataType
	return s, nil
}

// accumulator gathers one column's values for its statistics.
type accumulator struct {
	as      columnar.DataType
	s       ColumnStats
	numbers []float64
	// counts holds categorical values (string, text, logical). Keys are
	// copies: the text of a value aliases its Arrow batch, released after
	// the scan, and assigning to an existing string key rewrites the key,
	// hence the pointers.
	counts map[string]*int
}

func newAccumulator(as columnar.DataType) *accumulator {
	a := &accumulator{as: as}
	switch as.Storage() {
	case columnar.String, columnar.Logical:
		a.counts = map[string]*int{}
	}
	return a
}

// add takes one Arrow array of the column. native says the array already
// has the storage of the effective type, so no conversion is needed.
func (a *accumulator) add(arr arrow.Array, native bool) {
	n := arr.Len()
	a.s.Total += int64(n)
	a.s.Missing += int64(arr.NullN())
	switch v := arr.(type) {
	case *array.Float64:
		if native {
			vals := v.Float64Values()
			if v.NullN() == 0 {
				a.numbers = append(a.numbers, vals...)
				return
			}
			for i, x := range vals {
				if v.IsValid(i) {
					a.numbers = append(a.numbers, x)
				}
			}
			return
		}
	case *array.Timestamp:
		if native {
			for i, x := range v.Values() {
				if v.IsValid(i) {
					a.numbers = append(a.numbers, float64(x)/1e6)
				}
			}
			return
		}
	}
	// The general path: each value's text, read as the effective type.
	for i := range n {
		if arr.IsNull(i) {
			continue
		}
		a.addText(valueText(arr, i))
	}
}

// addText reads one non-missing value's text as the effective type.
func (a *accumulator) addText(s string) {
	f, isNum := parseNumber(s)
	if !isNum {
		a.s.NonNumeric++
	}
	switch a.as.Storage() {
	case columnar.Numeric:
		if isNum {
			a.numbers = append(a.numbers, f)
		} else {
			a.s.Errors++
		}
	case columnar.Date:
		if t, ok := columnar.ParseTime(s); ok {
			a.numbers = append(a.numbers, float64(t.UnixMicro())/1e6)
		} else {
			a.s.Errors++
		}
	case columnar.Logical:
		if b, ok := parseLogical(s); ok {
			a.count(strconv.FormatBool(b))
		} else {
			a.s.Errors++
		}
	default:
		a.count(s)
		if isNum {
			a.numbers = append(a.numbers, f)
		}
	}
}

// count adds one occurrence of a categorical value.
func (a *accumulator) count(s string) {
	if n, ok := a.counts[s]; ok {
		*n++
		return
	}
	one := 1
	a.counts[strings.Clone(s)] = &one
}

func (a *accumulator) result() ColumnStats {
	s := a.s
	if a.counts != nil {
		s.Distinct = int64(len(a.counts))
		counts := make(map[string]int, len(a.counts))
		for k, n := range a.counts {
			counts[k] = *n
		}
		s.Values = stats.TopCounts(counts, StatsTopValues)
		if len(s.Values) > 0 {
			s.Mode, s.ModeKind = s.Values[0].Value, "string"
			if a.as.Storage() == columnar.Logical {
				s.ModeKind = "logical"
			}
		}
	}
	if len(a.numbers) > 0 {
		sum := roundSummary(stats.Describe(a.numbers, statsBuckets))
		s.Numbers = &sum
		if a.counts == nil {
			s.Distinct = int64(sum.Distinct)
			s.Mode, s.ModeKind = strconv.FormatFloat(sum.Mode, 'g', -1, 64), "number"
		}
	}
	if a.as.Storage() == columnar.Numeric || a.as.Storage() == columnar.Date {
		s.NonNumeric = s.Errors
	}
	if a.as.Storage() == columnar.Date {
		s.NonNumeric = s.Total - s.Missing
	}
	return s
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
