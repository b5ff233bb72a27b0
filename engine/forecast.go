package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/google/uuid"
	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/columnar"
	"github.com/vaticml/vatic/engine/sqlgen"
	"github.com/vaticml/vatic/stats"
	"github.com/vaticml/vatic/stats/forecast"
)

// Forecast sessions (REFERENCE §6.1, §6.10, §6.16, §7; MODELLING §2, §4).
// Where the reference is silent this server chooses:
//
//   - Buckets are cut in the UTC offset startDate carries (UTC when it
//     has none), as MODELLING §2.2 suggests: a daily forecast asked for
//     from 2018-01-01T00:00:00+08:00 has days that start at 16:00Z.
//     Result rows carry the bucket starts in UTC; startDate and endDate
//     are echoed as given (in UTC), not moved to their buckets' starts.
//   - The history runs from the first to the last bucket with a target
//     value before the window (capped to the last 2000); empty buckets
//     inside it are imputed and count in the selection's
//     observationCount. Target values at or after the window start are
//     never used.
//   - A gap between the last value and the window is forecast through
//     (the horizon grows by it) and an informational message says so; a
//     horizon beyond Options.MaxForecastBuckets fails the session.
//   - Numeric, numericMeasure and logical features are regressors; other
//     features are left out with a warning. A feature without a value in
//     the window is dropped with the recorded warning; its empty buckets
//     elsewhere are imputed with its strategy.
//   - A forecast saves no model (no modelId). Its feature importance is
//     MODELLING §9's score of each regressor against the target over the
//     history, as for model sessions (supportsFeatureImportance when a
//     regressor has one).
//   - availablePredictionIntervals is ["0.5"] until the session completes,
//     then the 7 levels; the default level is the 0.5 quantile.
//   - Contestants carry dataSourceProperties ["Aggregated", "Imputed"],
//     plus "Smoothed" for the Smoothed variant, as recorded; one
//     skipped or failed has metrics {} and, for a skip on the unsmoothed
//     series, a debug message names it and the reason.

// ForecastWindow is a forecast session's window (REFERENCE §6.1,
// MODELLING §2.2): startDate and endDate as given (UTC), the bucket size,
// and the offset east of UTC (seconds) startDate was written in, which
// the buckets are cut in.
type ForecastWindow struct {
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
	Interval string    `json:"interval"`
	Offset   int       `json:"offset,omitempty"`
}

// zone is the fixed zone the window's buckets are cut in.
func (w ForecastWindow) zone() *time.Location {
	if w.Offset == 0 {
		return time.UTC
	}
	return time.FixedZone("", w.Offset)
}

// bucket is the start of the window's bucket holding t, in its zone.
func (w ForecastWindow) bucket(t time.Time) time.Time {
	return truncBucket(t.In(w.zone()), w.Interval)
}

// Limits of a forecast session (MODELLING §2.3 step 4, §16).
const (
	// maxHistory is how many buckets of history a forecast fits on at
	// most: the most recent ones.
	maxHistory = 2000
	// DefaultMaxForecastBuckets is Options.MaxForecastBuckets' default,
	// the buckets a forecast predicts at most (the window and any gap
	// before it). The reference is silent; since the history is at most
	// 2000 buckets and must hold twice the window, a longer horizon could
	// only come from a gap, and forecasting thousands of buckets past the
	// data says nothing useful.
	DefaultMaxForecastBuckets = 5000
	// minDailyHistory is MODELLING §2.3 step 5's 14 days for daily data.
	minDailyHistory = 14
)

// forecastWindow validates a forecast request's startDate, endDate and
// resultInterval (default day, any case), adding what is wrong to the
// request's validation details.
func forecastWindow(req SessionRequest, add func(field, msg string)) *ForecastWindow {
	w := &ForecastWindow{Interval: "day"}
	parse := func(name, v string, dst *time.Time) int {
		if strings.TrimSpace(v) == "" {
			add(name, "The "+name+" field is required.")
			return 0
		}
		t, off, ok := columnar.ParseTimeOffset(v)
		if !ok {
			add(name, "Value for "+name+" must be a valid date")
			return 0
		}
		*dst = t.UTC()
		return off
	}
	w.Offset = parse("startDate", req.StartDate, &w.Start)
	parse("endDate", req.EndDate, &w.End)
	if iv := strings.TrimSpace(req.ResultInterval); iv != "" {
		l := strings.ToLower(iv)
		if !slices.Contains(sqlgen.BucketIntervals, l) {
			add("resultInterval", fmt.Sprintf("The value '%s' is not valid for resultInterval: it must be hour, day, week, month or year.", iv))
		} else {
			w.Interval = l
		}
	}
	return w
}

