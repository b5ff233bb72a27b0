package forecast

import (
	"errors"
	"fmt"
	"math"
)

// R's default parameter bounds (ets(lower, upper)): α, β, γ, φ.
var (
	etsLower = [4]float64{1e-4, 1e-4, 1e-4, 0.8}
	etsUpper = [4]float64{0.9999, 0.9999, 0.9999, 0.98}
)

// etsWorkspace holds the buffers the fits of one ETS call share.
type etsWorkspace struct {
	ring  []float64
	state []float64
}

func newETSWorkspace(m int) *etsWorkspace {
	return &etsWorkspace{ring: make([]float64, max(m, 1)), state: make([]float64, m+2)}
}

// etsFitForm estimates one form on y, as R's forecast:::etsmodel does with
// opt.crit "lik", bounds "both" and nmse 3.
func etsFitForm(y []float64, period int, f etsForm, opt *ETSOptions, ws *etsWorkspace) (*ETSModel, error) {
	n := len(y)
	m := 1
	if f.season != 'N' {
		m = period
	}
	par := etsInitParam(f, m)
	if !etsCheckParam(f, m, par) {
		return nil, errors.New("starting parameters out of range")
	}
	init, err := etsInitState(y, period, f.trend, f.season)
	if err != nil {
		return nil, err
	}
	nstate := len(init)
	x := append(par.vector(f), init...)
	np := len(x)
	if np >= n-1 {
		return nil, fmt.Errorf("%d parameters for %d observations", np, n)
	}

	nfull := nstate // the free states and, with a season, the last one
	if f.season != 'N' {
		nfull++
	}
	t := &etsTarget{f: f, m: m, nstate: nstate, y: y,
		run:   etsRun{f: f, m: m, ring: ws.ring[:m]},
		state: ws.state[:nfull]}
	maxit := opt.MaxIter
	if maxit == 0 {
		maxit = 2000
	}
	best, _, err := etsNelderMead(t.eval, x, maxit)
	if err != nil {
		return nil, err
	}

	p := t.params(best)
	x0 := t.fullState(best)
	full := t.run.full(y, x0, p)
	if math.IsNaN(full.lik) {
		return nil, errors.New("the likelihood is not defined at the optimum")
	}
	k := float64(np + 1)
	nf := float64(n)
	aic := full.lik + 2*k
	fit := &ETSModel{
		Error: f.err, Trend: f.trend, Season: f.season, Damped: f.damped,
		Period: m,
		Alpha:  p.Alpha, Beta: p.Beta, Gamma: p.Gamma, Phi: p.Phi,
		InitState: append([]float64(nil), x0...),
		LastState: full.last,
		LogLik:    -0.5 * full.lik,
		AIC:       aic,
		AICc:      aic + 2*k*(k+1)/(nf-k-1),
		BIC:       full.lik + math.Log(nf)*k,
		MSE:       full.amse[0],
		AMSE:      (full.amse[0] + full.amse[1] + full.amse[2]) / 3,
		Residuals: full.e,
		Fitted:    make([]float64, n),
		nParams:   np,
	}
	var sse float64
	for i, e := range full.e {
		sse += e * e
		if f.err == 'A' {
			fit.Fitted[i] = y[i] - e
		} else {
			fit.Fitted[i] = y[i] / (1 + e)
		}
	}
	fit.Sigma2 = sse / float64(n-np)
	return fit, nil
}

// vector lists the parameters a form estimates, in R's order.
func (p etsParams) vector(f etsForm) []float64 {
	v := []float64{p.Alpha}
	if f.trend != 'N' {
		v = append(v, p.Beta)
	}
	if f.season != 'N' {
		v = append(v, p.Gamma)
	}
	if f.damped {
		v = append(v, p.Phi)
	}
	return v
}

