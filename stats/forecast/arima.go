package forecast

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// ARIMAMethod is the estimation method of ARIMA, as R's arima(method=).
type ARIMAMethod int

const (
	// ARIMAMethodCSSML (R's default "CSS-ML") minimises the conditional
	// sum of squares for starting values, then maximises the exact
	// Gaussian likelihood.
	ARIMAMethodCSSML ARIMAMethod = iota
	// ARIMAMethodML maximises the exact likelihood from zero starting
	// values (R's "ML").
	ARIMAMethodML
	// ARIMAMethodCSS minimises the conditional sum of squares only (R's
	// "CSS"); the fit then has no likelihood, so LogLik, AIC, AICc and BIC
	// are NaN.
	ARIMAMethodCSS
)

func (m ARIMAMethod) String() string {
	switch m {
	case ARIMAMethodML:
		return "ML"
	case ARIMAMethodCSS:
		return "CSS"
	}
	return "CSS-ML"
}

// ARIMASpec is the order of a (seasonal) ARIMA model and its deterministic
// terms, as the arguments of R's forecast::Arima(y, order = c(P, D, Q),
// seasonal = c(SeasonalP, SeasonalD, SeasonalQ), include.mean =
// IncludeMean, include.drift = IncludeDrift) on a series of frequency
// Period.
//
// R's include.mean defaults to TRUE, Go's zero value to false: set
// IncludeMean for R's default. As in R, the mean is only estimated when
// the model has no differencing, and drift only with exactly one
// difference in all (it is dropped, as R drops it with a warning, when
// D + SeasonalD > 1). A Period of 1 or less makes the model non-seasonal
// (R ignores the seasonal order of a series of frequency 1).
type ARIMASpec struct {
	P, D, Q                         int
	SeasonalP, SeasonalD, SeasonalQ int
	Period                          int
	IncludeMean                     bool
	IncludeDrift                    bool
}

// ARIMAOptions tunes ARIMA. The zero value is R's default.
type ARIMAOptions struct {
	// Method is the estimation method (default CSS-ML).
	Method ARIMAMethod
}

// ARIMAModel is a fitted regression with (seasonal) ARIMA errors,
//
//	y_t = β·x_t + e_t,  φ(B) Φ(B^m) (1−B)^d (1−B^m)^D e_t = θ(B) Θ(B^m) ε_t,
//
// where x_t holds the intercept (when the model has no differencing and a
// mean), the drift t = 1…n (with one difference) and the exogenous
// regressors, and ε_t is Gaussian white noise of variance Sigma2. It is
// what R's forecast::Arima and auto.arima return, and it implements
// Model. (AutoARIMA's model of a constant series is R's: the mean fixed
// at the constant, Sigma2 0, LogLik +Inf, and forecasts equal to the
// constant with zero-width intervals.)
type ARIMAModel struct {
	// P, D, Q, SeasonalP, SeasonalD, SeasonalQ and Period are the orders
	// (R's arimaorder). Period is the series' frequency, also for
	// non-seasonal models, as R's arma[5].
	P, D, Q                         int
	SeasonalP, SeasonalD, SeasonalQ int
	Period                          int

	// AR, MA, SAR and SMA are the coefficients of φ, θ, Φ and Θ, with R's
	// signs: φ(B) = 1 − AR₁B − …, θ(B) = 1 + MA₁B + ….
	AR, MA, SAR, SMA []float64
	// Intercept is the mean of a model without differencing (when
	// HasIntercept); Drift the slope per observation of a model with one
	// difference (when HasDrift).
	Intercept, Drift       float64
	HasIntercept, HasDrift bool
	// Xreg are the coefficients of the exogenous regressors, in the
	// order of the columns given to the fit.
	Xreg []float64

	// Coef and CoefNames are R's coef(fit): ar1…, ma1…, sar1…, sma1…,
	// intercept or drift, then xreg (one column) or xreg1, xreg2, ….
	Coef      []float64
	CoefNames []string
	// CoefCov is R's vcov(fit), the covariance of the estimated
	// coefficients (all of Coef unless some were fixed), from the inverse
	// Hessian of the likelihood, CovNames their names. Nil when nothing
	// was estimated.
	CoefCov  [][]float64
	CovNames []string

	// Sigma2 is the innovation variance as forecast::Arima reports it:
	// the sum of squared residuals over n − d − D·m − k + 1, k the number
	// of estimated coefficients plus one (stats::arima's own estimate
	// divides by the number of observations used instead).
	Sigma2 float64
	// LogLik, AIC, AICc and BIC are the Gaussian log-likelihood and the
	// information criteria as forecast::Arima computes them (AICc and BIC
	// with the number of observations after differencing). NaN for CSS.
	LogLik, AIC, AICc, BIC float64
	// NObs is the number of observations used, n − d − D·m.
	NObs int
	// Fitted and Residuals are the one-step in-sample predictions and the
	// residuals (R's fitted(fit) and residuals(fit)), len n: the Kalman
	// filter's innovations standardized by their prediction variance in
	// units of Sigma2 (tiny for the first d + D·m observations, whose
	// prior is diffuse), or for a CSS fit the conditional innovations
	// (zero for the first p + d + (P + D)·m).
	Fitted, Residuals []float64
	// Method is the estimation method used.
	Method ARIMAMethod
	// Converged is false when the optimiser stopped at its iteration
	// limit (R's fit$code = 1).
	Converged bool

	spec     ARIMASpec
	opt      ARIMAOptions
	arma     arimaArma
	model    *arimaSS
	n        int
	nUser    int     // user regressor columns
	first    float64 // y[0], the forecast of a constant series
	constant bool    // auto.arima's constant-series fit
	nfree    int
}

