package forecast

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// TSLMSeason chooses the seasonal terms of a TSLM fit.
type TSLMSeason int

const (
	// TSLMSeasonAuto (the zero value) uses no seasonal terms when the
	// period is 1 and no FourierPeriod is given, seasonal dummies when the
	// period is at most 24 (MODELLING §2.7), and Fourier pairs otherwise.
	TSLMSeasonAuto TSLMSeason = iota
	// TSLMSeasonNone fits no seasonal terms.
	TSLMSeasonNone
	// TSLMSeasonDummies fits one dummy per season but the first, R's
	// tslm(y ~ season) (treatment contrasts of the factor cycle(y)).
	TSLMSeasonDummies
	// TSLMSeasonFourier fits K Fourier pairs ([Fourier]), R's
	// tslm(y ~ fourier(y, K)).
	TSLMSeasonFourier
)

func (s TSLMSeason) String() string {
	switch s {
	case TSLMSeasonAuto:
		return "auto"
	case TSLMSeasonNone:
		return "none"
	case TSLMSeasonDummies:
		return "dummies"
	case TSLMSeasonFourier:
		return "fourier"
	}
	return fmt.Sprintf("TSLMSeason(%d)", int(s))
}

// TSLMOptions configure [TSLM]. The zero value is the contest's TSLM: a
// linear trend, seasonal terms chosen by [TSLMSeasonAuto] and, for Fourier
// terms, K chosen by AICc.
type TSLMOptions struct {
	// NoTrend leaves out the linear trend 1, 2, …, n (R's trend).
	NoTrend bool
	// Season chooses the seasonal terms.
	Season TSLMSeason
	// K is the number of Fourier pairs. 0 chooses K by AICc (as forecast's
	// CV() computes it for lm) over 1, …, ⌊P/2⌋ (at most MaxK), P the
	// Fourier period, the smallest K winning ties. Ignored without
	// Fourier terms.
	K int
	// MaxK bounds the K search; 0 means ⌊P/2⌋. Each K of the search costs
	// little (one orthogonalisation serves them all), but a long series
	// with a long period (daily data, P = 365.25, K up to 182) makes an
	// n × 366 design.
	MaxK int
	// FourierPeriod is the period of the Fourier terms when it is not the
	// integer period given to TSLM: 52.18 for weeks in a year, 365.25 for
	// days. 0 means the period. Setting it makes TSLMSeasonAuto choose
	// Fourier terms.
	FourierPeriod float64
	// Phase is the position of the first observation in the seasonal
	// cycle, 0-based: R's cycle(y)[1] − 1. The dummies are those of the
	// seasons 2…m counted from R's season 1, so with the right Phase the
	// coefficients carry R's labels; the fit and the forecasts do not
	// depend on it.
	Phase int
	// XregNames name the regressor columns in Names; default xreg1, xreg2, ….
	XregNames []string
}

// TSLMCriteria are the statistics forecast's CV() reports for an lm fit:
// the leave-one-out cross-validation statistic, and AIC, AICc and BIC on
// CV()'s scale (n·log(RSS/n) + 2(rank+1), not logLik's), and the adjusted
// R².
type TSLMCriteria struct {
	CV, AIC, AICc, BIC, AdjR2 float64
}

// TSLMModel is a fitted linear regression of a series on a trend, seasonal
// dummies or Fourier terms, and regressors: R's forecast::tslm, fitted by
// least squares as lm does. It implements [Model] with key "TSLM", or "LM"
// when it has neither trend nor seasonal terms.
type TSLMModel struct {
	// Period is the period given to TSLM (1 for LM).
	Period int
	// Options are the options as resolved: Season is never
	// TSLMSeasonAuto, K is the number of Fourier pairs used (chosen or
	// given), FourierPeriod is set when Season is TSLMSeasonFourier, and
	// Phase is reduced modulo Period.
	Options TSLMOptions
	// Names are the design's columns, in R's order: "(Intercept)",
	// "trend", "season2" … "seasonM" or "S1-M", "C1-M", … (R prefixes
	// these with the fourier() call), then the regressors.
	Names []string
	// Coef holds one coefficient per column of Names; NaN for an aliased
	// column (R's NA).
	Coef []float64
	// Aliased names the columns left out because they are linear
	// combinations of earlier ones, as lm's pivoting QR (dqrdc2, tolerance
	// 1e-7) leaves them out.
	Aliased []string
	// Rank is the number of coefficients estimated; DF = n − Rank is the
	// residual degrees of freedom.
	Rank, DF int
	// Sigma is the residual standard error √(RSS/DF).
	Sigma float64
	// Criteria are CV()'s statistics of the fit.
	Criteria TSLMCriteria
	// AICcByK is, when K was chosen, the AICc of K = 1, 2, … in the
	// search (+Inf where the design leaves fewer than 3 residual degrees
	// of freedom); nil otherwise.
	AICcByK []float64
	// Fitted and Residuals are the in-sample fitted values and residuals.
	Fitted, Residuals []float64

	key   string
	n     int
	nxreg int
	kept  []int     // indices into Names of the estimated coefficients
	beta  []float64 // the estimated coefficients, len Rank
	r     []float64 // the Rank×Rank upper triangle R of X_kept = QR, row-major
}

