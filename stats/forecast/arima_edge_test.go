package forecast_test

import (
	"math"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"testing"
	"time"

	"github.com/vaticml/vatic/stats/forecast"
)

var _ forecast.Model = (*forecast.ARIMAModel)(nil)

// checkForecast checks a forecast's shape and that its quantiles are
// finite, ordered and centred on the mean.
func checkForecast(t *testing.T, f forecast.Forecast, h int) {
	t.Helper()
	if len(f.Mean) != h {
		t.Fatalf("%d means for h = %d", len(f.Mean), h)
	}
	for i := range forecast.NumLevels {
		if len(f.Quantiles[i]) != h {
			t.Fatalf("level %d: %d values", i, len(f.Quantiles[i]))
		}
	}
	for s := range h {
		if math.IsNaN(f.Mean[s]) || math.IsInf(f.Mean[s], 0) {
			t.Fatalf("step %d: mean %v", s, f.Mean[s])
		}
		for i := 1; i < forecast.NumLevels; i++ {
			if !(f.Quantiles[i][s] >= f.Quantiles[i-1][s]) {
				t.Fatalf("step %d: quantiles cross: %v", s, f.Quantiles)
			}
		}
		if f.Quantiles[forecast.MedianLevel][s] != f.Mean[s] {
			t.Fatalf("step %d: median %v, mean %v", s, f.Quantiles[forecast.MedianLevel][s], f.Mean[s])
		}
	}
}

func TestARIMABadInput(t *testing.T) {
	y := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		z := slices.Clone(y)
		z[3] = bad
		if _, err := forecast.AutoARIMA(z, 1, nil, forecast.AutoARIMAOptions{}); err == nil || forecast.IsSkip(err) {
			t.Errorf("AutoARIMA with %v: err %v, want an error", bad, err)
		}
		if _, err := forecast.ARIMA(z, forecast.ARIMASpec{P: 1}, nil, forecast.ARIMAOptions{}); err == nil || forecast.IsSkip(err) {
			t.Errorf("ARIMA with %v: err %v, want an error", bad, err)
		}
		x := []float64{1, 0, 1, 0, 1, 0, 1, 0, 1, bad}
		if _, err := forecast.AutoARIMA(y, 1, [][]float64{x}, forecast.AutoARIMAOptions{}); err == nil || forecast.IsSkip(err) {
			t.Errorf("regressor with %v: err %v, want an error", bad, err)
		}
	}
	if _, err := forecast.ARIMA(y, forecast.ARIMASpec{P: 1}, [][]float64{{1, 2}}, forecast.ARIMAOptions{}); err == nil {
		t.Error("a short regressor is accepted")
	}
	// Not longer than the differencing: skipped, as R refuses it.
	if _, err := forecast.ARIMA(y[:4], forecast.ARIMASpec{SeasonalD: 1, Period: 4}, nil, forecast.ARIMAOptions{}); !forecast.IsSkip(err) {
		t.Errorf("4 points with a period-4 difference: err %v, want a SkipError", err)
	}
	// Rank-deficient regressors.
	x1 := []float64{1, 3, 2, 5, 4, 6, 8, 7, 9, 10}
	x2 := make([]float64, len(x1))
	for i, v := range x1 {
		x2[i] = 2*v + 1
	}
	if _, err := forecast.AutoARIMA(y, 1, [][]float64{x1, x2}, forecast.AutoARIMAOptions{}); err == nil {
		t.Error("collinear regressors are accepted")
	}
}

