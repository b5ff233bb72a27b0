package engine

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine/sqlgen"
)

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

// TestForecastBuckets: MODELLING §2.2's buckets in UTC, ISO weeks from
// Monday, and the arithmetic over them across month and year ends.
func TestForecastBuckets(t *testing.T) {
	for _, c := range []struct {
		in, interval, want string
	}{
		{"2018-07-22T13:45:10Z", "hour", "2018-07-22T13:00:00Z"},
		{"2018-07-22T13:45:10Z", "day", "2018-07-22T00:00:00Z"},
		{"2018-07-22T13:45:10Z", "week", "2018-07-16T00:00:00Z"}, // a Sunday: its Monday
		{"2018-07-16T00:00:00Z", "week", "2018-07-16T00:00:00Z"},
		{"2018-07-22T13:45:10Z", "month", "2018-07-01T00:00:00Z"},
		{"2018-07-22T13:45:10Z", "year", "2018-01-01T00:00:00Z"},
		{"2008-09-15T00:00:00+08:00", "hour", "2008-09-14T16:00:00Z"}, // cut in UTC
		{"2008-09-15T00:00:00+08:00", "day", "2008-09-14T00:00:00Z"},
	} {
		if got := truncBucket(utc(c.in), c.interval); !got.Equal(utc(c.want)) {
			t.Errorf("truncBucket(%s, %s) = %s, want %s", c.in, c.interval, got, c.want)
		}
	}
	for _, c := range []struct {
		from, interval string
		k              int
		want           string
	}{
		{"2018-12-31T23:00:00Z", "hour", 2, "2019-01-01T01:00:00Z"},
		{"2016-02-28T00:00:00Z", "day", 2, "2016-03-01T00:00:00Z"},
		{"2018-12-31T00:00:00Z", "week", 1, "2019-01-07T00:00:00Z"},
		{"2018-11-01T00:00:00Z", "month", 3, "2019-02-01T00:00:00Z"},
		{"2018-01-01T00:00:00Z", "year", -5, "2013-01-01T00:00:00Z"},
		{"2018-03-01T00:00:00Z", "month", -14, "2017-01-01T00:00:00Z"},
	} {
		got := addBuckets(utc(c.from), c.interval, c.k)
		if !got.Equal(utc(c.want)) {
			t.Errorf("addBuckets(%s, %s, %d) = %s, want %s", c.from, c.interval, c.k, got, c.want)
		}
		if n := bucketSteps(utc(c.from), got, c.interval); n != c.k {
			t.Errorf("bucketSteps(%s, %s, %s) = %d, want %d", c.from, got, c.interval, n, c.k)
		}
	}
}

// TestImputeSeries: MODELLING §12.2 on a series of buckets.
func TestImputeSeries(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		how  columnar.Imputation
		in   []float64
		want []float64
	}{
		{columnar.ImputeZeroes, []float64{nan, 1, nan, 3}, []float64{0, 1, 0, 3}},
		{columnar.ImputeMean, []float64{nan, 2, nan, nan, 6, nan}, []float64{2, 2, 4, 4, 6, 6}},
		{columnar.ImputeMedian, []float64{4, nan, 1, 3, 2}, []float64{4, 2, 1, 3, 2}}, // the lower middle value
		{columnar.ImputeMode, []float64{5, 2, 5, 2, nan}, []float64{5, 2, 5, 2, 2}},   // ties to the smallest
		{columnar.ImputeMin, []float64{5, nan, 7}, []float64{5, 5, 7}},
		{columnar.ImputeMax, []float64{5, nan, 7}, []float64{5, 7, 7}},
		{columnar.ImputeMean, []float64{nan, nan}, []float64{0, 0}},
	} {
		got := slices.Clone(c.in)
		imputeSeries(got, c.how)
		if !slices.Equal(got, c.want) {
			t.Errorf("imputeSeries(%v, %s) = %v, want %v", c.in, c.how, got, c.want)
		}
	}
}

// series is bucketed data of daily buckets from 2018-01-01: one slice
// per column, NaN for empty, and days with no row at all left out.
func series(days int, skip map[int]bool, cols ...func(i int) float64) *bucketedSeries {
	d := &bucketedSeries{values: make([][]float64, len(cols))}
	for i := range days {
		if skip[i] {
			continue
		}
		d.buckets = append(d.buckets, time.Date(2018, 1, 1+i, 0, 0, 0, 0, time.UTC))
		for c, f := range cols {
			d.values[c] = append(d.values[c], f(i))
		}
	}
	return d
}

