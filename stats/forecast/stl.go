package forecast

import (
	"errors"
	"fmt"
	"math"
)

// Decomposition is an additive decomposition y = Trend + Seasonal +
// Remainder of a series, oldest first. Seasonal is nil when the
// decomposition has no seasonal part (MSTL of a non-seasonal series).
type Decomposition struct {
	Trend     []float64
	Seasonal  []float64
	Remainder []float64
}

// STLOptions are the arguments of R's stl(). The zero value is R's
// stl(x, s.window = "periodic") with every other argument at R's default;
// a zero field means "R's default".
type STLOptions struct {
	// SWindow is the span (in cycles) of the seasonal LOESS, R's numeric
	// s.window; 0 means "periodic" (R: s.window = 10n+1 and s.degree 0, then
	// the seasonal part is replaced by its cycle means).
	SWindow int
	// SDegree1 asks for a locally linear seasonal LOESS (R's s.degree = 1;
	// R's default is 0). Ignored when periodic.
	SDegree1 bool
	// TWindow is the trend LOESS span; 0 means R's default
	// nextodd(ceiling(1.5*period/(1-1.5/s.window))).
	TWindow int
	// TDegree0 asks for a locally constant trend LOESS (R's t.degree = 0;
	// R's default is 1).
	TDegree0 bool
	// LWindow is the span of the low-pass LOESS; 0 means nextodd(period).
	LWindow int
	// LDegree0 asks for a locally constant low-pass LOESS. R's default
	// l.degree is t.degree, so it is also 0 when TDegree0 is set.
	LDegree0 bool
	// SJump, TJump and LJump are the LOESS evaluation steps; 0 means R's
	// ceiling(window/10).
	SJump, TJump, LJump int
	// Robust asks for robustness iterations (R's robust = TRUE).
	Robust bool
	// Inner and Outer are the numbers of inner and robustness iterations;
	// 0 means R's defaults (robust: 1 and 15; otherwise 2 and 0).
	Inner, Outer int
}

// STL is R's stl() (Cleveland, Cleveland, McRae and Terpenning 1990; a
// port of the Fortran routine R calls): the seasonal-trend decomposition
// by LOESS of y with the given seasonal period. It needs period ≥ 2 and
// more than two full cycles (R: "series is not periodic or has less than
// two periods"); shorter input gives a *SkipError, NaN or Inf an error.
// With a periodic seasonal window (SWindow 0) the seasonal part is
// replaced by its cycle means, as R does; the cycles are counted from the
// first observation (R counts them from the series' start, which groups
// the same observations).
func STL(y []float64, period int, o STLOptions) (Decomposition, error) {
	if err := baseFinite("STL", y); err != nil {
		return Decomposition{}, err
	}
	n := len(y)
	if period < 2 || n <= 2*period {
		return Decomposition{}, skip("STL", "needs a period ≥ 2 and more than two full cycles (period %d, %d points)", period, n)
	}
	if o.SWindow < 0 || o.TWindow < 0 || o.LWindow < 0 || o.SJump < 0 || o.TJump < 0 || o.LJump < 0 || o.Inner < 0 || o.Outer < 0 {
		return Decomposition{}, errors.New("forecast: STL: negative window, jump or iteration count")
	}
	periodic := o.SWindow == 0
	sWindow := float64(o.SWindow)
	sDegree := 0
	if o.SDegree1 {
		sDegree = 1
	}
	if periodic {
		sWindow = 10*float64(n) + 1
		sDegree = 0
	}
	tDegree := 1
	if o.TDegree0 {
		tDegree = 0
	}
	lDegree := tDegree
	if o.LDegree0 {
		lDegree = 0
	}
	tWindow := float64(o.TWindow)
	if o.TWindow == 0 {
		tWindow = float64(stlNextOdd(math.Ceil(1.5 * float64(period) / (1 - 1.5/sWindow))))
	}
	lWindow := float64(o.LWindow)
	if o.LWindow == 0 {
		lWindow = float64(stlNextOdd(float64(period)))
	}
	jump := func(j int, window float64) int {
		if j > 0 {
			return j
		}
		return int(math.Ceil(window / 10))
	}
	inner, outer := 2, 0
	if o.Robust {
		inner, outer = 1, 15
	}
	if o.Inner > 0 {
		inner = o.Inner
	}
	if o.Outer > 0 {
		outer = o.Outer
	}
	p := stlParams{
		np: period, ns: int(sWindow), nt: int(tWindow), nl: int(lWindow),
		isdeg: sDegree, itdeg: tDegree, ildeg: lDegree,
		nsjump: jump(o.SJump, sWindow), ntjump: jump(o.TJump, tWindow), nljump: jump(o.LJump, lWindow),
		ni: inner, no: outer,
	}
	season, trend := stlFit(y, p)
	if periodic {
		sums := make([]float64, period)
		counts := make([]int, period)
		for i, s := range season {
			sums[i%period] += s
			counts[i%period]++
		}
		for i := range season {
			c := i % period
			season[i] = sums[c] / float64(counts[c])
		}
	}
	rem := make([]float64, n)
	for i := range y {
		rem[i] = y[i] - season[i] - trend[i]
	}
	return Decomposition{Trend: trend, Seasonal: season, Remainder: rem}, nil
}

