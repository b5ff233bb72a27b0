package forecast

import (
	"errors"
	"fmt"
	"math"

	"github.com/vaticml/vatic/stats"
	"gonum.org/v1/gonum/mat"
)

// etsPaths is the number of simulated paths behind the intervals of the
// forms without a closed-form variance (R's forecast.ets draws 5000).
const etsPaths = 1000

// Forecast predicts the next h points, as R's forecast.ets does:
//
//   - class 1 (additive errors, no multiplicative component) and class 2
//     (multiplicative errors, additive or no trend and season): the point
//     forecasts of the recursion and Gaussian quantiles with the exact
//     forecast variance of Hyndman et al. (2008, ch. 6), including R's
//     slip for seasonal forms without a trend, whose γ enters the
//     variance one step early (R's class1 puts it on s2, not s1);
//   - class 3 (multiplicative errors and season, additive or no trend): R's
//     class3() mean and variance (the first two moments, which differ
//     slightly from the recursion's point forecast) and Gaussian quantiles.
//     R's forecast.ets simulates only the remaining forms;
//   - other forms (a multiplicative trend): the recursion's point forecasts
//     and the empirical quantiles of 1000 paths simulated with Gaussian
//     innovations (multiplicative ones truncated at −1, as R), seeded by
//     ETSOptions.Seed. R draws 5000 paths and uses type-8 quantiles; the
//     quantiles here are type 7 (EmpiricalQuantiles).
//
// The median level is the mean. ETS takes no regressors: xreg must be nil.
func (e *ETSModel) Forecast(h int, xreg [][]float64) (Forecast, error) {
	if h < 1 {
		return Forecast{}, fmt.Errorf("forecast: ETS: horizon %d is below 1", h)
	}
	if len(xreg) != 0 {
		return Forecast{}, errors.New("forecast: ETS takes no regressors")
	}
	f := etsForm{e.Error, e.Trend, e.Season, e.Damped}
	switch {
	case f.trend != 'M' && f.season != 'M':
		mu, v := e.class12(h)
		return etsGaussian(mu, v), nil
	case f.err == 'M' && f.season == 'M' && f.trend != 'M':
		mu, v := e.class3(h)
		return etsGaussian(mu, v), nil
	}
	return e.simulated(h)
}

// etsGaussian builds a forecast from means and variances. A variance
// that rounds below 0 counts as 0; one that overflowed (NaN from ∞ − ∞ in
// class 2, far ahead) counts as +Inf.
func etsGaussian(mu, v []float64) Forecast {
	sd := make([]float64, len(v))
	for i, x := range v {
		if math.IsNaN(x) {
			x = math.Inf(1)
		}
		sd[i] = math.Sqrt(max(x, 0))
	}
	fc := Forecast{Mean: mu}
	GaussianQuantiles(&fc, sd)
	SortQuantiles(&fc)
	return fc
}

