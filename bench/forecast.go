package bench

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// forecastR is R's side of the forecast workload; see its header for the
// document it prints ([ForecastRReport]).
//
//go:embed forecast.R
var forecastR []byte

// Forecaster is our side of the forecast workload: it forecasts the h
// points after y (oldest first, seasonal period period, 1 for none) and
// says how long that took. It stands for the whole forecast contest
// (MODELLING §2.5: every candidate on both data-source variants, the
// champion chosen on a holdout cut from y alone, refitted on y), so the
// harness does not depend on the contest's package.
type Forecaster func(y []float64, period int, h int) (point []float64, elapsed time.Duration, err error)

// SeasonalNaiveLabel names [SeasonalNaiveForecaster] in the report.
const SeasonalNaiveLabel = "seasonal_naive (placeholder baseline, not the contest)"

// SeasonalNaiveForecaster is the placeholder [Forecaster] wired until the
// contest exists: the seasonal naive forecast (the value one period back;
// the last value when period is 1), computed here. It is a baseline, not
// our champion, and the report says so.
func SeasonalNaiveForecaster(y []float64, period, h int) ([]float64, time.Duration, error) {
	start := time.Now()
	if len(y) == 0 || h < 1 {
		return nil, 0, fmt.Errorf("bench: seasonal naive: %d points, horizon %d", len(y), h)
	}
	m := max(period, 1)
	if len(y) < m {
		m = 1
	}
	n := len(y)
	out := make([]float64, h)
	for i := range out {
		out[i] = y[n-m+i%m]
	}
	return out, time.Since(start), nil
}

// Fixed parameters and targets of the forecast workload.
const (
	// ForecastMASETarget bounds the geometric mean over the series of our
	// MASE ÷ the lowest geometric mean of R's ets, auto.arima and thetaf.
	ForecastMASETarget = 1.0
	// ForecastTimeTarget bounds our summed time over the series ÷ the
	// summed time of R's three fits (R's own proc.time, no start-up).
	ForecastTimeTarget = 1.0
	// ForecastDailyBuckets is the length of the synthetic daily series
	// whose whole contest must finish within ForecastDailyTarget.
	ForecastDailyBuckets = 2000
	// ForecastDailyTarget is the time budget of that contest (MODELLING
	// §2.7: both variants, two cores).
	ForecastDailyTarget = 30 * time.Second
)

// Units and labels of the forecast workload's results.
const (
	UnitMASE = "mase" // mean absolute scaled error over the holdout (MODELLING §2.8)
	// LabelForecaster names our Forecaster on our results.
	LabelForecaster = "forecaster"
	// LabelModel is the model an R method chose (ETS(M,Ad,M), ARIMA(…)).
	LabelModel = "model"
	// LabelRSide, on our results, says why R's side is missing.
	LabelRSide = "r"
)

// forecastMethods are R's methods, in the order of the report.
var forecastMethods = []string{"ets", "arima", "theta"}

// ForecastSeries is one series of the forecast workload.
type ForecastSeries struct {
	Name   string
	Period int // seasonal period given to both sides; 1 for yearly data
	H      int // holdout length, [ForecastHorizon]
	Y      []float64
	Source string // the file it was read from
}

// Train is the series without its holdout; Test is the holdout.
func (s ForecastSeries) Train() []float64 { return s.Y[:len(s.Y)-s.H] }

// Test is the last H points of the series.
func (s ForecastSeries) Test() []float64 { return s.Y[len(s.Y)-s.H:] }

// ForecastHorizon is the holdout of a series of the given period: two
// seasons, or 8 points for yearly (period 1) data.
func ForecastHorizon(period int) int {
	if period <= 1 {
		return 8
	}
	return 2 * period
}

// forecastShared are the series of ../shared/data, in the report's order,
// then forecastBuiltins (R's datasets, from series.json).
var forecastShared = []struct {
	name, file, column string
	// period: co2_weekly gets 52, not 52.18; forecast.R says why.
	period int
}{
	{"co2_weekly", "co2_weekly.csv", "co2", 52},
	{"elec_equip_monthly", "elec_equip_monthly.csv", "orders", 12},
	{"nile_yearly", "nile_yearly.csv", "volume", 1},
}