// TestPlanForecast: MODELLING §2.3's history, gap, cap and features.
func TestPlanForecast(t *testing.T) {
	target := columnar.Column{Name: "y", DataType: columnar.Numeric, Role: columnar.RoleTarget}
	feat := columnar.Column{Name: "f", DataType: columnar.NumericMeasure, Role: columnar.RoleFeature}
	none := columnar.Column{Name: "g", DataType: columnar.Numeric, Role: columnar.RoleFeature}
	upTo := func(n int, v func(int) float64) func(int) float64 {
		return func(i int) float64 {
			if i >= n {
				return math.NaN()
			}
			return v(i)
		}
	}
	window := ForecastWindow{Start: utc("2018-04-15T10:00:00Z"), End: utc("2018-04-21T00:00:00Z"), Interval: "day"}
	// 100 days of y (to 2018-04-10), day 7 without a row; f until the
	// window's end but for 2018-04-18; g only over the history.
	d := series(111, map[int]bool{7: true},
		upTo(100, func(i int) float64 { return float64(i) }),
		func(i int) float64 {
			if i == 107 {
				return math.NaN()
			}
			return float64(i % 3)
		},
		upTo(100, func(i int) float64 { return 1 }))
	p, err := planForecast(window, target, []columnar.Column{feat, none}, d, DefaultMaxForecastBuckets)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.y) != 100 || p.y[7] != 0 || p.y[99] != 99 || p.observations != 99 || !p.historyStart.Equal(utc("2018-01-01T00:00:00Z")) {
		t.Errorf("history = %d buckets from %s, y[7] %v, y[99] %v, %d observed", len(p.y), p.historyStart, p.y[7], p.y[99], p.observations)
	}
	// The last value is 2018-04-10: 04-11 to 04-14 are the gap.
	if p.h != 7 || p.gap != 4 || !p.windowStart.Equal(utc("2018-04-15T00:00:00Z")) {
		t.Errorf("h %d gap %d window from %s, want 7, 4, 2018-04-15", p.h, p.gap, p.windowStart)
	}
	if !slices.Equal(p.featureNames, []string{"f"}) || len(p.xreg[0]) != 100 || len(p.future[0]) != 11 {
		t.Fatalf("features %v, %d + %d values", p.featureNames, len(p.xreg[0]), len(p.future[0]))
	}
	// f's empty 04-18 (day 107) is the mean of its neighbours.
	if got, want := p.future[0][107-100], (float64(106%3)+float64(108%3))/2; got != want {
		t.Errorf("f on 2018-04-18 = %v, want %v", got, want)
	}
	var msgs []string
	for _, m := range p.messages {
		msgs = append(msgs, m.Severity+": "+m.Text)
	}
	want := []string{
		"warning: Feature column g has no values for the prediction range of 2018-04-15T00:00:00.0000000Z - 2018-04-21T23:59:59.9999999Z",
		"informational: The last value of y is 4 day buckets before the forecast window; the forecast runs from 2018-04-11T00:00:00.0000000Z and only the window is returned.",
	}
	if !slices.Equal(msgs, want) {
		t.Errorf("messages:\n%s\nwant:\n%s", strings.Join(msgs, "\n"), strings.Join(want, "\n"))
	}

	// Target values at or after the window start are never used; the
	// history is capped to the last 2000 buckets.
	long := series(2600, nil, func(i int) float64 { return float64(i) })
	p, err = planForecast(ForecastWindow{Start: utc("2024-01-01T00:00:00Z"), End: utc("2024-01-10T00:00:00Z"), Interval: "day"}, target, nil, long, DefaultMaxForecastBuckets)
	if err != nil {
		t.Fatal(err)
	}
	first := bucketSteps(utc("2018-01-01T00:00:00Z"), utc("2024-01-01T00:00:00Z"), "day") - 2000
	if len(p.y) != 2000 || p.y[0] != float64(first) || p.gap != 0 || !p.historyCapped {
		t.Errorf("capped history = %d buckets from %v, gap %d", len(p.y), p.y[0], p.gap)
	}

	for _, c := range []struct {
		name string
		w    ForecastWindow
		want string
	}{
		{"short", ForecastWindow{Start: utc("2018-04-11T00:00:00Z"), End: utc("2018-06-30T00:00:00Z"), Interval: "day"},
			"This data source has too few data points for reliable predictions to be made: 100 day buckets of y before 2018-04-11T00:00:00.0000000Z, at least 162 are needed (twice the 81 buckets of the forecast window)."},
		{"too few days", ForecastWindow{Start: utc("2018-01-11T00:00:00Z"), End: utc("2018-01-11T00:00:00Z"), Interval: "day"},
			"This data source has too few data points for reliable predictions to be made: 10 day buckets of y before 2018-01-11T00:00:00.0000000Z, at least 14 are needed (twice the 1 buckets of the forecast window)."},
		{"before the data", ForecastWindow{Start: utc("2017-04-11T00:00:00Z"), End: utc("2017-06-30T00:00:00Z"), Interval: "day"},
			"No value of y was found before the forecast window starts at 2017-04-11T00:00:00.0000000Z."},
		{"window too long", ForecastWindow{Start: utc("2018-04-11T00:00:00Z"), End: utc("2038-06-30T00:00:00Z"), Interval: "day"},
			"The forecast window holds 7386 day buckets; at most 5000 can be forecast."},
	} {
		if _, err := planForecast(c.w, target, nil, d, DefaultMaxForecastBuckets); err == nil || err.Error() != c.want {
			t.Errorf("%s: err = %v, want %s", c.name, err, c.want)
		}
	}
}

