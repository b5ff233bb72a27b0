package forecast_test

import (
	"math"
	"slices"
	"testing"

	"github.com/vaticml/vatic/stats/forecast"
)

// tsoutliers combines the STL, supsmu and least-squares ports; the flags
// must be R's exactly and the replacements agree to 1e-8 relative (the
// regression fill uses another basis than R's orthogonal polynomials,
// which changes the rounding, not the fitted values).
func TestTSOutliersMatchesR(t *testing.T) {
	for _, c := range loadBaseRef(t).Outliers {
		t.Run(c.Name, func(t *testing.T) {
			o, err := forecast.TSOutliers(c.X, c.Period)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]int, len(c.Index))
			for i, v := range c.Index {
				want[i] = v - 1
			}
			if !slices.Equal(o.Index, want) {
				t.Fatalf("index %v, want %v", o.Index, want)
			}
			if err := closeSlices(o.Replacement, c.Replacement, 1e-8); err != nil {
				t.Errorf("replacement: %v", err)
			}
			clean, err := forecast.Clean(c.X, c.Period)
			if err != nil {
				t.Fatal(err)
			}
			if err := closeSlices(clean, c.Clean, 1e-8); err != nil {
				t.Errorf("clean: %v", err)
			}
		})
	}
}

func TestTSOutliersEdgeCases(t *testing.T) {
	for _, v := range []float64{0, 3.5} {
		y := make([]float64, 100)
		for i := range y {
			y[i] = v
		}
		for _, p := range []int{1, 7} {
			o, err := forecast.TSOutliers(y, p)
			if err != nil || len(o.Index) != 0 {
				t.Errorf("constant %v, period %d: %v, %v", v, p, o, err)
			}
		}
	}
	// A flat series with one spike: the smoother spreads the spike, so the
	// IQR is not zero and the spike is flagged and replaced by 0 (R:
	// y <- rep(0, 50); y[21] <- 100; tsoutliers(y) gives index 21,
	// replacement 0). An alternating series has no outliers.
	y := make([]float64, 50)
	y[20] = 100
	if o, err := forecast.TSOutliers(y, 1); err != nil || !slices.Equal(o.Index, []int{20}) || o.Replacement[0] != 0 {
		t.Errorf("flat with a spike: %v, %v", o, err)
	}
	for i := range y {
		y[i] = float64(1 + i%2)
	}
	if o, err := forecast.TSOutliers(y, 1); err != nil || len(o.Index) != 0 {
		t.Errorf("alternating: %v, %v", o, err)
	}
	for n := range 3 {
		if _, err := forecast.TSOutliers(make([]float64, n), 1); !forecast.IsSkip(err) {
			t.Errorf("%d points: err = %v, want a skip", n, err)
		}
	}
	if _, err := forecast.Clean([]float64{1, math.NaN(), 3, 4}, 1); err == nil || forecast.IsSkip(err) {
		t.Errorf("NaN: err = %v, want an error", err)
	}
	// Counts with zeros, seasonal: no panic, replacements finite.
	c := make([]float64, 120)
	for i := range c {
		c[i] = float64((i * 7919) % 4)
		if i%7 == 0 {
			c[i] += 10
		}
	}
	c[50] = 200
	o, err := forecast.TSOutliers(c, 7)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(o.Index, 50) {
		t.Errorf("the spike at 50 was not flagged: %v", o.Index)
	}
	for _, r := range o.Replacement {
		if math.IsNaN(r) || math.IsInf(r, 0) {
			t.Fatalf("replacement %v", r)
		}
	}
}

func TestTSOutliersLongSeriesIsFast(t *testing.T) {
	y := baseSynthetic(10000, 24, 9)
	for _, i := range []int{100, 5000, 9999} {
		y[i] *= 3
	}
	o, err := forecast.TSOutliers(y, 24)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{100, 5000, 9999} {
		if !slices.Contains(o.Index, i) {
			t.Errorf("spike at %d not flagged (%d flagged)", i, len(o.Index))
		}
	}
}

func BenchmarkTSOutliersDaily2000(b *testing.B) {
	y := baseSynthetic(2000, 7, 3)
	y[500] *= 3
	for b.Loop() {
		if _, err := forecast.TSOutliers(y, 7); err != nil {
			b.Fatal(err)
		}
	}
}

// No method panics on finite input, however extreme; lengths around the
// thresholds and huge or tiny magnitudes included.
func TestBaseNoPanicOnExtremeInput(t *testing.T) {
	gens := map[string]func(i int) float64{
		"huge":        func(i int) float64 { return 1e300 * float64(1+i%3) },
		"mixed":       func(i int) float64 { return math.Pow(-1, float64(i)) * 1e300 },
		"tiny":        func(i int) float64 { return 1e-300 * float64(i%5) },
		"step":        func(i int) float64 { return float64(i / 10) },
		"zeros-spike": func(i int) float64 { return float64(i%29/28) * 1e6 },
	}
	for name, g := range gens {
		for _, n := range []int{1, 2, 3, 5, 7, 8, 13, 14, 15, 25, 29, 60} {
			y := make([]float64, n)
			for i := range y {
				y[i] = g(i)
			}
			for _, p := range []int{1, 2, 7, 12} {
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Errorf("%s n=%d p=%d: panic %v", name, n, p, r)
						}
					}()
					for _, method := range []string{"naive", "seasonal_naive", "seasonal_mean", "seasonal_median", "naive2", "theta"} {
						if m, err := baseFit(method, y, p); err == nil {
							_, _ = m.Forecast(10, nil)
						}
					}
					_, _ = forecast.STL(y, p, forecast.STLOptions{Robust: true})
					_, _ = forecast.STL(y, p, forecast.STLOptions{SWindow: 7})
					_, _ = forecast.MSTL(y, p, false)
					_, _ = forecast.Decompose(y, p, true)
					_, _ = forecast.Decompose(y, p, false)
					_, _ = forecast.TSOutliers(y, p)
					_, _ = forecast.Clean(y, p)
					_ = forecast.Supsmu(y)
				}()
			}
		}
	}
}