// etsInitParam is R's forecast:::initparam for bounds "both" with nothing
// fixed: α a fifth of the way up its range divided by m, β a tenth of the
// way up to α, γ a twentieth of the way up to 1 − α, φ 99 % of the way up.
func etsInitParam(f etsForm, m int) etsParams {
	lo, up := etsLower, etsUpper
	p := etsParams{Phi: 1}
	p.Alpha = lo[0] + 0.2*(up[0]-lo[0])/float64(m)
	if p.Alpha > 1 || p.Alpha < 0 {
		p.Alpha = lo[0] + 2e-3
	}
	if f.trend != 'N' {
		up[1] = min(up[1], p.Alpha)
		p.Beta = lo[1] + 0.1*(up[1]-lo[1])
		if p.Beta < 0 || p.Beta > p.Alpha {
			p.Beta = p.Alpha - 0.001
		}
	}
	if f.season != 'N' {
		up[2] = min(up[2], 1-p.Alpha)
		p.Gamma = lo[2] + 0.05*(up[2]-lo[2])
		if p.Gamma < 0 || p.Gamma > 1-p.Alpha {
			p.Gamma = 1 - p.Alpha - 0.001
		}
	}
	if f.damped {
		p.Phi = lo[3] + 0.99*(up[3]-lo[3])
		if p.Phi < 0 || p.Phi > 1 {
			p.Phi = up[3] - 0.001
		}
	}
	return p
}

// etsCheckParam is R's check.param with bounds "both": the usual region
// (each parameter within its bounds, β ≤ α, γ ≤ 1 − α) and the admissible
// region of Hyndman et al. (2008, ch. 10).
func etsCheckParam(f etsForm, m int, p etsParams) bool {
	lo, up := etsLower, etsUpper
	if p.Alpha < lo[0] || p.Alpha > up[0] {
		return false
	}
	if f.trend != 'N' && (p.Beta < lo[1] || p.Beta > p.Alpha || p.Beta > up[1]) {
		return false
	}
	if f.damped && (p.Phi < lo[3] || p.Phi > up[3]) {
		return false
	}
	if f.season != 'N' && (p.Gamma < lo[2] || p.Gamma > 1-p.Alpha || p.Gamma > up[2]) {
		return false
	}
	return etsAdmissible(p.Alpha, p.Beta, p.Gamma, p.Phi, f.trend != 'N', f.season != 'N', m)
}

// etsAdmissible is R's forecast:::admissible: whether the parameters give a
// forecastable model (the discount matrix has its eigenvalues inside the
// unit circle). beta is ignored without a trend, gamma without a season;
// phi is 1 for undamped forms.
func etsAdmissible(alpha, beta, gamma, phi float64, trend, seasonal bool, m int) bool {
	if phi < 0 || phi > 1+1e-8 {
		return false
	}
	if !seasonal {
		if alpha < 1-1/phi || alpha > 1+1/phi {
			return false
		}
		if trend && (beta < alpha*(phi-1) || beta > (1+phi)*(2-alpha)) {
			return false
		}
		return true
	}
	if m <= 1 {
		return true
	}
	if !trend {
		beta = 0
	}
	if gamma < max(1-1/phi-alpha, 0) || gamma > 1+1/phi-alpha {
		return false
	}
	fm := float64(m)
	if alpha < 1-1/phi-gamma*(1-fm+phi+phi*fm)/(2*phi*fm) {
		return false
	}
	if beta < -(1-phi)*(gamma/fm+alpha) {
		return false
	}
	return etsRootsWithin(alpha, beta, gamma, phi, m)
}