// ARIMA fits spec to y with the regressors xreg (xreg[j] is column j,
// len(y) values; nil for none), as R's forecast::Arima(y, order, seasonal,
// xreg, include.mean, include.drift, method = "CSS-ML") with R's
// estimation (stats::arima): differencing in the state, regression
// coefficients started from least squares on the differenced data,
// parameters started from the conditional-sum-of-squares fit, then the
// exact Gaussian likelihood by the Kalman filter with Gardner's initial
// covariance, maximised by R's BFGS with its parscale and numerical
// gradients, with the AR parts kept stationary by R's transformation and
// non-invertible MA parts reflected as R does.
//
// Input with NaN or Inf values is an error. A series not longer than its
// differencing (d + D·Period) is skipped, as R refuses it. R's numerical
// failures (a non-stationary AR part from CSS, a non-finite likelihood, a
// singular Hessian) are errors.
func ARIMA(y []float64, spec ARIMASpec, xreg [][]float64, opt ARIMAOptions) (*ARIMAModel, error) {
	if err := arimaCheckInput(y, xreg); err != nil {
		return nil, err
	}
	spec = spec.normalize()
	if len(y) <= spec.D+spec.SeasonalD*spec.Period {
		return nil, skip("ARIMA", "%d observations are not enough for %d differences", len(y), spec.D+spec.SeasonalD*spec.Period)
	}
	m, err := arimaFitSpec(y, spec, xreg, nil, opt.Method)
	if err != nil {
		return nil, fmt.Errorf("forecast: ARIMA: %w", err)
	}
	m.opt = opt
	return m, nil
}

// normalize applies R's Arima rules: no seasonal part with a period of 1
// or less, no drift with more than one difference.
func (s ARIMASpec) normalize() ARIMASpec {
	if s.Period <= 1 {
		s.Period = 1
		s.SeasonalP, s.SeasonalD, s.SeasonalQ = 0, 0, 0
	}
	if s.D+s.SeasonalD > 1 {
		s.IncludeDrift = false
	}
	return s
}

func arimaCheckInput(y []float64, xreg [][]float64) error {
	if len(y) == 0 {
		return skip("ARIMA", "empty series")
	}
	for _, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return errors.New("forecast: ARIMA: the series has NaN or infinite values")
		}
	}
	for j, c := range xreg {
		if len(c) != len(y) {
			return fmt.Errorf("forecast: ARIMA: regressor %d has %d values, the series %d", j, len(c), len(y))
		}
		for _, v := range c {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("forecast: ARIMA: regressor %d has NaN or infinite values", j)
			}
		}
	}
	return nil
}

// arimaXregNames are R's column names of xreg: "xreg" for one column,
// "xreg1", "xreg2", … otherwise.
func arimaXregNames(k int) []string {
	if k == 1 {
		return []string{"xreg"}
	}
	out := make([]string, k)
	for i := range out {
		out[i] = fmt.Sprintf("xreg%d", i+1)
	}
	return out
}

// arimaFitSpec is forecast::Arima after the checks: drift as a regressor,
// stats::arima, then forecast's sigma², AICc and BIC.
func arimaFitSpec(y []float64, spec ARIMASpec, xreg [][]float64, fixed []float64, method ARIMAMethod) (*ARIMAModel, error) {
	a := arimaArma{p: spec.P, q: spec.Q, sp: spec.SeasonalP, sq: spec.SeasonalQ,
		period: spec.Period, d: spec.D, sd: spec.SeasonalD}
	n := len(y)
	var cols [][]float64
	var names []string
	if spec.IncludeDrift {
		drift := make([]float64, n)
		for i := range drift {
			drift[i] = float64(i + 1)
		}
		cols = append(cols, drift)
		names = append(names, "drift")
	}
	cols = append(cols, xreg...)
	names = append(names, arimaXregNames(len(xreg))...)
	fit, err := arimaStats(y, a, cols, names, spec.IncludeMean, fixed, method)
	if err != nil {
		return nil, err
	}
	return arimaModelFrom(y, spec, len(xreg), fit), nil
}

