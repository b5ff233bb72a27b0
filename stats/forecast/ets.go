package forecast

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// ETSSpec restricts the forms ETS considers, as the model string and the
// damped argument of R's ets(y, model = "ZZZ", damped = NULL) do. Each of
// Error, Trend and Season is 'A' (additive), 'M' (multiplicative), 'N'
// (none; not for Error) or 'Z' (chosen by the information criterion); the
// zero value means 'Z'. Damped nil lets the criterion choose; true or false
// forces a damped or an undamped trend.
type ETSSpec struct {
	Error, Trend, Season byte
	Damped               *bool
}

// ETSCriterion is the information criterion that picks the form (R's ic).
type ETSCriterion int

const (
	// ETSAICc is the small-sample corrected AIC, R's default.
	ETSAICc ETSCriterion = iota
	// ETSAIC is Akaike's criterion.
	ETSAIC
	// ETSBIC is Schwarz's criterion.
	ETSBIC
)

// ETSOptions configures ETS. The zero value reproduces R's ets(y) defaults:
// model "ZZZ", damped NULL, ic "aicc", opt.crit "lik", nmse 3, bounds
// "both", lower c(1e-4, 1e-4, 1e-4, 0.8), upper c(0.9999, 0.9999, 0.9999,
// 0.98), restrict TRUE, additive.only FALSE, allow.multiplicative.trend
// FALSE and maxit 2000.
type ETSOptions struct {
	// Spec restricts the forms tried (R's model and damped arguments).
	Spec ETSSpec
	// AdditiveOnly drops every form with a multiplicative component.
	AdditiveOnly bool
	// AllowMultiplicativeTrend lets Trend 'Z' include 'M'.
	AllowMultiplicativeTrend bool
	// IC is the selection criterion; the zero value is ETSAICc.
	IC ETSCriterion
	// MaxIter caps the Nelder–Mead function evaluations per form; 0 means
	// R's 2000.
	MaxIter int
	// Seed seeds the simulated paths of the forms whose intervals have no
	// closed form (multiplicative trend); see ETSModel.Forecast.
	Seed uint64
}

// ETSModel is a fitted exponential smoothing state space model (Hyndman
// et al. 2008), as R's ets() returns it.
//
// The state vector is R's: level l, then the growth b when there is a
// trend, then the m seasonal states s1..sm, s1 the most recent and sm the
// one the next observation uses. Residuals are the innovations: y − ŷ for
// additive errors and (y − ŷ)/ŷ for multiplicative ones, as R's
// residuals(fit). A fitted model is never modified: Forecast and Refit may
// run concurrently.
type ETSModel struct {
	// Error, Trend and Season are 'A', 'M' or 'N'; Damped says whether the
	// trend is damped.
	Error, Trend, Season byte
	Damped               bool
	// Period is the seasonal period m (1 for non-seasonal forms).
	Period int
	// Alpha, Beta, Gamma and Phi are the smoothing parameters and the
	// damping factor; Beta is 0 without a trend, Gamma 0 without a season
	// and Phi 1 without damping. Beta is R's β (not β* = β/α).
	Alpha, Beta, Gamma, Phi float64
	// InitState is R's fit$initstate: l0, b0, s1..sm at time 0. LastState
	// is the state after the last observation (R's states[n+1, ]).
	InitState, LastState []float64
	// Sigma2 is R's sigma2: the sum of squared residuals over n − k, k the
	// number of estimated parameters (NumParams).
	Sigma2 float64
	// LogLik, AIC, AICc and BIC are R's: LogLik = −lik/2 where lik is
	// n·log(SSE) (+ 2·Σ log|ŷ| for multiplicative errors), and the
	// criteria count k + 1 parameters. They are NaN for the constant-series
	// fallback, which R does not score either.
	LogLik, AIC, AICc, BIC float64
	// MSE is the in-sample mean squared one-step error (R's mse) and AMSE
	// the mean over the first 3 horizons (R's amse, nmse = 3).
	MSE, AMSE float64
	// Fitted are the one-step fitted values and Residuals the innovations.
	Fitted, Residuals []float64

	nParams  int
	constant bool // the constant-series fallback (R's ses(alpha = 0.99999))
	opts     ETSOptions
}