// etsRootsWithin reports whether every root of R's characteristic
// polynomial
//
//	z^(m+1) + (α+β−φ) z^m + (α+β−αφ) (z^(m−1) + … + z²) + (α+β−αφ+γ−1) z + φ(1−α−γ)
//
// has modulus at most 1 + 1e-10, as R's max(abs(polyroot(P))) > 1 + 1e-10
// test. Instead of finding the roots it runs the Schur–Cohn (step-down)
// stability test on the polynomial rescaled to the radius 1 + 1e-10. When
// β = 0 and φ = 1 (seasonal forms without a trend) z = 1 is an exact root,
// which R's tolerance admits; it is divided out first, since a root on the
// test circle would make the step-down recursion ill-conditioned.
func etsRootsWithin(alpha, beta, gamma, phi float64, m int) bool {
	var buf [27]float64
	a := buf[:m+2] // descending powers, a[0] = 1
	a[0] = 1
	a[1] = alpha + beta - phi
	for i := 2; i < m; i++ {
		a[i] = alpha + beta - alpha*phi
	}
	a[m] = alpha + beta - alpha*phi + gamma - 1
	a[m+1] = phi * (1 - alpha - gamma)
	if beta == 0 && phi == 1 {
		// Synthetic division by (z − 1); the remainder is 0 in exact
		// arithmetic.
		for i := 1; i <= m; i++ {
			a[i] += a[i-1]
		}
		a = a[:m+1]
	}
	// Roots within radius ρ ⇔ roots of p(ρz) within the unit circle.
	const rho = 1 + 1e-10
	scale := 1.0
	for i := 1; i < len(a); i++ {
		scale /= rho
		a[i] *= scale
	}
	for d := len(a) - 1; d >= 1; d-- {
		k := a[d] / a[0]
		if !(math.Abs(k) < 1) {
			return false
		}
		// a_i ← a_i − k·a_{d−i}, i = 0..d−1, in place (pairs swap roles).
		for i, j := 0, d; i <= j; i, j = i+1, j-1 {
			ai, aj := a[i], a[j]
			a[i] = ai - k*aj
			if i != j {
				a[j] = aj - k*ai
			}
		}
	}
	return true
}

// etsTarget is the objective R's C++ EtsTargetFunction minimises: the
// likelihood criterion at (parameters, initial states), +Inf outside the
// bounds, the admissible region or (multiplicative seasons) when a
// seasonal state is negative.
type etsTarget struct {
	f      etsForm
	m      int
	nstate int // free initial states (m − 1 seasonal ones)
	y      []float64
	run    etsRun
	state  []float64 // the full initial state, len nstate (+1 when seasonal)
}

// params reads the smoothing parameters from an optimiser vector.
func (t *etsTarget) params(x []float64) etsParams {
	p := etsParams{Phi: 1}
	k := 0
	p.Alpha = x[k]
	k++
	if t.f.trend != 'N' {
		p.Beta = x[k]
		k++
	}
	if t.f.season != 'N' {
		p.Gamma = x[k]
		k++
	}
	if t.f.damped {
		p.Phi = x[k]
	}
	return p
}

// fullState returns the initial state of x with the last seasonal state
// added (the seasonal states sum to 0, or to m when multiplicative). It
// reuses t.state.
func (t *etsTarget) fullState(x []float64) []float64 {
	st := t.state
	copy(st, x[len(x)-t.nstate:])
	if t.f.season != 'N' {
		first := 1
		if t.f.trend != 'N' {
			first = 2
		}
		var sum float64
		for _, v := range st[first:t.nstate] {
			sum += v
		}
		last := -sum
		if t.f.season == 'M' {
			last = float64(t.m) - sum
		}
		st[t.nstate] = last
	}
	return st
}

func (t *etsTarget) eval(x []float64) float64 {
	p := t.params(x)
	if !etsCheckParam(t.f, t.m, p) {
		return math.Inf(1)
	}
	st := t.fullState(x)
	if t.f.season == 'M' {
		first := 1
		if t.f.trend != 'N' {
			first = 2
		}
		for _, v := range st[first:] {
			if v < 0 {
				return math.Inf(1)
			}
		}
	}
	lik := t.run.lik(t.y, st, p)
	if math.IsNaN(lik) {
		return math.Inf(1)
	}
	return max(lik, -1e10) // R avoids perfect fits this way
}

