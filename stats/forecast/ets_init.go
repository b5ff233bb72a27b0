package forecast

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"
)

// etsInitState is R's forecast:::initstate(y, trendtype, seasontype): the
// starting values of the initial states (l0, b0 and the m − 1 free
// seasonal states s1..s(m−1)) from which the optimiser starts.
//
// Seasonal forms take the seasonal pattern from a classical decomposition
// (R's decompose) when there are three full cycles, otherwise from a
// regression on a linear trend and one Fourier pair; the level and growth
// then come from the first max(10, 2m) points of the seasonally adjusted
// series (their mean, or a least-squares line).
func etsInitState(y []float64, period int, trend, season byte) ([]float64, error) {
	n := len(y)
	m := 1
	var seas, ysa []float64
	if season != 'N' {
		m = period
		if n < 4 {
			return nil, errors.New("too few observations to initialise a season")
		}
		var seasonal []float64 // the seasonal component, len n
		if n < 3*m {
			a, b, err := etsFourierTrend(y, m)
			if err != nil {
				return nil, err
			}
			seasonal = make([]float64, n)
			for i, v := range y {
				t := a + b*float64(i+1)
				if season == 'A' {
					seasonal[i] = v - t
				} else {
					seasonal[i] = v / t
				}
			}
		} else {
			seasonal = etsDecompose(y, m, season == 'M')
		}
		// s0..s(m−2) of R are seasonal[m−1], …, seasonal[1] (0-based).
		seas = make([]float64, m-1)
		for i := range seas {
			seas[i] = seasonal[m-1-i]
		}
		ysa = make([]float64, n)
		if season == 'A' {
			for i, v := range y {
				ysa[i] = v - seasonal[i]
			}
		} else {
			var sum, sum01 float64
			for i := range seas {
				seas[i] = max(seas[i], 0.01)
				sum += seas[i]
				sum01 += seas[i] + 0.01
			}
			if sum > float64(m) {
				for i := range seas {
					seas[i] /= sum01
				}
			}
			for i, v := range y {
				ysa[i] = v / max(seasonal[i], 0.01)
			}
		}
	} else {
		ysa = y
	}

	maxn := min(max(10, 2*m), n)
	out := make([]float64, 0, 2+len(seas))
	switch trend {
	case 'N':
		out = append(out, etsMean(ysa[:maxn]))
	case 'A':
		a, b := etsLineFit(ysa[:maxn])
		if math.Abs(a+b) < 1e-8 {
			a *= 1 + 0.001
			b *= 1 - 0.001
		}
		out = append(out, a, b)
	default:
		a, b := etsLineFit(ysa[:maxn])
		l0 := a + b
		if math.Abs(l0) < 1e-8 {
			l0 = 1e-7
		}
		b0 := (a + 2*b) / l0
		l0 /= b0
		if math.Abs(b0) > 1e10 {
			b0 = math.Copysign(1e10, b0)
		}
		if l0 < 1e-8 || b0 < 1e-8 {
			l0 = max(ysa[0], 0.001)
			b0 = max(ysa[1]/ysa[0], 0.001)
		}
		out = append(out, l0, b0)
	}
	return append(out, seas...), nil
}

// etsDecompose returns the seasonal component (len n) of R's
// decompose(y, type) for a series of at least two cycles: the centred
// moving average of order m, the detrended series averaged by position in
// the cycle, normalised to mean 0 (additive) or 1 (multiplicative).
func etsDecompose(y []float64, m int, multiplicative bool) []float64 {
	n := len(y)
	// R's filter: c(0.5, 1, …, 1, 0.5)/m for even m, rep(1/m, m) for odd.
	var w []float64
	if m%2 == 0 {
		w = make([]float64, m+1)
		for i := range w {
			w[i] = 1 / float64(m)
		}
		w[0], w[m] = 0.5/float64(m), 0.5/float64(m)
	} else {
		w = make([]float64, m)
		for i := range w {
			w[i] = 1 / float64(m)
		}
	}
	nf := len(w)
	shift := nf / 2
	detr := make([]float64, n)
	for i := range n {
		if i+shift-(nf-1) < 0 || i+shift >= n {
			detr[i] = math.NaN()
			continue
		}
		var z float64
		for j := range nf {
			z += w[j] * y[i+shift-j]
		}
		if multiplicative {
			detr[i] = y[i] / z
		} else {
			detr[i] = y[i] - z
		}
	}
	figure := make([]float64, m)
	buf := make([]float64, 0, n/m+1)
	for i := range m {
		buf = buf[:0]
		for k := i; k < n; k += m {
			if !math.IsNaN(detr[k]) {
				buf = append(buf, detr[k])
			}
		}
		figure[i] = etsMean(buf)
	}
	mf := etsMean(figure)
	for i := range figure {
		if multiplicative {
			figure[i] /= mf
		} else {
			figure[i] -= mf
		}
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = figure[i%m]
	}
	return out
}

// etsFourierTrend returns the intercept and slope of R's
// tslm(y ~ trend + fourier(y, 1)): least squares on 1, t and the first
// Fourier pair of period m (the sine dropped when m = 2, where it is 0).
func etsFourierTrend(y []float64, m int) (a, b float64, err error) {
	n := len(y)
	cols := 4
	if m == 2 {
		cols = 3
	}
	if n < cols {
		return 0, 0, errors.New("too few observations for the seasonal regression")
	}
	x := mat.NewDense(n, cols, nil)
	for i := range n {
		t := float64(i + 1)
		x.Set(i, 0, 1)
		x.Set(i, 1, t)
		arg := 2 * t / float64(m) // sinpi/cospi arguments
		if m == 2 {
			x.Set(i, 2, cosPi(arg))
		} else {
			x.Set(i, 2, sinPi(arg))
			x.Set(i, 3, cosPi(arg))
		}
	}
	var beta mat.VecDense
	if err := beta.SolveVec(x, mat.NewVecDense(n, append([]float64(nil), y...))); err != nil {
		return 0, 0, errors.New("the seasonal regression is singular")
	}
	return beta.AtVec(0), beta.AtVec(1), nil
}

// etsLineFit returns the intercept and slope of the least-squares line
// through (1, y[0]), (2, y[1]), … (R's lsfit(1:n, y)).
func etsLineFit(y []float64) (a, b float64) {
	n := float64(len(y))
	tbar := (n + 1) / 2
	ybar := etsMean(y)
	var sxy, sxx float64
	for i, v := range y {
		d := float64(i+1) - tbar
		sxy += d * (v - ybar)
		sxx += d * d
	}
	if sxx == 0 {
		return ybar, 0
	}
	b = sxy / sxx
	return ybar - b*tbar, b
}

// etsMean is R's mean(): a compensated sum divided by n, refined by the
// mean of the deviations (R accumulates in long double).
func etsMean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	var s, c float64
	for _, v := range x {
		t := s + v
		if math.Abs(s) >= math.Abs(v) {
			c += (s - t) + v
		} else {
			c += (v - t) + s
		}
		s = t
	}
	n := float64(len(x))
	mean := (s + c) / n
	if math.IsInf(mean, 0) || math.IsNaN(mean) {
		return mean
	}
	var d float64
	for _, v := range x {
		d += v - mean
	}
	return mean + d/n
}