func TestAutoARIMAConstantAndZeros(t *testing.T) {
	for _, v := range []float64{0, 5, -3.25} {
		y := make([]float64, 40)
		for i := range y {
			y[i] = v
		}
		m, err := forecast.AutoARIMA(y, 7, nil, forecast.AutoARIMAOptions{})
		if err != nil {
			t.Fatalf("constant %v: %v", v, err)
		}
		// R: ARIMA(0,0,0) with the mean fixed at the value, forecast v with
		// zero-width intervals.
		if m.Name() != "ARIMA(0,0,0) with non-zero mean" || m.Intercept != v || m.NumParams() != 1 {
			t.Errorf("constant %v: %s, intercept %v, %d params", v, m.Name(), m.Intercept, m.NumParams())
		}
		f, err := m.Forecast(10, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkForecast(t, f, 10)
		for i := range forecast.NumLevels {
			for _, q := range f.Quantiles[i] {
				if q != v {
					t.Fatalf("constant %v: quantile %v", v, q)
				}
			}
		}
	}
}

// TestAutoARIMACounts fits small counts with many zeros, daily with a
// weekly pattern: the model must fit and forecast finitely.
func TestAutoARIMACounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	y := make([]float64, 300)
	for i := range y {
		lambda := 0.6 + 0.5*math.Sin(2*math.Pi*float64(i)/7)
		// Poisson by inversion.
		k, p, u := 0, math.Exp(-lambda), rng.Float64()
		s := p
		for u > s {
			k++
			p *= lambda / float64(k)
			s += p
		}
		y[i] = float64(k)
	}
	m, err := forecast.AutoARIMA(y, 7, nil, forecast.AutoARIMAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := m.Forecast(14, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkForecast(t, f, 14)
	t.Logf("counts: %s", m.Name())
}

// TestARIMANoPanics throws short, odd and random input at both fits:
// errors are fine, panics and non-finite forecasts are not.
func TestARIMANoPanics(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 150 {
		n := 1 + rng.IntN(40)
		y := make([]float64, n)
		kind := trial % 5
		for i := range y {
			switch kind {
			case 0:
				y[i] = rng.NormFloat64()
			case 1:
				y[i] = float64(rng.IntN(3)) // small counts
			case 2:
				y[i] = 1e6 + float64(i)*1e-3 // tiny relative variation
			case 3:
				y[i] = math.Pow(-1, float64(i)) // alternating
			default:
				y[i] = float64(i * i) // a polynomial
			}
		}
		period := []int{0, 1, 2, 4, 7, 12, 50}[rng.IntN(7)]
		var xreg [][]float64
		if trial%7 == 0 {
			xreg = [][]float64{make([]float64, n)}
			for i := range xreg[0] {
				xreg[0][i] = rng.NormFloat64()
			}
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("trial %d (n %d, period %d, kind %d): panic %v\n%s", trial, n, period, kind, r, debug.Stack())
				}
			}()
			m, err := forecast.AutoARIMA(y, period, xreg, forecast.AutoARIMAOptions{})
			if err == nil {
				var fx [][]float64
				if xreg != nil {
					fx = [][]float64{{0, 1, 2}}
				}
				f, err := m.Forecast(3, fx)
				if err != nil {
					t.Fatalf("trial %d: forecast: %v", trial, err)
				}
				for _, v := range f.Mean {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						t.Fatalf("trial %d: forecast %v", trial, f.Mean)
					}
				}
			}
			// Explicit seasonal ARMA terms at period 50 make each
			// likelihood cost milliseconds: keep the fixed specs ≤ 12.
			spec := forecast.ARIMASpec{P: rng.IntN(3), D: rng.IntN(3), Q: rng.IntN(3),
				SeasonalP: rng.IntN(2), SeasonalD: rng.IntN(2), SeasonalQ: rng.IntN(2),
				Period: min(period, 12), IncludeMean: rng.IntN(2) == 0, IncludeDrift: rng.IntN(2) == 0}
			if m, err := forecast.ARIMA(y, spec, xreg, forecast.ARIMAOptions{Method: forecast.ARIMAMethod(rng.IntN(3))}); err == nil {
				var fx [][]float64
				if xreg != nil {
					fx = [][]float64{{0, 1}}
				}
				if _, err := m.Forecast(2, fx); err != nil {
					t.Fatalf("trial %d: %+v: forecast: %v", trial, spec, err)
				}
			}
		}()
	}
}