// etsNelderMead minimises fn from x0 with the Nelder–Mead variant of R's
// optim (nmmin, after Nash's Compact Numerical Methods, algorithm 19) with
// the settings forecast's etsNelderMead passes: abstol −Inf, reltol
// √ε (relative to |f(x0)|), reflection 1, contraction 0.5, expansion 2 and
// at most maxit evaluations. Non-finite values count as 1e35. The start
// must give a finite value, as in R.
//
// This deliberately replaces gonum's optimize.NelderMead, which differs in
// its initial simplex, its shrink step and its stopping rule. Within the
// 2000-evaluation budget many ETS fits do not converge, so where the
// search stops depends on those details: with gonum's method (same budget,
// relative tolerance and initial step) 4 of the 17 reference series of
// ets_test.go select another form than R and 4 end with a worse AICc (by
// up to 5.3), while this port retraces R's search and lands on R's
// estimates to about 1e-9.
func etsNelderMead(fn func([]float64) float64, x0 []float64, maxit int) ([]float64, float64, error) {
	const big = 1.0e35
	const reltol = 1.490116119384765625e-8 // sqrt(.Machine$double.eps)
	const alpha, beta, gamma = 1.0, 0.5, 2.0
	n := len(x0)
	eval := func(x []float64) float64 {
		v := fn(x)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return big
		}
		return v
	}
	f0 := fn(x0)
	if math.IsNaN(f0) || math.IsInf(f0, 0) {
		return nil, 0, errors.New("the likelihood cannot be evaluated at the starting values")
	}
	if maxit <= 0 {
		return append([]float64(nil), x0...), f0, nil
	}
	convtol := reltol * (math.Abs(f0) + reltol)
	// Simplex: n+1 vertices of n coordinates, plus their values.
	p := make([][]float64, n+2) // p[n+1] is the centroid slot (R's column C)
	for j := range p {
		p[j] = make([]float64, n)
	}
	v := make([]float64, n+2)
	copy(p[0], x0)
	v[0] = f0
	step := 0.0
	for _, x := range x0 {
		step = max(step, 0.1*math.Abs(x))
	}
	if step == 0 {
		step = 0.1
	}
	size := 0.0
	for j := 1; j <= n; j++ {
		copy(p[j], x0)
		try := step
		for p[j][j-1] == x0[j-1] {
			p[j][j-1] = x0[j-1] + try
			try *= 10
		}
		size += try
	}
	oldsize := size
	funcount := 1
	low := 0
	calcvert := true
	x := make([]float64, n)
	c := p[n+1]
	for {
		if calcvert {
			for j := 0; j <= n; j++ {
				if j != low {
					v[j] = eval(p[j])
					funcount++
				}
			}
			calcvert = false
		}
		vl, vh := v[low], v[low]
		high := low
		for j := 0; j <= n; j++ {
			if j == low {
				continue
			}
			if v[j] < vl {
				low, vl = j, v[j]
			}
			if v[j] > vh {
				high, vh = j, v[j]
			}
		}
		if vh <= vl+convtol {
			break
		}
		for i := range n {
			temp := -p[high][i]
			for j := 0; j <= n; j++ {
				temp += p[j][i]
			}
			c[i] = temp / float64(n)
		}
		for i := range n {
			x[i] = (1+alpha)*c[i] - alpha*p[high][i]
		}
		vr := eval(x)
		funcount++
		if vr < vl {
			// Try to expand further.
			v[n+1] = vr
			for i := range n {
				e := gamma*x[i] + (1-gamma)*c[i]
				c[i] = x[i]
				x[i] = e
			}
			fe := eval(x)
			funcount++
			if fe < vr {
				copy(p[high], x)
				v[high] = fe
			} else {
				copy(p[high], c)
				v[high] = vr
			}
		} else {
			if vr < vh {
				copy(p[high], x)
				v[high] = vr
			}
			for i := range n {
				x[i] = (1-beta)*p[high][i] + beta*c[i]
			}
			fc := eval(x)
			funcount++
			if fc < v[high] {
				copy(p[high], x)
				v[high] = fc
			} else if vr >= vh {
				// Shrink towards the best vertex.
				calcvert = true
				size = 0
				for j := 0; j <= n; j++ {
					if j == low {
						continue
					}
					for i := range n {
						p[j][i] = beta*(p[j][i]-p[low][i]) + p[low][i]
						size += math.Abs(p[j][i] - p[low][i])
					}
				}
				if size >= oldsize {
					break // the polytope no longer shrinks
				}
				oldsize = size
			}
		}
		if funcount > maxit {
			break
		}
	}
	return append([]float64(nil), p[low]...), v[low], nil
}