// TestBucketSeries: the SQL aggregation into buckets (MODELLING §2.3
// steps 1–2) on a real DuckDB: ISO weeks, each column's aggregation, an
// all-missing bucket empty rather than a sum of 0.
func TestBucketSeries(t *testing.T) {
	e := newTestEngine(t)
	e.putTestCSV(t, "weeks", "ts,y,m\n"+
		"2018-07-16T08:00:00Z,1,4\n"+ // Monday
		"2018-07-22T23:00:00Z,2,1\n"+ // Sunday, same week
		"2018-07-20T00:00:00Z,,3\n"+
		"2018-07-23T00:00:00Z,,2\n"+ // next week: no y
		"2018-07-30T00:00:00Z,5,7\n")
	s := Session{DataSourceName: "weeks", Window: &ForecastWindow{Interval: "week"}}
	d, err := e.readBuckets(t.Context(), s, "ts", []sqlgen.AggColumn{{Name: "y", Aggregation: columnar.AggSum}, {Name: "m", Aggregation: columnar.AggMedian}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, b := range d.buckets {
		got = append(got, b.Format(time.DateOnly)+" "+fmtF(d.values[0][i])+" "+fmtF(d.values[1][i]))
	}
	want := []string{"2018-07-16 3 3", "2018-07-23 NaN 2", "2018-07-30 5 7"}
	if !slices.Equal(got, want) {
		t.Errorf("buckets = %q, want %q", got, want)
	}
}

// TestBucketSeriesOffset: buckets are cut in the window's zone
// (MODELLING §2.2): at +08:00 a day starts at 16:00Z, and a month at
// 16:00Z on the last day of the month before; planForecast counts them
// in that zone.
func TestBucketSeriesOffset(t *testing.T) {
	e := newTestEngine(t)
	e.putTestCSV(t, "local", "ts,y\n"+
		"2018-01-31T15:00:00Z,1\n"+ // 23:00 on Jan 31 at +08:00
		"2018-01-31T16:00:00Z,2\n"+ // 00:00 on Feb 1 at +08:00
		"2018-02-01T10:00:00Z,4\n"+ // 18:00 on Feb 1
		"2018-02-28T17:00:00Z,8\n") // 01:00 on Mar 1
	for _, c := range []struct {
		interval string
		offset   int
		want     []string
	}{
		{"day", 8 * 3600, []string{"2018-01-31T00:00:00+08:00 1", "2018-02-01T00:00:00+08:00 6", "2018-03-01T00:00:00+08:00 8"}},
		{"month", 8 * 3600, []string{"2018-01-01T00:00:00+08:00 1", "2018-02-01T00:00:00+08:00 6", "2018-03-01T00:00:00+08:00 8"}},
		{"day", 0, []string{"2018-01-31T00:00:00Z 3", "2018-02-01T00:00:00Z 4", "2018-02-28T00:00:00Z 8"}},
		{"month", -5 * 3600, []string{"2018-01-01T00:00:00-05:00 3", "2018-02-01T00:00:00-05:00 12"}},
	} {
		w := &ForecastWindow{Interval: c.interval, Offset: c.offset}
		d, err := e.readBuckets(t.Context(), Session{DataSourceName: "local", Window: w}, "ts", []sqlgen.AggColumn{{Name: "y", Aggregation: columnar.AggSum}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i, b := range d.buckets {
			got = append(got, b.Format(time.RFC3339)+" "+fmtF(d.values[0][i]))
			if !b.Equal(w.bucket(b)) {
				t.Errorf("%s at %d: SQL bucket %s is not Go's %s", c.interval, c.offset, b, w.bucket(b))
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s at %d: buckets = %q, want %q", c.interval, c.offset, got, c.want)
		}
	}
	// Months counted in the zone: Jan 31 16:00Z is Feb 1 at +08:00, one
	// bucket after January.
	w := ForecastWindow{Interval: "month", Offset: 8 * 3600}
	jan, feb := w.bucket(utc("2018-01-15T00:00:00Z")), w.bucket(utc("2018-01-31T16:00:00Z"))
	if n := bucketSteps(jan, feb, "month"); n != 1 || addBuckets(jan, "month", 1) != feb {
		t.Errorf("bucketSteps(Jan, Feb at +08:00) = %d, addBuckets = %s", n, addBuckets(jan, "month", 1))
	}
}

func fmtF(v float64) string {
	if math.IsNaN(v) {
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
