package forecast_test

import (
	"math"
	"testing"

	"github.com/vaticml/vatic/stats/forecast"
)

// baseFit fits one of the baseline methods by its key.
func baseFit(method string, y []float64, period int) (forecast.Model, error) {
	switch method {
	case "naive":
		return forecast.Naive(y)
	case "seasonal_naive":
		return forecast.SeasonalNaive(y, period)
	case "seasonal_mean":
		return forecast.SeasonalMean(y, period)
	case "seasonal_median":
		return forecast.SeasonalMedian(y, period)
	case "naive2":
		return forecast.Naive2(y, period)
	case "theta":
		return forecast.Theta(y, period)
	}
	panic(method)
}

// Naive and seasonal naive are closed forms: R's values to 1e-10
// relative. Seasonal mean/median follow the R script's independent
// implementation of the same definition.
func TestBaselinesMatchR(t *testing.T) {
	r := loadBaseRef(t)
	for _, c := range r.Baselines {
		t.Run(c.Name+"/"+c.Method, func(t *testing.T) {
			var y []float64
			if c.Name == "USAccDeaths[1:24]" {
				y = r.ShortUSAccDeaths
			} else {
				y = forecast.LoadSeries(t, c.Name).X
			}
			m, err := baseFit(c.Method, y, c.Period)
			if err != nil {
				t.Fatal(err)
			}
			if m.Key() != c.Method {
				t.Errorf("key %q", m.Key())
			}
			f, err := m.Forecast(c.H, nil)
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, f, 1e-10)
		})
	}
}

func TestDecomposeMatchesR(t *testing.T) {
	for _, c := range loadBaseRef(t).Decompose {
		t.Run(c.Name+"/"+c.Type, func(t *testing.T) {
			s := forecast.LoadSeries(t, c.Name)
			d, err := forecast.Decompose(s.X, s.Period(), c.Type == "multiplicative")
			if err != nil {
				t.Fatal(err)
			}
			for _, part := range []struct {
				name      string
				got, want []float64
			}{{"trend", d.Trend, rNums(c.Trend)}, {"seasonal", d.Seasonal, c.Seasonal},
				{"random", d.Random, rNums(c.Random)}, {"figure", d.Figure, c.Figure}} {
				if err := closeSlices(part.got, part.want, 1e-12); err != nil {
					t.Errorf("%s: %v", part.name, err)
				}
			}
		})
	}
}

func TestSeasonalityTestMatchesR(t *testing.T) {
	for _, c := range loadBaseRef(t).Seasonality {
		s := forecast.LoadSeries(t, c.Name)
		if got := forecast.SeasonalityTest(s.X, c.Period); got != c.Seasonal {
			t.Errorf("%s: seasonal = %v, want %v (R's statistic %.4f vs 1.645)", c.Name, got, c.Seasonal, c.Stat)
		}
	}
}

// naive2 is closed form given the decomposition: 1e-10 relative.
func TestNaive2MatchesR(t *testing.T) {
	for _, c := range loadBaseRef(t).Naive2 {
		t.Run(c.Name, func(t *testing.T) {
			s := forecast.LoadSeries(t, c.Name)
			m, err := forecast.Naive2(s.X, c.Period)
			if err != nil {
				t.Fatal(err)
			}
			f, err := m.Forecast(c.H, nil)
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, f, 1e-10)
		})
	}
}

// Theta runs a port of R's own Nelder–Mead from R's starting point with
// R's objective, so it stops at R's (α, ℓ₀), not merely near the optimum:
// the observed differences are below 1e-14; 1e-9 relative leaves room
// for rounding in the objective (a flat optimum can amplify it in the
// parameters).
func TestThetaMatchesR(t *testing.T) {
	for _, c := range loadBaseRef(t).Theta {
		t.Run(c.Name, func(t *testing.T) {
			s := forecast.LoadSeries(t, c.Name)
			m, err := forecast.Theta(s.X, c.Period)
			if err != nil {
				t.Fatal(err)
			}
			if (m.Index != nil) != c.Seasonal {
				t.Errorf("seasonally adjusted = %v, want %v", m.Index != nil, c.Seasonal)
			}
			for _, p := range []struct {
				name      string
				got, want float64
				tol       float64
			}{{"alpha", m.Alpha, c.Alpha, 1e-9}, {"l0", m.Level0, c.Level0, 1e-9},
				{"drift", m.Drift, c.Drift, 1e-10}, {"sigma2", m.Sigma2, c.Sigma2, 1e-9}} {
				if math.Abs(p.got-p.want) > p.tol*math.Max(1, math.Abs(p.want)) {
					t.Errorf("%s = %.10g, want %.10g", p.name, p.got, p.want)
				}
			}
			f, err := m.Forecast(c.H, nil)
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, f, 1e-9)
		})
	}
}