// ETS fits exponential smoothing state space models to y (oldest first,
// seasonal period period ≥ 1) and returns the one with the smallest
// information criterion, as R's forecast::ets(y) (8.20) does:
//
//   - the forms are error A/M × trend N/A/Ad × season N/A/M within
//     opt.Spec, tried in R's order; with R's restrict = TRUE additive
//     errors never meet a multiplicative component and M,M,A is excluded;
//   - each form's α, β, γ, φ and initial states are estimated by
//     maximising the innovations likelihood with R's Nelder–Mead (nmmin:
//     reltol √ε, 2000 evaluations) under R's "both" bounds, from R's
//     initparam() and initstate() starting values;
//   - seasonal forms need 1 < period ≤ 24 and more than period
//     observations, else they are dropped (R warns and does the same);
//     multiplicative forms need positive data, else they are dropped;
//     a form with n − 1 or more parameters (initial states included) is
//     dropped;
//   - a constant series gives R's fallback, simple exponential smoothing
//     with α = 0.99999, when opt.Spec leaves error, trend and season to
//     the criterion (R: when model is not given).
//
// Deliberate differences from R: series with n ≤ k + 4 observations (k
// counted as R does from the specified components, so n ≤ 6 for the
// automatic spec), for which R switches to HoltWinters-type fits, return a
// *SkipError, as do forms the data cannot support (R stops with an error
// instead). NaN or infinite values are an error (R's na.contiguous would
// keep the longest stretch without NA). Box–Cox transformations, fixed
// smoothing parameters and the criteria other than the likelihood
// (opt.crit) are not offered.
func ETS(y []float64, period int, opt ETSOptions) (*ETSModel, error) {
	if err := etsCheckInput(y, period); err != nil {
		return nil, err
	}
	spec, err := opt.spec()
	if err != nil {
		return nil, err
	}
	n := len(y)
	if spec.auto() && etsIsConstant(y) {
		return etsConstantModel(y, opt), nil
	}

	errorType, trendType, seasonType := spec.Error, spec.Trend, spec.Season
	m := period
	if n <= m {
		seasonType = 'N'
	}
	if m == 1 {
		if seasonType == 'A' || seasonType == 'M' {
			return nil, skip("ETS", "a seasonal form needs a seasonal period above 1")
		}
		seasonType = 'N'
	}
	if m > 24 {
		if seasonType == 'A' || seasonType == 'M' {
			return nil, skip("ETS", "seasonal period %d is above 24, the most ETS handles", m)
		}
		seasonType = 'N'
	}
	if (errorType == 'A' && (trendType == 'M' || seasonType == 'M')) ||
		(errorType == 'M' && trendType == 'M' && seasonType == 'A') ||
		(opt.AdditiveOnly && (errorType == 'M' || trendType == 'M' || seasonType == 'M')) {
		return nil, fmt.Errorf("forecast: ETS: forbidden model combination ETS(%c,%c,%c)", errorType, trendType, seasonType)
	}
	positive := etsMin(y) > 0
	if !positive && errorType == 'M' {
		return nil, skip("ETS", "multiplicative errors need positive data")
	}
	if spec.Damped != nil && *spec.Damped && trendType == 'N' {
		return nil, fmt.Errorf("forecast: ETS: a damped form needs a trend")
	}

	// R counts the parameters of the components it was given (Z counts as
	// none) and switches to HoltWinters fits below npars + 4 observations.
	npars := 2
	if trendType == 'A' || trendType == 'M' {
		npars += 2
	}
	if seasonType == 'A' || seasonType == 'M' {
		npars += m
	}
	if spec.Damped != nil && *spec.Damped {
		npars++
	}
	if n <= npars+4 {
		return nil, skip("ETS", "%d observations are too few: ETS needs more than %d here", n, npars+4)
	}

	errTypes := etsExpand(errorType, "AM")
	trends := etsExpand(trendType, "NA")
	if trendType == 'Z' && opt.AllowMultiplicativeTrend {
		trends = []byte("NAM")
	}
	seasons := etsExpand(seasonType, "NAM")
	dampeds := []bool{true, false}
	if spec.Damped != nil {
		dampeds = []bool{*spec.Damped}
	}

	ws := newETSWorkspace(m)
	var best *ETSModel
	bestIC := math.Inf(1)
	var reasons []string
	for _, e := range errTypes {
		for _, t := range trends {
			for _, s := range seasons {
				for _, d := range dampeds {
					if t == 'N' && d {
						continue
					}
					if e == 'A' && (t == 'M' || s == 'M') {
						continue
					}
					if e == 'M' && t == 'M' && s == 'A' {
						continue
					}
					if opt.AdditiveOnly && (e == 'M' || t == 'M' || s == 'M') {
						continue
					}
					if !positive && e == 'M' {
						continue
					}
					f := etsForm{e, t, s, d}
					fit, err := etsFitForm(y, period, f, &opt, ws)
					if err != nil {
						reasons = append(reasons, f.name()+": "+err.Error())
						continue
					}
					ic := fit.criterion(opt.IC)
					if !math.IsNaN(ic) && ic < bestIC {
						best, bestIC = fit, ic
					}
				}
			}
		}
	}
	if best == nil {
		reason := "no form could be fitted"
		if len(reasons) > 0 {
			reason += " (" + strings.Join(reasons, "; ") + ")"
		}
		return nil, skip("ETS", "%s", reason)
	}
	best.opts = opt
	return best, nil
}