// tslmAliasTol is lm's tolerance for aliased columns (lm.fit's tol).
const tslmAliasTol = 1e-7

// TSLM fits y (oldest first, seasonal period period ≥ 1) by least squares
// on a linear trend, seasonal terms and the regressors xreg (one slice of
// len(y) values per column), as R's forecast::tslm(y ~ trend + season + x)
// or tslm(y ~ trend + fourier(y, K) + x) does, with an intercept always.
//
// Where it follows R: the design columns and their order; aliased columns
// dropped as lm drops them (the later of linearly dependent columns,
// relative tolerance 1e-7 on the reduced column norm); the coefficients,
// fitted values and CV()'s criteria; forecasts and t-distribution
// prediction bounds as forecast.lm (predict.lm with interval =
// "prediction"). The coefficients come from gonum's Householder QR
// (LAPACK dgeqrf) of the retained columns rather than LINPACK's dqrdc2, so
// they agree with R's to rounding, not bit for bit.
//
// Where it differs: R's tslm fits the K the user writes; here K = 0
// chooses K by AICc (see TSLMOptions.K). Seasons are counted from the
// first observation (shifted by TSLMOptions.Phase), not from the calendar
// as R's cycle() does. There is no Box-Cox transformation.
//
// NaN or Inf in y or xreg, a period below 1 or inconsistent options are
// errors. A series with no more observations than design columns, or whose
// seasonal terms cannot be built (dummies of period 1), is a *SkipError.
func TSLM(y []float64, period int, xreg [][]float64, opt TSLMOptions) (*TSLMModel, error) {
	return tslmFitSpec(y, period, xreg, opt, "")
}

// LM fits y on the regressors xreg and an intercept only (no trend, no
// seasonal terms): R's tslm(y ~ x), lm(y ~ x). Its key is "LM". Without
// regressors it returns a *SkipError (MODELLING §2.7: "only when features
// exist").
func LM(y []float64, xreg [][]float64) (*TSLMModel, error) {
	if len(xreg) == 0 {
		return nil, skip("LM", "no regressors")
	}
	return tslmFitSpec(y, 1, xreg, TSLMOptions{NoTrend: true, Season: TSLMSeasonNone}, "LM")
}

// Refit re-estimates the model on new data (the whole history, in the
// contest's last step) with the same trend, seasonal terms, K, Phase and
// regressor columns: the coefficients, aliasing and criteria are those of
// the new fit. The new series must start at the same point of the seasonal
// cycle as the original.
func (m *TSLMModel) Refit(y []float64, xreg [][]float64) (*TSLMModel, error) {
	if len(xreg) != m.nxreg {
		return nil, fmt.Errorf("forecast: %s refit: %d regressor columns, the model has %d", m.key, len(xreg), m.nxreg)
	}
	return tslmFitSpec(y, m.Period, xreg, m.Options, m.key)
}

// Key is "TSLM", or "LM" for a model without trend and seasonal terms.
func (m *TSLMModel) Key() string { return m.key }

// NumParams is the number of estimated coefficients plus the residual
// variance, the parameter count of CV()'s AICc.
func (m *TSLMModel) NumParams() int { return m.Rank + 1 }