// checkForecastData checks at creation what a forecast needs of its data
// source's metadata: a numeric target and a timestamp column.
func checkForecastData(s *Session) error {
	t := s.Columns[columnIndex(s.Columns, s.TargetColumn)]
	if t.DataType != columnar.Numeric && t.DataType != columnar.NumericMeasure {
		return MetadataError(map[string][]string{t.Name: {fmt.Sprintf("The target of a forecast must be numeric; %s is %s.", t.Name, t.DataType)}})
	}
	ts := columnWithRole(s.Columns, columnar.RoleTimestamp)
	if ts == "" {
		return MetadataError(map[string][]string{"timestamp": {"A forecast needs a timestamp column: give a date column the role timestamp."}})
	}
	if c := s.Columns[columnIndex(s.Columns, ts)]; c.DataType != columnar.Date {
		return MetadataError(map[string][]string{ts: {fmt.Sprintf("The timestamp column of a forecast must be a date; %s is %s.", ts, c.DataType)}})
	}
	return nil
}

// forecastIntervals are the availablePredictionIntervals of a completed
// forecast session: every forecast offers the 7 levels (MODELLING §2.9).
func forecastIntervals() []string {
	out := make([]string, len(forecast.Levels))
	for i, l := range forecast.Levels {
		out[i] = fmt.Sprint(l)
	}
	return out
}

// truncBucket is the start of the bucket holding t (MODELLING §2.2): UTC,
// weeks start on ISO Monday. The bucket is cut in t's location (the
// window's zone, ForecastWindow.bucket) and carries it, so addBuckets and
// bucketSteps count months and years in that zone too.
func truncBucket(t time.Time, interval string) time.Time {
	loc := t.Location()
	y, m, d := t.Date()
	switch interval {
	case "hour":
		return time.Date(y, m, d, t.Hour(), 0, 0, 0, loc)
	case "week":
		day := time.Date(y, m, d, 0, 0, 0, 0, loc)
		return day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
	case "month":
		return time.Date(y, m, 1, 0, 0, 0, 0, loc)
	case "year":
		return time.Date(y, 1, 1, 0, 0, 0, 0, loc)
	}
	return time.Date(y, m, d, 0, 0, 0, 0, loc)
}

// addBuckets moves a bucket start k buckets (k may be negative).
func addBuckets(t time.Time, interval string, k int) time.Time {
	switch interval {
	case "hour":
		return t.Add(time.Duration(k) * time.Hour)
	case "week":
		return t.AddDate(0, 0, 7*k)
	case "month":
		return t.AddDate(0, k, 0)
	case "year":
		return t.AddDate(k, 0, 0)
	}
	return t.AddDate(0, 0, k)
}

// bucketSteps is how many buckets b lies after a (both bucket starts).
func bucketSteps(a, b time.Time, interval string) int {
	switch interval {
	case "hour":
		return int(b.Sub(a) / time.Hour)
	case "week":
		return int(b.Sub(a)/(24*time.Hour)) / 7
	case "month":
		return (b.Year()-a.Year())*12 + int(b.Month()) - int(a.Month())
	case "year":
		return b.Year() - a.Year()
	}
	return int(b.Sub(a) / (24 * time.Hour))
}

// intervalAdjective names a bucket size in messages.
func intervalAdjective(interval string) string {
	switch interval {
	case "hour":
		return "hourly"
	case "day":
		return "daily"
	}
	return interval + "ly"
}

