package engine

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vaticml/vatic/stats/forecast"
)

// The pValue of MODELLING §3.3 by hand: Σobs = 20, Σcf = 16, Var(S) = 4,
// so z = 4/2 = 2 and p = Φ(−2) = 0.0227501…, 0.0228 at 4 decimals.
func TestImpactMetricsByHand(t *testing.T) {
	m := impactMetrics([]float64{10, 10}, []float64{8, 8}, 4)
	want := map[string]float64{"absoluteEffect": 4, "relativeEffect": 0.25, "pValue": 0.0228}
	if len(m) != 3 {
		t.Fatalf("metrics = %v", m)
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %v, want %v", k, m[k], v)
		}
	}
	// Below the counterfactual: the same tail, a negative effect.
	m = impactMetrics([]float64{6, 6}, []float64{8, 8}, 4)
	if m["pValue"] != 0.0228 || m["absoluteEffect"] != -4 || m["relativeEffect"] != -0.25 {
		t.Errorf("negative effect metrics = %v", m)
	}
	// Σobs = 10.5, Σcf = 10, Var(S) = 1: p = Φ(−0.5) = 0.3085375….
	if m := impactMetrics([]float64{10.5}, []float64{10}, 1); m["pValue"] != 0.3085 || m["relativeEffect"] != 0.05 {
		t.Errorf("metrics = %v", m)
	}
	if m := impactMetrics([]float64{1}, []float64{1}, 0); m["pValue"] != 0.5 || m["absoluteEffect"] != 0 {
		t.Errorf("no effect metrics = %v", m)
	}
	if m := impactMetrics([]float64{1}, []float64{0}, 1); len(m) != 2 {
		t.Errorf("Σcf = 0 metrics = %v, want no relativeEffect", m)
	}
}

func testSeries(n int) []float64 {
	y := make([]float64, n)
	v := 50.0
	for i := range y {
		v += math.Sin(float64(i)*1.3) + 0.5*math.Cos(float64(i)*0.7)
		y[i] = v
	}
	return y
}

