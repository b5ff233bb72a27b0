package bench_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vaticml/vatic/bench"
)

// The forecast workload's fixtures: forecast-r.json is forecast.R's output
// for all six series (R 4.2.2, forecast 8.20, on a busy 2-core machine):
//
//	cd bench && Rscript forecast.R ../../shared/data > testdata/forecast-r.json
//
// series.json is the forecast package's fixture of R's datasets.
const (
	forecastRFixture = "testdata/forecast-r.json"
	seriesJSON       = "../stats/forecast/testdata/series.json"
)

var builtinSeries = []string{"AirPassengers", "co2", "UKDriverDeaths"}

// sharedData returns the directory of ../shared/data (VATIC_SHARED_DATA,
// or the repository's sibling), or skips the test.
func sharedData(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("VATIC_SHARED_DATA")
	if dir == "" {
		dir = "../../shared/data"
	}
	if _, err := os.Stat(filepath.Join(dir, "co2_weekly.csv")); err != nil {
		t.Skipf("no shared data in %s (set VATIC_SHARED_DATA): %v", dir, err)
	}
	return dir
}

func TestSeasonalNaiveForecaster(t *testing.T) {
	y := []float64{1, 2, 3, 4, 5, 6, 7}
	for _, c := range []struct {
		period, h int
		want      []float64
	}{
		{3, 5, []float64{5, 6, 7, 5, 6}},
		{1, 2, []float64{7, 7}},
		{0, 1, []float64{7}},
		{12, 2, []float64{7, 7}}, // longer than the series: naive
	} {
		got, _, err := bench.SeasonalNaiveForecaster(y, c.period, c.h)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("period %d h %d: %v, %v; want %v", c.period, c.h, got, err, c.want)
		}
	}
	if _, _, err := bench.SeasonalNaiveForecaster(nil, 1, 1); err == nil {
		t.Error("empty series: no error")
	}
}

func TestMASE(t *testing.T) {
	// Naive scale: |2-1| + |4-2| + |1-4| = 6 over 3 → 2; MAE 1.5 → 0.75.
	got, err := bench.MASE([]float64{1, 2, 4, 1}, []float64{3, 5}, []float64{2, 3})
	if err != nil || math.Abs(got-0.75) > 1e-15 {
		t.Errorf("MASE = %v, %v; want 0.75", got, err)
	}
	for _, c := range []struct{ train, test, point []float64 }{
		{[]float64{1, 1, 1}, []float64{1}, []float64{2}},       // zero scale
		{[]float64{1}, []float64{1}, []float64{2}},             // too short
		{[]float64{1, 2}, []float64{1, 2}, []float64{2}},       // length mismatch
		{[]float64{1, 2}, nil, nil},                            // empty
		{[]float64{1, 2}, []float64{1}, []float64{math.NaN()}}, // NaN forecast
	} {
		if v, err := bench.MASE(c.train, c.test, c.point); err == nil {
			t.Errorf("MASE(%v, %v, %v) = %v, want an error", c.train, c.test, c.point, v)
		}
	}
}