// forecastSeasons are the seasonal periods of each interval (MODELLING
// §2.7).
func forecastSeasons(interval string) []forecast.Season {
	switch interval {
	case "hour":
		return []forecast.Season{{Period: 24, Code: "HD"}, {Period: 168, Code: "HW"}}
	case "day":
		return []forecast.Season{{Period: 7, Code: "W"}, {Period: 365.25, Code: "A"}}
	case "week":
		return []forecast.Season{{Period: 52.18, Code: "WA"}}
	case "month":
		return []forecast.Season{{Period: 12, Code: "MA"}}
	}
	return nil
}

// rowTime formats a timestamp as result rows do (REFERENCE §1.4).
func rowTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.0000000Z") }

// bucketedSeries is a data source aggregated into buckets: the bucket
// starts ascending and each column's values (NaN when empty).
type bucketedSeries struct {
	buckets []time.Time
	values  [][]float64
}

// readBuckets runs sqlgen.BucketSeries.
func (e *Engine) readBuckets(ctx context.Context, s Session, ts string, cols []sqlgen.AggColumn) (*bucketedSeries, error) {
	schema := sqlgen.DataSchema
	if s.sourceIsView {
		schema = sqlgen.ViewSchema
	}
	q, err := sqlgen.BucketSeries(schema, s.DataSourceName, ts, s.Window.Interval, s.Window.Offset, cols)
	if err != nil {
		return nil, err
	}
	rows, err := e.store.Rows(ctx, q)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &Error{Kind: Invalid, Msg: fmt.Sprintf("The data source %s could not be read: it changed or was removed since the session was requested.", s.DataSourceName), Err: err}
	}
	defer rows.Close()
	out := &bucketedSeries{values: make([][]float64, len(cols))}
	zone := s.Window.zone()
	dst := make([]any, len(cols)+1)
	var b time.Time
	vals := make([]*float64, len(cols))
	dst[0] = &b
	for i := range vals {
		dst[i+1] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(dst...); err != nil {
			return nil, err
		}
		out.buckets = append(out.buckets, b.In(zone))
		for i, v := range vals {
			f := math.NaN()
			if v != nil && !math.IsInf(*v, 0) {
				f = *v
			}
			out.values[i] = append(out.values[i], f)
		}
	}
	return out, rows.Err()
}

// aggregationOf is a column's aggregation, its type's default when unset.
func aggregationOf(c columnar.Column) columnar.Aggregation {
	if c.Aggregation != "" {
		return c.Aggregation
	}
	_, a := columnar.Defaults(c.DataType)
	return a
}

// imputeSeries fills the empty (NaN) buckets of v in place (MODELLING
// §12.2): zeroes; mean of the nearest observed values on each side, or
// the one neighbour at an end; the lower median, the mode (ties to the
// smallest), min or max of the observed values. A series with no value
// at all is filled with zeroes.
func imputeSeries(v []float64, how columnar.Imputation) {
	var obs []float64
	for _, x := range v {
		if !math.IsNaN(x) {
			obs = append(obs, x)
		}
	}
	if len(obs) == len(v) {
		return
	}
	if how == columnar.ImputeMean && len(obs) > 0 {
		imputeNeighbours(v)
		return
	}
	fill := impute(obs, how)
	for i, x := range v {
		if math.IsNaN(x) {
			v[i] = fill
		}
	}
}

// imputeNeighbours fills each run of empty buckets with the mean of the
// observed values either side of it, or the one neighbour at an end.
func imputeNeighbours(v []float64) {
	for i := 0; i < len(v); {
		if !math.IsNaN(v[i]) {
			i++
			continue
		}
		j := i
		for j < len(v) && math.IsNaN(v[j]) {
			j++
		}
		var fill float64
		switch {
		case i > 0 && j < len(v):
			fill = (v[i-1] + v[j]) / 2
		case i > 0:
			fill = v[i-1]
		case j < len(v):
			fill = v[j]
		}
		for k := i; k < j; k++ {
			v[k] = fill
		}
		i = j
	}
}

// forecastPlan is a forecast session's prepared series (MODELLING §2.3).
type forecastPlan struct {
	interval      string
	historyStart  time.Time // the first history bucket
	y             []float64 // the target over the history, imputed
	h, gap        int       // window length and empty buckets between history and window
	windowStart   time.Time
	xreg, future  [][]float64
	featureNames  []string
	messages      []Message
	observations  int       // history buckets with an observed target value
	actual        []float64 // the target over the window as bucketed (NaN when empty)
	historyCapped bool
}