// ETSNonSeasonal fits a non-seasonal ETS model: ETS(y, 1, opt) with the
// season forced to 'N', e.g. for the seasonally adjusted series of STL-ETS
// (R's stlf uses ets(x.sa, model = "ZZN")).
func ETSNonSeasonal(y []float64, opt ETSOptions) (*ETSModel, error) {
	opt.Spec.Season = 'N'
	return ETS(y, 1, opt)
}

// Refit re-estimates the model's form (error, trend, season, damping; the
// same period and options) on y, as the contest does when it refits its
// champion on the whole history. Parameters and initial states are
// estimated afresh.
func (e *ETSModel) Refit(y []float64) (*ETSModel, error) {
	opt := e.opts
	if e.constant {
		if err := etsCheckInput(y, e.Period); err != nil {
			return nil, err
		}
		if etsIsConstant(y) {
			return etsConstantModel(y, opt), nil
		}
	}
	d := e.Damped
	opt.Spec = ETSSpec{Error: e.Error, Trend: e.Trend, Season: e.Season, Damped: &d}
	period := e.Period
	if e.Season == 'N' && period > 1 {
		period = 1
	}
	fit, err := ETS(y, period, opt)
	if err != nil {
		return nil, err
	}
	fit.opts = e.opts
	return fit, nil
}

// Key is "ETS".
func (e *ETSModel) Key() string { return "ETS" }

// NumParams is the number of estimated parameters: the smoothing
// parameters, φ and the free initial states (m − 1 seasonal ones), as
// length(fit$par) in R.
func (e *ETSModel) NumParams() int { return e.nParams }

// Name is R's method string, e.g. "ETS(M,Ad,M)".
func (e *ETSModel) Name() string {
	return etsForm{e.Error, e.Trend, e.Season, e.Damped}.name()
}

// criterion returns the information criterion ic of the fit.
func (e *ETSModel) criterion(ic ETSCriterion) float64 {
	switch ic {
	case ETSAIC:
		return e.AIC
	case ETSBIC:
		return e.BIC
	}
	return e.AICc
}

// etsForm is one ETS form: error, trend, season ('A', 'M', 'N') and
// damping.
type etsForm struct {
	err, trend, season byte
	damped             bool
}