var forecastBuiltins = []string{"AirPassengers", "co2", "UKDriverDeaths"}

// ForecastSeriesNames lists the workload's series in the report's order.
func ForecastSeriesNames() []string {
	var out []string
	for _, s := range forecastShared {
		out = append(out, s.name)
	}
	return append(out, forecastBuiltins...)
}

// LoadForecastSeries reads the workload's series: co2_weekly,
// elec_equip_monthly and nile_yearly from dataDir (../shared/data; missing
// values filled by [InterpolateLinear]) and AirPassengers, co2 and
// UKDriverDeaths from seriesJSON (stats/forecast/testdata/series.json,
// which R's datasets were written to). only, when not empty, keeps the
// series of those names.
func LoadForecastSeries(dataDir, seriesJSON string, only []string) ([]ForecastSeries, error) {
	for _, name := range only {
		if !slices.Contains(ForecastSeriesNames(), name) {
			return nil, fmt.Errorf("bench: unknown forecast series %q (known: %s)", name, strings.Join(ForecastSeriesNames(), ","))
		}
	}
	want := func(name string) bool { return len(only) == 0 || slices.Contains(only, name) }
	var out []ForecastSeries
	for _, s := range forecastShared {
		if !want(s.name) {
			continue
		}
		path := filepath.Join(dataDir, s.file)
		y, err := ReadSeriesCSV(path, s.column)
		if err != nil {
			return nil, err
		}
		out = append(out, ForecastSeries{Name: s.name, Period: s.period, H: ForecastHorizon(s.period), Y: y, Source: path})
	}
	var builtins []string
	for _, name := range forecastBuiltins {
		if want(name) {
			builtins = append(builtins, name)
		}
	}
	if len(builtins) > 0 {
		b, err := os.ReadFile(seriesJSON)
		if err != nil {
			return nil, err
		}
		var all map[string]struct {
			Frequency []float64 `json:"frequency"`
			X         []float64 `json:"x"`
		}
		if err := json.Unmarshal(b, &all); err != nil {
			return nil, fmt.Errorf("bench: %s: %w", seriesJSON, err)
		}
		for _, name := range builtins {
			s, ok := all[name]
			if !ok || len(s.Frequency) != 1 || s.Frequency[0] < 1 || s.Frequency[0] != math.Trunc(s.Frequency[0]) {
				return nil, fmt.Errorf("bench: %s has no series %s with an integer frequency", seriesJSON, name)
			}
			p := int(s.Frequency[0])
			out = append(out, ForecastSeries{Name: name, Period: p, H: ForecastHorizon(p), Y: s.X, Source: seriesJSON})
		}
	}
	for _, s := range out {
		if len(s.Y) < 2*s.H+2 {
			return nil, fmt.Errorf("bench: series %s has %d points, too few for a holdout of %d", s.Name, len(s.Y), s.H)
		}
		for i, v := range s.Y {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("bench: series %s point %d is %v", s.Name, i+1, v)
			}
		}
	}
	return out, nil
}

// ReadSeriesCSV reads the named column of a CSV file with a header row
// (the files of ../shared/data: timestamp, value), oldest first. Empty and
// NA cells are missing values, filled by [InterpolateLinear].
func ReadSeriesCSV(path, column string) ([]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("bench: read %s: %w", path, err)
	}
	if len(recs) < 2 {
		return nil, fmt.Errorf("bench: %s: want a header and rows", path)
	}
	col := slices.Index(recs[0], column)
	if col < 0 {
		return nil, fmt.Errorf("bench: %s has no column %q (header %q)", path, column, recs[0])
	}
	y := make([]float64, len(recs)-1)
	for i, r := range recs[1:] {
		v := strings.TrimSpace(r[col])
		if v == "" || v == "NA" {
			y[i] = math.NaN()
			continue
		}
		if y[i], err = strconv.ParseFloat(v, 64); err != nil {
			return nil, fmt.Errorf("bench: %s row %d: %q is not a number", path, i+2, v)
		}
	}
	if err := InterpolateLinear(y); err != nil {
		return nil, fmt.Errorf("bench: %s: %w", path, err)
	}
	return y, nil
}