// class12 is R's class1 (additive errors) and class2 (multiplicative
// errors) for the linear forms: mu_j = H F^(j−1) x and, with
// c_j = H F^(j−1) G, v_1 = σ², v_j = σ²(1 + Σ_{i<j} c_i²) (class 1) or
// θ_1 = mu_1², θ_j = mu_j² + σ² Σ_{i<j} c_i² θ_(j−i) and
// v_j = (1 + σ²)θ_j − mu_j² (class 2).
func (e *ETSModel) class12(h int) (mu, v []float64) {
	x := append([]float64(nil), e.LastState...)
	g := make([]float64, len(x))
	g[0] = e.Alpha
	k := 1
	if e.Trend != 'N' {
		g[1] = e.Beta
		k = 2
	}
	if e.Season != 'N' {
		// R's class1 sets G[3, 1], the third state, whatever the trend:
		// without a trend that is s2 rather than s1, and we follow R.
		g[2] = e.Gamma
	}
	phi := 1.0
	if e.Damped {
		phi = e.Phi
	}
	// H·z and F·z for the linear state space of class 1.
	measure := func(z []float64) float64 {
		r := z[0]
		if e.Trend != 'N' {
			r += phi * z[1]
		}
		if e.Season != 'N' {
			r += z[len(z)-1]
		}
		return r
	}
	next := func(z []float64) {
		if e.Trend != 'N' {
			z[0] += phi * z[1]
			z[1] *= phi
		}
		if e.Season != 'N' {
			s := z[k:]
			last := s[len(s)-1]
			copy(s[1:], s[:len(s)-1])
			s[0] = last
		}
	}
	mu = make([]float64, h)
	c := make([]float64, h)
	for i := range h {
		mu[i] = measure(x)
		c[i] = measure(g)
		next(x)
		next(g)
	}
	s2 := e.Sigma2
	v = make([]float64, h)
	if e.Error == 'A' {
		var cum float64
		v[0] = s2
		for i := 1; i < h; i++ {
			cum += c[i-1] * c[i-1]
			v[i] = s2 * (1 + cum)
		}
		return mu, v
	}
	theta := make([]float64, h)
	for j := range h {
		var sum float64
		for i := range j {
			sum += c[i] * c[i] * theta[j-1-i]
		}
		theta[j] = mu[j]*mu[j] + s2*sum
		v[j] = (1+s2)*theta[j] - mu[j]*mu[j]
	}
	return mu, v
}

// class3 is R's class3(): the mean and variance of the forms with
// multiplicative errors and season (Hyndman et al. 2008, §6.4), through the
// Kronecker-product recursion of the level-growth and seasonal blocks.
// We follow R where it departs from the book: with a damped trend R's
// measurement row is (1, 1), not (1, φ), so the mean starts from
// (l + b)·s rather than (l + φb)·s.
func (e *ETSModel) class3(h int) (mu, v []float64) {
	m := e.Period
	p1 := 1
	if e.Trend != 'N' {
		p1 = 2
	}
	phi := 1.0
	if e.Damped {
		phi = e.Phi
	}
	s2 := e.Sigma2
	var f1, g1 *mat.Dense
	if p1 == 1 {
		f1 = mat.NewDense(1, 1, []float64{1})
		g1 = mat.NewDense(1, 1, []float64{e.Alpha})
	} else {
		f1 = mat.NewDense(2, 2, []float64{1, 1, 0, phi})
		g1 = mat.NewDense(2, 2, []float64{e.Alpha, e.Alpha, e.Beta, e.Beta})
	}
	f2 := mat.NewDense(m, m, nil)
	f2.Set(0, m-1, 1)
	for i := 1; i < m; i++ {
		f2.Set(i, i-1, 1)
	}
	g2 := mat.NewDense(m, m, nil)
	g2.Set(0, m-1, e.Gamma)
	d := p1 * m
	var f21, g21, k1, k2 mat.Dense
	f21.Kronecker(f2, f1)
	g21.Kronecker(g2, g1)
	k1.Kronecker(g2, f1)
	k2.Kronecker(f2, g1)
	var kk mat.Dense
	kk.Add(&k1, &k2)

	ls := e.LastState
	mh := mat.NewDense(p1, m, nil)
	for i := range p1 {
		for j := range m {
			mh.Set(i, j, ls[i]*ls[p1+j])
		}
	}
	vh := mat.NewDense(d, d, nil)
	// H21 = H2 ⊗ H1 picks the last seasonal block of the vectorised state:
	// H21 Vh H21' is the sum of the last p1×p1 block of Vh.
	h21 := func(a *mat.Dense) float64 {
		var s float64
		for i := d - p1; i < d; i++ {
			for j := d - p1; j < d; j++ {
				s += a.At(i, j)
			}
		}
		return s
	}
	mu = make([]float64, h)
	v = make([]float64, h)
	vec := mat.NewVecDense(d, nil)
	var t1, t2, t3, t4, outer, nv, tmpMh, tmpMh2 mat.Dense
	for i := range h {
		// mu = H1 Mh H2' = sum of the last column of Mh.
		var s float64
		for r := range p1 {
			s += mh.At(r, m-1)
		}
		mu[i] = s
		v[i] = (1+s2)*h21(vh) + s2*s*s
		if i == h-1 {
			break
		}
		for c := range m { // vec(Mh), column-major
			for r := range p1 {
				vec.SetVec(c*p1+r, mh.At(r, c))
			}
		}
		outer.Outer(1, vec, vec)
		// Vh' = F21 Vh F21' + σ²(F21 Vh G21' + G21 Vh F21'
		//       + K (Vh + vv') K' + σ² G21 (3 Vh + 2 vv') G21')
		nv.Product(&f21, vh, f21.T())
		t1.Product(&f21, vh, g21.T())
		t2.Product(&g21, vh, f21.T())
		t3.Add(vh, &outer)
		t4.Product(&kk, &t3, kk.T())
		var inner mat.Dense
		inner.Scale(3, vh)
		var o2 mat.Dense
		o2.Scale(2, &outer)
		inner.Add(&inner, &o2)
		var t5 mat.Dense
		t5.Product(&g21, &inner, g21.T())
		t5.Scale(s2, &t5)
		t1.Add(&t1, &t2)
		t1.Add(&t1, &t4)
		t1.Add(&t1, &t5)
		t1.Scale(s2, &t1)
		nv.Add(&nv, &t1)
		vh.Copy(&nv)
		// Mh' = F1 Mh F2' + G1 Mh G2' σ²
		tmpMh.Product(f1, mh, f2.T())
		tmpMh2.Product(g1, mh, g2.T())
		tmpMh2.Scale(s2, &tmpMh2)
		mh.Add(&tmpMh, &tmpMh2)
	}
	return mu, v
}