// planForecast builds the training series of MODELLING §2.3 from the
// bucketed data: history = the buckets strictly before the window from
// the first to the last with a target value, capped to the last
// maxHistory; features over the history and the horizon (the gap and the
// window), a feature without a value in the window dropped with a
// warning.
// maxHorizon is Options.MaxForecastBuckets.
func planForecast(w ForecastWindow, target columnar.Column, features []columnar.Column, data *bucketedSeries, maxHorizon int) (*forecastPlan, error) {
	iv := w.Interval
	w0, w1 := w.bucket(w.Start), w.bucket(w.End)
	h := bucketSteps(w0, w1, iv) + 1
	p := &forecastPlan{interval: iv, h: h, windowStart: w0}
	if h > maxHorizon {
		return nil, &Error{Kind: Invalid, Msg: fmt.Sprintf("The forecast window holds %d %s buckets; at most %d can be forecast.", h, iv, maxHorizon)}
	}
	ty := data.values[0]
	first, last := -1, -1
	for i, b := range data.buckets {
		if !b.Before(w0) {
			break
		}
		if !math.IsNaN(ty[i]) {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if last < 0 {
		return nil, &Error{Kind: Invalid, Msg: fmt.Sprintf("No value of %s was found before the forecast window starts at %s.", target.Name, rowTime(w0))}
	}
	lastB := data.buckets[last]
	start := data.buckets[first]
	n := bucketSteps(start, lastB, iv) + 1
	if n > maxHistory {
		start, n, p.historyCapped = addBuckets(lastB, iv, -(maxHistory-1)), maxHistory, true
	}
	p.historyStart = start
	p.gap = bucketSteps(lastB, w0, iv) - 1
	if p.gap+h > maxHorizon {
		return nil, &Error{Kind: Invalid, Msg: fmt.Sprintf("The forecast window starts %d %s buckets after the last value of %s (%s); at most %d buckets can be forecast past the data.",
			p.gap+1, iv, target.Name, rowTime(lastB), maxHorizon)}
	}
	total := n + p.gap + h
	grid := make([][]float64, len(data.values))
	for c := range grid {
		grid[c] = make([]float64, total)
		for i := range grid[c] {
			grid[c][i] = math.NaN()
		}
	}
	for i, b := range data.buckets {
		k := bucketSteps(start, b, iv)
		if k < 0 || k >= total {
			continue
		}
		for c := range grid {
			grid[c][k] = data.values[c][i]
		}
	}
	p.y = grid[0][:n]
	p.actual = slices.Clone(grid[0][n+p.gap:])
	for _, v := range p.y {
		if !math.IsNaN(v) {
			p.observations++
		}
	}
	imputeSeries(p.y, imputationOf(target))
	if n < 2*h || (iv == "day" && n < minDailyHistory) {
		need := max(2*h, 0)
		if iv == "day" {
			need = max(need, minDailyHistory)
		}
		return nil, &Error{Kind: Invalid, Msg: fmt.Sprintf("This data source has too few data points for reliable predictions to be made: %d %s buckets of %s before %s, at least %d are needed (twice the %d buckets of the forecast window).",
			n, iv, target.Name, rowTime(w0), need, h)}
	}
	wEnd := addBuckets(w1, iv, 1)
	for fi, f := range features {
		v := grid[fi+1]
		seen := false
		for _, x := range v[n+p.gap:] {
			if !math.IsNaN(x) {
				seen = true
				break
			}
		}
		if !seen {
			p.messages = append(p.messages, Message{"warning", fmt.Sprintf("Feature column %s has no values for the prediction range of %s - %s", f.Name, rowTime(w0), rowTime(wEnd.Add(-100)))})
			continue
		}
		imputeSeries(v, imputationOf(f))
		p.featureNames = append(p.featureNames, f.Name)
		p.xreg = append(p.xreg, v[:n])
		p.future = append(p.future, v[n:])
	}
	if p.gap > 0 {
		p.messages = append(p.messages, Message{"informational", fmt.Sprintf("The last value of %s is %d %s buckets before the forecast window; the forecast runs from %s and only the window is returned.",
			target.Name, p.gap, iv, rowTime(addBuckets(lastB, iv, 1)))})
	}
	if p.historyCapped {
		p.messages = append(p.messages, Message{"informational", fmt.Sprintf("Only the last %d buckets of history, from %s, were used.", maxHistory, rowTime(start))})
	}
	return p, nil
}

// seriesColumns are the columns a time-series session reads: the
// timestamp, the target, the regressors and the aggregations bucketing
// them, with a warning for each feature left out.
type seriesColumns struct {
	ts       string
	target   columnar.Column
	features []columnar.Column
	aggs     []sqlgen.AggColumn
	msgs     []Message
}

// seriesInputs picks a time-series session's columns: numeric,
// numericMeasure and logical features are regressors; other features are
// left out with a warning.
func seriesInputs(s Session) (seriesColumns, error) {
	ts := columnWithRole(s.Columns, columnar.RoleTimestamp)
	ti := columnIndex(s.Columns, s.TargetColumn)
	if ts == "" || ti < 0 {
		return seriesColumns{}, &Error{Kind: Invalid, Msg: "The session's data source has no timestamp or target column."}
	}
	target := s.Columns[ti]
	out := seriesColumns{ts: ts, target: target, aggs: []sqlgen.AggColumn{{Name: target.Name, Aggregation: aggregationOf(target)}}}
	for _, c := range s.Columns {
		if c.Name == target.Name || c.Name == ts || c.Role != columnar.RoleFeature {
			continue
		}
		switch c.DataType {
		case columnar.Numeric, columnar.NumericMeasure, columnar.Logical:
			out.features = append(out.features, c)
			out.aggs = append(out.aggs, sqlgen.AggColumn{Name: c.Name, Aggregation: aggregationOf(c)})
		default:
			out.msgs = append(out.msgs, Message{"warning", fmt.Sprintf("Feature column %s is not used: a %s takes numeric and logical features only.", c.Name, s.Type)})
		}
	}
	return out, nil
}

// runForecast performs a forecast session (MODELLING §2): bucket the data
// source in SQL, build the history, run the time-series contest and store
// the series with its outliers, the contestants' holdout forecasts, the
// window's forecast at every level, the contestants and the selection.
func (e *Engine) runForecast(ctx context.Context, s Session, progress func(int)) error {
	if s.Window == nil {
		return fmt.Errorf("forecast session %s has no window", s.ID)
	}
	in, err := seriesInputs(s)
	if err != nil {
		return err
	}
	ts, target, msgs := in.ts, in.target, in.msgs
	count, err := e.countTargetRows(ctx, s.DataSourceName, s.sourceIsView, target.Name)
	if err != nil {
		return err
	}
	data, err := e.readBuckets(ctx, s, ts, in.aggs)
	if err != nil {
		return err
	}
	plan, err := planForecast(*s.Window, target, in.features, data, e.opts.MaxForecastBuckets)
	if err != nil {
		return err
	}
	wEnd := addBuckets(s.Window.bucket(s.Window.End), plan.interval, 1)
	msgs = append([]Message{
		{"informational", fmt.Sprintf("%d observations were found in the dataset.", count)},
		{"informational", fmt.Sprintf("%d %s observations were found in the dataset before %s.", plan.observations, intervalAdjective(plan.interval), rowTime(wEnd.Add(-100)))},
	}, append(msgs, plan.messages...)...)
	msgs = append(msgs, seasonsLeftOut(plan)...)
	progress(10)
	if err := ctx.Err(); err != nil {
		return err
	}
	res, err := forecast.ContestContext(ctx, plan.y, forecast.ContestOptions{
		Seasons: forecastSeasons(plan.interval), Holdout: plan.h, Horizon: plan.gap + plan.h,
		Xreg: plan.xreg, FutureXreg: plan.future, Smoothed: true, Seed: sessionSeed(s.ID), Workers: runtime.GOMAXPROCS(0),
		Progress: func(done, total int) { progress(10 + 80*done/total) },
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	progress(90)
	var contestants []Contestant
	if res != nil {
		contestants = forecastContestants(res.Contestants)
		for _, c := range res.Contestants {
			var se *forecast.SkipError
			if !c.Smoothed && errors.As(c.Err, &se) {
				msgs = append(msgs, Message{"debug", fmt.Sprintf("%s was skipped: %s.", c.Key, se.Reason)})
			}
		}
	}
	if errors.Is(err, forecast.ErrNoChampion) {
		return e.failContest(ctx, s, contestants, msgs)
	}
	if err != nil {
		return &Error{Kind: Invalid, Msg: "The forecast could not be computed: " + err.Error(), Err: err}
	}
	champ := contestants[res.Champion]
	importance := plan.importance(sessionSeed(s.ID))
	return e.store.Tx(ctx, func(ctx context.Context) error {
		if err := e.writeSeries(ctx, s, ts, plan, res.Outliers); err != nil {
			return err
		}
		if err := e.writeHoldouts(ctx, s.ID, contestants, res.Contestants, len(plan.y)-plan.h); err != nil {
			return err
		}
		if err := e.writeForecast(ctx, s.ID, plan, res.Forecast); err != nil {
			return err
		}
		if err := e.saveContestants(ctx, s.ID, contestants); err != nil {
			return err
		}
		if err := e.saveSelection(ctx, s.ID, forecastSelection(plan, res.Outliers)); err != nil {
			return err
		}
		supports, err := e.saveImportance(ctx, s.ID, plan.featureNames, importance)
		if err != nil {
			return err
		}
		return e.completeSession(ctx, s.ID, sessionEnd{champion: champ, supports: supports, messages: msgs})
	})
}

// importance scores the regressors against the target over the history
// with MODELLING §9's measure, as model sessions do; a logical feature
// (its buckets' values all 0 or 1) counts as discrete. Nil without
// regressors.
func (p *forecastPlan) importance(seed uint64) []float64 {
	if len(p.xreg) == 0 {
		return nil
	}
	n := len(p.y)
	x := mat.NewDense(n, len(p.xreg), nil)
	discrete := make([]bool, len(p.xreg))
	for j, col := range p.xreg {
		discrete[j] = true
		for i, v := range col {
			x.Set(i, j, v)
			if v != 0 && v != 1 {
				discrete[j] = false
			}
		}
	}
	return stats.FeatureImportance(x, p.y, discrete, false, seed, runtime.GOMAXPROCS(0))
}

// seasonsLeftOut are the debug messages of the interval's seasons whose
// candidates the contest leaves out (MODELLING §2.5's
// SeasonalityAlgorithmFilter): the buckets fitted on, the history without
// the holdout, hold fewer than two cycles (forecast.ContestOptions).
func seasonsLeftOut(p *forecastPlan) []Message {
	var out []Message
	train := len(p.y) - p.h
	for _, s := range forecastSeasons(p.interval) {
		if lag := int(math.Round(s.Period)); 2*lag > train {
			out = append(out, Message{"debug", fmt.Sprintf("The seasonal candidates +%s (a period of %g %s buckets) were left out: the %d buckets they would be fitted on hold fewer than two cycles.",
				s.Code, s.Period, p.interval, train)})
		}
	}
	return out
}

// forecastSelection is /contest/selection of a forecast: one set per
// variant (the Smoothed one when outliers were found) with MODELLING
// §1.3's counts (observationCount counts the history's buckets, imputed
// ones included: the series the contest ran on) and the seasonal strength
// of each of the interval's periods the history holds more than two
// cycles of.
func forecastSelection(p *forecastPlan, o forecast.Outliers) []SelectionSet {
	n := len(p.y)
	m := func(y []float64) map[string]float64 {
		out := map[string]float64{"observationCount": float64(n), "trainingCount": float64(n - p.h), "testCount": float64(p.h),
			"featureCount": float64(len(p.featureNames))}
		for _, s := range forecastSeasons(p.interval) {
			lag := int(math.Round(s.Period))
			d, err := forecast.MSTL(y, lag, false)
			if err != nil {
				continue
			}
			if v := forecast.SeasonalStrength(d); !math.IsNaN(v) && !math.IsInf(v, 0) {
				out[seasonalityKeys[s.Code]] = v
			}
		}
		return out
	}
	out := []SelectionSet{{Properties: seriesProperties(false), Metrics: m(p.y)}}
	if len(o.Index) > 0 {
		clean := slices.Clone(p.y)
		for i, t := range o.Index {
			clean[t] = o.Replacement[i]
		}
		out = append(out, SelectionSet{Properties: seriesProperties(true), Metrics: m(clean)})
	}
	return out
}

// seriesProperties are the dataSourceProperties of a forecast's series
// variant, as recorded (JS get-sessions-contest): every series is
// aggregated and imputed, the Smoothed one has its outliers replaced.
func seriesProperties(smoothed bool) []string {
	if smoothed {
		return []string{"Aggregated", "Imputed", "Smoothed"}
	}
	return []string{"Aggregated", "Imputed"}
}

// seasonalityKeys name the selection metric of each seasonal period
// (MODELLING §1.3's proposal: dailySeasonality, weeklySeasonality,
// yearlySeasonality).
var seasonalityKeys = map[string]string{"HD": "dailySeasonality", "HW": "weeklySeasonality", "W": "weeklySeasonality",
	"A": "yearlySeasonality", "WA": "yearlySeasonality", "MA": "yearlySeasonality"}

// forecastAlgorithms names the contest's methods (MODELLING §2.6, §2.7).
var forecastAlgorithms = map[string][2]string{
	"naive":           {"Naive", "Repeats the last observed value"},
	"naive2":          {"Naive 2", "Repeats the last value of the seasonally adjusted series, re-seasonalised"},
	"theta":           {"Theta", "Simple exponential smoothing with drift on the seasonally adjusted series"},
	"seasonal_naive":  {"Seasonal Naive", "Repeats the value of the same season one cycle back"},
	"seasonal_mean":   {"Seasonal Mean", "Mean of all past values of the same season"},
	"seasonal_median": {"Seasonal Median", "Median of all past values of the same season"},
	"ETS":             {"ETS", "Exponential smoothing state space model (error, trend, season)"},
	"ARIMA":           {"ARIMA", "Autoregressive integrated moving average model"},
	"ARIMAX":          {"ARIMA w/ Exogenous Variables", "Regression on the features with ARIMA errors"},
	"STL-ETS":         {"Seasonal by Loess w/ ETS Model", "STL decomposition, ETS on the seasonally adjusted series"},
	"STL-ARIMA":       {"Seasonal by Loess w/ ARIMA Model", "STL decomposition, ARIMA on the seasonally adjusted series"},
	"TSLM":            {"Linear Regression w/ Trend", "Linear regression on a trend, seasonal terms and the features"},
	"LM":              {"Linear Regression", "Models the relationship between a dependent variable and exogenous regressor variables"},
	"ENSEMBLE":        {"Ensemble", "An algorithm that ensembles output of other algorithms."},
}

// seasonNames names the seasonality suffixes of MODELLING §2.7.
var seasonNames = map[string]string{"HD": "Daily", "HW": "Weekly", "W": "Weekly", "A": "Annual", "WA": "Annual", "MA": "Annual"}

// forecastAlgorithm is a contestant key's {key, name, description}:
// "ETS+MA" is "ETS w/ Annual".
func forecastAlgorithm(key string) Algorithm {
	base, season, _ := strings.Cut(strings.TrimRight(key, "'"), "+")
	nd, ok := forecastAlgorithms[base]
	if !ok {
		nd = [2]string{base, base}
	}
	name := nd[0]
	if season != "" {
		sn := seasonNames[season]
		if sn == "" {
			sn = season
		}
		if strings.Contains(name, " w/ ") {
			name += " + " + sn
		} else {
			name += " w/ " + sn
		}
	}
	return Algorithm{Key: key, Name: name, Description: nd[1]}
}

// forecastContestants are the contest's contestants as the catalog keeps
// them: seriesProperties of their variant, metrics {} and
// the reason for a candidate skipped or failed.
func forecastContestants(cs []forecast.Contestant) []Contestant {
	out := make([]Contestant, len(cs))
	for i, c := range cs {
		ct := Contestant{ID: uuid.NewString(), Algorithm: forecastAlgorithm(c.Key), Properties: seriesProperties(c.Smoothed),
			Metrics: map[string]float64{}, Importance: map[string]float64{}}
		if c.Err != nil {
			ct.Message = c.Err.Error()
			if strings.Contains(ct.Message, "panicked") {
				ct.Message = "The algorithm failed on this data source."
			}
		} else {
			for k, v := range c.Metrics {
				if !math.IsNaN(v) && !math.IsInf(v, 0) {
					ct.Metrics[k] = v
				}
			}
		}
		out[i] = ct
	}
	return out
}

// appendTable appends one record batch to a table of ResultsSchema.
func (e *Engine) appendTable(ctx context.Context, table string, rec arrow.RecordBatch) error {
	rr, err := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
	if err != nil {
		return err
	}
	defer rr.Release()
	t, err := columnar.QualifiedIdent(sqlgen.ResultsSchema, table)
	if err != nil {
		return err
	}
	_, err = e.store.Append(ctx, t, rr)
	return err
}

var tsType = &arrow.TimestampType{Unit: arrow.Microsecond}

// writeSeries stores the history: bucket start, target value and, for an
// outlier, the Smoothed variant's value.
func (e *Engine) writeSeries(ctx context.Context, s Session, ts string, p *forecastPlan, o forecast.Outliers) error {
	q, err := sqlgen.CreateSeries(s.ID, ts, s.TargetColumn)
	if err != nil {
		return err
	}
	if _, err := e.store.Exec(ctx, q); err != nil {
		return fmt.Errorf("create series: %w", err)
	}
	smooth := map[int]float64{}
	for i, t := range o.Index {
		smooth[t] = o.Replacement[i]
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: sqlgen.RowColumn, Type: arrow.PrimitiveTypes.Int64},
		{Name: ts, Type: tsType},
		{Name: s.TargetColumn, Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: sqlgen.SmoothColumn, Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(e.opts.Allocator, schema)
	defer b.Release()
	for i, v := range p.y {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(addBuckets(p.historyStart, p.interval, i).UnixMicro()))
		b.Field(2).(*array.Float64Builder).Append(v)
		if sv, ok := smooth[i]; ok {
			b.Field(3).(*array.Float64Builder).Append(sv)
		} else {
			b.Field(3).(*array.Float64Builder).AppendNull()
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return e.appendTable(ctx, sqlgen.SnapshotTable(s.ID), rec)
}

// writeHoldouts stores each fitted contestant's forecast of the holdout,
// whose first bucket is row train of the series.
func (e *Engine) writeHoldouts(ctx context.Context, id string, cs []Contestant, fc []forecast.Contestant, train int) error {
	return e.writePredictionRows(ctx, id, func(emit func(contestant string, row int64, v float64)) {
		for i, c := range fc {
			if c.Err != nil {
				continue
			}
			for j, v := range c.Holdout.Mean {
				emit(cs[i].ID, int64(train+j), v)
			}
		}
	})
}

// writeForecast stores the window's rows of the champion's forecast (the
// last h of its gap + h buckets) at every level; a level the model did
// not fill is its point forecast.
func (e *Engine) writeForecast(ctx context.Context, id string, p *forecastPlan, f forecast.Forecast) error {
	q, err := sqlgen.CreateForecast(id, forecast.NumLevels)
	if err != nil {
		return err
	}
	if _, err := e.store.Exec(ctx, q); err != nil {
		return fmt.Errorf("create forecast: %w", err)
	}
	fields := []arrow.Field{{Name: "bucket", Type: tsType}}
	for i := range forecast.NumLevels {
		fields = append(fields, arrow.Field{Name: sqlgen.QuantileColumn(i), Type: arrow.PrimitiveTypes.Float64, Nullable: true})
	}
	schema := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(e.opts.Allocator, schema)
	defer b.Release()
	for j := range p.h {
		k := p.gap + j
		b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(addBuckets(p.windowStart, p.interval, j).UnixMicro()))
		for i := range forecast.NumLevels {
			v := math.NaN()
			if k < len(f.Quantiles[i]) {
				v = f.Quantiles[i][k]
			} else if k < len(f.Mean) {
				v = f.Mean[k]
			}
			fb := b.Field(i + 1).(*array.Float64Builder)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				fb.AppendNull()
			} else {
				fb.Append(v)
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return e.appendTable(ctx, sqlgen.ForecastTable(id), rec)
}