// MSTL is forecast's mstl() for a series with one seasonal period (a "ts",
// not an "msts"), without Box-Cox transformation: for period ≥ 2 it is
// stl(y, s.window = 11) (mstl's s.window = 7 + 4*seq(6) for the first
// period; a ts gets one iteration), robust when robust is set (R's mstl()
// passes robust through to stl(), whose default is FALSE). For period < 2
// the seasonal part is nil and the trend is R's supsmu() of y on 1…n, as
// mstl() does. Needs more than two full cycles when period ≥ 2 (else a
// *SkipError, as R's stl() stops).
func MSTL(y []float64, period int, robust bool) (Decomposition, error) {
	if err := baseFinite("MSTL", y); err != nil {
		return Decomposition{}, err
	}
	if period > 1 {
		if len(y) <= 2*period {
			return Decomposition{}, skip("MSTL", "needs more than two full cycles (period %d, %d points)", period, len(y))
		}
		return STL(y, period, STLOptions{SWindow: 11, Robust: robust})
	}
	if len(y) == 0 {
		return Decomposition{}, skip("MSTL", "empty series")
	}
	trend := Supsmu(y)
	rem := make([]float64, len(y))
	for i := range y {
		rem[i] = y[i] - trend[i]
	}
	return Decomposition{Trend: trend, Remainder: rem}, nil
}

// SeasonalStrength is max(0, 1 − Var(Remainder)/Var(Seasonal + Remainder))
// (MODELLING §1.3; forecast's seas.heuristic, which also caps it at 1). It
// is 0 when the decomposition has no seasonal part or Seasonal + Remainder
// is constant (up to rounding: its standard deviation is below 1e-10 of
// the trend's largest absolute value).
func SeasonalStrength(d Decomposition) float64 {
	if d.Seasonal == nil || len(d.Remainder) < 2 {
		return 0
	}
	sr := make([]float64, len(d.Remainder))
	for i := range sr {
		sr[i] = d.Seasonal[i] + d.Remainder[i]
	}
	vsr := baseVar(sr)
	scale := 0.0
	for _, v := range d.Trend {
		scale = max(scale, math.Abs(v))
	}
	// A constant series leaves rounding noise in S + R whose variance
	// ratio means nothing: call it no seasonality.
	if !(math.Sqrt(vsr) > 1e-10*scale) || vsr == 0 {
		return 0
	}
	return max(0, min(1, 1-baseVar(d.Remainder)/vsr))
}

// SeasonallyAdjusted returns Trend + Remainder (R's seasadj() of an stl or
// mstl fit), or a copy of y's reconstruction when there is no seasonal
// part.
func (d Decomposition) SeasonallyAdjusted() []float64 {
	out := make([]float64, len(d.Trend))
	for i := range out {
		out[i] = d.Trend[i] + d.Remainder[i]
	}
	return out
}

// stlNextOdd is stl()'s nextodd(): round (half to even, as R) and add one
// when even.
func stlNextOdd(x float64) int {
	r := int(math.RoundToEven(x))
	if r%2 == 0 {
		r++
	}
	return r
}

// stlParams are the integer arguments of the Fortran routine stl.
type stlParams struct {
	np, ns, nt, nl         int
	isdeg, itdeg, ildeg    int
	nsjump, ntjump, nljump int
	ni, no                 int
}