// simulated forecasts by simulation, as R's pegelsfcast.C: the point
// forecasts of the recursion and the empirical quantiles of etsPaths
// sample paths.
func (e *ETSModel) simulated(h int) (Forecast, error) {
	f := etsForm{e.Error, e.Trend, e.Season, e.Damped}
	m := e.Period
	mean := etsPoint(f, m, e.LastState, e.Phi, h)
	for _, v := range mean {
		if math.IsNaN(v) {
			return Forecast{}, errors.New("forecast: ETS: the multiplicative trend turned negative")
		}
	}
	rng := stats.Rand(e.opts.Seed, "ets/simulate")
	sd := math.Sqrt(e.Sigma2)
	p := etsParams{Alpha: e.Alpha, Beta: e.Beta, Gamma: e.Gamma, Phi: e.Phi}
	run := etsRun{f: f, m: m, ring: make([]float64, m)}
	paths := make([][]float64, etsPaths)
	for k := range paths {
		path := make([]float64, h)
		l, b := run.load(e.LastState)
		j := 0
		for t := range h {
			fc := run.onestep(l, b, j, p)
			if math.IsNaN(fc) {
				for i := t; i < h; i++ {
					path[i] = math.NaN()
				}
				break
			}
			eps := rng.NormFloat64() * sd
			var y float64
			if f.err == 'A' {
				y = fc + eps
			} else {
				y = fc * (1 + max(eps, -1))
			}
			path[t] = y
			l, b = run.step(l, b, j, y, p)
			if j++; j == m {
				j = 0
			}
		}
		paths[k] = path
	}
	fc := Forecast{Mean: mean}
	EmpiricalQuantiles(&fc, paths)
	return fc, nil
}

// onestep is the one-step forecast from the state (l, b, ring[j]); NaN for
// a negative multiplicative growth.
func (r *etsRun) onestep(l, b float64, j int, p etsParams) float64 {
	var q float64
	switch r.f.trend {
	case 'N':
		q = l
	case 'A':
		q = l + p.Phi*b
	default:
		if b < 0 {
			return math.NaN()
		}
		q = l * math.Pow(b, p.Phi)
	}
	switch r.f.season {
	case 'A':
		return q + r.ring[j]
	case 'M':
		return q * r.ring[j]
	}
	return q
}
