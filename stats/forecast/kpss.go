package forecast

import (
	"errors"
	"math"
)

// KPSS returns the statistic of the KPSS test of level stationarity
// (Kwiatkowski, Phillips, Schmidt & Shin 1992) as urca's
// ur.kpss(x, type = "mu", use.lag = lags): the mean-corrected partial
// sums' squares over n², divided by the long-run variance estimate with
// a Bartlett window of lags lags.
func KPSS(x []float64, lags int) float64 {
	n := len(x)
	if n == 0 {
		return math.NaN()
	}
	mean := 0.0
	for _, v := range x {
		mean += v
	}
	mean /= float64(n)
	res := make([]float64, n)
	for i, v := range x {
		res[i] = v - mean
	}
	var s, num, s2 float64
	for _, r := range res {
		s += r
		num += s * s
		s2 += r * r
	}
	fn := float64(n)
	num /= fn * fn
	s2 /= fn
	den := s2
	if lags > 0 {
		acc := 0.0
		for k := 1; k <= lags; k++ {
			c := 0.0
			for i := k; i < n; i++ {
				c += res[i] * res[i-k]
			}
			acc += (1 - float64(k)/float64(lags+1)) * c
		}
		den = s2 + 2/fn*acc
	}
	return num / den
}

// kpssCrit are ur.kpss's critical values for type "mu" at the levels
// kpssLevels.
var (
	kpssCrit   = [4]float64{0.347, 0.463, 0.574, 0.739}
	kpssLevels = [4]float64{0.10, 0.05, 0.025, 0.01}
)

// KPSSPValue interpolates the p-value of a KPSS level statistic linearly
// in ur.kpss's table of critical values, clamped to [0.01, 0.10], as
// forecast::ndiffs does (approx(..., rule = 2)). NaN in, NaN out.
func KPSSPValue(stat float64) float64 {
	if math.IsNaN(stat) {
		return math.NaN()
	}
	c := kpssCrit
	if stat <= c[0] {
		return kpssLevels[0]
	}
	if stat >= c[3] {
		return kpssLevels[3]
	}
	for i := 1; i < 4; i++ {
		if stat <= c[i] {
			f := (stat - c[i-1]) / (c[i] - c[i-1])
			return kpssLevels[i-1] + f*(kpssLevels[i]-kpssLevels[i-1])
		}
	}
	return kpssLevels[3]
}

// NDiffs is forecast::ndiffs(x) with its defaults (test = "kpss", type
// "level", alpha = 0.05, max.d = maxD): the number of first differences
// after which the KPSS test, with trunc(3√n/13) lags, no longer rejects
// level stationarity at 5 %. A constant series needs none.
func NDiffs(x []float64, maxD int) int {
	d := 0
	if arimaIsConstant(x) {
		return d
	}
	test := func(x []float64) (bool, bool) {
		lags := int(math.Trunc(3 * math.Sqrt(float64(len(x))) / 13))
		p := KPSSPValue(KPSS(x, lags))
		if math.IsNaN(p) {
			return false, false
		}
		return p < 0.05, true
	}
	dodiff, ok := test(x)
	if !ok {
		return d
	}
	for dodiff && d < maxD {
		d++
		x = arimaDiff(x, 1)
		if arimaIsConstant(x) {
			return d
		}
		dodiff, ok = test(x)
		if !ok {
			return d - 1
		}
	}
	return d
}

// NSDiffs is forecast::nsdiffs(x) with its defaults (test = "seas",
// max.D = maxD): one seasonal difference when the seasonal strength of
// forecast's mstl() (stl with s.window 11), 1 − Var(R)/Var(S + R), exceeds
// 0.64 (seas.heuristic); the test is not repeated on the differenced
// series for maxD = 1, as R's loop does not. 0 for a constant series or
// one not longer than its period; an STL failure (two cycles or fewer)
// counts as no seasonal difference, as R's tryCatch does.
func NSDiffs(x []float64, period, maxD int) (int, error) {
	if period < 2 {
		return 0, errors.New("forecast: nsdiffs: non-seasonal data")
	}
	D := 0
	if arimaIsConstant(x) {
		return D, nil
	}
	if period >= len(x) {
		return 0, nil
	}
	test := func(x []float64) bool {
		dec, err := MSTL(x, period, false)
		if err != nil {
			return false
		}
		return SeasonalStrength(dec) > 0.64
	}
	dodiff := test(x)
	for dodiff && D < maxD {
		D++
		x = arimaDiff(x, period)
		if arimaIsConstant(x) {
			return D, nil
		}
		if len(x) >= 2*period && D < maxD {
			dodiff = test(x)
		} else {
			dodiff = false
		}
	}
	return D, nil
}

// arimaIsConstant is forecast's is.constant: all.equal(x, rep(x[1], n))
// with R's tolerance 1.5e-8 on the mean relative difference.
func arimaIsConstant(x []float64) bool {
	if len(x) == 0 {
		return true
	}
	x0 := x[0]
	n := 0
	var sumAbs, sumDiff float64
	for _, v := range x {
		if v == x0 || math.IsNaN(v) {
			continue
		}
		n++
		sumAbs += math.Abs(v)
		sumDiff += math.Abs(v - x0)
	}
	if n == 0 {
		return true
	}
	const tol = 1.4901161193847656e-08
	scale := sumAbs / float64(n)
	if !(scale > tol) || math.IsInf(scale, 0) {
		scale = 1
	}
	return sumDiff/(float64(n)*scale) <= tol
}