// Forecast predicts the h points after the data: the regression's point
// forecasts and, as quantiles, the bounds of R's predict.lm(interval =
// "prediction"), mean ± t_{DF}·σ·√(1 + x₀ᵀ(XᵀX)⁻¹x₀) with the Student t
// quantile of each level (the 0.05 and 0.95 quantiles are forecast()'s 90 %
// bounds). xreg holds the regressors' h future values per column; nil when
// the model has none.
func (m *TSLMModel) Forecast(h int, xreg [][]float64) (Forecast, error) {
	if h < 1 {
		return Forecast{}, fmt.Errorf("forecast: %s: horizon %d, want at least 1", m.key, h)
	}
	if len(xreg) != m.nxreg {
		return Forecast{}, fmt.Errorf("forecast: %s: %d future regressor columns, the model has %d", m.key, len(xreg), m.nxreg)
	}
	for j, c := range xreg {
		if len(c) != h {
			return Forecast{}, fmt.Errorf("forecast: %s: future regressor %d has %d values, want h = %d", m.key, j+1, len(c), h)
		}
		if err := tslmFinite(c); err != nil {
			return Forecast{}, fmt.Errorf("forecast: %s: future regressor %d: %w", m.key, j+1, err)
		}
	}
	cols, _ := tslmDesign(m.spec(), h, m.n, xreg)
	var tq [NumLevels]float64
	st := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(m.DF)}
	for i, p := range Levels {
		if i != MedianLevel {
			tq[i] = st.Quantile(p)
		}
	}
	f := Forecast{Mean: make([]float64, h)}
	for i := range Levels {
		f.Quantiles[i] = make([]float64, h)
	}
	x := make([]float64, len(m.kept))
	z := make([]float64, len(m.kept))
	for t := range h {
		mean := 0.0
		for k, j := range m.kept {
			x[k] = cols[j][t]
			mean += x[k] * m.beta[k]
		}
		lev := tslmTriSolveT(m.r, len(m.kept), x, z)
		se := m.Sigma * math.Sqrt(1+lev)
		f.Mean[t] = mean
		for i := range Levels {
			f.Quantiles[i][t] = mean + tq[i]*se
		}
	}
	return f, nil
}

// tslmSpec is the resolved design of a fit.
type tslmSpec struct {
	trend   bool
	season  TSLMSeason // never Auto
	period  int
	fperiod float64 // Fourier period
	K       int
	phase   int
	names   []string // regressor names
}

func (m *TSLMModel) spec() tslmSpec {
	return tslmSpec{trend: !m.Options.NoTrend, season: m.Options.Season, period: m.Period,
		fperiod: m.Options.FourierPeriod, K: m.Options.K, phase: m.Options.Phase, names: m.Options.XregNames}
}

// tslmDesign returns the design columns for n time points after offset
// (times offset+1 … offset+n) and their names, in R's order: intercept,
// trend, seasonal terms, regressors.
func tslmDesign(s tslmSpec, n, offset int, xreg [][]float64) ([][]float64, []string) {
	one := make([]float64, n)
	for i := range one {
		one[i] = 1
	}
	cols, names := [][]float64{one}, []string{"(Intercept)"}
	if s.trend {
		t := make([]float64, n)
		for i := range t {
			t[i] = float64(offset + i + 1)
		}
		cols, names = append(cols, t), append(names, "trend")
	}
	switch s.season {
	case TSLMSeasonDummies:
		for k := 1; k < s.period; k++ {
			d := make([]float64, n)
			for i := range d {
				if (s.phase+offset+i)%s.period == k {
					d[i] = 1
				}
			}
			cols, names = append(cols, d), append(names, fmt.Sprintf("season%d", k+1))
		}
	case TSLMSeasonFourier:
		cols = append(cols, Fourier(n, s.fperiod, s.K, offset)...)
		names = append(names, FourierNames(s.fperiod, s.K)...)
	}
	cols = append(cols, xreg...)
	for j := range xreg {
		if j < len(s.names) {
			names = append(names, s.names[j])
		} else {
			names = append(names, fmt.Sprintf("xreg%d", j+1))
		}
	}
	return cols, names
}