func (f etsForm) name() string {
	d := ""
	if f.damped {
		d = "d"
	}
	return fmt.Sprintf("ETS(%c,%c%s,%c)", f.err, f.trend, d, f.season)
}

// auto reports whether the spec leaves every component to the criterion,
// which is when R's ets checks for a constant series (missing(model);
// damped does not matter there).
func (s ETSSpec) auto() bool {
	return s.Error == 'Z' && s.Trend == 'Z' && s.Season == 'Z'
}

// spec validates opt.Spec and fills in 'Z' for zero components.
func (opt *ETSOptions) spec() (ETSSpec, error) {
	s := opt.Spec
	fill := func(c *byte, allowed string, what string) error {
		if *c == 0 {
			*c = 'Z'
		}
		if !strings.ContainsRune(allowed, rune(*c)) {
			return fmt.Errorf("forecast: ETS: invalid %s type %q", what, *c)
		}
		return nil
	}
	if err := errors.Join(fill(&s.Error, "AMZ", "error"), fill(&s.Trend, "NAMZ", "trend"), fill(&s.Season, "NAMZ", "season")); err != nil {
		return s, err
	}
	if opt.IC < ETSAICc || opt.IC > ETSBIC {
		return s, fmt.Errorf("forecast: ETS: invalid criterion %d", opt.IC)
	}
	if opt.MaxIter < 0 {
		return s, fmt.Errorf("forecast: ETS: negative MaxIter")
	}
	return s, nil
}

// etsExpand lists the choices a component letter stands for.
func etsExpand(c byte, all string) []byte {
	if c == 'Z' {
		return []byte(all)
	}
	return []byte{c}
}

// etsCheckInput rejects empty and non-finite input and a bad period.
func etsCheckInput(y []float64, period int) error {
	if period < 1 {
		return fmt.Errorf("forecast: ETS: period %d is below 1", period)
	}
	if len(y) == 0 {
		return skip("ETS", "no observations")
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("forecast: ETS: observation %d is %v", i, v)
		}
	}
	return nil
}

func etsMin(y []float64) float64 {
	m := math.Inf(1)
	for _, v := range y {
		m = min(m, v)
	}
	return m
}

// etsIsConstant is R's forecast:::is.constant: all.equal(y, rep(y[1], n)),
// that is a mean absolute difference from y[1] within 1.5e-8, relative to
// the mean absolute value when that exceeds 1.5e-8.
func etsIsConstant(y []float64) bool {
	const tol = 1.5e-8
	var diff, abs float64
	for _, v := range y {
		diff += math.Abs(v - y[0])
		abs += math.Abs(v)
	}
	n := float64(len(y))
	diff /= n
	if xn := abs / n; xn > tol {
		diff /= xn
	}
	return diff <= tol
}

// etsConstantModel is R's answer to a constant series: ses(y, alpha =
// 0.99999, initial = "simple"), simple exponential smoothing from l0 = y[0]
// with no estimation.
func etsConstantModel(y []float64, opt ETSOptions) *ETSModel {
	const alpha = 0.99999
	n := len(y)
	fitted := make([]float64, n)
	res := make([]float64, n)
	l := y[0]
	var sse float64
	for i, v := range y {
		fitted[i] = l
		res[i] = v - l
		sse += res[i] * res[i]
		l = alpha*v + (1-alpha)*l
	}
	nan := math.NaN()
	return &ETSModel{
		Error: 'A', Trend: 'N', Season: 'N', Period: 1,
		Alpha: alpha, Phi: 1,
		InitState: []float64{y[0]}, LastState: []float64{l},
		Sigma2: sse / float64(n),
		LogLik: nan, AIC: nan, AICc: nan, BIC: nan,
		MSE: sse / float64(n), AMSE: nan,
		Fitted: fitted, Residuals: res,
		nParams:  2,
		constant: true,
		opts:     opt,
	}
}