// InterpolateLinear fills the NaNs of y in place by linear interpolation
// in the index between the nearest observed neighbours, and with the
// first or last observed value beyond the ends: R's approx(i[ok], y[ok],
// xout = i, rule = 2), by the same formula, so that both sides of the
// forecast workload see the same numbers. It fails when no value is
// observed.
func InterpolateLinear(y []float64) error {
	prev := -1 // index of the last observed value
	for i, v := range y {
		if math.IsNaN(v) {
			continue
		}
		switch {
		case prev < 0:
			for j := range i {
				y[j] = v
			}
		case i > prev+1:
			x0, x1, y0, y1 := float64(prev+1), float64(i+1), y[prev], v
			for j := prev + 1; j < i; j++ {
				y[j] = y0 + (y1-y0)*((float64(j+1)-x0)/(x1-x0))
			}
		}
		prev = i
	}
	if prev < 0 {
		if len(y) == 0 {
			return nil
		}
		return errors.New("no observed value to interpolate from")
	}
	for j := prev + 1; j < len(y); j++ {
		y[j] = y[prev]
	}
	return nil
}

// MASE is the mean absolute scaled error of point forecasts of test
// after train (MODELLING §2.8 meanAbsoluteScaledError): the mean absolute
// error over test divided by the in-sample mean absolute error of the
// one-step naive forecast of train, (1/(T−1)) Σ_{t≥2} |x_t − x_{t−1}|.
func MASE(train, test, point []float64) (float64, error) {
	if len(test) == 0 || len(point) != len(test) {
		return 0, fmt.Errorf("bench: MASE of %d forecasts for %d actuals", len(point), len(test))
	}
	if len(train) < 2 {
		return 0, fmt.Errorf("bench: MASE needs at least 2 training points, got %d", len(train))
	}
	var mae, scale float64
	for i, y := range test {
		mae += math.Abs(y - point[i])
	}
	mae /= float64(len(test))
	for t := 1; t < len(train); t++ {
		scale += math.Abs(train[t] - train[t-1])
	}
	scale /= float64(len(train) - 1)
	if scale == 0 || math.IsNaN(mae) || math.IsInf(mae, 0) {
		return 0, fmt.Errorf("bench: MASE undefined: MAE %v, naive scale %v", mae, scale)
	}
	return mae / scale, nil
}

// GeoMean is the geometric mean of positive values: 0 when one is 0, NaN
// when one is negative or NaN or there are none.
func GeoMean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var s float64
	for _, x := range xs {
		switch {
		case math.IsNaN(x) || x < 0:
			return math.NaN()
		case x == 0:
			return 0
		}
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(xs)))
}

// ForecastRReport is the JSON document bench/forecast.R prints.
type ForecastRReport struct {
	R        string            `json:"r"`        // R.version.string
	Forecast string            `json:"forecast"` // the forecast package's version
	CPUs     int               `json:"cpus"`
	Repeats  int               `json:"repeats"`
	LoadAvg  [][]float64       `json:"loadAvg"` // /proc/loadavg before the first fit and after the last
	Series   []ForecastRSeries `json:"series"`
}

// ForecastRSeries is one series of a [ForecastRReport].
type ForecastRSeries struct {
	Name      string            `json:"name"`
	Frequency int               `json:"frequency"`
	N         int               `json:"n"`
	H         int               `json:"h"`
	Sum       float64           `json:"sum"`         // Σ y_t
	WSum      float64           `json:"weightedSum"` // Σ t·y_t, t = 1…n
	Methods   []ForecastRMethod `json:"methods"`
}