// arimaModelFrom builds the model from a stats::arima fit as
// forecast::Arima does.
func arimaModelFrom(y []float64, spec ARIMASpec, nUser int, fit *arimaStatsFit) *ARIMAModel {
	a := fit.arma
	n := len(y)
	nfree := 0
	for _, m := range fit.mask {
		if m {
			nfree++
		}
	}
	npar := float64(nfree + 1)
	nstar := float64(n - a.d - a.sd*a.period)
	m := &ARIMAModel{
		P: a.p, D: a.d, Q: a.q, SeasonalP: a.sp, SeasonalD: a.sd, SeasonalQ: a.sq, Period: a.period,
		Coef: fit.coef, CoefNames: fit.names,
		LogLik: fit.loglik, AIC: fit.aic,
		NObs: fit.nused, Method: fit.method, Converged: fit.code == 0,
		spec: spec, arma: a, model: fit.model, n: n, nUser: nUser, first: y[0],
		nfree: nfree,
	}
	if fit.method == ARIMAMethodCSS {
		m.LogLik = math.NaN()
	}
	m.AICc = fit.aic + 2*npar*(nstar/(nstar-npar-1)-1)
	m.BIC = fit.aic + npar*(math.Log(nstar)-2)
	ss := 0.0
	for _, r := range fit.resid {
		if !math.IsNaN(r) {
			ss += r * r
		}
	}
	m.Sigma2 = ss / (nstar - npar + 1)
	o := 0
	m.AR = append([]float64(nil), fit.coef[o:o+a.p]...)
	o += a.p
	m.MA = append([]float64(nil), fit.coef[o:o+a.q]...)
	o += a.q
	m.SAR = append([]float64(nil), fit.coef[o:o+a.sp]...)
	o += a.sp
	m.SMA = append([]float64(nil), fit.coef[o:o+a.sq]...)
	o += a.sq
	for ; o < len(fit.coef); o++ {
		switch fit.names[o] {
		case "intercept":
			m.Intercept, m.HasIntercept = fit.coef[o], true
		case "drift":
			m.Drift, m.HasDrift = fit.coef[o], true
		default:
			m.Xreg = append(m.Xreg, fit.coef[o])
		}
	}
	if fit.varCoef != nil {
		k := nfree
		m.CoefCov = make([][]float64, k)
		for i := range k {
			m.CoefCov[i] = append([]float64(nil), fit.varCoef[i*k:(i+1)*k]...)
		}
		for i, msk := range fit.mask {
			if msk {
				m.CovNames = append(m.CovNames, fit.names[i])
			}
		}
	}
	m.Residuals = fit.resid
	m.Fitted = make([]float64, n)
	for i := range n {
		m.Fitted[i] = y[i] - fit.resid[i]
	}
	return m
}

// Key is "ARIMAX" for a model with exogenous regressors, "ARIMA"
// otherwise.
func (m *ARIMAModel) Key() string {
	if m.nUser > 0 {
		return "ARIMAX"
	}
	return "ARIMA"
}

// NumParams is the number of estimated coefficients plus one for the
// innovation variance, the parameter count of R's AIC.
func (m *ARIMAModel) NumParams() int { return m.nfree + 1 }

// Name is the model as R's forecast prints it (arima.string):
// "ARIMA(1,1,1)(0,1,1)[12] with drift", "ARIMA(2,0,2) with non-zero
// mean", "Regression with ARIMA(1,0,0) errors", ….
func (m *ARIMAModel) Name() string {
	s := fmt.Sprintf("ARIMA(%d,%d,%d)", m.P, m.D, m.Q)
	if m.Period > 1 && m.SeasonalP+m.SeasonalD+m.SeasonalQ > 0 {
		s += fmt.Sprintf("(%d,%d,%d)[%d]", m.SeasonalP, m.SeasonalD, m.SeasonalQ, m.Period)
	}
	switch {
	case m.HasDrift && m.nUser == 0:
		s += " with drift"
	case m.HasDrift || m.nUser > 0:
		s = "Regression with " + s + " errors"
	case m.HasIntercept:
		s += " with non-zero mean"
	case m.D == 0 && m.SeasonalD == 0:
		s += " with zero mean"
	}
	return strings.TrimRight(s, " ")
}