// stlFit runs the STL iterations and returns the seasonal and trend
// components. Internally the arrays are 1-based like the Fortran code
// (index 0 unused), and a Fortran array argument a(k) is the Go slice
// a[k-1:].
func stlFit(yIn []float64, p stlParams) (season, trend []float64) {
	n := len(yIn)
	y := make([]float64, n+1)
	copy(y[1:], yIn)
	rw := make([]float64, n+1)
	seas := make([]float64, n+1)
	tr := make([]float64, n+1)
	w := n + 2*p.np
	work := make([][]float64, 5)
	for i := range work {
		work[i] = make([]float64, w+1)
	}
	ns, nt, nl := max(3, p.ns), max(3, p.nt), max(3, p.nl)
	if ns%2 == 0 {
		ns++
	}
	if nt%2 == 0 {
		nt++
	}
	if nl%2 == 0 {
		nl++
	}
	np := max(2, p.np)
	userw := false
	for k := 0; ; {
		stlStep(y, n, np, ns, nt, nl, p.isdeg, p.itdeg, p.ildeg, p.nsjump, p.ntjump, p.nljump, p.ni, userw, rw, seas, tr, work)
		k++
		if k > p.no {
			break
		}
		for i := 1; i <= n; i++ {
			work[0][i] = tr[i] + seas[i]
		}
		stlRobustWeights(y, n, work[0], rw)
		userw = true
	}
	return seas[1:], tr[1:]
}

// stlStep is the inner loop (Fortran stlstp).
func stlStep(y []float64, n, np, ns, nt, nl, isdeg, itdeg, ildeg, nsjump, ntjump, nljump, ni int, userw bool, rw, season, trend []float64, work [][]float64) {
	w1, w2, w3, w4, w5 := work[0], work[1], work[2], work[3], work[4]
	for range ni {
		for i := 1; i <= n; i++ {
			w1[i] = y[i] - trend[i]
		}
		stlSubseries(w1, n, np, ns, isdeg, nsjump, userw, rw, w2, w3, w4, w5, season)
		stlLowPass(w2, n+2*np, np, w3, w1)
		stlEss(w3, n, nl, ildeg, nljump, false, w4, w1, w5)
		for i := 1; i <= n; i++ {
			season[i] = w2[np+i] - w1[i]
		}
		for i := 1; i <= n; i++ {
			w1[i] = y[i] - season[i]
		}
		stlEss(w1, n, nt, itdeg, ntjump, userw, rw, trend, w3)
	}
}

// stlRobustWeights are Tukey's biweights of the residuals scaled by six
// times their median absolute value (Fortran stlrwt). The "median" is
// whatever R's partial sort leaves at positions n/2+1 and n−n/2: for even
// n R asks for the two positions in descending order, which that
// quicksort does not support, so the lower one is not always the order
// statistic; stlPartialSort reproduces it.
func stlRobustWeights(y []float64, n int, fit, rw []float64) {
	for i := 1; i <= n; i++ {
		rw[i] = math.Abs(y[i] - fit[i])
	}
	mid := [3]int{0, n/2 + 1, 0}
	mid[2] = n - mid[1] + 1
	stlPartialSort(rw, n, mid[:], 2)
	cmad := 3.0 * (rw[mid[1]] + rw[mid[2]])
	c9 := 0.999 * cmad
	c1 := 0.001 * cmad
	for i := 1; i <= n; i++ {
		v := math.Abs(y[i] - fit[i])
		switch {
		case v <= c1:
			rw[i] = 1
		case v <= c9:
			u := v / cmad
			u = 1 - u*u
			rw[i] = u * u
		default:
			rw[i] = 0
		}
	}
}

