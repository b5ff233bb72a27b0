package forecast

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// ClassicalDecomposition is R's decompose(): a centred moving-average
// trend and a seasonal figure averaged over the cycles.
type ClassicalDecomposition struct {
	// Multiplicative is true for type "multiplicative" (y = T·S·R),
	// false for "additive" (y = T + S + R).
	Multiplicative bool
	// Trend is the centred moving average, NaN for the first and last
	// ⌊m/2⌋ points (R's NA).
	Trend []float64
	// Seasonal is Figure repeated from the first observation.
	Seasonal []float64
	// Random is the remainder, NaN where Trend is.
	Random []float64
	// Figure[i] is the seasonal effect of 0-based position i mod m,
	// centred to mean 0 (additive) or 1 (multiplicative).
	Figure []float64
}

// Decompose is R's decompose(y, type) with frequency period. It needs
// period ≥ 2 and at least two full cycles (R: "time series has no or less
// than 2 periods"); a multiplicative decomposition also needs
// non-negative data and a positive moving average, where R would divide
// by zero or produce indices of mixed sign (*SkipError otherwise).
func Decompose(y []float64, period int, multiplicative bool) (ClassicalDecomposition, error) {
	if err := baseFinite("decompose", y); err != nil {
		return ClassicalDecomposition{}, err
	}
	n := len(y)
	if period < 2 || n < 2*period {
		return ClassicalDecomposition{}, skip("decompose", "needs a period ≥ 2 and two full cycles (period %d, %d points)", period, n)
	}
	if multiplicative && slices.Min(y) < 0 {
		return ClassicalDecomposition{}, skip("decompose", "a multiplicative decomposition needs non-negative data")
	}
	trend := decomposeFilter(y, period)
	season := make([]float64, n)
	for i := range y {
		switch {
		case math.IsNaN(trend[i]):
			season[i] = math.NaN()
		case multiplicative:
			if !(trend[i] > 0) {
				return ClassicalDecomposition{}, skip("decompose", "a multiplicative decomposition needs a positive moving average (it is %v at point %d)", trend[i], i)
			}
			season[i] = y[i] / trend[i]
		default:
			season[i] = y[i] - trend[i]
		}
	}
	figure := make([]float64, period)
	vals := make([]float64, 0, n/period+1)
	for i := range period {
		vals = vals[:0]
		for t := i; t < n; t += period {
			if !math.IsNaN(season[t]) {
				vals = append(vals, season[t])
			}
		}
		figure[i] = baseMeanR(vals)
	}
	fm := baseMeanR(figure)
	for i := range figure {
		if multiplicative {
			figure[i] /= fm
		} else {
			figure[i] -= fm
		}
	}
	d := ClassicalDecomposition{Multiplicative: multiplicative, Trend: trend, Figure: figure,
		Seasonal: make([]float64, n), Random: make([]float64, n)}
	for t := range y {
		d.Seasonal[t] = figure[t%period]
		if multiplicative {
			d.Random[t] = y[t] / d.Seasonal[t] / trend[t]
		} else {
			d.Random[t] = y[t] - d.Seasonal[t] - trend[t]
		}
	}
	return d, nil
}

// decomposeFilter is R's filter(y, f, sides = 2) with decompose()'s
// moving-average weights: c(0.5, 1, …, 1, 0.5)/m for even m, rep(1, m)/m
// for odd m; NaN where the window leaves the series.
func decomposeFilter(y []float64, m int) []float64 {
	var base []float64
	if m%2 == 0 {
		base = make([]float64, m+1)
		for i := range base {
			base[i] = 1
		}
		base[0], base[m] = 0.5, 0.5
	} else {
		base = make([]float64, m)
		for i := range base {
			base[i] = 1
		}
	}
	nf := len(base)
	coef := make([]float64, nf)
	for j := range base {
		coef[j] = base[j] / float64(m)
	}
	n := len(y)
	shift := nf / 2
	out := make([]float64, n)
	for i := range out {
		if i+shift-(nf-1) < 0 || i+shift >= n {
			out[i] = math.NaN()
			continue
		}
		z := 0.0
		for j := range nf {
			z += coef[j] * y[i+shift-j]
		}
		out[i] = z
	}
	return out
}

// baseMeanR is R's mean(): the sum divided by n, then corrected by the
// mean of the deviations (R accumulates in long double; this is the same
// two-pass scheme in float64).
func baseMeanR(x []float64) float64 {
	n := float64(len(x))
	if n == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, v := range x {
		s += v
	}
	s /= n
	t := 0.0
	for _, v := range x {
		t += v - s
	}
	return s + t/n
}

// thetaZ95 is qnorm(0.95), the critical value of the seasonality test.
var thetaZ95 = distuv.UnitNormal.Quantile(0.95)

// SeasonalityTest is the test R's thetaf() (and, with 1.645 and n ≥ 3m,
// the M4 benchmarks' naive2) applies before a multiplicative
// decomposition: with r_k the sample autocorrelations, y is seasonal when
// period > 1, y is not constant (R's is.constant), n > 2·period and
// |r_m| > qnorm(0.95)·√((1 + 2·Σ_{k<m} r_k²)/n).
func SeasonalityTest(y []float64, period int) bool {
	n := len(y)
	if period <= 1 || n <= 2*period || baseIsConstant(y) {
		return false
	}
	r := baseACF(y, period)
	s := 0.0
	for k := 1; k < period; k++ {
		s += r[k] * r[k]
	}
	stat := math.Sqrt((1 + 2*s) / float64(n))
	return math.Abs(r[period])/stat > thetaZ95
}

