package forecast

import (
	"fmt"
	"math"
)

// Fourier returns the Fourier terms of a seasonal period, as R's
// forecast::fourier computes them: for k = 1…K, the pair
// sin(2πkt/period), cos(2πkt/period) at the times t = offset+1, …,
// offset+n. Fourier(len(x), m, K, 0) is fourier(x, K) and
// Fourier(h, m, K, len(x)) is fourier(x, K, h).
//
// The result holds columns (out[j][i] is column j at time offset+i+1) in
// R's order S1, C1, S2, C2, …; FourierNames gives R's column names. When
// 2k equals the period (k = m/2 for an even m) the sine is identically
// zero and, as in R, its column is left out, so the result has 2K or
// 2K−1 columns. Non-integer periods (52.18 weeks, 365.25 days) are
// allowed. The values are computed as R does, with sinpi and cospi of
// 2(k/period)t, so that multiples of half a turn are exact.
//
// Unlike R, which stops with an error, Fourier returns nil when K < 1,
// 2K > period or period is not finite and positive; with n ≤ 0 it returns
// the columns empty. Multiple periods (R's msts) are not combined here:
// call Fourier once per period and append the columns.
func Fourier(n int, period float64, K int, offset int) [][]float64 {
	if !fourierValid(period, K) {
		return nil
	}
	n = max(n, 0)
	var out [][]float64
	for k := 1; k <= K; k++ {
		p := float64(k) / period
		if fourierSineKept(p) {
			s := make([]float64, n)
			for i := range n {
				s[i] = sinPi(2 * p * float64(offset+i+1))
			}
			out = append(out, s)
		}
		c := make([]float64, n)
		for i := range n {
			c[i] = cosPi(2 * p * float64(offset+i+1))
		}
		out = append(out, c)
	}
	return out
}

// FourierNames returns R's names of the columns Fourier returns:
// "S1-12", "C1-12", …, the period rounded half to even as R's round()
// does (52.18 gives "S1-52"). It returns nil when Fourier would.
func FourierNames(period float64, K int) []string {
	if !fourierValid(period, K) {
		return nil
	}
	m := math.RoundToEven(period)
	var out []string
	for k := 1; k <= K; k++ {
		if fourierSineKept(float64(k) / period) {
			out = append(out, fmt.Sprintf("S%d-%.0f", k, m))
		}
		out = append(out, fmt.Sprintf("C%d-%.0f", k, m))
	}
	return out
}

// fourierValid reports whether Fourier terms of order K exist for period
// (R: "K must be not be greater than period/2").
func fourierValid(period float64, K int) bool {
	return K >= 1 && period > 0 && !math.IsInf(period, 0) && float64(2*K) <= period
}

// fourierSineKept is R's test for keeping the sine of frequency p (cycles
// per time step): 2p is not an integer.
func fourierSineKept(p float64) bool {
	return math.Abs(2*p-math.Round(2*p)) > 0x1p-52
}

// sinPi is R's sinpi: sin(πx), exact at multiples of ½ (the argument
// reduced modulo 2 first). Fourier terms, ETS's initial seasonal states
// and tsoutliers' seasonal regressors all use it, as R does.
func sinPi(x float64) float64 {
	x = math.Mod(x, 2)
	if x <= -1 {
		x += 2
	} else if x > 1 {
		x -= 2
	}
	switch x {
	case 0, 1:
		return 0
	case 0.5:
		return 1
	case -0.5:
		return -1
	}
	return math.Sin(math.Pi * x)
}

// cosPi is R's cospi: cos(πx), exact at multiples of ½.
func cosPi(x float64) float64 {
	x = math.Mod(math.Abs(x), 2)
	if math.Mod(x, 1) == 0.5 {
		return 0
	}
	switch x {
	case 1:
		return -1
	case 0:
		return 1
	}
	return math.Cos(math.Pi * x)
}