// stlPartialSort is Fortran psort: a quicksort of a(1…n) that only
// recurses into the parts holding the positions ind(1…ni), which it
// expects in ascending order. It is kept goto for goto so that it leaves
// the same values where R's does.
func stlPartialSort(a []float64, n int, ind []int, ni int) {
	if n < 2 || ni == 0 {
		return
	}
	var indu, indl, iu, il [64]int
	var p, jl, ju, i, j, m, k, ij, l int
	var t, tt float64
	jl, ju = 1, ni
	indl[1], indu[1] = 1, ni
	i, j, m = 1, n, 1
L161:
	if i < j {
		goto L10
	}
L166:
	m--
	if m == 0 {
		return
	}
	i, j, jl, ju = il[m], iu[m], indl[m], indu[m]
	if !(jl <= ju) {
		goto L166
	}
L173:
	if !(j-i > 10) {
		goto L174
	}
L10:
	k = i
	ij = (i + j) / 2
	t = a[ij]
	if a[i] > t {
		a[ij], a[i] = a[i], t
		t = a[ij]
	}
	l = j
	if a[j] < t {
		a[ij], a[j] = a[j], t
		t = a[ij]
		if a[i] > t {
			a[ij], a[i] = a[i], t
			t = a[ij]
		}
	}
L181:
	l--
	if !(a[l] <= t) {
		goto L181
	}
	tt = a[l]
L186:
	k++
	if !(a[k] >= t) {
		goto L186
	}
	if k > l {
		goto L183
	}
	a[l], a[k] = a[k], tt
	goto L181
L183:
	indl[m], indu[m] = jl, ju
	p = m
	m++
	if !(l-i <= j-k) {
		goto L199
	}
	il[p], iu[p] = k, j
	j = l
L193:
	if jl > ju {
		goto L166
	}
	if ind[ju] > j {
		ju--
		goto L193
	}
	indl[p] = ju + 1
	goto L173
L199:
	il[p], iu[p] = i, l
	i = k
L200:
	if jl > ju {
		goto L166
	}
	if ind[jl] < i {
		jl++
		goto L200
	}
	indu[p] = jl - 1
	goto L173
L174:
	if i == 1 {
		goto L161
	}
	i--
L209:
	i++
	if i == j {
		goto L166
	}
	t = a[i+1]
	if !(a[i] > t) {
		goto L209
	}
	k = i
L216:
	a[k+1] = a[k]
	k--
	if !(t >= a[k]) {
		goto L216
	}
	a[k+1] = t
	goto L209
}

// stlSubseries smooths each cycle-subseries and extends it by one point
// at each end (Fortran stlss); season has n+2np elements.
func stlSubseries(y []float64, n, np, ns, isdeg, nsjump int, userw bool, rw, season, work1, work2, work3, work4 []float64) {
	for j := 1; j <= np; j++ {
		k := (n-j)/np + 1
		for i := 1; i <= k; i++ {
			work1[i] = y[(i-1)*np+j]
		}
		if userw {
			for i := 1; i <= k; i++ {
				work3[i] = rw[(i-1)*np+j]
			}
		}
		stlEss(work1, k, ns, isdeg, nsjump, userw, work3, work2[1:], work4)
		nright := min(ns, k)
		v, ok := stlEst(work1, k, ns, isdeg, 0, 1, nright, work4, userw, work3)
		if ok {
			work2[1] = v
		} else {
			work2[1] = work2[2]
		}
		nleft := max(1, k-ns+1)
		v, ok = stlEst(work1, k, ns, isdeg, float64(k+1), nleft, k, work4, userw, work3)
		if ok {
			work2[k+2] = v
		} else {
			work2[k+2] = work2[k+1]
		}
		for m := 1; m <= k+2; m++ {
			season[(m-1)*np+j] = work2[m]
		}
	}
}

// stlLowPass applies moving averages of lengths np, np and 3 (Fortran
// stlfts); x has n elements and trend receives n-2np.
func stlLowPass(x []float64, n, np int, trend, work []float64) {
	stlMovingAverage(x, n, np, trend)
	stlMovingAverage(trend, n-np+1, np, work)
	stlMovingAverage(work, n-2*np+2, 3, trend)
}

// stlMovingAverage is Fortran stlma: ave(j) = mean of x(j…j+len-1).
func stlMovingAverage(x []float64, n, length int, ave []float64) {
	newn := n - length + 1
	flen := float64(length)
	v := 0.0
	for i := 1; i <= length; i++ {
		v += x[i]
	}
	ave[1] = v / flen
	k, m := length, 0
	for j := 2; j <= newn; j++ {
		k++
		m++
		v = v - x[m] + x[k]
		ave[j] = v / flen
	}
}

