package engine

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine/sqlgen"
	"github.com/vaticml/vatic/stats"
)

// statsCSV has a column of every storage type, and text columns whose
// values exercise the number and logical readings: underscores, the spaces
// strings.TrimSpace removes, exponents, infinities, -0, logical words,
// dates. hexed adds a hexadecimal float, which DuckDB cannot read, so it
// takes the scratch-table path; plain stays on the SQL path.
func referenceStatsCSV() string {
	plain := []string{"1", "2.5", "1_000", "\u00a03", "yeſ", "TrUe", "\u2003no\u2003", "\u2003 4 \u3000", "1e3", "-0", "0", "inf", "NaN", "yes", "No", " on ", "true",
		"2017-01-02", "1/2/2017 3:04 PM", "abc", "1e400", "1e-400", "+.5", "5.", "1__0", "0x10", "1", "abc", "", "7"}
	hexed := []string{"0x1p-2", "1", "1", "x", "", "2"}
	var b strings.Builder
	b.WriteString("n,plain,hexed,ok,day,ties\n")
	for i := range 300 {
		n := ""
		if i%13 != 0 {
			n = strconv.FormatFloat(float64((i*7919)%101)/8-3, 'f', -1, 64)
		}
		p := plain[i%len(plain)]
		ok := []string{"yes", "no", "", "yes"}[i%4]
		day := ""
		if i%5 != 0 {
			day = fmt.Sprintf("2017-%02d-%02d", i%12+1, i%28+1)
		}
		ties := []string{"b", "a", "c", "a", "b", "1", "-0", "0"}[i%8]
		fmt.Fprintf(&b, "%s,\"%s\",%s,%s,%s,%s\n", n, p, hexed[i%len(hexed)], ok, day, ties)
	}
	return b.String()
}

// TestStatsMatchesReference checks the SQL statistics against the former
// in-memory implementation, for every column read as every data type.
func TestStatsMatchesReference(t *testing.T) {
	e := newTestEngine(t)
	e.putTestCSV(t, "ref", referenceStatsCSV())
	d, err := e.Dataset(t.Context(), "ref")
	if err != nil {
		t.Fatal(err)
	}
	for _, as := range []columnar.DataType{"", columnar.Numeric, columnar.NumericMeasure, columnar.Logical, columnar.Date, columnar.String, columnar.Text} {
		_, got, err := e.Stats(t.Context(), "ref", "", as)
		if err != nil {
			t.Fatalf("Stats(ref, %q) = %v", as, err)
		}
		if len(got) != len(d.Columns) {
			t.Fatalf("Stats(ref, %q) = %d columns, want %d", as, len(got), len(d.Columns))
		}
		for i, c := range d.Columns {
			want, err := e.refColumnStats(t.Context(), sqlgen.DataSchema, "ref", c, as)
			if err != nil {
				t.Fatal(err)
			}
			g := got[i]
			g.Calculated = want.Calculated
			if !statsEqual(g, want) {
				t.Errorf("Stats(ref, %q) column %s (%s):\n got %+v %+v\nwant %+v %+v", as, c.Name, c.DataType, g, g.Numbers, want, want.Numbers)
			}
		}
	}
}

// statsEqual compares statistics with NaN equal to NaN and -0 to 0.
func statsEqual(a, b ColumnStats) bool {
	an, bn := a.Numbers, b.Numbers
	a.Numbers, b.Numbers = nil, nil
	if a.ModeKind == "number" && b.ModeKind == "number" {
		// The former mode of -0 and 0 (one group) was either, as the sort
		// left them; compare as numbers.
		am, _ := strconv.ParseFloat(a.Mode, 64)
		bm, _ := strconv.ParseFloat(b.Mode, 64)
		if am == bm {
			a.Mode = b.Mode
		}
	}
	if len(a.Values) == 0 && len(b.Values) == 0 {
		a.Values, b.Values = nil, nil
	}
	if !reflect.DeepEqual(a, b) || (an == nil) != (bn == nil) {
		return false
	}
	if an == nil {
		return true
	}
	x, y := *an, *bn
	same := func(p, q float64) bool { return p == q || (math.IsNaN(p) && math.IsNaN(q)) }

	for _, pq := range [][2]float64{{x.Min, y.Min}, {x.Max, y.Max}, {x.Median, y.Median}} {
		if !same(pq[0], pq[1]) {
			return false
		}
	}
	// Sums depend on the order of the additions: DuckDB's avg and
	// var_samp (Welford) and gonum's two-pass formula over sorted values
	// agree to about 1e-15 relative, which the rounding to 6 decimals hides
	// except for large values such as dates in Unix seconds.
	close := func(p, q float64) bool { return same(p, q) || math.Abs(p-q) <= 1e-12*math.Abs(q) }
	for _, pq := range [][2]float64{{x.Mean, y.Mean}, {x.Variance, y.Variance}, {x.StdDev, y.StdDev}} {
		if !close(pq[0], pq[1]) {
			return false
		}
	}
	// The mode, distinct count and buckets of the numbers of a categorical
	// column were never shown (its distribution is its values) and are no
	// longer computed.
	if a.Values == nil && (!same(x.Mode, y.Mode) || x.Distinct != y.Distinct || !reflect.DeepEqual(x.Buckets, y.Buckets)) {
		return false
	}
	return x.N == y.N
}

// TestStatsSpaces checks the trimmed characters against unicode.IsSpace,
// which strings.TrimSpace uses.
func TestStatsSpaces(t *testing.T) {
	in := map[rune]bool{}
	for _, r := range sqlgen.StatsSpaces() {
		in[r] = true
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if unicode.IsSpace(r) != in[r] {
			t.Errorf("StatsSpaces has %U = %v, unicode.IsSpace = %v", r, in[r], unicode.IsSpace(r))
		}
	}
}

// refColumnStats is the former implementation of column statistics, which
// held every value in memory: the oracle of TestStatsMatchesReference.
func (e *Engine) refColumnStats(ctx context.Context, schema, dataset string, c columnar.Column, as columnar.DataType) (ColumnStats, error) {
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
	acc := newRefAccumulator(eff)
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

// refAccumulator gathers one column's values for its statistics.
type refAccumulator struct {
	as      columnar.DataType
	s       ColumnStats
	numbers []float64
	// counts holds categorical values (string, text, logical). Keys are
	// copies: the text of a value aliases its Arrow batch, released after
	// the scan, and assigning to an existing string key rewrites the key,
	// hence the pointers.
	counts map[string]*int
}

func newRefAccumulator(as columnar.DataType) *refAccumulator {
	a := &refAccumulator{as: as}
	switch as.Storage() {
	case columnar.String, columnar.Logical:
		a.counts = map[string]*int{}
	}
	return a
}

// add takes one Arrow array of the column. native says the array already
// has the storage of the effective type, so no conversion is needed.
func (a *refAccumulator) add(arr arrow.Array, native bool) {
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
func (a *refAccumulator) addText(s string) {
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
func (a *refAccumulator) count(s string) {
	if n, ok := a.counts[s]; ok {
		*n++
		return
	}
	one := 1
	a.counts[strings.Clone(s)] = &one
}

func (a *refAccumulator) result() ColumnStats {
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