// Forecast predicts the next h values as R's forecast(fit, h, xreg = …):
// the Kalman filter's predictions of the ARIMA errors from the state at
// the end of the data plus the regression part (the drift continues as
// n+1, n+2, …), with Gaussian quantiles of variance Sigma2 times the
// Kalman prediction variance. xreg holds the future values of the
// regressors, one slice of h values per column the model was fitted with;
// it is ignored (as R ignores it) for a model without regressors.
func (m *ARIMAModel) Forecast(h int, xreg [][]float64) (Forecast, error) {
	if h <= 0 {
		return Forecast{}, fmt.Errorf("forecast: ARIMA: horizon %d", h)
	}
	if m.nUser > 0 {
		if len(xreg) != m.nUser {
			return Forecast{}, fmt.Errorf("forecast: ARIMA: %d future regressors, the model has %d", len(xreg), m.nUser)
		}
		for j, c := range xreg {
			if len(c) != h {
				return Forecast{}, fmt.Errorf("forecast: ARIMA: future regressor %d has %d values for %d steps", j, len(c), h)
			}
			for _, v := range c {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return Forecast{}, fmt.Errorf("forecast: ARIMA: future regressor %d has NaN or infinite values", j)
				}
			}
		}
	}
	f := Forecast{Mean: make([]float64, h)}
	sd := make([]float64, h)
	if m.constant {
		for i := range h {
			f.Mean[i] = m.first
		}
		GaussianQuantiles(&f, sd)
		return f, nil
	}
	mean, v := m.model.forecast(h)
	narma := m.arma.narma()
	for t := range h {
		xm := 0.0
		k := narma
		if m.HasIntercept {
			xm += m.Coef[k]
			k++
		}
		if m.HasDrift {
			xm += m.Coef[k] * float64(m.n+t+1)
			k++
		}
		for j := range m.nUser {
			xm += m.Coef[k+j] * xreg[j][t]
		}
		f.Mean[t] = mean[t] + xm
		sd[t] = math.Sqrt(v[t] * m.Sigma2)
	}
	GaussianQuantiles(&f, sd)
	return f, nil
}

// PsiWeights returns ψ_0 = 1, ψ_1, …, ψ_{h−1}: the MA(∞) weights of the
// fitted ARIMA error process, differencing included (the coefficients of
// θ(B)Θ(B^m) / (φ(B)Φ(B^m)(1−B)^d(1−B^m)^D), as R's ARMAtoMA on the
// expanded polynomials). The h-step forecast variance of the errors is
// Sigma2·Σ_{k<h} ψ_k², which Forecast's Kalman variance approaches once
// the initial state is forgotten.
func (m *ARIMAModel) PsiWeights(h int) []float64 {
	if h <= 0 {
		return nil
	}
	a := m.arma
	phi := make([]float64, a.fullP())
	theta := make([]float64, a.fullQ())
	if !m.constant {
		arimaTransPars(m.Coef, a, false, phi, theta)
	}
	// φ(B)Δ(B) = (1 − Σ φ_i B^i)(1 − Σ δ_j B^j) = 1 − Σ c_k B^k.
	delta := arimaDelta(a.d, a.sd, a.period)
	poly := func(c []float64) []float64 {
		out := make([]float64, len(c)+1)
		out[0] = 1
		for i, v := range c {
			out[i+1] = -v
		}
		return out
	}
	pa, pd := poly(phi), poly(delta)
	prod := make([]float64, len(pa)+len(pd)-1)
	for i, u := range pa {
		for j, v := range pd {
			prod[i+j] += u * v
		}
	}
	full := make([]float64, len(prod)-1)
	for i := range full {
		full[i] = -prod[i+1]
	}
	return arimaPsi(full, theta, h)
}

// Refit estimates the same model (orders, mean, drift) on y with
// regressors xreg, as the contest does for its champion on the whole
// history; the estimation starts afresh, as R's Arima(y, model = …) does
// not (it keeps the coefficients), because the contest wants
// re-estimated parameters.
func (m *ARIMAModel) Refit(y []float64, xreg [][]float64) (*ARIMAModel, error) {
	if len(xreg) != m.nUser {
		return nil, fmt.Errorf("forecast: ARIMA: refit with %d regressors, the model has %d", len(xreg), m.nUser)
	}
	return ARIMA(y, m.spec, xreg, m.opt)
}

// RegressionCov returns the names and the covariance of the estimated
// regression coefficients (intercept or drift, then the exogenous
// regressors), the block of CoefCov that impact sessions add to the
// forecast variance of a sum over the window.
func (m *ARIMAModel) RegressionCov() ([]string, [][]float64) {
	// The regression coefficients follow the narma ARMA ones in Coef; the
	// covariance covers the estimated coefficients in the same order.
	narma := m.arma.narma()
	var idx []int
	var names []string
	k := 0
	for i, name := range m.CoefNames {
		if k < len(m.CovNames) && m.CovNames[k] == name {
			if i >= narma {
				idx = append(idx, k)
				names = append(names, name)
			}
			k++
		}
	}
	cov := make([][]float64, len(idx))
	for a, i := range idx {
		cov[a] = make([]float64, len(idx))
		for b, j := range idx {
			cov[a][b] = m.CoefCov[i][j]
		}
	}
	return names, cov
}
