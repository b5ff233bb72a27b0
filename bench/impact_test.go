package bench_test

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/vaticml/vatic/bench"
)

func TestWilson(t *testing.T) {
	// Published values (Wilson 1927; Newcombe 1998, Table I: 0/10 and
	// 5/10 at 95 %), and the edges.
	for _, c := range []struct {
		k, n   int
		lo, hi float64
	}{
		{0, 10, 0, 0.2775},
		{5, 10, 0.2366, 0.7634},
		{10, 10, 0.7225, 1},
		{0, 0, 0, 1},
	} {
		lo, hi := bench.Wilson(c.k, c.n)
		if math.Abs(lo-c.lo) > 5e-5 || math.Abs(hi-c.hi) > 5e-5 {
			t.Errorf("Wilson(%d, %d) = %.4f, %.4f, want %.4f, %.4f", c.k, c.n, lo, hi, c.lo, c.hi)
		}
	}
	// Each bound solves the score test's equation (p̂−p)² = z²p(1−p)/n.
	const z = 1.959963984540054
	for _, kn := range [][2]int{{10, 200}, {1, 3}, {160, 200}, {199, 200}} {
		k, n := kn[0], kn[1]
		lo, hi := bench.Wilson(k, n)
		ph := float64(k) / float64(n)
		for _, p := range []float64{lo, hi} {
			if d := (ph-p)*(ph-p) - z*z*p*(1-p)/float64(n); math.Abs(d) > 1e-12 {
				t.Errorf("Wilson(%d, %d): bound %v is off the score equation by %g", k, n, p, d)
			}
		}
		if !(lo < ph && ph < hi) {
			t.Errorf("Wilson(%d, %d) = %v, %v does not hold %v", k, n, lo, hi, ph)
		}
	}
}

func TestImpactSeries(t *testing.T) {
	y, sd := bench.ImpactSeries(bench.ImpactSeriesDays(200), 1)
	y2, sd2 := bench.ImpactSeries(bench.ImpactSeriesDays(200), 1)
	if len(y) != bench.ImpactSeriesDays(200) || !slices.Equal(y, y2) || sd != sd2 {
		t.Fatalf("ImpactSeries is not fixed by its seed (%d points)", len(y))
	}
	if y3, _ := bench.ImpactSeries(bench.ImpactSeriesDays(200), 2); slices.Equal(y, y3) {
		t.Error("seeds 1 and 2 give the same series")
	}
	// AR(1), φ = 0.6, σ = 4: a stationary sd of 5.
	if sd < 4.5 || sd > 5.5 {
		t.Errorf("residual sd = %v, want about 5", sd)
	}
	// The weekly pattern: Saturday (day 5 from a Monday) highest,
	// Sunday lowest, about 29 apart.
	var day [7]float64
	for i, v := range y {
		day[i%7] += v / float64(len(y)/7)
	}
	if d := day[5] - day[6]; d < 25 || d > 33 {
		t.Errorf("Saturday − Sunday = %v, want about 29 (means %v)", d, day)
	}
	if m := (day[0] + day[1] + day[2] + day[3] + day[4] + day[5] + day[6]) / 7; math.Abs(m-200) > 2 {
		t.Errorf("level = %v, want about 200", m)
	}
	if y, sd := bench.ImpactSeries(1, 1); len(y) != 1 || sd != 0 {
		t.Errorf("ImpactSeries(1) = %v, sd %v", y, sd)
	}
}

func TestImpactWindowStarts(t *testing.T) {
	w := bench.ImpactWindow
	for _, count := range []int{1, 2, 200} {
		s, err := bench.ImpactWindowStarts(w, count)
		if err != nil || len(s) != count {
			t.Fatalf("ImpactWindowStarts(%d) = %d starts, %v", count, len(s), err)
		}
		for i, v := range s {
			if v != bench.ImpactHistory+i*w {
				t.Fatalf("ImpactWindowStarts(%d)[%d] = %d, want %d", count, i, v, bench.ImpactHistory+i*w)
			}
		}
		if end := s[count-1] + w; end != bench.ImpactSeriesDays(count) {
			t.Errorf("last window of %d ends on day %d, the series holds %d", count, end, bench.ImpactSeriesDays(count))
		}
	}
	for _, c := range [][2]int{{0, 1}, {w, 0}, {-1, -1}} {
		if s, err := bench.ImpactWindowStarts(c[0], c[1]); err == nil {
			t.Errorf("ImpactWindowStarts%v = %v, want an error", c, s)
		}
	}
}