func TestGeoMean(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{1, 4}, 2}, {[]float64{2, 8, 0.5}, 2}, {[]float64{3, 0}, 0}, {[]float64{3}, 3},
	} {
		if got := bench.GeoMean(c.xs); math.Abs(got-c.want) > 1e-14 {
			t.Errorf("GeoMean(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
	for _, xs := range [][]float64{nil, {1, -1}, {math.NaN()}} {
		if got := bench.GeoMean(xs); !math.IsNaN(got) {
			t.Errorf("GeoMean(%v) = %v, want NaN", xs, got)
		}
	}
}

func TestInterpolateLinear(t *testing.T) {
	nan := math.NaN()
	// R: approx(c(2, 5, 6), c(10, 16, 17.5), xout = 1:7, rule = 2)$y
	y := []float64{nan, 10, nan, nan, 16, 17.5, nan}
	if err := bench.InterpolateLinear(y); err != nil || !slices.Equal(y, []float64{10, 10, 12, 14, 16, 17.5, 17.5}) {
		t.Errorf("InterpolateLinear = %v, %v", y, err)
	}
	if err := bench.InterpolateLinear([]float64{nan, nan}); err == nil {
		t.Error("all missing: no error")
	}
	if err := bench.InterpolateLinear(nil); err != nil {
		t.Errorf("empty: %v", err)
	}
}

func TestReadSeriesCSV(t *testing.T) {
	y, err := bench.ReadSeriesCSV("testdata/forecast-gaps.csv", "value")
	if err != nil || !slices.Equal(y, []float64{10, 10, 12, 14, 16, 17.5, 17.5}) {
		t.Errorf("ReadSeriesCSV = %v, %v", y, err)
	}
	if _, err := bench.ReadSeriesCSV("testdata/forecast-gaps.csv", "nope"); err == nil {
		t.Error("missing column: no error")
	}
	bad := filepath.Join(t.TempDir(), "bad.csv")
	os.WriteFile(bad, []byte("timestamp,value\n2000-01-01,x\n"), 0o644)
	if _, err := bench.ReadSeriesCSV(bad, "value"); err == nil {
		t.Error("not a number: no error")
	}
}

func TestLoadForecastSeries(t *testing.T) {
	s, err := bench.LoadForecastSeries("no-such-dir", seriesJSON, builtinSeries)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"AirPassengers": 144, "co2": 468, "UKDriverDeaths": 192}
	for i, x := range s {
		if x.Name != builtinSeries[i] || len(x.Y) != want[x.Name] || x.Period != 12 || x.H != 24 ||
			len(x.Train()) != len(x.Y)-24 || len(x.Test()) != 24 || x.Test()[23] != x.Y[len(x.Y)-1] {
			t.Errorf("series %d: %s, %d points, period %d, h %d", i, x.Name, len(x.Y), x.Period, x.H)
		}
	}
	if s[0].Y[0] != 112 {
		t.Errorf("AirPassengers starts at %v, want 112", s[0].Y[0])
	}
	if _, err := bench.LoadForecastSeries("no-such-dir", seriesJSON, []string{"nottem"}); err == nil {
		t.Error("unknown series: no error")
	}
	if _, err := bench.LoadForecastSeries("no-such-dir", seriesJSON, nil); err == nil {
		t.Error("missing shared data: no error")
	}
	if got := bench.ForecastHorizon(1); got != 8 {
		t.Errorf("ForecastHorizon(1) = %d, want 8", got)
	}
}

func TestLoadForecastSeriesShared(t *testing.T) {
	dir := sharedData(t)
	s, err := bench.LoadForecastSeries(dir, seriesJSON, nil)
	if err != nil {
		t.Fatal(err)
	}
	if names := func() []string {
		var out []string
		for _, x := range s {
			out = append(out, x.Name)
		}
		return out
	}(); !slices.Equal(names, bench.ForecastSeriesNames()) {
		t.Errorf("series %v, want %v", names, bench.ForecastSeriesNames())
	}
	for _, c := range []struct {
		i, n, period, h int
	}{{0, 2284, 52, 104}, {1, 257, 12, 24}, {2, 100, 1, 8}} {
		if x := s[c.i]; len(x.Y) != c.n || x.Period != c.period || x.H != c.h {
			t.Errorf("%s: %d points, period %d, h %d; want %d, %d, %d", x.Name, len(x.Y), x.Period, x.H, c.n, c.period, c.h)
		}
	}
	// co2_weekly's 59 gaps are filled (LoadForecastSeries refuses NaN)
	// with plausible ppm values; TestParseForecastRReport checks them
	// against R's through the MASE of R's forecasts, and RunForecast
	// through R's Σy and Σt·y.
	for _, v := range s[0].Y {
		if v < 300 || v > 400 {
			t.Fatalf("co2_weekly value %v", v)
		}
	}
}

func readForecastFixture(t *testing.T) *bench.ForecastRReport {
	t.Helper()
	f, err := os.Open(forecastRFixture)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := bench.ParseForecastRReport(f)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestParseForecastRReport reads the committed R output and checks that
// our MASE, on our copy of each series and R's point forecasts, is the
// MASE R computed: same data, same formula.
func TestParseForecastRReport(t *testing.T) {
	rep := readForecastFixture(t)
	if rep.Forecast != "8.20" || len(rep.Series) != 6 {
		t.Fatalf("forecast %s, %d series", rep.Forecast, len(rep.Series))
	}
	for i, s := range rep.Series {
		if s.Name != bench.ForecastSeriesNames()[i] || len(s.Methods) != 3 {
			t.Errorf("series %d: %s with %d methods", i, s.Name, len(s.Methods))
		}
		for _, m := range s.Methods {
			if m.Median() <= 0 || m.Model == "" {
				t.Errorf("%s %s: median %v, model %q", s.Name, m.Key, m.Median(), m.Model)
			}
		}
	}
	if m, _ := rep.Series[0].Method("arima"); !strings.HasPrefix(m.Model, "ARIMA(") || !strings.HasSuffix(m.Model, "[52]") {
		t.Errorf("co2_weekly arima model %q, want a seasonal ARIMA of period 52", m.Model)
	}
	dir := os.Getenv("VATIC_SHARED_DATA")
	if dir == "" {
		dir = "../../shared/data"
	}
	names := builtinSeries
	if _, err := os.Stat(filepath.Join(dir, "co2_weekly.csv")); err == nil {
		names = nil // all six
	}
	series, err := bench.LoadForecastSeries(dir, seriesJSON, names)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range series {
		i := slices.IndexFunc(rep.Series, func(r bench.ForecastRSeries) bool { return r.Name == s.Name })
		for _, m := range rep.Series[i].Methods {
			got, err := bench.MASE(s.Train(), s.Test(), m.Mean)
			// R's mean() sums in long double: agreement to rounding.
			if err != nil || math.Abs(got-m.MASE) > 1e-12*m.MASE {
				t.Errorf("%s %s: our MASE of R's forecasts %v, R's %v (%v)", s.Name, m.Key, got, m.MASE, err)
			}
		}
	}
	t.Logf("checked %d series against R's MASE", len(series))

	// Incomplete documents are refused.
	b, _ := os.ReadFile(forecastRFixture)
	var doc map[string]any
	json.Unmarshal(b, &doc)
	ser := doc["series"].([]any)[0].(map[string]any)
	ser["methods"] = ser["methods"].([]any)[:2]
	b2, _ := json.Marshal(doc)
	if _, err := bench.ParseForecastRReport(bytes.NewReader(b2)); err == nil || !strings.Contains(err.Error(), "no method theta") {
		t.Errorf("report without theta: %v", err)
	}
	if _, err := bench.ParseForecastRReport(strings.NewReader(`{"series":[]}`)); err == nil {
		t.Error("empty report: no error")
	}
}

// forecastConfig runs the forecast workload on the built-in series (and
// the shared ones when present) with R's side from the fixture.
func forecastConfig(t *testing.T) bench.Config {
	t.Helper()
	cfg := bench.Config{Vatic: "unused", Dir: t.TempDir(), Runs: 2, Seed: 1,
		ForecastData: "no-such-dir", ForecastSeries: seriesJSON, ForecastOnly: builtinSeries,
		ForecastRJSON: forecastRFixture}
	dir := os.Getenv("VATIC_SHARED_DATA")
	if dir == "" {
		dir = "../../shared/data"
	}
	if _, err := os.Stat(filepath.Join(dir, "co2_weekly.csv")); err == nil {
		cfg.ForecastData, cfg.ForecastOnly = dir, nil
	}
	return cfg
}

func TestRunForecast(t *testing.T) {
	cfg := forecastConfig(t)
	var progress bytes.Buffer
	cfg.Progress = &progress
	results, err := bench.Run(t.Context(), cfg, []string{bench.WorkloadForecast})
	if err != nil {
		t.Fatalf("Run = %v\n%s", err, progress.String())
	}
	nseries := len(cfg.ForecastOnly)
	if nseries == 0 {
		nseries = 6
	}
	got := countByName(results)
	for name, want := range map[string]int{
		"Forecast/series=AirPassengers/impl=vatic":           2,
		"Forecast/series=AirPassengers/impl=r":               1,
		"Forecast/series=AirPassengers/method=arima/impl=r":  1,
		"Forecast/series=UKDriverDeaths/method=theta/impl=r": 1,
		"Forecast/daily2000/impl=vatic":                      2,
	} {
		if got[name] != want {
			t.Errorf("%d results named %s, want %d (all %v)", got[name], name, want, got)
		}
	}
	if len(results) != nseries*(2+4)+2 {
		t.Errorf("%d results, want %d", len(results), nseries*6+2)
	}
	checks := bench.Checks(results)
	var out bytes.Buffer
	bench.WriteResults(&out, results)
	bench.WriteSummary(&out, cfg.Runs, checks)
	report := out.String()
	// The summary's columns are aligned by spaces: compare with single ones.
	flat := regexp.MustCompile(` {2,}`).ReplaceAllString(report, " ")
	for _, want := range []string{
		"BenchmarkForecast/series=co2/impl=vatic\t1\t",
		"# Forecast ours seasonal_naive (placeholder baseline, not the contest)",
		"# Forecast MASE geomean vatic÷best R ",
		"# Forecast time vatic÷R fits ",
		"# Forecast/daily2000 contest time s ",
		"# Forecast/AirPassengers MASE vatic 3.215 (R: ets 2.8526 ETS(M,Ad,M), arima 3.0947 ARIMA(1,1,0)(0,1,0)[12], theta 2.8527 Theta; time ",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	// The seasonal naive forecast of AirPassengers' last two years: MASE
	// from the series itself, recomputed here.
	s, _ := bench.LoadForecastSeries("", seriesJSON, []string{"AirPassengers"})
	point, _, _ := bench.SeasonalNaiveForecaster(s[0].Train(), 12, 24)
	want, _ := bench.MASE(s[0].Train(), s[0].Test(), point)
	for _, r := range results {
		if r.Name == "Forecast/series=AirPassengers/impl=vatic" {
			if v, _ := r.Metric(bench.UnitMASE); v != want {
				t.Errorf("AirPassengers MASE %v, want %v", v, want)
			}
		}
	}
	for _, c := range checks {
		if c.Workload == "Forecast/daily2000" && !c.Pass {
			t.Errorf("the seasonal naive baseline misses the daily budget: %+v", c)
		}
	}
	t.Logf("report:\n%s", report)
}

func TestRunForecastWithoutR(t *testing.T) {
	cfg := forecastConfig(t)
	cfg.ForecastRJSON, cfg.Rscript, cfg.Runs = "", filepath.Join(t.TempDir(), "no-Rscript"), 1
	var progress bytes.Buffer
	cfg.Progress = &progress
	results, err := bench.RunForecast(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if strings.HasSuffix(r.Name, "/impl=r") {
			t.Errorf("an R result without R: %s", r.Name)
		}
	}
	if !strings.Contains(progress.String(), "R not installed") {
		t.Errorf("progress does not say R is missing:\n%s", progress.String())
	}
	var out bytes.Buffer
	bench.WriteSummary(&out, 1, bench.Checks(results))
	flat := regexp.MustCompile(` {2,}`).ReplaceAllString(out.String(), " ")
	if !strings.Contains(flat, "# Forecast R side skipped (R not installed (") || strings.Contains(flat, "geomean") {
		t.Errorf("summary:\n%s", out.String())
	}
}

func TestRunForecastErrors(t *testing.T) {
	cfg := forecastConfig(t)
	cfg.Runs = 1
	cfg.Forecaster = func(y []float64, period, h int) ([]float64, time.Duration, error) {
		return make([]float64, h-1), 0, nil
	}
	if _, err := bench.RunForecast(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "forecasts, want") {
		t.Errorf("short forecast: %v", err)
	}
	// R's report about other numbers than ours.
	b, _ := os.ReadFile(forecastRFixture)
	var doc map[string]any
	json.Unmarshal(b, &doc)
	for _, s := range doc["series"].([]any) {
		s.(map[string]any)["sum"] = 1.0
	}
	bad := filepath.Join(t.TempDir(), "r.json")
	b2, _ := json.Marshal(doc)
	os.WriteFile(bad, b2, 0o644)
	cfg = forecastConfig(t)
	cfg.ForecastRJSON = bad
	if _, err := bench.RunForecast(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "different data") {
		t.Errorf("R's report on other data: %v", err)
	}
	cfg = forecastConfig(t)
	cfg.ForecastOnly = []string{"nottem"}
	if err := cfg.Validate(); err == nil {
		t.Error("Validate accepts an unknown forecast series")
	}
}

// TestForecastEndToEndR runs forecast.R for real on AirPassengers (one
// repeat: seconds) when Rscript is installed.
func TestForecastEndToEndR(t *testing.T) {
	if _, err := exec.LookPath("Rscript"); err != nil {
		t.Skip("Rscript is not installed")
	}
	if testing.Short() {
		t.Skip("runs R")
	}
	cfg := bench.Config{Vatic: "unused", Dir: t.TempDir(), Runs: 1, ForecastData: "no-such-dir",
		ForecastSeries: seriesJSON, ForecastOnly: []string{"AirPassengers"}, ForecastRRepeats: 1}
	var progress bytes.Buffer
	cfg.Progress = &progress
	results, err := bench.RunForecast(t.Context(), cfg)
	if err != nil {
		t.Fatalf("RunForecast = %v\n%s", err, progress.String())
	}
	fixture := readForecastFixture(t)
	i := slices.IndexFunc(fixture.Series, func(s bench.ForecastRSeries) bool { return s.Name == "AirPassengers" })
	for _, key := range []string{"ets", "arima", "theta"} {
		m, _ := fixture.Series[i].Method(key)
		found := false
		for _, r := range results {
			if r.Name == "Forecast/series=AirPassengers/method="+key+"/impl=r" {
				found = true
				// The same R, the same fit: the fixture's MASE again.
				if v, _ := r.Metric(bench.UnitMASE); math.Abs(v-m.MASE) > 1e-9*m.MASE {
					t.Errorf("%s MASE %v, fixture %v", key, v, m.MASE)
				}
			}
		}
		if !found {
			t.Errorf("no result for R's %s", key)
		}
	}
}