func TestARIMAForecastAPI(t *testing.T) {
	s := forecast.LoadSeries(t, "LakeHuron")
	trend := make([]float64, len(s.X))
	for i := range trend {
		trend[i] = 1875 + float64(i)
	}
	m, err := forecast.ARIMA(s.X, forecast.ARIMASpec{P: 1, Q: 1, IncludeMean: true}, [][]float64{trend}, forecast.ARIMAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Key() != "ARIMAX" || m.Name() != "Regression with ARIMA(1,0,1) errors" || m.NumParams() != 5 {
		t.Errorf("%s %s %d", m.Key(), m.Name(), m.NumParams())
	}
	if _, err := m.Forecast(0, nil); err == nil {
		t.Error("h = 0 accepted")
	}
	if _, err := m.Forecast(3, nil); err == nil {
		t.Error("missing future regressors accepted")
	}
	if _, err := m.Forecast(3, [][]float64{{1, 2}}); err == nil {
		t.Error("short future regressors accepted")
	}
	if _, err := m.Forecast(2, [][]float64{{1, math.NaN()}}); err == nil {
		t.Error("NaN future regressor accepted")
	}
	f, err := m.Forecast(5, [][]float64{{1973, 1974, 1975, 1976, 1977}})
	if err != nil {
		t.Fatal(err)
	}
	checkForecast(t, f, 5)
	names, cov := m.RegressionCov()
	if !slices.Equal(names, []string{"intercept", "xreg"}) || len(cov) != 2 {
		t.Fatalf("RegressionCov names %v", names)
	}
	if cov[1][1] != m.CoefCov[3][3] || cov[0][1] != m.CoefCov[2][3] {
		t.Errorf("RegressionCov %v is not the block of CoefCov %v", cov, m.CoefCov)
	}
	// Refit on the first 80 points: the same model form, new estimates
	// equal to a fresh fit's.
	r, err := m.Refit(s.X[:80], [][]float64{trend[:80]})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := forecast.ARIMA(s.X[:80], forecast.ARIMASpec{P: 1, Q: 1, IncludeMean: true}, [][]float64{trend[:80]}, forecast.ARIMAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Name() != m.Name() || !slices.Equal(r.Coef, fresh.Coef) {
		t.Errorf("refit %s %v, fresh %v", r.Name(), r.Coef, fresh.Coef)
	}
	if _, err := m.Refit(s.X, nil); err == nil {
		t.Error("refit without the regressor accepted")
	}
}

// TestARIMASpecRules: as R's Arima, a period of 1 drops the seasonal
// order, two differences drop the drift, and the mean only enters
// without differencing.
func TestARIMASpecRules(t *testing.T) {
	s := forecast.LoadSeries(t, "Nile")
	m, err := forecast.ARIMA(s.X, forecast.ARIMASpec{P: 1, SeasonalP: 1, SeasonalD: 1, Period: 1, IncludeMean: true}, nil, forecast.ARIMAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Name() != "ARIMA(1,0,0) with non-zero mean" || m.SeasonalP != 0 {
		t.Errorf("period 1: %s", m.Name())
	}
	m, err = forecast.ARIMA(s.X, forecast.ARIMASpec{D: 2, Q: 1, IncludeMean: true, IncludeDrift: true}, nil, forecast.ARIMAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.HasDrift || m.HasIntercept || m.Name() != "ARIMA(0,2,1)" {
		t.Errorf("two differences: %s drift %v mean %v", m.Name(), m.HasDrift, m.HasIntercept)
	}
}

// TestARIMAPsiWeights checks ψ-weights of closed forms: a random walk
// (all ones), an AR(1) (φ^k), and the Kalman forecast variance of a long
// series against σ²Σψ².
func TestARIMAPsiWeights(t *testing.T) {
	s := forecast.LoadSeries(t, "Nile")
	rw, err := forecast.ARIMA(s.X, forecast.ARIMASpec{D: 1}, nil, forecast.ARIMAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range rw.PsiWeights(6) {
		if v != 1 {
			t.Errorf("random walk ψ_%d = %v", k, v)
		}
	}
	ar, err := forecast.ARIMA(s.X, forecast.ARIMASpec{P: 1, IncludeMean: true}, nil, forecast.ARIMAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	phi := ar.AR[0]
	for k, v := range ar.PsiWeights(6) {
		if math.Abs(v-math.Pow(phi, float64(k))) > 1e-12 {
			t.Errorf("AR(1) ψ_%d = %v, want %v", k, v, math.Pow(phi, float64(k)))
		}
	}
	// After 100 observations the Kalman prediction variance of an
	// ARIMA(1,1,1) is the ψ-weight variance.
	m, err := forecast.ARIMA(s.X, forecast.ARIMASpec{P: 1, D: 1, Q: 1}, nil, forecast.ARIMAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := 8
	f, err := m.Forecast(h, nil)
	if err != nil {
		t.Fatal(err)
	}
	psi := m.PsiWeights(h)
	acc := 0.0
	for i := range h {
		acc += psi[i] * psi[i]
		sd := (f.Quantiles[5][i] - f.Mean[i]) / 1.6448536269514722
		if want := math.Sqrt(m.Sigma2 * acc); math.Abs(sd-want) > 1e-6*want {
			t.Errorf("step %d: Kalman s.d. %v, ψ s.d. %v", i+1, sd, want)
		}
	}
}

// TestAutoARIMALongHourly: a 10 000-point hourly series. The CSS search
// runs on all of it and the chosen model is refitted by exact
// likelihood; the steady-state Kalman filter keeps the refit linear in n.
func TestAutoARIMALongHourly(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	y := make([]float64, 10000)
	e := 0.0
	for i := range y {
		e = 0.7*e + rng.NormFloat64()
		y[i] = 50 + 10*math.Sin(2*math.Pi*float64(i)/24) + e
	}
	start := time.Now()
	m, err := forecast.AutoARIMA(y, 24, nil, forecast.AutoARIMAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := m.Forecast(48, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkForecast(t, f, 48)
	t.Logf("%s in %v", m.Name(), time.Since(start))
}

func loadDaily2000(tb testing.TB) []float64 {
	ref := loadArimaRef(tb)
	for _, s := range ref.Synthetic {
		if s.Name == "daily2000" {
			return s.X
		}
	}
	tb.Fatal("no daily2000 series in the reference")
	return nil
}

// BenchmarkAutoARIMA: auto-ARIMA on the 2000-point daily series with a
// weekly cycle of arima_reference.json (R 4.2.2's auto.arima takes
// r_seconds/r_user_seconds recorded there).
func BenchmarkAutoARIMA(b *testing.B) {
	y := loadDaily2000(b)
	for b.Loop() {
		if _, err := forecast.AutoARIMA(y, 7, nil, forecast.AutoARIMAOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkARIMA: one seasonal fit, ARIMA(1,0,1)(1,1,1)[7], on the same
// series.
func BenchmarkARIMA(b *testing.B) {
	y := loadDaily2000(b)
	spec := forecast.ARIMASpec{P: 1, Q: 1, SeasonalP: 1, SeasonalD: 1, SeasonalQ: 1, Period: 7}
	for b.Loop() {
		if _, err := forecast.ARIMA(y, spec, nil, forecast.ARIMAOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