// tslmFitSpec validates the inputs, resolves the options (choosing K when
// asked) and fits. key forces the model's key ("LM"); "" derives it.
func tslmFitSpec(y []float64, period int, xreg [][]float64, opt TSLMOptions, key string) (*TSLMModel, error) {
	n := len(y)
	if key == "" {
		key = "TSLM"
		if opt.NoTrend && opt.Season == TSLMSeasonNone {
			key = "LM"
		}
	}
	if period < 1 {
		return nil, fmt.Errorf("forecast: %s: period %d, want at least 1", key, period)
	}
	if err := tslmFinite(y); err != nil {
		return nil, fmt.Errorf("forecast: %s: %w", key, err)
	}
	for j, c := range xreg {
		if len(c) != n {
			return nil, fmt.Errorf("forecast: %s: regressor %d has %d values, the series %d", key, j+1, len(c), n)
		}
		if err := tslmFinite(c); err != nil {
			return nil, fmt.Errorf("forecast: %s: regressor %d: %w", key, j+1, err)
		}
	}
	if len(opt.XregNames) != 0 && len(opt.XregNames) != len(xreg) {
		return nil, fmt.Errorf("forecast: %s: %d regressor names for %d regressors", key, len(opt.XregNames), len(xreg))
	}
	if opt.K < 0 || opt.MaxK < 0 || opt.FourierPeriod < 0 || math.IsNaN(opt.FourierPeriod) || math.IsInf(opt.FourierPeriod, 0) {
		return nil, fmt.Errorf("forecast: %s: K %d, MaxK %d, FourierPeriod %v: want K, MaxK ≥ 0 and a finite FourierPeriod ≥ 0", key, opt.K, opt.MaxK, opt.FourierPeriod)
	}
	if opt.Phase < 0 {
		return nil, fmt.Errorf("forecast: %s: Phase %d, want at least 0", key, opt.Phase)
	}
	s := tslmSpec{trend: !opt.NoTrend, season: opt.Season, period: period, fperiod: opt.FourierPeriod,
		K: opt.K, phase: opt.Phase % period, names: opt.XregNames}
	if s.fperiod == 0 {
		s.fperiod = float64(period)
	}
	if s.season == TSLMSeasonAuto {
		switch {
		case opt.FourierPeriod > 0 || period > 24:
			s.season = TSLMSeasonFourier
		case period > 1:
			s.season = TSLMSeasonDummies
		default:
			s.season = TSLMSeasonNone
		}
	}
	switch s.season {
	case TSLMSeasonNone:
		s.K, s.fperiod = 0, 0
	case TSLMSeasonDummies:
		if period < 2 {
			return nil, skip(key, "seasonal dummies need a period of at least 2, got %d", period)
		}
		s.K, s.fperiod = 0, 0
	case TSLMSeasonFourier:
		if s.fperiod < 2 {
			return nil, skip(key, "Fourier terms need a period of at least 2, got %v", s.fperiod)
		}
		if kmax := int(s.fperiod / 2); s.K > kmax {
			return nil, fmt.Errorf("forecast: %s: K = %d Fourier pairs, at most %d for period %v", key, s.K, kmax, s.fperiod)
		}
	default:
		return nil, fmt.Errorf("forecast: %s: unknown season %v", key, s.season)
	}
	var aiccByK []float64
	if s.season == TSLMSeasonFourier && s.K == 0 {
		var err error
		if s.K, aiccByK, err = tslmChooseK(y, xreg, s, opt.MaxK, key); err != nil {
			return nil, err
		}
	}
	cols, names := tslmDesign(s, n, 0, xreg)
	if n <= len(cols) {
		return nil, skip(key, "%d observations for %d coefficients", n, len(cols))
	}
	m, err := tslmLeastSquares(y, cols, names, key)
	if err != nil {
		return nil, err
	}
	m.Period, m.n, m.nxreg, m.AICcByK = period, n, len(xreg), aiccByK
	m.Options = TSLMOptions{NoTrend: !s.trend, Season: s.season, K: s.K, MaxK: opt.MaxK,
		FourierPeriod: s.fperiod, Phase: s.phase, XregNames: opt.XregNames}
	return m, nil
}