// ForecastRMethod is one R method's fit of a [ForecastRSeries].
type ForecastRMethod struct {
	Key     string    `json:"key"`   // ets, arima, theta
	Model   string    `json:"model"` // forecast's method string: ETS(M,Ad,M), ARIMA(1,1,3)(0,1,1)[12], Theta
	MASE    float64   `json:"mase"`
	MAE     float64   `json:"mae"`
	Seconds []float64 `json:"seconds"` // fit and forecast, per repeat
	Mean    []float64 `json:"mean"`    // the h point forecasts
}

// Median is the median of the method's timed repeats.
func (m ForecastRMethod) Median() time.Duration {
	s := slices.Sorted(slices.Values(m.Seconds))
	n := len(s)
	if n%2 == 1 {
		return seconds(s[n/2])
	}
	return seconds((s[n/2-1] + s[n/2]) / 2)
}

// Method returns the series' method of that key.
func (s ForecastRSeries) Method(key string) (ForecastRMethod, bool) {
	for _, m := range s.Methods {
		if m.Key == key {
			return m, true
		}
	}
	return ForecastRMethod{}, false
}

// ParseForecastRReport decodes a forecast.R document and checks that it is
// complete: every series has a holdout shorter than itself and the three
// methods, each with h forecasts, a finite MASE and at least one time.
func ParseForecastRReport(r io.Reader) (*ForecastRReport, error) {
	var rep ForecastRReport
	if err := json.NewDecoder(r).Decode(&rep); err != nil {
		return nil, fmt.Errorf("bench: decode R's forecast report: %w", err)
	}
	var errs []error
	if len(rep.Series) == 0 {
		errs = append(errs, errors.New("no series"))
	}
	for _, s := range rep.Series {
		if s.Name == "" || s.Frequency < 1 || s.H < 1 || s.N <= s.H {
			errs = append(errs, fmt.Errorf("series %q: frequency %d, n %d, h %d", s.Name, s.Frequency, s.N, s.H))
		}
		for _, key := range forecastMethods {
			m, ok := s.Method(key)
			switch {
			case !ok:
				errs = append(errs, fmt.Errorf("series %s: no method %s", s.Name, key))
			case len(m.Mean) != s.H || len(m.Seconds) == 0 || math.IsNaN(m.MASE) || math.IsInf(m.MASE, 0) || m.MASE < 0:
				errs = append(errs, fmt.Errorf("series %s method %s: %d forecasts for h %d, %d times, MASE %v", s.Name, key, len(m.Mean), s.H, len(m.Seconds), m.MASE))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("bench: R's forecast report: %w", err)
	}
	return &rep, nil
}

// check verifies that R's series s is the harness's series ours: the
// same length, period, holdout and values (by Σ y and Σ t·y, to 1e-10
// relative: R sums in long double).
func (s ForecastRSeries) check(ours ForecastSeries) error {
	var sum, wsum float64
	for i, v := range ours.Y {
		sum += v
		wsum += float64(i+1) * v
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-10*math.Max(math.Abs(b), 1) }
	if s.N != len(ours.Y) || s.Frequency != ours.Period || s.H != ours.H || !near(sum, s.Sum) || !near(wsum, s.WSum) {
		return fmt.Errorf("bench: R and the harness see different data for %s: R n %d, frequency %d, h %d, Σy %v, Σty %v; ours %d, %d, %d, %v, %v",
			s.Name, s.N, s.Frequency, s.H, s.Sum, s.WSum, len(ours.Y), ours.Period, ours.H, sum, wsum)
	}
	return nil
}

// rForecastReport reads cfg.ForecastRJSON, or runs forecast.R with
// cfg.Rscript on cfg.ForecastData. When neither is given and Rscript is
// not on the PATH it returns nil and the reason.
func rForecastReport(ctx context.Context, cfg Config, scratch string) (*ForecastRReport, string, error) {
	if cfg.ForecastRJSON != "" {
		f, err := os.Open(cfg.ForecastRJSON)
		if err != nil {
			return nil, "", err
		}
		defer f.Close()
		rep, err := ParseForecastRReport(f)
		if err == nil {
			fmt.Fprintf(cfg.Progress, "forecast: R's side read from %s (%s, forecast %s)\n", cfg.ForecastRJSON, rep.R, rep.Forecast)
		}
		return rep, "", err
	}
	rscript, err := exec.LookPath(cfg.Rscript)
	if err != nil {
		reason := fmt.Sprintf("R not installed (%s not found)", cfg.Rscript)
		fmt.Fprintf(cfg.Progress, "forecast: %s: R's side skipped\n", reason)
		return nil, reason, nil
	}
	script := filepath.Join(scratch, "forecast.R")
	if err := os.WriteFile(script, forecastR, 0o644); err != nil {
		return nil, "", err
	}
	data, err := filepath.Abs(cfg.ForecastData)
	if err != nil {
		return nil, "", err
	}
	args := []string{script, data, strconv.Itoa(cfg.ForecastRRepeats)}
	if len(cfg.ForecastOnly) > 0 {
		args = append(args, strings.Join(cfg.ForecastOnly, ","))
	}
	var stdout bytes.Buffer
	var stderr strings.Builder
	cmd := exec.CommandContext(ctx, rscript, args...)
	cmd.Stdout = &stdout
	cmd.Stderr = io.MultiWriter(cfg.Progress, &stderr)
	fmt.Fprintf(cfg.Progress, "forecast: %s forecast.R %s (R's ets, auto.arima and thetaf; minutes: auto.arima on co2_weekly is slow)\n", rscript, strings.Join(args[1:], " "))
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return nil, "", fmt.Errorf("bench: %s forecast.R: %w\n%s(the forecast workload needs R's forecast and jsonlite packages; or pass -forecast-r-json)",
			rscript, err, tail(stderr.String(), 2000))
	}
	rep, err := ParseForecastRReport(&stdout)
	if err != nil {
		return nil, "", err
	}
	fmt.Fprintf(cfg.Progress, "forecast: %s, forecast %s, done in %v\n", rep.R, rep.Forecast, time.Since(start).Round(time.Millisecond))
	return rep, "", nil
}

// ForecastDailySeries is the synthetic daily series of the speed target:
// ForecastDailyBuckets days with a trend, weekly and yearly cycles and
// Gaussian noise, fixed by seed.
func ForecastDailySeries(seed int64) []float64 {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x666f7265))
	y := make([]float64, ForecastDailyBuckets)
	for i := range y {
		t := float64(i)
		y[i] = 200 + 0.03*t + 12*math.Sin(2*math.Pi*t/7) + 25*math.Sin(2*math.Pi*t/365.25) + 6*rng.NormFloat64()
	}
	return y
}