func TestImpactChecks(t *testing.T) {
	res := []bench.Result{
		{Name: "Impact/placebo/impl=vatic", Metrics: []bench.Metric{{Value: 9, Unit: bench.UnitRejected}, {Value: 200, Unit: bench.UnitWindows}, {Value: 4, Unit: bench.UnitRejectedHalf}}},
		{Name: "Impact/shift/impl=vatic", Metrics: []bench.Metric{{Value: 150, Unit: bench.UnitDetected}, {Value: 200, Unit: bench.UnitWindows}}},
		// A second run pools with the first.
		{Name: "Impact/placebo/impl=vatic", Metrics: []bench.Metric{{Value: 1, Unit: bench.UnitRejected}, {Value: 200, Unit: bench.UnitWindows}, {Value: 0, Unit: bench.UnitRejectedHalf}}},
		{Name: "Impact/shift/impl=vatic", Metrics: []bench.Metric{{Value: 190, Unit: bench.UnitDetected}, {Value: 200, Unit: bench.UnitWindows}}},
	}
	checks := bench.Checks(res)
	if len(checks) != 3 {
		t.Fatalf("Checks = %+v, want 3", checks)
	}
	if c := checks[0]; c.Workload != "Impact/placebo" || c.Value != 10.0/400 || !c.Pass || !strings.Contains(c.Detail, "10 of 400") {
		t.Errorf("placebo check = %+v", c)
	}
	if c := checks[1]; c.Workload != "Impact/placebo" || c.Value != 4.0/400 || !c.Note {
		t.Errorf("two-sided placebo note = %+v", c)
	}
	if c := checks[2]; c.Workload != "Impact/shift" || c.Value != 340.0/400 || !c.Pass {
		t.Errorf("shift check = %+v", c)
	}
	res[2].Metrics[0].Value = 40
	if c := bench.Checks(res)[0]; c.Pass {
		t.Errorf("49 of 400 placebo rejections pass: %+v", c)
	}
}

func TestRunImpact(t *testing.T) {
	cfg := bench.Config{Vatic: fakeVaticBin(t), Dir: t.TempDir(), Runs: 2, Seed: 1, ImpactWindows: 5, ImpactConcurrency: 3}
	var progress bytes.Buffer
	cfg.Progress = &progress
	results, err := bench.Run(t.Context(), cfg, []string{bench.WorkloadImpact})
	if err != nil {
		t.Fatalf("Run = %v\n%s", err, progress.String())
	}
	got := countByName(results)
	if got["Impact/placebo/impl=vatic"] != 2 || got["Impact/shift/impl=vatic"] != 2 || len(got) != 2 {
		t.Fatalf("results %v, want 2 runs of placebo and shift", got)
	}
	for _, r := range results {
		n, _ := r.Metric(bench.UnitWindows)
		rate, _ := r.Metric(bench.UnitRate)
		if n != 5 {
			t.Errorf("%s: %v windows, want 5", r.Name, n)
		}
		// The fake detects a window whose mean lies over 1 above the
		// last value before it: every shifted window (7.5 a day).
		if d, ok := r.Metric(bench.UnitDetected); ok && (d != 5 || rate != 1) {
			t.Errorf("%s: %v detected (rate %v), want all 5", r.Name, d, rate)
		}
	}
	if checks := bench.Checks(results); len(checks) != 3 || !strings.Contains(checks[2].Detail, "10 of 10") {
		t.Errorf("Checks = %+v", checks)
	}
	if !strings.Contains(progress.String(), "shift window   5") {
		t.Errorf("progress lacks the windows:\n%s", progress.String())
	}
}
