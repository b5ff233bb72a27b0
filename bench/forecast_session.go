package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Fixed parameters and targets of the forecastsession workload.
const (
	// ForecastSessionMASETolerance is how far, relatively, the session's
	// holdout MASE may lie from the bare contest's on the same values: the
	// session should add no loss, and its results carry every digit of a
	// float64 (strconv 'g', -1), so the two should be equal but for the
	// last bits of a different summation order.
	ForecastSessionMASETolerance = 1e-9
	// ForecastSessionTimeTarget bounds the session's wall time (POST to
	// seeing completed) ÷ the bare contest's, after ForecastSessionAllowance
	// is taken off the session's.
	ForecastSessionTimeTarget = 1.2
	// ForecastSessionAllowance is the fixed cost a session may add to the
	// contest whatever the series: the POST and the GETs that poll it
	// (every 20 ms: 10 ms late on average, 20 at worst), the SQL that
	// buckets the dataset and the transaction that writes the series, the
	// holdouts, the forecast at 7 levels, the contestants and the
	// selection into DuckDB (tens of ms; see the session's statusHistory).
	// Without it a 3 ms contest on 92 yearly points could not pass.
	ForecastSessionAllowance = 100 * time.Millisecond
	// ForecastFeatureTarget bounds the time of a forecast session on
	// ForecastDailyBuckets days with one feature, POST to completed.
	ForecastFeatureTarget = 40 * time.Second
	// ForecastFeatureH is the window of that session, days.
	ForecastFeatureH = 14
	// ForecastSessionHistory is MODELLING §2.3's cap: a session fits on
	// the last 2000 buckets of its history at most.
	ForecastSessionHistory = 2000
)

// UnitServerNs is a session's own time from its statusHistory: started
// to completed, ns.
const UnitServerNs = "server-ns"

// seriesStarts are the dates the forecastsession workload gives the first
// point of each series: the first timestamp of the ../shared/data files
// (every row of co2_weekly is 7 days after the last, of elec_equip_monthly
// a month, of nile_yearly a year), and the start of R's datasets.
var seriesStarts = map[string]string{
	"co2_weekly":         "1958-03-29",
	"elec_equip_monthly": "1995-01-01",
	"nile_yearly":        "1871-01-01",
	"AirPassengers":      "1949-01-01",
	"co2":                "1959-01-01",
	"UKDriverDeaths":     "1969-01-01",
}

// seriesInterval is the resultInterval of a series of that period.
func seriesInterval(period int) string {
	switch period {
	case 52:
		return "week"
	case 12:
		return "month"
	case 7:
		return "day"
	case 24:
		return "hour"
	}
	return "year"
}

// seriesDates are n dates one interval apart from start.
func seriesDates(start time.Time, interval string, n int) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		switch interval {
		case "hour":
			out[i] = start.Add(time.Duration(i) * time.Hour)
		case "week":
			out[i] = start.AddDate(0, 0, 7*i)
		case "month":
			out[i] = start.AddDate(0, i, 0)
		case "year":
			out[i] = start.AddDate(i, 0, 0)
		default:
			out[i] = start.AddDate(0, 0, i)
		}
	}
	return out
}

// writeSeriesCSV writes timestamp,value (and feature, when not nil) rows:
// dates as 2006-01-02 (or RFC 3339 when they have a time of day), values
// with every digit (strconv 'g', -1), NaN as an empty cell.
func writeSeriesCSV(path string, dates []time.Time, y, feature []float64) error {
	header := []string{"timestamp", "value"}
	if feature != nil {
		header = append(header, "promo")
	}
	f := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	rows := make([][]string, len(y))
	for i, d := range dates[:len(y)] {
		ts := d.Format(time.DateOnly)
		if d.Truncate(24*time.Hour) != d {
			ts = d.Format(time.RFC3339)
		}
		rows[i] = []string{ts, f(y[i])}
		if feature != nil {
			rows[i] = append(rows[i], f(feature[i]))
		}
	}
	return writeCSVFile(path, header, rows)
}

// SeriesRequest is the body of POST /sessions/forecast and
// /sessions/impact (REFERENCE §6.1, §6.2).
type SeriesRequest struct {
	DataSourceName string `json:"dataSourceName"`
	TargetColumn   string `json:"targetColumn"`
	EventName      string `json:"eventName,omitempty"`
	StartDate      string `json:"startDate"`
	EndDate        string `json:"endDate"`
	ResultInterval string `json:"resultInterval"`
}