// RunForecast runs the forecast workload:
//
//   - R's side, once (forecast.R through cfg.Rscript, or cfg.ForecastRJSON):
//     per series and method, Forecast/series=S/method=M/impl=r (the median
//     time of the fit and forecast, the holdout MASE, the model chosen),
//     and Forecast/series=S/impl=r, the three methods' times summed. When R
//     is not installed this side is skipped and the reason is put on our
//     results (LabelRSide).
//   - Ours, cfg.Runs times: cfg.Forecaster on each series' training part,
//     Forecast/series=S/impl=vatic (its time and holdout MASE), then on
//     the synthetic daily series of ForecastDailyBuckets points,
//     Forecast/daily2000/impl=vatic (its time).
//
// The series come from [LoadForecastSeries] (cfg.ForecastData,
// cfg.ForecastSeries, cfg.ForecastOnly); R's must be the same numbers.
func RunForecast(ctx context.Context, cfg Config) ([]Result, error) {
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
	rep, reason, err := rForecastReport(ctx, cfg, scratch)
	if err != nil {
		return nil, err
	}
	var results []Result
	if rep != nil {
		rs, err := rep.results(series)
		if err != nil {
			return nil, err
		}
		results = append(results, rs...)
	}
	labels := map[string]string{LabelForecaster: cfg.ForecasterName}
	if reason != "" {
		labels[LabelRSide] = reason
	}
	fmt.Fprintf(cfg.Progress, "forecast: ours is %s\n", cfg.ForecasterName)
	for run := range cfg.Runs {
		for _, s := range series {
			if err := ctx.Err(); err != nil {
				return results, err
			}
			point, elapsed, err := cfg.Forecaster(slices.Clone(s.Train()), s.Period, s.H)
			if err != nil {
				return results, fmt.Errorf("forecast run %d: %s: %w", run+1, s.Name, err)
			}
			if len(point) != s.H {
				return results, fmt.Errorf("forecast run %d: %s: %d forecasts, want %d", run+1, s.Name, len(point), s.H)
			}
			mase, err := MASE(s.Train(), s.Test(), point)
			if err != nil {
				return results, fmt.Errorf("forecast run %d: %s: %w", run+1, s.Name, err)
			}
			fmt.Fprintf(cfg.Progress, "forecast run %d/%d: %-18s MASE %.4f  %v\n", run+1, cfg.Runs, s.Name, mase, elapsed)
			results = append(results, Result{Name: "Forecast/series=" + s.Name + "/impl=vatic", Elapsed: elapsed,
				Metrics: []Metric{{mase, UnitMASE}}, Labels: labels})
		}
		daily := ForecastDailySeries(cfg.Seed)
		h := ForecastHorizon(7)
		point, elapsed, err := cfg.Forecaster(daily, 7, h)
		if err == nil && len(point) != h {
			err = fmt.Errorf("%d forecasts, want %d", len(point), h)
		}
		if err != nil {
			return results, fmt.Errorf("forecast run %d: daily%d: %w", run+1, ForecastDailyBuckets, err)
		}
		fmt.Fprintf(cfg.Progress, "forecast run %d/%d: daily%d contest %v\n", run+1, cfg.Runs, ForecastDailyBuckets, elapsed)
		results = append(results, Result{Name: fmt.Sprintf("Forecast/daily%d/impl=vatic", ForecastDailyBuckets), Elapsed: elapsed, Labels: labels})
	}
	return results, nil
}

