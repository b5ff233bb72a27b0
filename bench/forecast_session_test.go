package bench_test

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vaticml/vatic/bench"
)

// lastValue is the naive forecast the fake server's forecast sessions
// make: the last value, repeated.
func lastValue(y []float64, _ int, h int) ([]float64, time.Duration, error) {
	out := make([]float64, h)
	for i := range out {
		out[i] = y[len(y)-1]
	}
	return out, time.Millisecond, nil
}

func TestForecastFeatureSeries(t *testing.T) {
	y, promo := bench.ForecastFeatureSeries(1)
	y2, promo2 := bench.ForecastFeatureSeries(1)
	n := bench.ForecastDailyBuckets + bench.ForecastFeatureH
	if len(y) != n || len(promo) != n || !slices.Equal(y, y2) || !slices.Equal(promo, promo2) {
		t.Fatalf("ForecastFeatureSeries: %d and %d points, or not fixed by its seed", len(y), len(promo))
	}
	// promo is 0/1, on about one day in eight, in the window too, and
	// adds about 40.
	var on, inWindow int
	var with, without float64
	for i, p := range promo {
		switch p {
		case 1:
			on++
			with += y[i]
			if i >= bench.ForecastDailyBuckets {
				inWindow++
			}
		case 0:
			without += y[i]
		default:
			t.Fatalf("promo[%d] = %v", i, p)
		}
	}
	if f := float64(on) / float64(n); f < 0.1 || f > 0.15 || inWindow == 0 {
		t.Errorf("promo on %d of %d days (%d in the window)", on, n, inWindow)
	}
	if d := with/float64(on) - without/float64(n-on); d < 35 || d > 45 {
		t.Errorf("promo days lie %v above the others, want about 40", d)
	}
}

// TestRunForecastSession runs the workload against the fake server, whose
// forecast is lastValue's, so both sides' MASE agree; the fake also
// checks that each window starts one interval after the uploaded data.
func TestRunForecastSession(t *testing.T) {
	cfg := forecastConfig(t) // the shared series too when they are there
	cfg.Vatic, cfg.Forecaster, cfg.ForecasterName = fakeVaticBin(t), lastValue, "last value"
	var progress bytes.Buffer
	cfg.Progress = &progress
	results, err := bench.Run(t.Context(), cfg, []string{bench.WorkloadForecastSession})
	if err != nil {
		t.Fatalf("Run = %v\n%s", err, progress.String())
	}
	got := countByName(results)
	names := cfg.ForecastOnly
	if names == nil {
		names = bench.ForecastSeriesNames()
	}
	for _, s := range names {
		for _, side := range []string{"vatic", "contest"} {
			if name := "ForecastSession/series=" + s + "/impl=" + side; got[name] != 2 {
				t.Errorf("%d results named %s, want 2 (all %v)", got[name], name, got)
			}
		}
	}
	if got["ForecastSession/daily2000-feature/impl=vatic"] != 2 {
		t.Errorf("results %v lack the daily series with a feature", got)
	}
	// co2_weekly's 2180 training weeks exceed the session's history cap:
	// the contest also runs on the last 2000.
	want := 2 + 2*len(names) // the label, 2 per series, the daily series
	if slices.Contains(names, "co2_weekly") {
		want++
		if got["ForecastSession/series=co2_weekly/impl=contest-capped"] != 2 {
			t.Errorf("results %v lack co2_weekly's capped contest", got)
		}
	}
	checks := bench.Checks(results)
	if len(checks) != want {
		t.Fatalf("Checks = %+v, want %d", checks, want)
	}
	for _, c := range checks {
		switch {
		case c.What == "MASE session" && (!c.Pass || !strings.Contains(c.Detail, "difference 0")):
			t.Errorf("MASE check %+v: want equal", c)
		case strings.HasPrefix(c.Workload, "ForecastSession/daily") && (!c.Pass || c.Value > 40):
			t.Errorf("daily check %+v", c)
		}
	}
}

func TestForecastSessionChecks(t *testing.T) {
	ms := func(mase float64) []bench.Metric { return []bench.Metric{{Value: mase, Unit: bench.UnitMASE}} }
	res := []bench.Result{
		{Name: "ForecastSession/series=a/impl=vatic", Elapsed: 1200 * time.Millisecond, Metrics: ms(0.9)},
		{Name: "ForecastSession/series=a/impl=contest", Elapsed: time.Second, Metrics: ms(0.9)},
		{Name: "ForecastSession/series=b/impl=vatic", Elapsed: 150 * time.Millisecond, Metrics: ms(1.1)},
		{Name: "ForecastSession/series=b/impl=contest", Elapsed: 10 * time.Millisecond, Metrics: ms(1.0)},
		{Name: "ForecastSession/daily2000-feature/impl=vatic", Elapsed: 41 * time.Second, Metrics: ms(0.5)},
		// c's session fits the last 2000 values: its MASE is the capped
		// contest's, and its time is set against that contest's.
		{Name: "ForecastSession/series=c/impl=vatic", Elapsed: 2100 * time.Millisecond, Metrics: ms(1.2)},
		{Name: "ForecastSession/series=c/impl=contest", Elapsed: time.Second, Metrics: ms(1.0)},
		{Name: "ForecastSession/series=c/impl=contest-capped", Elapsed: 2 * time.Second, Metrics: ms(1.2)},
	}
	checks := bench.Checks(res)
	if len(checks) != 8 {
		t.Fatalf("Checks = %+v, want 8", checks)
	}
	want := []struct {
		workload string
		value    float64
		pass     bool
	}{
		{"ForecastSession/a", 0.9, true},
		{"ForecastSession/a", 1.1, true},  // (1.2 − 0.1) ÷ 1
		{"ForecastSession/b", 1.1, false}, // 10 % apart
		{"ForecastSession/b", 5, false},   // (0.15 − 0.1) ÷ 0.01
		{"ForecastSession/c", 1.2, false}, // 20 % from the uncapped contest
		{"ForecastSession/c", 1.2, false}, // the note: the capped contest's
		{"ForecastSession/c", 1, true},    // (2.1 − 0.1) ÷ 2
		{"ForecastSession/daily2000-feature", 41, false},
	}
	for i, w := range want {
		c := checks[i]
		if c.Workload != w.workload || math.Abs(c.Value-w.value) > 1e-9 || c.Pass != w.pass || c.Note != (i == 5) {
			t.Errorf("check %d = %+v, want %s %v pass %v", i, c, w.workload, w.value, w.pass)
		}
	}
}
