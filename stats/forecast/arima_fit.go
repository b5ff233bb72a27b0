package forecast

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// arimaKappa is makeARIMA's prior variance of the differencing states.
const arimaKappa = 1e6

// arimaStatsFit is what R's stats::arima returns.
type arimaStatsFit struct {
	arma    arimaArma
	coef    []float64 // ARMA coefficients, then regression coefficients
	names   []string
	mask    []bool // estimated (true) or fixed
	sigma2  float64
	varCoef []float64 // over the masked coefficients, row-major
	loglik  float64
	aic     float64 // NaN for CSS
	resid   []float64
	nused   int
	model   *arimaSS
	code    int
	xreg    [][]float64 // regressor columns, intercept included
	ncond   int
	method  ARIMAMethod
}

// arimaStats estimates a regression with ARIMA errors as R's
// stats::arima(x, order, seasonal, xreg, include.mean, fixed, method)
// with transform.pars = TRUE, SSinit = "Gardner1980", kappa = 1e6 and
// optim's BFGS defaults. xreg holds regressor columns (drift included by
// the caller); fixed, when not nil, holds a value per coefficient or NaN
// for the free ones. Errors are those R raises.
func arimaStats(x []float64, a arimaArma, xreg [][]float64, xnames []string, includeMean bool, fixed []float64, method ARIMAMethod) (*arimaStatsFit, error) {
	n := len(x)
	narma := a.narma()
	delta := arimaDelta(a.d, a.sd, a.period)
	nd := a.d + a.sd
	cols := append([][]float64(nil), xreg...)
	cn := append([]string(nil), xnames...)
	if includeMean && nd == 0 {
		ones := make([]float64, n)
		for i := range ones {
			ones[i] = 1
		}
		cols = append([][]float64{ones}, cols...)
		cn = append([]string{"intercept"}, cn...)
	}
	ncxreg := len(cols)
	ncond := 0
	if method != ARIMAMethodML {
		ncond = a.d + a.sd*a.period + a.p + a.period*a.sp
	}
	if fixed == nil {
		fixed = make([]float64, narma+ncxreg)
		for i := range fixed {
			fixed[i] = math.NaN()
		}
	} else if len(fixed) != narma+ncxreg {
		return nil, errors.New("wrong length for 'fixed'")
	}
	mask := make([]bool, len(fixed))
	nfree := 0
	for i, v := range fixed {
		mask[i] = math.IsNaN(v)
		if mask[i] {
			nfree++
		}
	}
	noOptim := nfree == 0
	transform := !noOptim
	if transform {
		for i := range a.p {
			transform = transform && mask[i]
		}
		for i := range a.sp {
			transform = transform && mask[a.p+a.q+i]
		}
	}
	init0 := make([]float64, narma)
	parscale := make([]float64, narma)
	for i := range parscale {
		parscale[i] = 1
	}
	var sv []float64 // S$v of svd(xreg), ncxreg×ncxreg row-major
	var origCols [][]float64
	origXreg := true
	if ncxreg > 0 {
		origXreg = ncxreg == 1
		for i := range ncxreg {
			origXreg = origXreg || !mask[narma+i]
		}
		if n <= ncxreg {
			return nil, fmt.Errorf("%d observations for %d regression coefficients", n, ncxreg)
		}
		if !origXreg {
			origCols = cols
			X := mat.NewDense(n, ncxreg, nil)
			for j, c := range cols {
				for i, v := range c {
					X.Set(i, j, v)
				}
			}
			var svd mat.SVD
			if !svd.Factorize(X, mat.SVDThin) {
				return nil, errors.New("svd of xreg failed")
			}
			var V mat.Dense
			svd.VTo(&V)
			sv = make([]float64, ncxreg*ncxreg)
			for i := range ncxreg {
				for j := range ncxreg {
					sv[i*ncxreg+j] = V.At(i, j)
				}
			}
			rot := make([][]float64, ncxreg)
			for j := range ncxreg {
				rot[j] = make([]float64, n)
				for i := range n {
					s := 0.0
					for k := range ncxreg {
						s += cols[k][i] * sv[k*ncxreg+j]
					}
					rot[j][i] = s
				}
			}
			cols = rot
		}
		dx := arimaDiffSeries(x, a)
		dxreg := make([][]float64, ncxreg)
		for j := range cols {
			dxreg[j] = arimaDiffSeries(cols[j], a)
		}
		fit := arimaLMFit{rank: 0}
		if len(dx) > ncxreg {
			fit = arimaLM(dx, dxreg)
		}
		if fit.rank == 0 {
			fit = arimaLM(x, cols)
		}
		if fit.rank < ncxreg {
			return nil, errors.New("regressors are collinear (lm gives NA coefficients)")
		}
		init0 = append(init0, fit.coef...)
		for _, s := range fit.se {
			parscale = append(parscale, 10*s)
		}
	}
	nused := n - len(delta)
	if nused <= 0 {
		return nil, errors.New("too few non-missing observations")
	}
	init := append([]float64(nil), init0...)
	coef := append([]float64(nil), fixed...)
	var ps []float64
	for i, m := range mask {
		if m {
			ps = append(ps, parscale[i])
		}
	}
	for _, v := range ps {
		if math.IsNaN(v) || v == 0 || math.IsInf(v, 0) {
			return nil, errors.New("invalid parscale (regression standard errors are not finite)")
		}
	}
	masked := func(v []float64) []float64 {
		var out []float64
		for i, m := range mask {
			if m {
				out = append(out, v[i])
			}
		}
		return out
	}
	setMasked := func(dst, v []float64) {
		k := 0
		for i, m := range mask {
			if m {
				dst[i] = v[k]
				k++
			}
		}
	}
	// regressTo writes x − xreg·β (β from par) into xr.
	regressTo := func(xr, par []float64) []float64 {
		copy(xr, x)
		if ncxreg > 0 {
			for i := range n {
				s := 0.0
				for j := range ncxreg {
					s += cols[j][i] * par[narma+j]
				}
				xr[i] = x[i] - s
			}
		}
		return xr
	}
	regress := func(par []float64) []float64 { return regressTo(make([]float64, n), par) }
	// newCSS returns R's armaCSS with its own scratch space, so that the
	// optimiser can evaluate it concurrently.
	newCSS := func() func([]float64) float64 {
		phi, theta := make([]float64, a.fullP()), make([]float64, a.fullQ())
		xr, w, res := make([]float64, n), make([]float64, n), make([]float64, n)
		par := make([]float64, len(fixed))
		if ncxreg == 0 {
			// The differenced series does not depend on the parameters.
			arimaCSSDiff(x, a, w)
		}
		return func(p []float64) float64 {
			copy(par, fixed)
			setMasked(par, p)
			arimaTransPars(par, a, false, phi, theta)
			if ncxreg > 0 {
				arimaCSSDiff(regressTo(xr, par), a, w)
			}
			return 0.5 * math.Log(arimaCSSCore(w, phi, theta, ncond, res))
		}
	}

	fit := &arimaStatsFit{arma: a, mask: mask, method: method, xreg: cols, ncond: ncond}
	var res struct {
		par   []float64
		value float64
		code  int
		hess  []float64
	}
	// optimHess is R's optim(…, hessian = TRUE): minimise from start with
	// at most maxit iterations, then the Hessian at the optimum, into res.
	optimHess := func(newFn func() func([]float64) float64, start []float64, maxit int) error {
		o := &arimaOptim{newFn: newFn, parscale: ps}
		p, v, code, err := o.minimize(start, maxit)
		if err != nil {
			return err
		}
		h, err := o.hessian(p)
		if err != nil {
			return err
		}
		res.par, res.value, res.code, res.hess = p, v, code, h
		return nil
	}
	if method == ARIMAMethodCSS {
		if noOptim {
			res.value = newCSS()(nil)
		} else {
			if err := optimHess(newCSS, masked(init), arimaMaxit); err != nil {
				return nil, err
			}
		}
		setMasked(coef, res.par)
		phi := make([]float64, a.fullP())
		theta := make([]float64, a.fullQ())
		arimaTransPars(coef, a, false, phi, theta)
		var w arimaQ0Work
		mod := newArimaSS(phi, theta, delta, arimaKappa, &w)
		y := regress(coef)
		rd := mod.r + mod.d
		mod.like(y, nil, make([]float64, rd), make([]float64, rd), make([]float64, 2*rd))
		resid := make([]float64, n)
		fit.sigma2 = arimaCSS(y, a, phi, theta, ncond, make([]float64, n), resid)
		fit.resid = resid
		fit.model = mod
		if !noOptim {
			k := len(res.par)
			H := make([]float64, k*k)
			for i := range H {
				H[i] = res.hess[i] * float64(nused)
			}
			id := make([]float64, k*k)
			for i := range k {
				id[i*k+i] = 1
			}
			v, err := arimaSolve(H, k, id, k)
			if err != nil {
				return nil, err
			}
			fit.varCoef = v
		}
	} else {
		if method == ARIMAMethodCSSML {
			code := 0
			var p []float64
			if !noOptim {
				o := &arimaOptim{newFn: newCSS, parscale: ps}
				var err error
				p, _, code, err = o.minimize(masked(init), arimaMaxit)
				if err != nil {
					return nil, err
				}
			}
			if code == 0 {
				setMasked(init, p)
			}
			if a.p > 0 && !arimaARCheck(init[:a.p]) {
				return nil, errors.New("non-stationary AR part from CSS")
			}
			if a.sp > 0 && !arimaARCheck(init[a.p+a.q:a.p+a.q+a.sp]) {
				return nil, errors.New("non-stationary seasonal AR part from CSS")
			}
			ncond = 0
			fit.ncond = 0
		}
		if transform {
			init = arimaInvtrans(init, a)
			if a.q > 0 {
				copy(init[a.p:a.p+a.q], arimaMAInvert(init[a.p:a.p+a.q]))
			}
			if a.sq > 0 {
				o := a.p + a.q + a.sp
				copy(init[o:o+a.sq], arimaMAInvert(init[o:o+a.sq]))
			}
		}
		phi := make([]float64, a.fullP())
		theta := make([]float64, a.fullQ())
		arimaTransPars(init, a, transform, phi, theta)
		var w arimaQ0Work
		mod := newArimaSS(phi, theta, delta, arimaKappa, &w)
		rd := mod.r + mod.d
		// armafn works on a copy of the model whose ARMA block of Pn is
		// recomputed for every parameter vector (R's upARIMA); the
		// diffuse block and the zero cross terms come from mod. newML
		// returns it with its own scratch space.
		newML := func() func([]float64) float64 {
			phi, theta := make([]float64, a.fullP()), make([]float64, a.fullQ())
			xr, par := make([]float64, n), make([]float64, len(fixed))
			anew, M, mm := make([]float64, rd), make([]float64, rd), make([]float64, 2*rd)
			var w arimaQ0Work
			work := &arimaSS{phi: phi, theta: theta, delta: delta, r: mod.r, d: mod.d,
				a: make([]float64, rd), P: make([]float64, rd*rd), Pn: make([]float64, rd*rd)}
			return func(p []float64) float64 {
				copy(par, fixed)
				setMasked(par, p)
				arimaTransPars(par, a, transform, phi, theta)
				copy(work.Pn, mod.Pn)
				work.setQ0(&w)
				clear(work.a)
				y := regressTo(xr, par)
				lr := work.like(y, nil, anew, M, mm)
				s2 := lr.ssq / float64(lr.nu)
				return 0.5 * (math.Log(s2) + lr.sumlog/float64(lr.nu))
			}
		}
		if noOptim {
			res.value = newML()(nil)
		} else {
			if err := optimHess(newML, masked(init), arimaMaxit); err != nil {
				return nil, err
			}
		}
		setMasked(coef, res.par)
		var varCoef []float64
		k := len(res.par)
		if transform {
			allMasked := func(off, m int) bool {
				for i := off; i < off+m; i++ {
					if !mask[i] {
						return false
					}
				}
				return true
			}
			if a.q > 0 && allMasked(a.p, a.q) {
				copy(coef[a.p:a.p+a.q], arimaMAInvert(coef[a.p:a.p+a.q]))
			}
			if o := a.p + a.q + a.sp; a.sq > 0 && allMasked(o, a.sq) {
				copy(coef[o:o+a.sq], arimaMAInvert(coef[o:o+a.sq]))
			}
			changed := false
			for i, v := range masked(coef) {
				if v != res.par[i] {
					changed = true
				}
			}
			if changed {
				code := res.code // R keeps the first run's convergence code
				if err := optimHess(newML, masked(coef), 0); err != nil {
					return nil, err
				}
				res.code = code
				setMasked(coef, res.par)
			}
			full := arimaGradtrans(coef, a)
			nc := len(coef)
			A := make([]float64, k*k) // A[mask, mask], row-major
			ri := 0
			for i := range nc {
				if !mask[i] {
					continue
				}
				ci := 0
				for j := range nc {
					if !mask[j] {
						continue
					}
					A[ri*k+ci] = full[i+nc*j]
					ci++
				}
				ri++
			}
			H := make([]float64, k*k)
			for i := range H {
				H[i] = res.hess[i] * float64(nused)
			}
			sol, err := arimaSolve(H, k, A, k)
			if err != nil {
				return nil, err
			}
			varCoef = make([]float64, k*k)
			for i := range k {
				for j := range k {
					s := 0.0
					for l := range k {
						s += A[l*k+i] * sol[l*k+j]
					}
					varCoef[i*k+j] = s
				}
			}
			coef = arimaUndoPars(coef, a)
		} else if !noOptim {
			H := make([]float64, k*k)
			for i := range H {
				H[i] = res.hess[i] * float64(nused)
			}
			id := make([]float64, k*k)
			for i := range k {
				id[i*k+i] = 1
			}
			v, err := arimaSolve(H, k, id, k)
			if err != nil {
				return nil, err
			}
			varCoef = v
		}
		fit.varCoef = varCoef
		phi = make([]float64, a.fullP())
		theta = make([]float64, a.fullQ())
		arimaTransPars(coef, a, false, phi, theta)
		mod = newArimaSS(phi, theta, delta, arimaKappa, &w)
		y := regress(coef)
		resid := make([]float64, n)
		lr := mod.like(y, resid, make([]float64, rd), make([]float64, rd), make([]float64, 2*rd))
		fit.sigma2 = lr.ssq / float64(nused)
		fit.resid = resid
		fit.model = mod
	}
	value := 2*float64(nused)*res.value + float64(nused) + float64(nused)*math.Log(2*math.Pi)
	fit.loglik = -0.5 * value
	fit.aic = math.NaN()
	if method != ARIMAMethodCSS {
		fit.aic = value + 2*float64(nfree) + 2
	}
	if ncxreg > 0 && !origXreg {
		b := make([]float64, ncxreg)
		for i := range ncxreg {
			s := 0.0
			for j := range ncxreg {
				s += sv[i*ncxreg+j] * coef[narma+j]
			}
			b[i] = s
		}
		copy(coef[narma:], b)
		if fit.varCoef != nil {
			// var = A var Aᵀ with A = diag(1…, V) restricted to the mask.
			nc := len(coef)
			full := make([]float64, nc*nc)
			for i := range narma {
				full[i*nc+i] = 1
			}
			for i := range ncxreg {
				for j := range ncxreg {
					full[(narma+i)*nc+narma+j] = sv[i*ncxreg+j]
				}
			}
			k := nfree
			A := make([]float64, 0, k*k)
			for i := range nc {
				for j := range nc {
					if mask[i] && mask[j] {
						A = append(A, full[i*nc+j])
					}
				}
			}
			fit.varCoef = arimaSandwich(A, fit.varCoef, k)
		}
		fit.xreg = origCols
	}
	fit.coef = coef
	fit.code = res.code
	fit.nused = nused
	var names []string
	for i := range a.p {
		names = append(names, fmt.Sprintf("ar%d", i+1))
	}
	for i := range a.q {
		names = append(names, fmt.Sprintf("ma%d", i+1))
	}
	for i := range a.sp {
		names = append(names, fmt.Sprintf("sar%d", i+1))
	}
	for i := range a.sq {
		names = append(names, fmt.Sprintf("sma%d", i+1))
	}
	fit.names = append(names, cn...)
	return fit, nil
}