// stlEss is the LOESS smoother of y(1…n) evaluated every njump points and
// linearly interpolated in between (Fortran stless).
func stlEss(y []float64, n, length, ideg, njump int, userw bool, rw, ys, res []float64) {
	if n < 2 {
		ys[1] = y[1]
		return
	}
	newnj := min(njump, n-1)
	var nleft, nright int
	est := func(i int) {
		v, ok := stlEst(y, n, length, ideg, float64(i), nleft, nright, res, userw, rw)
		if ok {
			ys[i] = v
		} else {
			ys[i] = y[i]
		}
	}
	switch {
	case length >= n:
		nleft, nright = 1, n
		for i := 1; i <= n; i += newnj {
			est(i)
		}
	case newnj == 1:
		nsh := (length + 1) / 2
		nleft, nright = 1, length
		for i := 1; i <= n; i++ {
			if i > nsh && nright != n {
				nleft++
				nright++
			}
			est(i)
		}
	default:
		nsh := (length + 1) / 2
		for i := 1; i <= n; i += newnj {
			switch {
			case i < nsh:
				nleft, nright = 1, length
			case i >= n-nsh+1:
				nleft, nright = n-length+1, n
			default:
				nleft, nright = i-nsh+1, length+i-nsh
			}
			est(i)
		}
	}
	if newnj == 1 {
		return
	}
	for i := 1; i <= n-newnj; i += newnj {
		delta := (ys[i+newnj] - ys[i]) / float64(newnj)
		for j := i + 1; j <= i+newnj-1; j++ {
			ys[j] = ys[i] + delta*float64(j-i)
		}
	}
	k := ((n-1)/newnj)*newnj + 1
	if k != n {
		est(n)
		if k != n-1 {
			delta := (ys[n] - ys[k]) / float64(n-k)
			for j := k + 1; j <= n-1; j++ {
				ys[j] = ys[k] + delta*float64(j-k)
			}
		}
	}
}

// stlEst is the LOESS estimate at abscissa xs from y(nleft…nright) with
// tricube (times robustness) weights, locally constant or linear (Fortran
// stlest). w receives the weights; ok is false when they are all zero.
func stlEst(y []float64, n, length, ideg int, xs float64, nleft, nright int, w []float64, userw bool, rw []float64) (float64, bool) {
	rng := float64(n) - 1
	h := math.Max(xs-float64(nleft), float64(nright)-xs)
	if length > n {
		h += float64((length - n) / 2)
	}
	h9 := 0.999 * h
	h1 := 0.001 * h
	a := 0.0
	for j := nleft; j <= nright; j++ {
		r := math.Abs(float64(j) - xs)
		if r <= h9 {
			if r <= h1 {
				w[j] = 1
			} else {
				q := r / h
				q = 1 - q*q*q
				w[j] = q * q * q
			}
			if userw {
				w[j] = rw[j] * w[j]
			}
			a += w[j]
		} else {
			w[j] = 0
		}
	}
	if a <= 0 {
		return 0, false
	}
	for j := nleft; j <= nright; j++ {
		w[j] /= a
	}
	if h > 0 && ideg > 0 {
		a = 0
		for j := nleft; j <= nright; j++ {
			a += w[j] * float64(j)
		}
		b := xs - a
		c := 0.0
		for j := nleft; j <= nright; j++ {
			d := float64(j) - a
			c += w[j] * d * d
		}
		if math.Sqrt(c) > 0.001*rng {
			b /= c
			for j := nleft; j <= nright; j++ {
				w[j] = w[j] * (b*(float64(j)-a) + 1)
			}
		}
	}
	ys := 0.0
	for j := nleft; j <= nright; j++ {
		ys += w[j] * y[j]
	}
	return ys, true
}

// baseFinite returns an error when y holds NaN or ±Inf.
func baseFinite(method string, y []float64) error {
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("forecast: %s: value %d is %v (the series must be finite)", method, i, v)
		}
	}
	return nil
}

// baseMean is the arithmetic mean (NaN when empty).
func baseMean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// baseVar is R's var(): the sample variance with divisor n−1, computed
// around the mean (NaN below two values).
func baseVar(x []float64) float64 {
	n := len(x)
	if n < 2 {
		return math.NaN()
	}
	m := baseMean(x)
	s := 0.0
	for _, v := range x {
		d := v - m
		s += d * d
	}
	return s / float64(n-1)
}