// tslmChooseK returns the K in 1…min(⌊P/2⌋, maxK) of least AICc, with the
// AICc of each K tried. One pass orthogonalises the design of the largest
// K with the Fourier columns last, which gives the rank and RSS of every
// smaller K's design as a prefix.
func tslmChooseK(y []float64, xreg [][]float64, s tslmSpec, maxK int, key string) (int, []float64, error) {
	n := len(y)
	base := s
	base.season, base.K = TSLMSeasonNone, 0
	cols, _ := tslmDesign(base, n, 0, xreg)
	nb := len(cols)
	kmax := int(s.fperiod / 2)
	if maxK > 0 {
		kmax = min(kmax, maxK)
	}
	// Designs need n > columns: K ≤ (n − nb − 1)/2.
	kmax = min(kmax, (n-nb-1)/2)
	if kmax < 1 {
		return 0, nil, skip(key, "%d observations leave no room for Fourier terms beside %d other coefficients", n, nb)
	}
	cols = append(cols, Fourier(n, s.fperiod, kmax, 0)...)
	_, rank, rss := tslmOrthogonalize(y, cols)
	aicc := make([]float64, kmax)
	best := 0
	for K := 1; K <= kmax; K++ {
		p := nb + len(FourierNames(s.fperiod, K))
		aicc[K-1] = math.Inf(1)
		if n <= p || n-rank[p-1]-2 <= 0 {
			continue
		}
		aicc[K-1] = tslmCriteria(n, rank[p-1], tslmExactFit(rss[p-1], y)).AICc
		if best == 0 || aicc[K-1] < aicc[best-1] {
			best = K
		}
	}
	if best == 0 {
		return 0, aicc, skip(key, "%d observations leave too few degrees of freedom for any K", n)
	}
	return best, aicc, nil
}

// tslmOrthogonalize runs a Gram–Schmidt pass (modified, reorthogonalised
// when needed) over the columns in order, as lm's dqrdc2 pivots:
// a column whose norm, once projected off the columns kept before it, falls
// below 1e-7 of its own norm is aliased (a zero column always is). It
// returns the orthonormal basis of the kept columns, and after each column
// j the rank and the residual sum of squares of y on columns 0…j.
func tslmOrthogonalize(y []float64, cols [][]float64) (q [][]float64, rank []int, rss []float64) {
	res := append([]float64(nil), y...)
	rank = make([]int, len(cols))
	rss = make([]float64, len(cols))
	for j, c := range cols {
		v := append([]float64(nil), c...)
		norm0 := tslmNorm(v)
		// A second pass only when the first cancelled much of the column
		// (Kahan–Parlett "twice is enough"): nearly orthogonal columns,
		// Fourier terms among them, skip it.
		nv := norm0
		for pass := 0; pass < 2 && len(q) > 0; pass++ {
			for _, b := range q {
				floats.AddScaled(v, -floats.Dot(b, v), b)
			}
			before := nv
			if nv = tslmNorm(v); nv > 0.5*before {
				break
			}
		}
		if norm0 > 0 && nv >= tslmAliasTol*norm0 {
			floats.Scale(1/nv, v)
			q = append(q, v)
			floats.AddScaled(res, -floats.Dot(v, res), v)
		}
		rank[j] = len(q)
		rss[j] = floats.Dot(res, res)
	}
	return q, rank, rss
}

