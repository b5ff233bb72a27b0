package forecast

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// ARIMAIC is the information criterion auto-ARIMA minimises.
type ARIMAIC int

const (
	// ARIMAAICc is the corrected AIC, R's default.
	ARIMAAICc ARIMAIC = iota
	// ARIMAAIC is Akaike's criterion.
	ARIMAAIC
	// ARIMABIC is the Bayesian (Schwarz) criterion.
	ARIMABIC
)

// ARIMAApprox says when auto-ARIMA compares models by their conditional
// sums of squares instead of their exact likelihoods.
type ARIMAApprox int

const (
	// ARIMAApproxAuto is R's default: approximate when the series has
	// more than 150 observations or a period above 12.
	ARIMAApproxAuto ARIMAApprox = iota
	// ARIMAApproxAlways always approximates.
	ARIMAApproxAlways
	// ARIMAApproxNever always uses the exact likelihood.
	ARIMAApproxNever
)

// AutoARIMAOptions are the arguments of R's auto.arima(). Start from
// DefaultAutoARIMAOptions(); the zero AutoARIMAOptions is read as the
// defaults.
type AutoARIMAOptions struct {
	// D and SeasonalD fix the numbers of differences; negative means
	// "choose" (R's NA): d by NDiffs (KPSS), D by NSDiffs (seasonal
	// strength).
	D, SeasonalD int
	// MaxP, MaxQ, MaxSP, MaxSQ bound the orders (R: 5, 5, 2, 2); MaxOrder
	// bounds p+q+P+Q in the exhaustive search (R: 5; the stepwise search
	// does not use it, as in R); MaxD and MaxSD bound the differences (2
	// and 1).
	MaxP, MaxQ, MaxSP, MaxSQ, MaxOrder, MaxD, MaxSD int
	// StartP, StartQ, StartSP, StartSQ are the stepwise search's first
	// model (R: 2, 2, 1, 1).
	StartP, StartQ, StartSP, StartSQ int
	// Stationary restricts the search to d = D = 0.
	Stationary bool
	// NonSeasonal ignores the period (R's seasonal = FALSE).
	NonSeasonal bool
	// IC is the criterion minimised (default AICc).
	IC ARIMAIC
	// Exhaustive fits every model within the bounds instead of the
	// stepwise search (R's stepwise = FALSE).
	Exhaustive bool
	// Approximation chooses CSS comparisons (default R's rule).
	Approximation ARIMAApprox
	// NoDrift and NoMean forbid the drift and the mean (R's allowdrift =
	// FALSE, allowmean = FALSE).
	NoDrift, NoMean bool
	// NModels bounds the stepwise search's number of fits (R: 94).
	NModels int
	// MaxSeasonalPeriod is the longest period for which seasonal AR and
	// MA terms are considered (default 24; 0 for no limit, as R). Longer
	// periods keep their seasonal differencing but get no seasonal ARMA
	// terms: R would try them, but the state of a seasonal ARMA model has
	// period·(P+1)+p dimensions, and one fit at period 52 takes tens of
	// seconds (R: longer). MODELLING §2.7 covers long seasons with
	// STL-ARIMA and Fourier regressors instead.
	MaxSeasonalPeriod int
}

// DefaultAutoARIMAOptions returns R's auto.arima() defaults.
func DefaultAutoARIMAOptions() AutoARIMAOptions {
	return AutoARIMAOptions{
		D: -1, SeasonalD: -1,
		MaxP: 5, MaxQ: 5, MaxSP: 2, MaxSQ: 2, MaxOrder: 5, MaxD: 2, MaxSD: 1,
		StartP: 2, StartQ: 2, StartSP: 1, StartSQ: 1,
		NModels: 94, MaxSeasonalPeriod: 24,
	}
}