// results returns R's side as benchmark results, after checking that R
// saw the same series as the harness.
func (rep *ForecastRReport) results(series []ForecastSeries) ([]Result, error) {
	var out []Result
	for _, s := range series {
		i := slices.IndexFunc(rep.Series, func(r ForecastRSeries) bool { return r.Name == s.Name })
		if i < 0 {
			return nil, fmt.Errorf("bench: R's forecast report has no series %s", s.Name)
		}
		rs := rep.Series[i]
		if err := rs.check(s); err != nil {
			return nil, err
		}
		var total time.Duration
		for _, key := range forecastMethods {
			m, _ := rs.Method(key)
			d := m.Median()
			total += d
			out = append(out, Result{Name: "Forecast/series=" + s.Name + "/method=" + key + "/impl=r", Elapsed: d,
				Metrics: []Metric{{m.MASE, UnitMASE}}, Labels: map[string]string{LabelModel: m.Model}})
		}
		out = append(out, Result{Name: "Forecast/series=" + s.Name + "/impl=r", Elapsed: total})
	}
	return out, nil
}

// forecastChecks evaluates the forecast workload: our geometric-mean MASE
// against the best of R's three methods', our summed time against R's
// summed fits, the daily series' contest against 30 s, with per-series
// notes.
func forecastChecks(results []Result) []Check {
	const w = "Forecast"
	var names []string // series, in order of appearance
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
	oursName := func(s string) string { return w + "/series=" + s + "/impl=vatic" }
	rName := func(s, key string) string { return w + "/series=" + s + "/method=" + key + "/impl=r" }
	if fl := labels(results, oursName(firstOr(names)), LabelForecaster); len(fl) > 0 {
		out = append(out, Check{Workload: w, What: "ours", Text: fl[0], Note: true, Detail: "the Forecaster the harness ran"})
	}
	if why := labels(results, oursName(firstOr(names)), LabelRSide); len(why) > 0 {
		out = append(out, Check{Workload: w, What: "R side", Text: "skipped", Note: true, Detail: why[0]})
	}
	// Series with both sides.
	var both []string
	for _, s := range names {
		_, okOurs := median(results, oursName(s), UnitMASE)
		_, okR := median(results, rName(s, forecastMethods[0]), UnitMASE)
		if okOurs && okR {
			both = append(both, s)
		}
	}
	if len(both) > 0 {
		var ours []float64
		rm := map[string][]float64{}
		var oursTime, rTime float64
		for _, s := range both {
			v, _ := median(results, oursName(s), UnitMASE)
			ours = append(ours, v)
			for _, key := range forecastMethods {
				m, _ := median(results, rName(s, key), UnitMASE)
				rm[key] = append(rm[key], m)
			}
			o, _ := medianElapsed(results, oursName(s))
			r, _ := medianElapsed(results, w+"/series="+s+"/impl=r")
			oursTime += o.Seconds()
			rTime += r.Seconds()
		}
		bestKey, best := "", math.Inf(1)
		var parts []string
		for _, key := range forecastMethods {
			g := GeoMean(rm[key])
			parts = append(parts, fmt.Sprintf("%s %.4f", key, g))
			if g < best {
				bestKey, best = key, g
			}
		}
		g := GeoMean(ours)
		r := g / best
		out = append(out, Check{
			Workload: w, What: "MASE geomean vatic÷best R", Value: r,
			Detail: fmt.Sprintf("%.4f vs %.4f %s; %s; %d series", g, best, bestKey, strings.Join(parts, ", "), len(both)),
			Target: fmt.Sprintf("<= %.2f", ForecastMASETarget), Pass: r <= ForecastMASETarget,
		})
		if rTime > 0 {
			r := oursTime / rTime
			out = append(out, Check{
				Workload: w, What: "time vatic÷R fits", Value: r,
				Detail: fmt.Sprintf("%s vs %s (ets+auto.arima+thetaf, R's proc.time), %d series", forecastSecs(oursTime), forecastSecs(rTime), len(both)),
				Target: fmt.Sprintf("<= %.2f", ForecastTimeTarget), Pass: r <= ForecastTimeTarget,
			})
		}
	}
	for _, s := range names {
		v, ok := median(results, oursName(s), UnitMASE)
		if !ok {
			continue
		}
		var parts []string
		for _, key := range forecastMethods {
			if m, ok := median(results, rName(s, key), UnitMASE); ok {
				model := labels(results, rName(s, key), LabelModel)
				parts = append(parts, fmt.Sprintf("%s %.4f %s", key, m, strings.Join(model, "")))
			}
		}
		o, _ := medianElapsed(results, oursName(s))
		detail := "R: " + strings.Join(parts, ", ")
		if r, ok := medianElapsed(results, w+"/series="+s+"/impl=r"); ok && r > 0 {
			detail += fmt.Sprintf("; time %s vs R %s = %.3g×", forecastSecs(o.Seconds()), forecastSecs(r.Seconds()), o.Seconds()/r.Seconds())
		} else {
			detail += "; time " + forecastSecs(o.Seconds())
		}
		if len(parts) == 0 {
			detail = "time " + forecastSecs(o.Seconds())
		}
		out = append(out, Check{Workload: w + "/" + s, What: "MASE vatic", Value: v, Note: true, Detail: detail})
	}
	daily := fmt.Sprintf("%s/daily%d/impl=vatic", w, ForecastDailyBuckets)
	if d, ok := medianElapsed(results, daily); ok {
		worst := slices.Max(elapsedSeconds(results, daily))
		out = append(out, Check{
			Workload: fmt.Sprintf("%s/daily%d", w, ForecastDailyBuckets), What: "contest time s", Value: d.Seconds(),
			Detail: fmt.Sprintf("median; slowest run %s", forecastSecs(worst)),
			Target: fmt.Sprintf("<= %.0f s", ForecastDailyTarget.Seconds()), Pass: d <= ForecastDailyTarget,
		})
	}
	return out
}

// forecastSecs prints seconds as a duration: rounded as secs does from a
// millisecond up, to the microsecond below (a baseline takes microseconds).
func forecastSecs(s float64) string {
	if s >= 1e-3 {
		return secs(s)
	}
	return time.Duration(s * 1e9).Round(time.Microsecond / 10).String()
}

func firstOr(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return names[0]
}