func TestBaselinesShortConstantZeros(t *testing.T) {
	methods := []string{"naive", "seasonal_naive", "seasonal_mean", "seasonal_median", "naive2", "theta"}
	// Too short: a *SkipError with a reason, never a panic.
	for _, method := range methods {
		for _, n := range []int{0, 1, 6, 12} {
			y := make([]float64, n)
			for i := range y {
				y[i] = float64(i + 1)
			}
			_, err := baseFit(method, y, 12)
			var wantSkip bool
			switch method {
			case "naive", "naive2":
				wantSkip = n < 2
			case "theta":
				wantSkip = n < 7
			default:
				wantSkip = n <= 12
			}
			if wantSkip && !forecast.IsSkip(err) {
				t.Errorf("%s on %d points: err = %v, want a skip", method, n, err)
			}
			if !wantSkip && err != nil {
				t.Errorf("%s on %d points: %v", method, n, err)
			}
		}
		if _, err := baseFit(method, []float64{1, 2, math.Inf(1), 4, 5, 6, 7, 8, 9, 10}, 2); err == nil || forecast.IsSkip(err) {
			t.Errorf("%s with Inf: err = %v, want an error", method, err)
		}
	}
	// Constant series and zeros: finite forecasts equal to the constant,
	// degenerate quantiles.
	for _, v := range []float64{0, 7} {
		y := make([]float64, 60)
		for i := range y {
			y[i] = v
		}
		for _, method := range methods {
			m, err := baseFit(method, y, 12)
			if err != nil {
				t.Fatalf("%s on constant %v: %v", method, v, err)
			}
			f, err := m.Forecast(15, nil)
			if err != nil {
				t.Fatal(err)
			}
			for k := range 15 {
				for i := range forecast.Levels {
					if q := f.Quantiles[i][k]; math.Abs(q-v) > 1e-6 {
						t.Fatalf("%s on constant %v: quantile %v at step %d = %v", method, v, forecast.Levels[i], k+1, q)
					}
				}
			}
		}
	}
	// Counts with many zeros and a weekly pattern: everything fits and
	// the quantiles are ordered and finite.
	y := make([]float64, 200)
	for i := range y {
		if i%7 == 5 || i%3 == 0 {
			y[i] = float64((i * 7919) % 5)
		}
	}
	for _, method := range methods {
		m, err := baseFit(method, y, 7)
		if err != nil {
			t.Fatalf("%s on counts: %v", method, err)
		}
		f, err := m.Forecast(30, nil)
		if err != nil {
			t.Fatal(err)
		}
		baseCheckForecast(t, method, f)
	}
}

// Negative data are not multiplicatively adjusted (naive2 and theta fall
// back to the non-seasonal method) and decompose refuses them.
func TestMultiplicativeOnNegativeData(t *testing.T) {
	s := forecast.LoadSeries(t, "AirPassengers")
	y := make([]float64, len(s.X))
	for i, v := range s.X {
		y[i] = v - 300
	}
	if _, err := forecast.Decompose(y, 12, true); !forecast.IsSkip(err) {
		t.Errorf("multiplicative decompose of negative data: err = %v, want a skip", err)
	}
	if _, err := forecast.Decompose(y, 12, false); err != nil {
		t.Errorf("additive decompose of negative data: %v", err)
	}
	n2, err := forecast.Naive2(y, 12)
	if err != nil {
		t.Fatal(err)
	}
	th, err := forecast.Theta(y, 12)
	if err != nil {
		t.Fatal(err)
	}
	if n2.Index != nil || th.Index != nil {
		t.Error("negative data were seasonally adjusted")
	}
}

func TestBaselinesLongSeriesAndRefit(t *testing.T) {
	y := baseSynthetic(10080, 168, 5)
	for _, method := range []string{"naive", "seasonal_naive", "seasonal_mean", "seasonal_median", "naive2", "theta"} {
		m, err := baseFit(method, y[:10000], 168)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		f, err := m.Forecast(168, nil)
		if err != nil {
			t.Fatal(err)
		}
		baseCheckForecast(t, method, f)
		if _, err := m.Forecast(2, [][]float64{{1, 2}}); err == nil {
			t.Errorf("%s accepted regressors", method)
		}
		var m2 forecast.Model
		switch mm := m.(type) {
		case *forecast.NaiveModel:
			m2, err = mm.Refit(y)
		case *forecast.SeasonalMeanModel:
			m2, err = mm.Refit(y)
		case *forecast.Naive2Model:
			m2, err = mm.Refit(y)
		case *forecast.ThetaModel:
			m2, err = mm.Refit(y)
		}
		if err != nil || m2 == nil || m2.Key() != m.Key() {
			t.Errorf("%s: refit %v, %v", method, m2, err)
		}
	}
}

// baseCheckForecast checks that quantiles are finite and ordered.
func baseCheckForecast(t *testing.T, method string, f forecast.Forecast) {
	t.Helper()
	for k := range f.Mean {
		for i := range forecast.Levels {
			q := f.Quantiles[i][k]
			if math.IsNaN(q) || math.IsInf(q, 0) {
				t.Fatalf("%s: quantile %v at step %d is %v", method, forecast.Levels[i], k+1, q)
			}
			if i > 0 && q < f.Quantiles[i-1][k] {
				t.Fatalf("%s: quantiles cross at step %d", method, k+1)
			}
		}
	}
}

func BenchmarkThetaDaily2000(b *testing.B) {
	y := baseSynthetic(2000, 7, 3)
	for b.Loop() {
		m, err := forecast.Theta(y, 7)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := m.Forecast(28, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSeasonalMedianDaily2000(b *testing.B) {
	y := baseSynthetic(2000, 7, 3)
	for b.Loop() {
		m, err := forecast.SeasonalMedian(y, 7)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := m.Forecast(28, nil); err != nil {
			b.Fatal(err)
		}
	}
}