// baseACF is R's acf(y, lag.max)$acf: r[0] = 1, r[k] the lag-k sample
// autocorrelation with the mean removed and divisor n.
func baseACF(y []float64, lagMax int) []float64 {
	n := len(y)
	mu := baseMeanR(y)
	d := make([]float64, n)
	for i, v := range y {
		d[i] = v - mu
	}
	acov := make([]float64, lagMax+1)
	for k := 0; k <= lagMax && k < n; k++ {
		s := 0.0
		for t := 0; t+k < n; t++ {
			s += d[t] * d[t+k]
		}
		acov[k] = s / float64(n)
	}
	r := make([]float64, lagMax+1)
	for k := range r {
		r[k] = acov[k] / acov[0]
	}
	return r
}

// baseIsConstant is forecast's is.constant(): all.equal(y, rep(y[1], n))
// with all.equal's default tolerance 1.5e-8 on the mean relative
// difference of the values that differ from the first.
func baseIsConstant(y []float64) bool {
	if len(y) == 0 {
		return true
	}
	const tol = 1.4901161193847656e-08 // sqrt(.Machine$double.eps)
	first := y[0]
	var sumAbs, sumDiff float64
	cnt := 0
	for _, v := range y {
		if v == first {
			continue
		}
		sumAbs += math.Abs(v)
		sumDiff += math.Abs(v - first)
		cnt++
	}
	if cnt == 0 {
		return true
	}
	scale := sumAbs / float64(cnt)
	if !(scale > tol) || math.IsInf(scale, 0) {
		scale = 1
	}
	return sumDiff/(float64(cnt)*scale) <= tol
}

// baseSeasonalAdjust is the multiplicative seasonal adjustment of
// thetaf() and naive2: when SeasonalityTest says y is seasonal, y is
// divided by the seasonal indices of decompose(y, "multiplicative").
// It returns the adjusted series and the full-length seasonal indices,
// or y itself and nil when y is not adjusted: not seasonal, negative
// values or a non-positive moving average (deliberate departures from R,
// which would divide by zero or by indices of mixed sign), or an index
// below 1e-4 in absolute value (R's thetaf falls back to the non-seasonal
// method there with a warning).
func baseSeasonalAdjust(y []float64, period int) (adj, seasonal []float64) {
	if !SeasonalityTest(y, period) {
		return y, nil
	}
	d, err := Decompose(y, period, true)
	if err != nil {
		return y, nil
	}
	for _, s := range d.Seasonal {
		if math.Abs(s) < 1e-4 {
			return y, nil
		}
	}
	adj = make([]float64, len(y))
	for i := range y {
		adj[i] = y[i] / d.Seasonal[i]
	}
	return adj, d.Seasonal
}

// Naive2Model is the M4 competition's Naive2 benchmark: the naive
// forecast of the seasonally adjusted series (classical multiplicative
// decomposition when the lag-m autocorrelation is significant),
// re-seasonalised with the last cycle's indices.
type Naive2Model struct {
	// Period is the seasonal period the model was asked to consider.
	Period int
	// Index holds the last cycle's multiplicative seasonal indices; nil
	// when the series was not seasonally adjusted.
	Index []float64
	// Adjusted is the naive model of the adjusted series.
	Adjusted *NaiveModel
}

// Naive2 fits naive2. The seasonality test is thetaf's (SeasonalityTest:
// qnorm(0.95) and n > 2m, where the M4 script uses 1.645 and n ≥ 3m);
// the adjustment is baseSeasonalAdjust's, so negative data are not
// adjusted. Needs at least 2 points. Quantiles are the naive model's on
// the adjusted series multiplied by the index (positive, so they stay
// ordered).
func Naive2(y []float64, period int) (*Naive2Model, error) {
	if err := baseFinite("naive2", y); err != nil {
		return nil, err
	}
	if len(y) < 2 {
		return nil, skip("naive2", "needs at least 2 points (%d given)", len(y))
	}
	adj, seas := baseSeasonalAdjust(y, period)
	nm, err := naiveFit("naive2", adj, 1)
	if err != nil {
		return nil, err
	}
	m := &Naive2Model{Period: period, Adjusted: nm}
	if seas != nil {
		m.Index = slices.Clone(seas[len(seas)-period:])
	}
	return m, nil
}

// Key is "naive2".
func (m *Naive2Model) Key() string { return "naive2" }

// NumParams is m−1 free seasonal indices when the series was adjusted,
// else 0.
func (m *Naive2Model) NumParams() int {
	if m.Index == nil {
		return 0
	}
	return m.Period - 1
}

// Forecast returns the naive forecast of the adjusted series times the
// seasonal index of each step.
func (m *Naive2Model) Forecast(h int, xreg [][]float64) (Forecast, error) {
	if err := baseHorizon("naive2", h, xreg); err != nil {
		return Forecast{}, err
	}
	f, err := m.Adjusted.Forecast(h, nil)
	if err != nil || m.Index == nil {
		return f, err
	}
	for k := range h {
		s := m.Index[k%m.Period]
		f.Mean[k] *= s
		for i := range Levels {
			f.Quantiles[i][k] *= s
		}
	}
	return f, nil
}

// Refit fits naive2 with the same period on new data (the seasonality
// test and the indices are recomputed).
func (m *Naive2Model) Refit(y []float64) (*Naive2Model, error) {
	return Naive2(y, m.Period)
}
