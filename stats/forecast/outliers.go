package forecast

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Outliers are the time-series outliers of a series (MODELLING §4).
type Outliers struct {
	// Index holds the 0-based positions of the outliers, ascending.
	Index []int
	// Replacement[i] is the value that replaces y[Index[i]] in the
	// cleaned ("Smoothed") series.
	Replacement []float64
}

// TSOutliers is forecast 8.20's tsoutliers(y) for a series of the given
// frequency (period ≤ 1: non-seasonal), without Box-Cox transformation:
//
//  1. A constant series (R's is.constant) has none.
//  2. When period > 1 and n > 2·period, a robust MSTL (stl with s.window
//     11, robust) is fitted and, when 1 − Var(R)/Var(y − T) ≥ 0.6, the
//     seasonally adjusted series T + R is used instead of y.
//  3. The residuals of Friedman's super smoother (Supsmu) outside
//     [q₂₅ − 3·IQR, q₇₅ + 3·IQR] are outliers (none when that interval is
//     narrower than 1e-14).
//  4. They are set missing and re-filled by R's na.interp(): linear
//     interpolation when period ≤ 1 or at most 2·period values remain;
//     otherwise a linear model on Fourier terms (K = min(⌊period/2⌋, 5))
//     and a polynomial trend of degree min(max(⌊n/10⌋, 1), 6) fills the
//     gaps, a robust MSTL of the filled series is taken, its seasonally
//     adjusted part is interpolated linearly over the gaps and its
//     seasonal part added back — falling back to linear interpolation when
//     the result leaves the data's range widened by half on each side.
//  5. Steps 1–4 run once more on the cleaned series; outliers found there
//     join the first ones and all are re-filled from the original values.
//
// Where R's linear model would be rank-deficient (fewer remaining values
// than terms), the gaps are filled by linear interpolation instead; R
// drops aliased terms. It needs at least 3 points (*SkipError); NaN or
// Inf is an error.
func TSOutliers(y []float64, period int) (Outliers, error) {
	if err := baseFinite("tsoutliers", y); err != nil {
		return Outliers{}, err
	}
	if len(y) < 3 {
		return Outliers{}, skip("tsoutliers", "needs at least 3 points (%d given)", len(y))
	}
	idx, clean := outliersFind(y, period, 2)
	o := Outliers{Index: idx, Replacement: make([]float64, len(idx))}
	for i, t := range idx {
		o.Replacement[i] = clean[t]
	}
	return o, nil
}

// Clean is forecast's tsclean(y): y with its TSOutliers replaced, the
// "Smoothed" contest variant (MODELLING §2.4). Requirements as
// TSOutliers.
func Clean(y []float64, period int) ([]float64, error) {
	o, err := TSOutliers(y, period)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(y)
	for i, t := range o.Index {
		out[t] = o.Replacement[i]
	}
	return out, nil
}

// outliersFind is one call of R's tsoutliers(x, iterate): the outlier
// positions and the series with them re-filled.
func outliersFind(x []float64, period, iterate int) ([]int, []float64) {
	n := len(x)
	if baseIsConstant(x) {
		return nil, x
	}
	xx := x
	if period > 1 && n > 2*period {
		d, err := STL(x, period, STLOptions{SWindow: 11, Robust: true})
		if err == nil {
			detrend := make([]float64, n)
			for i := range x {
				detrend[i] = x[i] - d.Trend[i]
			}
			if v := baseVar(detrend); v > 0 && 1-baseVar(d.Remainder)/v >= 0.6 {
				xx = d.SeasonallyAdjusted()
			}
		}
	}
	sm := Supsmu(xx)
	resid := make([]float64, n)
	for i := range xx {
		resid[i] = xx[i] - sm[i]
	}
	sorted := slices.Clone(resid)
	slices.Sort(sorted)
	q25, q75 := Quantile7(sorted, 0.25), Quantile7(sorted, 0.75)
	iqr := q75 - q25
	lo, hi := q25-3*iqr, q75+3*iqr
	var idx []int
	if hi-lo > 1e-14 {
		for i, r := range resid {
			if r < lo || r > hi {
				idx = append(idx, i)
			}
		}
	}
	miss := make([]bool, n)
	for _, i := range idx {
		miss[i] = true
	}
	clean := outliersNAInterp(x, miss, period)
	if iterate > 1 {
		more, _ := outliersFind(clean, period, 1)
		if len(more) > 0 {
			for _, i := range more {
				miss[i] = true
			}
			idx = idx[:0]
			for i, m := range miss {
				if m {
					idx = append(idx, i)
				}
			}
			if n-len(idx) == 1 {
				v := x[slices.Index(miss, false)]
				clean = slices.Clone(x)
				for _, i := range idx {
					clean[i] = v
				}
			} else {
				clean = outliersNAInterp(x, miss, period)
			}
		}
	}
	return idx, clean
}