// AutoARIMA selects and fits a regression with (seasonal) ARIMA errors as
// R's forecast::auto.arima(y, xreg = xreg) on a series of frequency
// period, with its defaults (or opt):
//
//   - a constant series gets the fixed model "mean of y" (its forecast is
//     y[0] with zero variance, as R's);
//   - with regressors, the orders of differencing are chosen on the
//     residuals of the least-squares regression of y on them (constant
//     columns dropped; rank-deficient regressors are an error);
//   - D (period ≥ 2 and n > 2·period) by NSDiffs, then d by NDiffs on the
//     seasonally differenced series, each reduced when it leaves a
//     regressor constant;
//   - a constant differenced series gets R's fixed random-walk-like
//     models;
//   - otherwise the Hyndman–Khandakar stepwise search over p ≤ 5, q ≤ 5,
//     P ≤ 2, Q ≤ 2 (each ≤ n/3, P and Q ≤ n/(3·period), p and q < period
//     when seasonal terms are allowed), with a mean when d + D = 0 and a
//     drift when d + D = 1, minimising AICc; models with an AR or MA root
//     of modulus below 1.01 or a non-positive coefficient variance are
//     rejected, as R does.
//
// With more than 150 observations or a period above 12, the search
// compares models by their CSS fits (with R's likelihood offset) and the
// best is refitted by maximum likelihood, falling back to the next best
// when the refit fails, as in R. Seasonal terms need ≥ 3 full cycles
// (R's bound P, Q ≤ n/(3·period)) and seasonal differencing > 2 cycles.
//
// Where it deliberately differs from R: series of fewer than 3
// observations are skipped (R fits their mean); periods above
// opt.MaxSeasonalPeriod (default 24) get no seasonal AR or MA terms (see
// AutoARIMAOptions); seasonal models whose ARMA state exceeds 60
// dimensions use the exact initial covariance instead of Gardner's (see
// arimaGardnerMaxR in arima_kalman.go). Where R's choice hangs on the
// sign of a numerically ill-conditioned Hessian (a refit R rejects for a
// negative variance), the two can choose differently.
//
// Errors: NaN or Inf input; R's "No suitable ARIMA model found" and
// other failures as errors; a series too short to fit or to difference
// as *SkipError.
func AutoARIMA(y []float64, period int, xreg [][]float64, opt AutoARIMAOptions) (*ARIMAModel, error) {
	if opt == (AutoARIMAOptions{}) {
		opt = DefaultAutoARIMAOptions()
	}
	if err := arimaCheckInput(y, xreg); err != nil {
		return nil, err
	}
	if period < 1 {
		period = 1
	}
	s := &autoARIMA{x: y, xreg: xreg, freq: period, opt: opt, ic: opt.IC}
	return s.run()
}

// arimaMinObs is the shortest series AutoARIMA fits. R's auto.arima also
// fits one or two points (a mean); that is no time-series model, and the
// contest has better baselines for it.
const arimaMinObs = 3

type autoARIMA struct {
	x      []float64
	xreg   [][]float64
	freq   int
	opt    AutoARIMAOptions
	ic     ARIMAIC
	offset float64
}

// autoFit is one candidate: the model (nil when the fit failed) and its
// criterion (+Inf when failed or rejected).
type autoFit struct {
	m  *ARIMAModel
	ic float64
}

type autoRow struct {
	p, d, q, sp, sd, sq int
	constant            bool
	ic                  float64
}