// Var(S) of a random walk (ψ_k = 1): σ² Σ_{j=1..H} (H−j+1)² = 14σ² for
// H = 3; with one gap bucket before a window of 2 the total's error is
// 2e₁ + 2e₂ + e₃: 9σ².
func TestARIMASumVarianceRandomWalk(t *testing.T) {
	m, err := forecast.ARIMA(testSeries(80), forecast.ARIMASpec{D: 1, Period: 1}, nil, forecast.ARIMAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := arimaSumVariance(m, 80, 0, 3, nil), 14*m.Sigma2; math.Abs(got-want) > 1e-9*want {
		t.Errorf("Var(S) = %v, want 14σ² = %v", got, want)
	}
	if got, want := arimaSumVariance(m, 80, 1, 2, nil), 9*m.Sigma2; math.Abs(got-want) > 1e-9*want {
		t.Errorf("Var(S) with a gap = %v, want 9σ² = %v", got, want)
	}
}

// AR(1): ψ_k = φ^k, so for H = 2 Var(S) = σ²((1+φ)² + 1).
func TestARIMASumVarianceAR1(t *testing.T) {
	y := testSeries(120)
	for i := range y {
		y[i] -= 50 + 0.01*float64(i*i%7)
	}
	m, err := forecast.ARIMA(y, forecast.ARIMASpec{P: 1, Period: 1}, nil, forecast.ARIMAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	phi := m.AR[0]
	if got, want := arimaSumVariance(m, 120, 0, 2, nil), m.Sigma2*((1+phi)*(1+phi)+1); math.Abs(got-want) > 1e-9*want {
		t.Errorf("Var(S) = %v, want σ²((1+φ)²+1) = %v (φ = %v)", got, want, phi)
	}
}

// White noise around a mean plus one regressor: the ARMA part is σ²H and
// the regression part (H, Σx)ᵀ Cov(intercept, β) (H, Σx).
func TestARIMASumVarianceRegression(t *testing.T) {
	n := 100
	y, x := make([]float64, n), make([]float64, n)
	for i := range y {
		x[i] = float64(i % 3)
		y[i] = 10 + 2*x[i] + math.Sin(float64(i)*2.1)
	}
	m, err := forecast.ARIMA(y, forecast.ARIMASpec{Period: 1, IncludeMean: true}, [][]float64{x}, forecast.ARIMAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	names, cov := m.RegressionCov()
	if len(names) != 2 || names[0] != "intercept" || names[1] != "xreg" {
		t.Fatalf("RegressionCov names = %v", names)
	}
	fut := []float64{1, 2, 0, 1}
	h, sx := 4.0, 4.0
	want := m.Sigma2*h + h*h*cov[0][0] + 2*h*sx*cov[0][1] + sx*sx*cov[1][1]
	if got := arimaSumVariance(m, n, 0, 4, [][]float64{fut}); math.Abs(got-want) > 1e-9*want {
		t.Errorf("Var(S) = %v, want %v", got, want)
	}
}

// The fallbacks' bound: per-step σ from the 0.2 and 0.8 quantiles, summed
// then squared.
func TestBoundSumVariance(t *testing.T) {
	z := 0.8416212335729143
	var f forecast.Forecast
	f.Mean = []float64{0, 0, 0}
	sd := []float64{9, 1, 2} // the first step is the gap
	for i := range forecast.NumLevels {
		f.Quantiles[i] = make([]float64, 3)
	}
	for t := range 3 {
		f.Quantiles[2][t], f.Quantiles[4][t] = -z*sd[t], z*sd[t]
	}
	if got := boundSumVariance(f, 1); math.Abs(got-9) > 1e-9 {
		t.Errorf("bound = %v, want (1+2)² = 9", got)
	}
}

// Seasonal naive at lag 2 over a window of 3: y₁ = x₋₁ + e₁, y₂ = x₀ +
// e₂, y₃ = y₁ + e₃, so the total's error is 2e₁ + e₂ + e₃: 6σ².
func TestPsiSumFactorSeasonalNaive(t *testing.T) {
	if got := psiSumFactor([]float64{1, 0, 1}, 0, 3); got != 6 {
		t.Errorf("factor = %v, want 6", got)
	}
}

// The ETS fallback's residual bootstrap against the analytic variance of
// simple exponential smoothing (ANN: ψ_0 = 1, ψ_k = α), which it must
// approach: σ² Σ_{j=1..H} (1 + (H−j)α)².
func TestETSBootstrapVariance(t *testing.T) {
	y := testSeries(200)
	m, err := forecast.ETS(y, 1, forecast.ETSOptions{Spec: forecast.ETSSpec{Error: 'A', Trend: 'N', Season: 'N'}})
	if err != nil {
		t.Fatal(err)
	}
	h := 10
	v := bootstrapVariance(m.BootstrapSums(h, 0, 4000, 7))
	var ss float64
	for _, r := range m.Residuals {
		ss += r * r
	}
	s2 := ss / float64(len(m.Residuals))
	want := 0.0
	for j := 1; j <= h; j++ {
		c := 1 + float64(h-j)*m.Alpha
		want += c * c
	}
	want *= s2
	if math.Abs(v-want) > 0.15*want {
		t.Errorf("bootstrap Var(S) = %v, analytic %v (α = %v)", v, want, m.Alpha)
	}
	if v2 := bootstrapVariance(m.BootstrapSums(h, 0, 4000, 7)); v2 != v {
		t.Errorf("bootstrap not reproducible: %v, %v", v, v2)
	}
}

// Season j's indicator is 1 on buckets j, j+m, …, continued over the
// horizon; season 0 has none (the intercept carries it).
func TestSeasonIndicators(t *testing.T) {
	x, fut := seasonIndicators(10, 6, 7)
	if len(x) != 6 || len(fut) != 6 {
		t.Fatalf("%d columns, %d future columns, want 6", len(x), len(fut))
	}
	for j := range x {
		for b := range 16 {
			v := 0.0
			if b < 10 {
				v = x[j][b]
			} else {
				v = fut[j][b-10]
			}
			if want := b%7 == j+1; (v == 1) != want || (v != 0 && v != 1) {
				t.Errorf("season %d bucket %d = %v", j+1, b, v)
			}
		}
	}
}

// On a fixed weekly pattern with AR(1) noise the counterfactual is the
// regression on weekday indicators, and its Var(S) is the AR(1)'s: with
// c_i = Σ_{k=0..h−i} φ^k, σ² Σ c_i² (plus a little for the estimated
// coefficients).
func TestCounterfactualWeeklyIndicators(t *testing.T) {
	const h, phi, sigma = 14, 0.6, 4.0
	y, _ := impactMeasureSeries(700, 3)
	fit, err := counterfactual(&forecastPlan{interval: "day", y: y, h: h}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if fit.key != "ARIMA+W" {
		t.Errorf("counterfactual %q, want ARIMA+W", fit.key)
	}
	want := 0.0
	for i := 1; i <= h; i++ {
		c := 0.0
		for k := 0; k <= h-i; k++ {
			c += math.Pow(phi, float64(k))
		}
		want += sigma * sigma * c * c
	}
	if r := fit.varS / want; r < 0.8 || r > 1.3 {
		t.Errorf("Var(S) = %.1f, the AR(1)'s is %.1f (ratio %.2f)", fit.varS, want, r)
	}
	if len(fit.f.Mean) != h {
		t.Errorf("%d forecasts, want %d", len(fit.f.Mean), h)
	}
}

// A model that misses the series' autocorrelation (white noise with a
// mean, fitted to AR(1) data) understates the window total's variance
// analytically; the pre-period's own window totals restore it.
func TestCalibratedSumVarianceWidens(t *testing.T) {
	y, _ := impactMeasureSeries(700, 5)
	for i := range y {
		y[i] -= [7]float64{-6, -3, 0, 2, 8, 14, -15}[i%7]
	}
	m, err := forecast.ARIMA(y, forecast.ARIMASpec{IncludeMean: true, Period: 1}, nil, forecast.ARIMAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const h = 14
	analytic := arimaSumVariance(m, len(y), 0, h, nil)
	got := calibratedSumVariance(m, len(y), 0, h, nil)
	// The AR(1)'s stationary variance is σ²/(1−φ²) = 25 but its sum over
	// 14 days has about (1+φ)/(1−φ) = 4 times the variance of 14
	// independent values.
	if got < 2.5*analytic {
		t.Errorf("calibrated Var(S) = %.1f, analytic %.1f: want the autocorrelation counted", got, analytic)
	}
	// A correct model is left (nearly) as it is.
	ar, err := forecast.ARIMA(y, forecast.ARIMASpec{P: 1, IncludeMean: true, Period: 1}, nil, forecast.ARIMAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, c := arimaSumVariance(ar, len(y), 0, h, nil), calibratedSumVariance(ar, len(y), 0, h, nil)
	if c < a || c > 1.3*a {
		t.Errorf("AR(1) calibrated Var(S) = %.1f, analytic %.1f", c, a)
	}
}

// A weekly pattern that wanders (a seasonal random walk) leaves the
// indicators' residuals correlated at lag 7: seasonal auto-ARIMA is
// fitted as well, and its tighter window total wins.
func TestCounterfactualWanderingSeason(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	y := make([]float64, 420)
	for i := range y {
		if i < 7 {
			y[i] = 100 + 10*float64(i)
			continue
		}
		y[i] = y[i-7] + 3*rng.NormFloat64()
	}
	fit, err := counterfactual(&forecastPlan{interval: "day", y: y, h: 14}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if fit.key != "ARIMA" {
		t.Errorf("counterfactual %q, want seasonal ARIMA", fit.key)
	}
}

// A random walk keeps its difference: whichever of the differenced and
// undifferenced fits wins, the window total's Var(S) stays near the
// random walk's σ² Σ_{j=1..h} j².
func TestCounterfactualRandomWalkKeepsItsVariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	y := make([]float64, 400)
	for i := 1; i < len(y); i++ {
		y[i] = y[i-1] + rng.NormFloat64()
	}
	const h = 10
	fit, err := counterfactual(&forecastPlan{interval: "year", y: y, h: h}, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := 0.0
	for j := 1; j <= h; j++ {
		want += float64(j * j)
	}
	if fit.varS < 0.6*want {
		t.Errorf("%s: Var(S) = %.1f, a random walk's is %.0f", fit.key, fit.varS, want)
	}
}