// tslmLeastSquares fits y on the columns, dropping aliased ones: the
// coefficients by gonum's QR of the kept columns, the hat values from the
// orthonormal basis, and CV()'s criteria.
func tslmLeastSquares(y []float64, cols [][]float64, names []string, key string) (*TSLMModel, error) {
	n := len(y)
	q, rank, _ := tslmOrthogonalize(y, cols)
	m := &TSLMModel{key: key, Names: names, Coef: make([]float64, len(cols))}
	for j := range cols {
		if j == 0 && rank[0] == 1 || j > 0 && rank[j] > rank[j-1] {
			m.kept = append(m.kept, j)
		} else {
			m.Aliased = append(m.Aliased, names[j])
			m.Coef[j] = math.NaN()
		}
	}
	r := len(m.kept)
	if r == 0 {
		// Only an all-zero design (impossible with the intercept).
		return nil, errors.New("forecast: " + key + ": no estimable coefficient")
	}
	if n-r < 1 {
		return nil, skip(key, "%d observations for %d coefficients", n, r)
	}
	x := mat.NewDense(n, r, nil)
	for k, j := range m.kept {
		for i, v := range cols[j] {
			x.Set(i, k, v)
		}
	}
	var qr mat.QR
	qr.Factorize(x)
	var beta mat.VecDense
	if err := qr.SolveVecTo(&beta, false, mat.NewVecDense(n, append([]float64(nil), y...))); err != nil {
		var c mat.Condition
		if !errors.As(err, &c) {
			return nil, fmt.Errorf("forecast: %s: least squares: %w", key, err)
		}
		// Ill-conditioned but not aliased at lm's tolerance: lm fits it
		// too; keep the solution.
	}
	var rd mat.Dense
	qr.RTo(&rd)
	m.r = make([]float64, r*r)
	for i := range r {
		for j := i; j < r; j++ {
			m.r[i*r+j] = rd.At(i, j)
		}
	}
	m.beta = make([]float64, r)
	for k, j := range m.kept {
		m.beta[k] = beta.AtVec(k)
		m.Coef[j] = m.beta[k]
	}
	m.Fitted = make([]float64, n)
	m.Residuals = make([]float64, n)
	var rss float64
	for i := range n {
		f := 0.0
		for k, j := range m.kept {
			f += cols[j][i] * m.beta[k]
		}
		m.Fitted[i] = f
		m.Residuals[i] = y[i] - f
		rss += m.Residuals[i] * m.Residuals[i]
	}
	rss = tslmExactFit(rss, y)
	m.Rank, m.DF = r, n-r
	m.Sigma = math.Sqrt(rss / float64(m.DF))
	m.Criteria = tslmCriteria(n, r, rss)
	// Leave-one-out CV from the hat values h_i = Σ_k q_k[i]².
	var cv float64
	var ncv int
	for i := range n {
		var h float64
		for _, b := range q {
			h += b[i] * b[i]
		}
		if e := m.Residuals[i] / (1 - h); !math.IsNaN(e) {
			cv += e * e
			ncv++
		}
	}
	m.Criteria.CV = cv / float64(ncv)
	if rss == 0 {
		m.Criteria.CV = 0 // an exact fit, as R finds it
	}
	// summary.lm's adjusted R² (the model has an intercept).
	var mf float64
	for _, f := range m.Fitted {
		mf += f
	}
	mf /= float64(n)
	var mss float64
	for _, f := range m.Fitted {
		mss += (f - mf) * (f - mf)
	}
	m.Criteria.AdjR2 = 1 - (1-mss/(mss+rss))*float64(n-1)/float64(m.DF)
	return m, nil
}

// tslmCriteria is forecast's CV() without CV and AdjR2: AIC, AICc and BIC
// from extractAIC's n·log(RSS/n) + 2·rank, with k = rank − 1.
func tslmCriteria(n, rank int, rss float64) TSLMCriteria {
	fn, k := float64(n), float64(rank-1)
	aic := fn*math.Log(rss/fn) + 2*float64(rank) + 2
	return TSLMCriteria{
		AIC:  aic,
		AICc: aic + 2*(k+2)*(k+3)/(fn-k-3),
		BIC:  aic + (k+2)*(math.Log(fn)-2),
	}
}

// tslmExactFit returns rss, or 0 when the residuals are at the rounding
// level of y (a constant series on an intercept, say): R finds those fits
// exact, with AICc −Inf and prediction bounds on the mean, and so do we,
// instead of ranking noise.
func tslmExactFit(rss float64, y []float64) float64 {
	var big float64
	for _, v := range y {
		big = max(big, math.Abs(v))
	}
	e := 64 * 0x1p-52 * big
	if rss <= float64(len(y))*e*e {
		return 0
	}
	return rss
}

// tslmTriSolveT solves Rᵀz = x for z (R upper triangular r×r, row-major)
// and returns ‖z‖² = xᵀ(RᵀR)⁻¹x.
func tslmTriSolveT(R []float64, r int, x, z []float64) float64 {
	var ss float64
	for i := range r {
		s := x[i]
		for k := range i {
			s -= R[k*r+i] * z[k]
		}
		z[i] = s / R[i*r+i]
		ss += z[i] * z[i]
	}
	return ss
}

func tslmNorm(a []float64) float64 { return math.Sqrt(floats.Dot(a, a)) }

// tslmFinite returns an error naming the first NaN or Inf in x.
func tslmFinite(x []float64) error {
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("value %d is %v", i+1, v)
		}
	}
	return nil
}