// CreateSeriesSession starts a forecast or impact session (kind) and
// returns the answer.
func (c *Client) CreateSeriesSession(ctx context.Context, kind string, r SeriesRequest) (Session, error) {
	body, _ := json.Marshal(r)
	req, err := c.newRequest(ctx, http.MethodPost, strings.TrimRight(c.BaseURL, "/")+"/sessions/"+kind, bytes.NewReader(body))
	if err != nil {
		return Session{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	return c.session(req)
}

// SeriesResults is the part of GET /sessions/{id}/results of a forecast
// or impact session the harness reads: the metrics and the rows, each
// mapping the timestamp and target columns to their values as text.
type SeriesResults struct {
	Metrics    map[string]float64  `json:"metrics"`
	Data       []map[string]string `json:"data"`
	TotalCount int                 `json:"totalCount"`
}

// SeriesResults reads the first page of pageSize rows of a session's
// results.
func (c *Client) SeriesResults(ctx context.Context, id string, pageSize int) (SeriesResults, error) {
	u := strings.TrimRight(c.BaseURL, "/") + "/sessions/" + url.PathEscape(id) + "/results?pageSize=" + strconv.Itoa(pageSize)
	var out SeriesResults
	if err := c.getJSON(ctx, u, "results of session "+id, &out); err != nil {
		return SeriesResults{}, err
	}
	return out, nil
}

// column returns the named column of the rows as numbers, in order.
func (r SeriesResults) column(name string) ([]float64, error) {
	out := make([]float64, len(r.Data))
	for i, row := range r.Data {
		s, ok := row[name]
		if !ok {
			return nil, fmt.Errorf("bench: results row %d has no column %q: %v", i+1, name, row)
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("bench: results row %d: %s = %q is not a number", i+1, name, s)
		}
		out[i] = v
	}
	return out, nil
}

// ForecastFeatureSeries is the forecastsession workload's daily series
// with a feature: ForecastDailyBuckets days of history and
// ForecastFeatureH days of window, fixed by seed. promo is 1 on about one
// day in eight (at random, and always on the window's 4th and 11th days,
// so that the window has some) and adds 40 to the day's value, which is
// otherwise [ForecastDailySeries]'s shape: a trend, weekly and yearly
// cycles and Gaussian noise of sd 6. promo is known over the window too.
func ForecastFeatureSeries(seed int64) (y, promo []float64) {
	n := ForecastDailyBuckets + ForecastFeatureH
	rng := rand.New(rand.NewPCG(uint64(seed), 0x70726f6d))
	y, promo = make([]float64, n), make([]float64, n)
	for i := range y {
		t := float64(i)
		if rng.IntN(8) == 0 || i == ForecastDailyBuckets+3 || i == ForecastDailyBuckets+10 {
			promo[i] = 1
		}
		y[i] = 200 + 0.03*t + 12*math.Sin(2*math.Pi*t/7) + 25*math.Sin(2*math.Pi*t/365.25) + 40*promo[i] + 6*rng.NormFloat64()
	}
	return y, promo
}

// RunForecastSession runs the forecastsession workload, cfg.Runs times on
// a fresh server (or on cfg.BaseURL), alternating which side goes first:
//
//   - ForecastSession/series=S/impl=vatic: each series of the forecast
//     workload ([LoadForecastSeries]; missing values filled as there)
//     without its holdout, uploaded as a dataset of timestamp,value rows
//     (dates from seriesStarts, one interval apart), then a forecast
//     session over the H buckets right after the data (resultInterval
//     week, month or year from the period), run to completion; its time
//     is POST to seeing completed (server-ns: statusHistory's started to
//     completed), its MASE that of /results on the holdout.
//   - ForecastSession/series=S/impl=contest: cfg.Forecaster (the bare
//     contest) on the same training values, period and H: its time and
//     MASE.
//   - ForecastSession/series=S/impl=contest-capped, for a training part
//     longer than ForecastSessionHistory (co2_weekly's 2180 weeks): the
//     same on its last ForecastSessionHistory values, which is what the
//     session fits (MODELLING §2.3), its MASE still scaled by the whole
//     training part's naive errors, as the session's is.
//   - ForecastSession/daily2000-feature/impl=vatic: a forecast session on
//     [ForecastFeatureSeries] (ForecastDailyBuckets days with promo, the
//     window's ForecastFeatureH days with promo only); its time, POST to
//     completed, and its MASE on the window's true values.
func RunForecastSession(ctx context.Context, cfg Config) ([]Result, error) {
	cfg = cfg.withDefaults()
	series, err := LoadForecastSeries(cfg.ForecastData, cfg.ForecastSeries, cfg.ForecastOnly)
	if err != nil {
		return nil, err
	}
	scratch, err := scratchDir(cfg)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	fmt.Fprintf(cfg.Progress, "forecastsession: the bare contest is %s\n", cfg.ForecasterName)
	labels := map[string]string{LabelForecaster: cfg.ForecasterName}
	var results []Result
	for run := range cfg.Runs {
		t, err := openTarget(ctx, cfg, scratch, fmt.Sprintf("forecastsession-%d", run))
		if err != nil {
			return results, err
		}
		rs, err := forecastSessionRun(ctx, cfg, t.c, series, scratch, run, labels)
		results = append(results, rs...)
		err = t.explain(err)
		t.close(cfg)
		if err != nil {
			return results, fmt.Errorf("forecastsession run %d: %w", run+1, err)
		}
	}
	return results, nil
}

func forecastSessionRun(ctx context.Context, cfg Config, c *Client, series []ForecastSeries, scratch string, run int, labels map[string]string) ([]Result, error) {
	var out []Result
	for _, s := range series {
		w := "ForecastSession/series=" + s.Name
		ours := func(int) (Result, error) {
			point, wall, ss, err := sessionForecast(ctx, cfg, c, s, scratch)
			if err != nil {
				return Result{}, err
			}
			mase, err := MASE(s.Train(), s.Test(), point)
			if err != nil {
				return Result{}, err
			}
			server, err := ss.ContestTime()
			if err != nil {
				return Result{}, err
			}
			return Result{Name: w + "/impl=vatic", Elapsed: wall,
				Metrics: []Metric{{mase, UnitMASE}, {float64(server), UnitServerNs}},
				Labels:  map[string]string{LabelChampion: ss.AlgorithmKey()}}, nil
		}
		contest := func(capped bool) (Result, error) {
			train, impl := s.Train(), "contest"
			if capped {
				train, impl = train[len(train)-ForecastSessionHistory:], "contest-capped"
			}
			point, elapsed, err := cfg.Forecaster(slices.Clone(train), s.Period, s.H)
			if err == nil && len(point) != s.H {
				err = fmt.Errorf("%d forecasts, want %d", len(point), s.H)
			}
			if err != nil {
				return Result{}, fmt.Errorf("%s: %w", s.Name, err)
			}
			mase, err := MASE(s.Train(), s.Test(), point)
			if err != nil {
				return Result{}, err
			}
			return Result{Name: w + "/impl=" + impl, Elapsed: elapsed, Metrics: []Metric{{mase, UnitMASE}}, Labels: labels}, nil
		}
		sides := []func(int) (Result, error){ours, func(int) (Result, error) { return contest(false) }}
		if len(s.Train()) > ForecastSessionHistory {
			sides = append(sides, func(int) (Result, error) { return contest(true) })
		}
		if run%2 == 1 {
			slices.Reverse(sides)
		}
		for _, side := range sides {
			r, err := side(run)
			if err != nil {
				return out, fmt.Errorf("%s: %w", w, err)
			}
			mase, _ := r.Metric(UnitMASE)
			fmt.Fprintf(cfg.Progress, "forecastsession run %d/%d: %-45s MASE %.6f  %v\n", run+1, cfg.Runs, r.Name, mase, r.Elapsed.Round(time.Millisecond))
			out = append(out, r)
		}
	}
	r, err := featureSession(ctx, cfg, c, scratch)
	if err != nil {
		return out, err
	}
	mase, _ := r.Metric(UnitMASE)
	fmt.Fprintf(cfg.Progress, "forecastsession run %d/%d: %-45s MASE %.4f  %v (champion %s)\n", run+1, cfg.Runs, r.Name, mase, r.Elapsed.Round(time.Millisecond), r.Labels[LabelChampion])
	return append(out, r), nil
}

// sessionForecast uploads s's training part and runs a forecast session
// over the H buckets after it; it returns the session's point forecasts
// (/results at the default level, the median, which is the point
// forecast), the time from POST to seeing completed and the session. The
// dataset and session are deleted afterwards.
func sessionForecast(ctx context.Context, cfg Config, c *Client, s ForecastSeries, scratch string) ([]float64, time.Duration, Session, error) {
	start, ok := seriesStarts[s.Name]
	if !ok {
		start = "2000-01-01"
	}
	d0, err := time.Parse(time.DateOnly, start)
	if err != nil {
		return nil, 0, Session{}, err
	}
	iv := seriesInterval(s.Period)
	dates := seriesDates(d0, iv, len(s.Y))
	train := s.Train()
	path := filepath.Join(scratch, s.Name+".csv")
	if err := writeSeriesCSV(path, dates, train, nil); err != nil {
		return nil, 0, Session{}, err
	}
	name := datasetName("series-" + strings.ToLower(s.Name))
	defer deleteCascade(ctx, cfg, c, name)
	if err := putRows(ctx, c, name, path, len(train)); err != nil {
		return nil, 0, Session{}, err
	}
	req := SeriesRequest{DataSourceName: name, TargetColumn: "value", ResultInterval: iv,
		StartDate: dates[len(train)].Format(time.DateOnly), EndDate: dates[len(s.Y)-1].Format(time.DateOnly)}
	return runForecastSession(ctx, c, req, s.H)
}

// runForecastSession posts a forecast session, waits for it and reads
// its h result rows' value column.
func runForecastSession(ctx context.Context, c *Client, req SeriesRequest, h int) ([]float64, time.Duration, Session, error) {
	begin := time.Now()
	ss, err := c.CreateSeriesSession(ctx, "forecast", req)
	if err != nil {
		return nil, 0, Session{}, err
	}
	ss, err = c.WaitSession(ctx, ss.SessionID, sessionPoll)
	wall := time.Since(begin)
	if err != nil {
		return nil, 0, Session{}, err
	}
	res, err := c.SeriesResults(ctx, ss.SessionID, h+1)
	if err != nil {
		return nil, 0, Session{}, err
	}
	if len(res.Data) != h {
		return nil, 0, Session{}, fmt.Errorf("bench: session %s has %d result rows, want %d", ss.SessionID, len(res.Data), h)
	}
	point, err := res.column(req.TargetColumn)
	return point, wall, ss, err
}

// featureSession runs the daily series with a feature.
func featureSession(ctx context.Context, cfg Config, c *Client, scratch string) (Result, error) {
	y, promo := ForecastFeatureSeries(cfg.Seed)
	n := ForecastDailyBuckets
	d0, _ := time.Parse(time.DateOnly, "2019-01-01")
	dates := seriesDates(d0, "day", len(y))
	hidden := slices.Clone(y)
	for i := n; i < len(hidden); i++ {
		hidden[i] = math.NaN()
	}
	path := filepath.Join(scratch, "daily-feature.csv")
	if err := writeSeriesCSV(path, dates, hidden, promo); err != nil {
		return Result{}, err
	}
	name := datasetName("daily-feature")
	defer deleteCascade(ctx, cfg, c, name)
	if err := putRows(ctx, c, name, path, len(y)); err != nil {
		return Result{}, err
	}
	req := SeriesRequest{DataSourceName: name, TargetColumn: "value", ResultInterval: "day",
		StartDate: dates[n].Format(time.DateOnly), EndDate: dates[len(y)-1].Format(time.DateOnly)}
	point, wall, ss, err := runForecastSession(ctx, c, req, ForecastFeatureH)
	if err != nil {
		return Result{}, fmt.Errorf("daily%d-feature: %w", n, err)
	}
	for _, m := range ss.Messages {
		if strings.Contains(m.Message, "promo") {
			return Result{}, fmt.Errorf("bench: daily%d-feature: session %s left the feature out: %s", n, ss.SessionID, m.Message)
		}
	}
	mase, err := MASE(y[:n], y[n:], point)
	if err != nil {
		return Result{}, err
	}
	server, err := ss.ContestTime()
	if err != nil {
		return Result{}, err
	}
	return Result{Name: fmt.Sprintf("ForecastSession/daily%d-feature/impl=vatic", n), Elapsed: wall,
		Metrics: []Metric{{mase, UnitMASE}, {float64(server), UnitServerNs}},
		Labels:  map[string]string{LabelChampion: ss.AlgorithmKey()}}, nil
}

// forecastSessionChecks evaluates the forecastsession workload per
// series: the session's MASE against the bare contest's on the same
// values (equal within ForecastSessionMASETolerance), its wall time
// against 1.2× the contest's plus ForecastSessionAllowance, and the daily
// series with a feature against 40 s. For a series whose history the
// session caps, the capped contest's MASE is noted, and the time is set
// against the capped contest, the one doing the session's work.
func forecastSessionChecks(results []Result) []Check {
	const w = "ForecastSession"
	var names []string
	for _, r := range results {
		rest, ok := strings.CutPrefix(r.Name, w+"/series=")
		if !ok {
			continue
		}
		if s, _, ok := strings.Cut(rest, "/"); ok && !slices.Contains(names, s) {
			names = append(names, s)
		}
	}
	var out []Check
	if fl := labels(results, w+"/series="+firstOr(names)+"/impl=contest", LabelForecaster); len(fl) > 0 {
		out = append(out, Check{Workload: w, What: "contest", Text: fl[0], Note: true, Detail: "the bare contest the sessions are set against"})
	}
	for _, s := range names {
		ours, contest := w+"/series="+s+"/impl=vatic", w+"/series="+s+"/impl=contest"
		om, ok1 := median(results, ours, UnitMASE)
		cm, ok2 := median(results, contest, UnitMASE)
		if !ok1 || !ok2 {
			continue
		}
		// The MASE of every run, not the medians: each run must agree.
		maxDiff := func(other string) float64 {
			diff := 0.0
			for i, v := range values(results, ours, UnitMASE) {
				if cs := values(results, other, UnitMASE); i < len(cs) {
					diff = math.Max(diff, math.Abs(v-cs[i])/math.Max(math.Abs(cs[i]), 1e-300))
				}
			}
			return diff
		}
		diff := maxDiff(contest)
		out = append(out, Check{
			Workload: w + "/" + s, What: "MASE session", Value: om,
			Detail: fmt.Sprintf("contest %.6f, largest relative difference %.2g; champion %s", cm, diff, labelTally(results, ours, LabelChampion)),
			Target: fmt.Sprintf("= contest ±%.0e", ForecastSessionMASETolerance), Pass: diff <= ForecastSessionMASETolerance,
		})
		ot, _ := medianElapsed(results, ours)
		ct, _ := medianElapsed(results, contest)
		st, _ := median(results, ours, UnitServerNs)
		against := fmt.Sprintf("contest %s", forecastSecs(ct.Seconds()))
		capped := w + "/series=" + s + "/impl=contest-capped"
		if cc, ok := median(results, capped, UnitMASE); ok {
			out = append(out, Check{
				Workload: w + "/" + s, What: fmt.Sprintf("MASE contest on last %d", ForecastSessionHistory), Value: cc, Note: true,
				Detail: fmt.Sprintf("the session's history cap (MODELLING §2.3); session's relative difference from it %.2g", maxDiff(capped)),
			})
			full := ct
			ct, _ = medianElapsed(results, capped)
			against = fmt.Sprintf("capped contest %s (on all %s)", forecastSecs(ct.Seconds()), forecastSecs(full.Seconds()))
		}
		if ct > 0 {
			r := (ot - ForecastSessionAllowance).Seconds() / ct.Seconds()
			out = append(out, Check{
				Workload: w + "/" + s, What: "time (session−0.1s)÷contest", Value: r,
				Detail: fmt.Sprintf("session %s (statusHistory %s) vs %s", forecastSecs(ot.Seconds()), forecastSecs(st/1e9), against),
				Target: fmt.Sprintf("<= %.2f", ForecastSessionTimeTarget), Pass: r <= ForecastSessionTimeTarget,
			})
		}
	}
	daily := fmt.Sprintf("%s/daily%d-feature/impl=vatic", w, ForecastDailyBuckets)
	if d, ok := medianElapsed(results, daily); ok {
		mase, _ := median(results, daily, UnitMASE)
		st, _ := median(results, daily, UnitServerNs)
		out = append(out, Check{
			Workload: fmt.Sprintf("%s/daily%d-feature", w, ForecastDailyBuckets), What: "POST to completed s", Value: d.Seconds(),
			Detail: fmt.Sprintf("median; slowest %s, statusHistory %s; MASE %.4f, champion %s", forecastSecs(slices.Max(elapsedSeconds(results, daily))),
				forecastSecs(st/1e9), mase, labelTally(results, daily, LabelChampion)),
			Target: fmt.Sprintf("<= %.0f s", ForecastFeatureTarget.Seconds()), Pass: d <= ForecastFeatureTarget,
		})
	}
	return out
}