func (s *autoARIMA) run() (*ARIMAModel, error) {
	x, opt := s.x, s.opt
	n := len(x)
	serieslength := n
	allowmean, allowdrift := !opt.NoMean, !opt.NoDrift
	if n < arimaMinObs {
		return nil, skip("ARIMA", "%d observations; auto-ARIMA needs at least %d", n, arimaMinObs)
	}
	if arimaIsConstant(x) {
		mean := 0.0
		for _, v := range x {
			mean += v
		}
		mean /= float64(n)
		var m *ARIMAModel
		var err error
		if allowmean {
			m, err = arimaFitSpec(x, ARIMASpec{Period: 1, IncludeMean: true}, nil, []float64{mean}, ARIMAMethodCSSML)
		} else {
			m, err = arimaFitSpec(x, ARIMASpec{Period: 1}, nil, nil, ARIMAMethodCSSML)
		}
		if err != nil {
			return nil, fmt.Errorf("forecast: AutoARIMA: %w", err)
		}
		m.constant = true
		m.Period = s.freq
		m.arma.period = s.freq
		m.spec.Period = s.freq
		return m, nil
	}
	m := 1
	if !opt.NonSeasonal {
		m = s.freq
	}
	maxP := min(opt.MaxP, serieslength/3)
	maxQ := min(opt.MaxQ, serieslength/3)
	maxSP := min(opt.MaxSP, int(math.Floor(float64(serieslength)/3/float64(m))))
	maxSQ := min(opt.MaxSQ, int(math.Floor(float64(serieslength)/3/float64(m))))
	if opt.MaxSeasonalPeriod > 0 && m > opt.MaxSeasonalPeriod {
		maxSP, maxSQ = 0, 0
	}
	if serieslength <= 3 {
		s.ic = ARIMAAIC
	}
	// Regressors: differencing is chosen on the regression residuals.
	xx := x
	var xregg [][]float64
	if len(s.xreg) > 0 {
		for _, c := range s.xreg {
			if !arimaIsConstant(c) {
				xregg = append(xregg, c)
			}
		}
		if len(xregg) > 0 {
			if arimaRankDeficient(xregg) {
				return nil, errors.New("forecast: AutoARIMA: xreg is rank deficient")
			}
			ones := make([]float64, n)
			for i := range ones {
				ones[i] = 1
			}
			fit := arimaLM(x, append([][]float64{ones}, xregg...))
			if fit.coef == nil {
				return nil, errors.New("forecast: AutoARIMA: xreg is rank deficient")
			}
			xx = fit.resid
		}
	}
	d, D := opt.D, opt.SeasonalD
	if opt.Stationary {
		d, D = 0, 0
	}
	if m == 1 {
		D, maxSP, maxSQ = 0, 0, 0
	} else if D < 0 && len(xx) <= 2*m {
		D = 0
	} else if D < 0 {
		var err error
		D, err = NSDiffs(xx, m, opt.MaxSD)
		if err != nil {
			return nil, err
		}
		if D > 0 && xregg != nil {
			for _, c := range xregg {
				if arimaIsConstant(arimaDiffN(c, m, D)) {
					D--
					break
				}
			}
		}
		if D > 0 && len(xx) <= m*D {
			D--
		}
	}
	dx := xx
	if D > 0 {
		dx = arimaDiffN(xx, m, D)
	}
	var diffxreg [][]float64
	for _, c := range xregg {
		if D > 0 {
			c = arimaDiffN(c, m, D)
		}
		diffxreg = append(diffxreg, c)
	}
	if d < 0 {
		d = NDiffs(dx, opt.MaxD)
		if d > 0 && xregg != nil {
			for _, c := range diffxreg {
				if arimaIsConstant(arimaDiffN(c, 1, d)) {
					d--
					break
				}
			}
		}
		if d > 0 && len(dx) <= d {
			d--
		}
	}
	if d > 0 {
		dx = arimaDiffN(dx, 1, d)
	}
	if len(dx) == 0 {
		return nil, skip("ARIMA", "not enough data to proceed (%d observations, %d differences)", n, d+D*m)
	}
	if arimaIsConstant(dx) {
		return s.constantDiffFit(dx, d, D, m)
	}
	if m > 1 {
		if maxSP > 0 {
			maxP = min(maxP, m-1)
		}
		if maxSQ > 0 {
			maxQ = min(maxQ, m-1)
		}
	}
	approx := opt.Approximation == ARIMAApproxAlways ||
		opt.Approximation == ARIMAApproxAuto && (n > 150 || s.freq > 12)
	if approx {
		a := arimaArma{period: s.freq, d: d, sd: D}
		fit, err := arimaStats(x, a, s.xreg, arimaXregNames(len(s.xreg)), true, nil, ARIMAMethodCSSML)
		if err == nil {
			s.offset = -2*fit.loglik - float64(serieslength)*math.Log(fit.sigma2)
		}
	}
	allowdrift = allowdrift && d+D == 1
	allowmean = allowmean && d+D == 0
	constant := allowdrift || allowmean

	if opt.Exhaustive {
		return s.exhaustive(d, D, m, maxP, maxQ, maxSP, maxSQ, constant, approx)
	}

	startP, startQ, startSP, startSQ := opt.StartP, opt.StartQ, opt.StartSP, opt.StartSQ
	if n < 10 {
		startP = min(startP, 1)
		startQ = min(startQ, 1)
		startSP, startSQ = 0, 0
	}
	p := min(startP, maxP)
	q := min(startQ, maxQ)
	P := min(startSP, maxSP)
	Q := min(startSQ, maxSQ)
	nmodels := opt.NModels
	var results []autoRow
	add := func(p, q, P, Q int, c bool, f autoFit) {
		results = append(results, autoRow{p, d, q, P, D, Q, c, f.ic})
	}
	fitOf := func(p, q, P, Q int, c bool) autoFit {
		return s.myarima(p, d, q, P, D, Q, c, approx)
	}
	b2i := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	bestfit := fitOf(p, q, P, Q, constant)
	add(p, q, P, Q, constant, bestfit)
	fit := fitOf(0, 0, 0, 0, constant)
	add(0, 0, 0, 0, constant, fit)
	if fit.ic < bestfit.ic {
		bestfit = fit
		p, q, P, Q = 0, 0, 0, 0
	}
	if maxP > 0 || maxSP > 0 {
		pp, PP := b2i(maxP > 0), b2i(m > 1 && maxSP > 0)
		fit = fitOf(pp, 0, PP, 0, constant)
		add(pp, 0, PP, 0, constant, fit)
		if fit.ic < bestfit.ic {
			bestfit = fit
			p, P, q, Q = pp, PP, 0, 0
		}
	}
	if maxQ > 0 || maxSQ > 0 {
		qq, QQ := b2i(maxQ > 0), b2i(m > 1 && maxSQ > 0)
		fit = fitOf(0, qq, 0, QQ, constant)
		add(0, qq, 0, QQ, constant, fit)
		if fit.ic < bestfit.ic {
			bestfit = fit
			p, P, Q, q = 0, 0, QQ, qq
		}
	}
	if constant {
		fit = fitOf(0, 0, 0, 0, false)
		add(0, 0, 0, 0, false, fit)
		if fit.ic < bestfit.ic {
			bestfit = fit
			p, q, P, Q = 0, 0, 0, 0
		}
	}
	newmodel := func(p, q, P, Q int, c bool) bool {
		for _, r := range results {
			if r.p == p && r.d == d && r.q == q && r.sp == P && r.sd == D && r.sq == Q && r.constant == c {
				return false
			}
		}
		return true
	}
	k := len(results)
	startk := 0
	// try fits (p', q', P', Q', c) when allowed and new; it reports
	// whether the search moved (R's `next`) and whether k overflowed.
	try := func(np, nq, nP, nQ int, c bool) (moved, stop bool) {
		if !newmodel(np, nq, nP, nQ, c) {
			return false, false
		}
		k++
		if k > nmodels {
			return false, true
		}
		f := fitOf(np, nq, nP, nQ, c)
		add(np, nq, nP, nQ, c, f)
		if f.ic < bestfit.ic {
			bestfit = f
			p, q, P, Q = np, nq, nP, nQ
			return true, false
		}
		return false, false
	}
	for startk < k && k < nmodels {
		startk = k
		steps := []struct {
			ok         bool
			p, q, P, Q int
		}{
			{P > 0, p, q, P - 1, Q},
			{Q > 0, p, q, P, Q - 1},
			{P < maxSP, p, q, P + 1, Q},
			{Q < maxSQ, p, q, P, Q + 1},
			{Q > 0 && P > 0, p, q, P - 1, Q - 1},
			{Q < maxSQ && P > 0, p, q, P - 1, Q + 1},
			{Q > 0 && P < maxSP, p, q, P + 1, Q - 1},
			{Q < maxSQ && P < maxSP, p, q, P + 1, Q + 1},
			{p > 0, p - 1, q, P, Q},
			{q > 0, p, q - 1, P, Q},
			{p < maxP, p + 1, q, P, Q},
			{q < maxQ, p, q + 1, P, Q},
			{q > 0 && p > 0, p - 1, q - 1, P, Q},
			{q < maxQ && p > 0, p - 1, q + 1, P, Q},
			{q > 0 && p < maxP, p + 1, q - 1, P, Q},
			{q < maxQ && p < maxP, p + 1, q + 1, P, Q},
		}
		moved := false
		for _, st := range steps {
			if !st.ok {
				continue
			}
			mv, stop := try(st.p, st.q, st.P, st.Q, constant)
			if stop || mv {
				moved = true
				break
			}
		}
		if moved {
			continue
		}
		if allowdrift || allowmean {
			if newmodel(p, q, P, Q, !constant) {
				k++
				if k > nmodels {
					continue
				}
				f := fitOf(p, q, P, Q, !constant)
				add(p, q, P, Q, !constant, f)
				if f.ic < bestfit.ic {
					bestfit = f
					constant = !constant
				}
			}
		}
	}
	if approx && bestfit.m != nil {
		order := make([]int, len(results))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int {
			return cmpIC(results[a].ic, results[b].ic)
		})
		for _, i := range order {
			r := results[i]
			f := s.myarima(r.p, d, r.q, r.sp, D, r.sq, r.constant, false)
			if f.ic < math.Inf(1) {
				bestfit = f
				break
			}
		}
	}
	if bestfit.m == nil || math.IsInf(bestfit.ic, 1) {
		return nil, errors.New("forecast: AutoARIMA: no suitable ARIMA model found")
	}
	return bestfit.m, nil
}