// outliersNAInterp is forecast's na.interp(x) with the values marked in
// miss missing (at least two must remain).
func outliersNAInterp(x []float64, miss []bool, period int) []float64 {
	n := len(x)
	var obs []int
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, m := range miss {
		if !m {
			obs = append(obs, i)
			lo = math.Min(lo, x[i])
			hi = math.Max(hi, x[i])
		}
	}
	if len(obs) == n {
		return x
	}
	if len(obs) < 2 {
		// R's approx() stops here; keep the one value (tsoutliers' own rule).
		out := slices.Clone(x)
		for i := range out {
			if miss[i] && len(obs) == 1 {
				out[i] = x[obs[0]]
			}
		}
		return out
	}
	if period <= 1 || len(obs) <= 2*period {
		return outliersApprox(x, obs)
	}
	filled, ok := outliersRegressionFill(x, miss, obs, period)
	if !ok {
		return outliersApprox(x, obs)
	}
	d, err := STL(filled, period, STLOptions{SWindow: 11, Robust: true})
	if err != nil {
		return outliersApprox(x, obs)
	}
	sa := outliersApprox(d.SeasonallyAdjusted(), obs)
	out := slices.Clone(x)
	for i := range out {
		if miss[i] {
			out[i] = sa[i] + d.Seasonal[i]
		}
	}
	r := hi - lo
	for _, v := range out {
		if v > hi+0.5*r || v < lo-0.5*r {
			return outliersApprox(x, obs)
		}
	}
	return out
}

// outliersApprox is approx(obs, v[obs], 1:n, rule = 2)$y: linear
// interpolation between the observed positions, constant beyond them.
func outliersApprox(v []float64, obs []int) []float64 {
	n := len(v)
	out := make([]float64, n)
	first, last := obs[0], obs[len(obs)-1]
	for i := 0; i <= first; i++ {
		out[i] = v[first]
	}
	for i := last; i < n; i++ {
		out[i] = v[last]
	}
	for k := 0; k+1 < len(obs); k++ {
		a, b := obs[k], obs[k+1]
		out[a] = v[a]
		for i := a + 1; i < b; i++ {
			out[i] = v[a] + (v[b]-v[a])*float64(i-a)/float64(b-a)
		}
	}
	return out
}

// outliersRegressionFill is na.interp's first step for seasonal data:
// least squares of the observed values on an intercept, Fourier terms
// and a polynomial trend, its predictions put into the gaps. The
// polynomial is built on time scaled to [−1, 1] (R uses orthogonal
// polynomials; the fitted values do not depend on the basis). ok is false
// when the system is rank-deficient.
func outliersRegressionFill(x []float64, miss []bool, obs []int, period int) ([]float64, bool) {
	n := len(x)
	k := min(period/2, 5)
	deg := min(max(n/10, 1), 6)
	// Columns: intercept, sin/cos pairs (sin dropped when 2j/period is an
	// integer, where it vanishes), powers of scaled time.
	row := func(t int, dst []float64) []float64 {
		dst = append(dst[:0], 1)
		tt := float64(t + 1)
		for j := 1; j <= k; j++ {
			p := float64(j) / float64(period)
			if math.Abs(2*p-math.Round(2*p)) > 2.220446049250313e-16 {
				dst = append(dst, sinPi(2*p*tt))
			}
			dst = append(dst, cosPi(2*p*tt))
		}
		u := 0.0
		if n > 1 {
			u = (2*tt - float64(n+1)) / float64(n-1)
		}
		pw := 1.0
		for range deg {
			pw *= u
			dst = append(dst, pw)
		}
		return dst
	}
	var buf []float64
	ncol := len(row(0, buf))
	if len(obs) <= ncol {
		return nil, false
	}
	A := mat.NewDense(len(obs), ncol, nil)
	b := mat.NewVecDense(len(obs), nil)
	for r, t := range obs {
		buf = row(t, buf)
		A.SetRow(r, buf)
		b.SetVec(r, x[t])
	}
	var qr mat.QR
	qr.Factorize(A)
	var beta mat.VecDense
	if err := qr.SolveVecTo(&beta, false, b); err != nil {
		return nil, false
	}
	out := slices.Clone(x)
	for t := range n {
		if miss[t] {
			buf = row(t, buf)
			s := 0.0
			for j, v := range buf {
				s += v * beta.AtVec(j)
			}
			out[t] = s
		}
	}
	return out, true
}