// arimaSandwich returns A V Aᵀ (all k×k row-major).
func arimaSandwich(A, V []float64, k int) []float64 {
	AV := make([]float64, k*k)
	for i := range k {
		for j := range k {
			s := 0.0
			for l := range k {
				s += A[i*k+l] * V[l*k+j]
			}
			AV[i*k+j] = s
		}
	}
	out := make([]float64, k*k)
	for i := range k {
		for j := range k {
			s := 0.0
			for l := range k {
				s += AV[i*k+l] * A[j*k+l]
			}
			out[i*k+j] = s
		}
	}
	return out
}

// arimaDiffSeries applies the model's differences as R's diff: d lag-1
// differences, then D lag-period differences (when period > 1).
func arimaDiffSeries(x []float64, a arimaArma) []float64 {
	out := append([]float64(nil), x...)
	for range a.d {
		out = arimaDiff(out, 1)
	}
	if a.period > 1 {
		for range a.sd {
			out = arimaDiff(out, a.period)
		}
	}
	return out
}

// arimaDiff is R's diff(x, lag).
func arimaDiff(x []float64, lag int) []float64 {
	if len(x) <= lag {
		return nil
	}
	out := make([]float64, len(x)-lag)
	for i := range out {
		out[i] = x[i+lag] - x[i]
	}
	return out
}