func cmpIC(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// exhaustive is R's search.arima: every model with p+q+P+Q ≤ MaxOrder,
// with and without the constant when allowed, then (with approximation)
// the best refitted by maximum likelihood, the search repeated without
// approximation when that refit fails.
func (s *autoARIMA) exhaustive(d, D, m, maxP, maxQ, maxSP, maxSQ int, constant, approx bool) (*ARIMAModel, error) {
	maxK := 0
	if constant {
		maxK = 1
	}
	var best autoFit
	best.ic = math.Inf(1)
	bestConst := false
	for i := 0; i <= maxP; i++ {
		for j := 0; j <= maxQ; j++ {
			for I := 0; I <= maxSP; I++ {
				for J := 0; J <= maxSQ; J++ {
					if i+j+I+J > s.opt.MaxOrder {
						continue
					}
					for K := 0; K <= maxK; K++ {
						f := s.myarima(i, d, j, I, D, J, K == 1, approx)
						if f.ic < best.ic {
							best = f
							bestConst = K == 1
						}
					}
				}
			}
		}
	}
	if best.m == nil {
		return nil, errors.New("forecast: AutoARIMA: no ARIMA model able to be estimated")
	}
	if approx {
		b := best.m
		f := s.myarima(b.P, d, b.Q, b.SeasonalP, D, b.SeasonalQ, bestConst, false)
		if math.IsInf(f.ic, 1) {
			return s.exhaustive(d, D, m, maxP, maxQ, maxSP, maxSQ, constant, false)
		}
		best = f
	}
	return best.m, nil
}

// myarima is forecast's myarima: one candidate fit by stats::arima (CSS
// when approx, else CSS-ML), with drift as a regressor when the model has
// one difference and a constant, scored by the chosen criterion (for CSS
// from the conditional variance and the offset), and rejected (+Inf) when
// the fit fails, an AR or MA root has modulus below 1.01, or a
// coefficient variance is negative.
func (s *autoARIMA) myarima(p, d, q, P, D, Q int, constant, approx bool) autoFit {
	x := s.x
	n := len(x)
	// R's myarima takes the period from the series' frequency.
	a := arimaArma{p: p, q: q, sp: P, sq: Q, period: s.freq, d: d, sd: D}
	method := ARIMAMethodCSSML
	if approx {
		method = ARIMAMethodCSS
	}
	diffs := d + D
	var cols [][]float64
	var names []string
	includeMean := constant
	if diffs == 1 && constant {
		drift := make([]float64, n)
		for i := range drift {
			drift[i] = float64(i + 1)
		}
		cols = append(cols, drift)
		names = append(names, "drift")
		includeMean = true
	}
	cols = append(cols, s.xreg...)
	names = append(names, arimaXregNames(len(s.xreg))...)
	fit, err := arimaStats(x, a, cols, names, includeMean, nil, method)
	if err != nil {
		return autoFit{ic: math.Inf(1)}
	}
	nstar := float64(n - d - D*s.freq)
	nfree := 0
	for _, mk := range fit.mask {
		if mk {
			nfree++
		}
	}
	npar := float64(nfree + 1)
	aic := fit.aic
	if method == ARIMAMethodCSS {
		aic = s.offset + nstar*math.Log(fit.sigma2) + 2*npar
	}
	ic := math.Inf(1)
	if !math.IsNaN(aic) {
		bic := aic + npar*(math.Log(nstar)-2)
		aicc := aic + 2*npar*(npar+1)/(nstar-npar-1)
		switch s.ic {
		case ARIMABIC:
			ic = bic
		case ARIMAAIC:
			ic = aic
		default:
			ic = aicc
		}
		if math.IsNaN(ic) {
			ic = math.Inf(1)
		}
	}
	spec := ARIMASpec{P: p, D: d, Q: q, SeasonalP: P, SeasonalD: D, SeasonalQ: Q, Period: a.period,
		IncludeMean: includeMean, IncludeDrift: diffs == 1 && constant}
	model := arimaModelFrom(x, spec, len(s.xreg), fit)
	model.opt = ARIMAOptions{Method: ARIMAMethodCSSML}
	if method == ARIMAMethodCSS {
		// R's myarima overwrites the CSS fit's aic; Arima's fields follow.
		model.AIC = aic
		model.AICc = aic + 2*npar*(npar+1)/(nstar-npar-1)
		model.BIC = aic + npar*(math.Log(nstar)-2)
		model.opt.Method = ARIMAMethodCSS
	}
	minroot := 2.0
	if p+P > 0 {
		if r, ok := arimaRootCheck(fit.model.phi, -1); !ok {
			ic = math.Inf(1)
		} else {
			minroot = min(minroot, r)
		}
	}
	if q+Q > 0 && ic < math.Inf(1) {
		if r, ok := arimaRootCheck(fit.model.theta, 1); !ok {
			ic = math.Inf(1)
		} else {
			minroot = min(minroot, r)
		}
	}
	if minroot < 1+0.01 || arimaVarNegative(fit.varCoef, nfree) {
		ic = math.Inf(1)
	}
	return autoFit{m: model, ic: ic}
}

// arimaRootCheck is myarima's root test of a full AR (sign −1: 1 − Σφz^i)
// or MA (sign +1: 1 + Σθz^i) polynomial, trailing coefficients below 1e-8
// in absolute value dropped: the smallest root modulus (2 when there is
// no root).
func arimaRootCheck(coef []float64, sign float64) (float64, bool) {
	last := 0
	for i, v := range coef {
		if math.Abs(v) > 1e-8 {
			last = i + 1
		}
	}
	if last == 0 {
		return 2, true
	}
	c := make([]float64, last+1)
	c[0] = 1
	for i := range last {
		c[i+1] = sign * coef[i]
	}
	r, err := arimaMinRootMod(c)
	if err != nil {
		return 0, false
	}
	return r, true
}

// arimaVarNegative is forecast's checkarima: whether a diagonal element of
// the coefficient covariance is negative (or NaN).
func arimaVarNegative(v []float64, k int) bool {
	for i := range k {
		if x := v[i*k+i]; x < 0 || math.IsNaN(x) {
			return true
		}
	}
	return false
}

// constantDiffFit is auto.arima's answer to a series that differencing
// makes constant: (0,d,0)(0,D,0) models with the drift fixed at the
// constant's mean, or without, as R chooses.
func (s *autoARIMA) constantDiffFit(dx []float64, d, D, m int) (*ARIMAModel, error) {
	mean := func(scale float64) float64 {
		t := 0.0
		for _, v := range dx {
			t += v / scale
		}
		return t / float64(len(dx))
	}
	spec := ARIMASpec{D: d, Period: s.freq}
	if D > 0 {
		spec.SeasonalD, spec.Period = D, m
	}
	var fixed []float64
	if len(s.xreg) == 0 {
		switch {
		case D > 0 && d == 0:
			spec.IncludeMean, spec.IncludeDrift = true, D == 1
			fixed = []float64{mean(float64(m))}
		case D > 0 && d > 0:
		case d == 2:
		case d < 2:
			spec.IncludeMean, spec.IncludeDrift = true, d == 1
			fixed = []float64{mean(1)}
		default:
			return nil, errors.New("forecast: AutoARIMA: data follow a simple polynomial and are not suitable for ARIMA modelling")
		}
	} else {
		spec.IncludeMean = true
	}
	spec = spec.normalize()
	if fixed != nil && !spec.IncludeDrift && !(spec.IncludeMean && spec.D+spec.SeasonalD == 0) {
		fixed = nil
	}
	mdl, err := arimaFitSpec(s.x, spec, s.xreg, fixed, ARIMAMethodCSSML)
	if err != nil {
		return nil, fmt.Errorf("forecast: AutoARIMA: %w", err)
	}
	return mdl, nil
}

// arimaDiffN is R's diff(x, lag, differences).
func arimaDiffN(x []float64, lag, differences int) []float64 {
	for range differences {
		x = arimaDiff(x, lag)
	}
	return x
}

// arimaRankDeficient is auto.arima's test of cbind(1, xreg): the smallest
// singular value below machine epsilon times their sum.
func arimaRankDeficient(cols [][]float64) bool {
	n := len(cols[0])
	k := len(cols) + 1
	X := mat.NewDense(n, k, nil)
	for i := range n {
		X.Set(i, 0, 1)
		for j, c := range cols {
			X.Set(i, j+1, c[i])
		}
	}
	var svd mat.SVD
	if !svd.Factorize(X, mat.SVDNone) {
		return true
	}
	sv := svd.Values(nil)
	sum := 0.0
	for _, v := range sv {
		sum += v
	}
	minv := sv[len(sv)-1]
	if n < k {
		minv = 0
	}
	return minv/sum < 2.220446049250313e-16
}
