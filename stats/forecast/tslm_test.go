package forecast

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var _ Model = (*TSLMModel)(nil)

// tslmRef is testdata/tslm_reference.json, written by tslm_reference.R.
type tslmRef struct {
	R        string    `json:"r"`
	Forecast string    `json:"forecast"`
	Levels   []float64 `json:"levels"` // 60, 90, 98
	Fourier  []struct {
		Name     string      `json:"name"`
		N        int         `json:"n"`
		Period   float64     `json:"period"`
		K        int         `json:"K"`
		H        int         `json:"h"`
		Colnames []string    `json:"colnames"`
		Columns  [][]float64 `json:"columns"`
	} `json:"fourier"`
	Fits []tslmRefFit `json:"fits"`
}

// tslmRefFit is one tslm() fit and its forecast. R's -Inf and NaN are
// JSON nulls (nil pointers).
type tslmRefFit struct {
	Name          string      `json:"name"`
	Y             []float64   `json:"y"`
	Period        float64     `json:"period"`
	H             int         `json:"h"`
	Trend         bool        `json:"trend"`
	Season        string      `json:"season"`
	K             int         `json:"K"`
	FourierPeriod float64     `json:"fourier_period"`
	AutoK         bool        `json:"auto_K"`
	AICcByK       []float64   `json:"aicc_by_K"`
	CoefNames     []string    `json:"coef_names"`
	Coef          []float64   `json:"coef"`
	Aliased       []string    `json:"aliased"`
	Rank          int         `json:"rank"`
	DF            int         `json:"df"`
	Sigma         float64     `json:"sigma"`
	CV            *float64    `json:"cv"`
	AIC           *float64    `json:"aic"`
	AICc          *float64    `json:"aicc"`
	BIC           *float64    `json:"bic"`
	AdjR2         *float64    `json:"adjr2"`
	Fitted        []float64   `json:"fitted"`
	Mean          []float64   `json:"mean"`
	Lower         [][]float64 `json:"lower"` // per level of tslmRef.Levels
	Upper         [][]float64 `json:"upper"`
	Xreg          [][]float64 `json:"xreg"`
	XregFuture    [][]float64 `json:"xreg_future"`
}

var tslmReference = sync.OnceValues(func() (*tslmRef, error) {
	b, err := os.ReadFile("testdata/tslm_reference.json")
	if err != nil {
		return nil, err
	}
	var r tslmRef
	return &r, json.Unmarshal(b, &r)
})

func loadTSLMRef(t testing.TB) *tslmRef {
	t.Helper()
	r, err := tslmReference()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// tslmClose reports whether got is within tol of want relative to
// max(|want|, scale): scale is the size of the quantity's neighbours (the
// largest coefficient, the series level), so that a value that is zero up
// to rounding in R (a coefficient of 1e-16) is not compared relative to
// itself.
func tslmClose(got, want, tol, scale float64) bool {
	if math.IsInf(want, 0) || math.IsNaN(want) {
		return got == want || math.IsNaN(got) && math.IsNaN(want)
	}
	return math.Abs(got-want) <= tol*max(math.Abs(want), scale)
}

func maxAbs(x []float64) float64 {
	var m float64
	for _, v := range x {
		m = max(m, math.Abs(v))
	}
	return m
}

func TestFourierMatchesR(t *testing.T) {
	ref := loadTSLMRef(t)
	for _, c := range ref.Fourier {
		t.Run(c.Name, func(t *testing.T) {
			var got [][]float64
			if c.H == 0 {
				got = Fourier(c.N, c.Period, c.K, 0)
			} else {
				got = Fourier(c.H, c.Period, c.K, c.N)
			}
			if names := FourierNames(c.Period, c.K); !slices.Equal(names, c.Colnames) {
				t.Errorf("names %q, R %q", names, c.Colnames)
			}
			if len(got) != len(c.Columns) {
				t.Fatalf("%d columns, R %d", len(got), len(c.Columns))
			}
			// Values in [-1, 1] computed by the same sinpi/cospi
			// reduction as R: they agree to the last bits of libm's sin
			// and cos.
			const tol = 1e-13
			for j := range got {
				if len(got[j]) != len(c.Columns[j]) {
					t.Fatalf("column %d: %d rows, R %d", j, len(got[j]), len(c.Columns[j]))
				}
				for i, w := range c.Columns[j] {
					if math.Abs(got[j][i]-w) > tol {
						t.Fatalf("column %s row %d: %v, R %v", c.Colnames[j], i+1, got[j][i], w)
					}
				}
			}
		})
	}
}

func TestFourierInvalid(t *testing.T) {
	for _, c := range []struct {
		period float64
		K      int
	}{{12, 0}, {12, 7}, {1, 1}, {0, 1}, {-12, 1}, {math.Inf(1), 1}, {math.NaN(), 1}, {3.9, 2}} {
		if f := Fourier(10, c.period, c.K, 0); f != nil {
			t.Errorf("Fourier(10, %v, %d) = %d columns, want nil", c.period, c.K, len(f))
		}
		if f := FourierNames(c.period, c.K); f != nil {
			t.Errorf("FourierNames(%v, %d) = %q, want nil", c.period, c.K, f)
		}
	}
	if f := Fourier(0, 12, 2, 5); len(f) != 4 || len(f[0]) != 0 {
		t.Errorf("Fourier(0, 12, 2, 5) = %v, want 4 empty columns", f)
	}
	// Exact values at multiples of a quarter turn (R's sinpi/cospi).
	f := Fourier(4, 4, 1, 0)
	want := [][]float64{{1, 0, -1, 0}, {0, -1, 0, 1}}
	for j := range want {
		if !slices.Equal(f[j], want[j]) {
			t.Errorf("Fourier(4, 4, 1, 0) column %d = %v, want %v", j, f[j], want[j])
		}
	}
}

// tslmOptionsOf returns the TSLM options of a reference fit (K as R used
// it; the caller zeroes it to test the choice).
func tslmOptionsOf(t *testing.T, c tslmRefFit) (int, TSLMOptions) {
	t.Helper()
	opt := TSLMOptions{NoTrend: !c.Trend, K: c.K}
	switch c.Season {
	case "none":
		opt.Season = TSLMSeasonNone
	case "dummies":
		opt.Season = TSLMSeasonDummies
	case "fourier":
		opt.Season = TSLMSeasonFourier
		opt.FourierPeriod = c.FourierPeriod
	default:
		t.Fatalf("season %q", c.Season)
	}
	// The xreg names are R's variable names: the coefficient names after
	// the intercept, trend and seasonal ones.
	if len(c.Xreg) > 0 {
		all := append(slices.Clone(c.CoefNames), c.Aliased...)
		opt.XregNames = all[len(all)-len(c.Xreg):]
	}
	return int(c.Period), opt
}

// rLevelIndex maps the R levels 60, 90, 98 to the indices of their lower
// and upper quantiles in Levels.
var rLevelIndex = map[float64][2]int{60: {2, 4}, 90: {1, 5}, 98: {0, 6}}

// TestTSLMMatchesR compares every reference fit: coefficients, aliased
// columns, rank, σ, CV()'s criteria, fitted values, point forecasts and the
// 60/90/98 % bounds. Tolerance 1e-8 relative (the brief's): our QR is
// LAPACK's Householder, R's is LINPACK's, so the two agree to rounding
// (observed 1e-11 and better), not bit for bit. Coefficients are compared
// relative to the largest coefficient as well as to themselves, since a
// coefficient that is 1e-4 of its neighbours carries their absolute
// rounding error.
func TestTSLMMatchesR(t *testing.T) {
	ref := loadTSLMRef(t)
	const tol = 1e-8
	for _, c := range ref.Fits {
		t.Run(c.Name, func(t *testing.T) {
			period, opt := tslmOptionsOf(t, c)
			if s, ok := map[string]string{"AirPassengers": "AirPassengers", "USAccDeaths": "USAccDeaths", "co2_fourier_K2": "co2"}[c.Name]; ok {
				if x := LoadSeries(t, s).X; !slices.Equal(x, c.Y) {
					t.Fatalf("the reference's y differs from series.json's %s", s)
				}
			}
			m, err := TSLM(c.Y, period, c.Xreg, opt)
			if err != nil {
				t.Fatal(err)
			}
			checkTSLMFit(t, m, c, ref.Levels, tol)
		})
	}
}

func checkTSLMFit(t *testing.T, m *TSLMModel, c tslmRefFit, levels []float64, tol float64) {
	t.Helper()
	var kept []string
	var coef []float64
	for j, name := range m.Names {
		if !math.IsNaN(m.Coef[j]) {
			kept, coef = append(kept, name), append(coef, m.Coef[j])
		}
	}
	if len(kept) != len(c.CoefNames) {
		t.Fatalf("coefficients %q, R %q", kept, c.CoefNames)
	}
	for j, name := range kept {
		// R prefixes Fourier columns with the call: "fourier(y, K = K)S1-12".
		if !strings.HasSuffix(c.CoefNames[j], name) {
			t.Errorf("coefficient %d is %q, R %q", j, name, c.CoefNames[j])
		}
	}
	if !slices.Equal(m.Aliased, c.Aliased) && len(m.Aliased)+len(c.Aliased) > 0 {
		t.Errorf("aliased %q, R %q", m.Aliased, c.Aliased)
	}
	if m.Rank != c.Rank || m.DF != c.DF {
		t.Errorf("rank %d df %d, R %d %d", m.Rank, m.DF, c.Rank, c.DF)
	}
	scale := maxAbs(c.Coef)
	for j := range coef {
		if !tslmClose(coef[j], c.Coef[j], tol, scale*1e-3) {
			t.Errorf("coefficient %s = %.12g, R %.12g (rel. diff %.2g)", kept[j], coef[j], c.Coef[j], math.Abs(coef[j]/c.Coef[j]-1))
		}
	}
	level := maxAbs(c.Y)
	if !tslmClose(m.Sigma, c.Sigma, tol, level*1e-12) {
		t.Errorf("sigma %.12g, R %.12g", m.Sigma, c.Sigma)
	}
	for _, cr := range []struct {
		name string
		got  float64
		want *float64
	}{{"CV", m.Criteria.CV, c.CV}, {"AIC", m.Criteria.AIC, c.AIC}, {"AICc", m.Criteria.AICc, c.AICc}, {"BIC", m.Criteria.BIC, c.BIC}, {"AdjR2", m.Criteria.AdjR2, c.AdjR2}} {
		switch {
		case cr.want != nil:
			if !tslmClose(cr.got, *cr.want, tol, 0) {
				t.Errorf("%s %.12g, R %.12g", cr.name, cr.got, *cr.want)
			}
		case cr.name == "AIC" || cr.name == "AICc" || cr.name == "BIC":
			// R: -Inf (an exact fit).
			if !math.IsInf(cr.got, -1) {
				t.Errorf("%s %v, R -Inf", cr.name, cr.got)
			}
		}
	}
	for i, w := range c.Fitted {
		if !tslmClose(m.Fitted[i], w, tol, level*1e-6) {
			t.Fatalf("fitted[%d] %.12g, R %.12g", i, m.Fitted[i], w)
		}
	}
	f, err := m.Forecast(c.H, c.XregFuture)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range c.Mean {
		if !tslmClose(f.Mean[i], w, tol, level*1e-6) {
			t.Errorf("mean[%d] %.12g, R %.12g", i, f.Mean[i], w)
		}
		if f.Quantiles[MedianLevel][i] != f.Mean[i] {
			t.Errorf("median[%d] %v is not the mean %v", i, f.Quantiles[MedianLevel][i], f.Mean[i])
		}
	}
	for l, lev := range levels {
		idx := rLevelIndex[lev]
		for i := range c.Mean {
			if g, w := f.Quantiles[idx[0]][i], c.Lower[l][i]; !tslmClose(g, w, tol, level*1e-6) {
				t.Errorf("%v%% lower[%d] %.12g, R %.12g", lev, i, g, w)
			}
			if g, w := f.Quantiles[idx[1]][i], c.Upper[l][i]; !tslmClose(g, w, tol, level*1e-6) {
				t.Errorf("%v%% upper[%d] %.12g, R %.12g", lev, i, g, w)
			}
		}
	}
}

// TestTSLMChoosesKAsR: with K = 0 the Fourier order is the one of least
// CV()-AICc over 1…⌊P/2⌋, as the reference loop in R finds it, and every
// AICc of the search matches R's tslm(y ~ trend + fourier(y, K)).
func TestTSLMChoosesKAsR(t *testing.T) {
	ref := loadTSLMRef(t)
	n := 0
	for _, c := range ref.Fits {
		if !c.AutoK {
			continue
		}
		n++
		t.Run(c.Name, func(t *testing.T) {
			period, opt := tslmOptionsOf(t, c)
			opt.K = 0
			m, err := TSLM(c.Y, period, c.Xreg, opt)
			if err != nil {
				t.Fatal(err)
			}
			if m.Options.K != c.K {
				t.Errorf("chose K = %d, R's AICc chooses %d", m.Options.K, c.K)
			}
			if len(m.AICcByK) != len(c.AICcByK) {
				t.Fatalf("AICc of %d K, R %d", len(m.AICcByK), len(c.AICcByK))
			}
			for k, w := range c.AICcByK {
				// The search's RSS comes from the Gram–Schmidt pass, not
				// the final QR: still far within 1e-8.
				if !tslmClose(m.AICcByK[k], w, 1e-8, 0) {
					t.Errorf("AICc(K=%d) %.12g, R %.12g", k+1, m.AICcByK[k], w)
				}
			}
			checkTSLMFit(t, m, c, ref.Levels, 1e-8)
		})
	}
	if n < 2 {
		t.Fatalf("%d reference fits with K chosen, want 2", n)
	}
}

// TestTSLMSeasonalMean: with only seasonal dummies (no trend) the forecast
// is the mean of each season's past values, MODELLING §2.7's seasonal_mean.
func TestTSLMSeasonalMean(t *testing.T) {
	for _, name := range []string{"AirPassengers", "USAccDeaths", "nottem", "UKgas"} {
		s := LoadSeries(t, name)
		m := s.Period()
		fit, err := TSLM(s.X, m, nil, TSLMOptions{NoTrend: true, Season: TSLMSeasonDummies})
		if err != nil {
			t.Fatal(err)
		}
		if fit.Key() != "TSLM" || fit.NumParams() != m+1 {
			t.Errorf("%s: key %q, %d params, want TSLM and %d", name, fit.Key(), fit.NumParams(), m+1)
		}
		h := 2*m + 3
		f, err := fit.Forecast(h, nil)
		if err != nil {
			t.Fatal(err)
		}
		n := len(s.X)
		for i := range h {
			var sum float64
			var k int
			for j := (n + i) % m; j < n; j += m {
				sum += s.X[j]
				k++
			}
			if want := sum / float64(k); math.Abs(f.Mean[i]-want) > 1e-9*math.Abs(want) {
				t.Errorf("%s step %d: %v, seasonal mean %v", name, i+1, f.Mean[i], want)
			}
		}
	}
}

func TestTSLMAutoSeason(t *testing.T) {
	s := LoadSeries(t, "co2")
	cases := []struct {
		period int
		opt    TSLMOptions
		season TSLMSeason
		key    string
	}{
		{12, TSLMOptions{}, TSLMSeasonDummies, "TSLM"},
		{1, TSLMOptions{}, TSLMSeasonNone, "TSLM"},
		{1, TSLMOptions{NoTrend: true, Season: TSLMSeasonNone}, TSLMSeasonNone, "LM"},
		{36, TSLMOptions{}, TSLMSeasonFourier, "TSLM"},
		{12, TSLMOptions{FourierPeriod: 12}, TSLMSeasonFourier, "TSLM"},
	}
	for _, c := range cases {
		m, err := TSLM(s.X, c.period, nil, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		if m.Options.Season != c.season || m.Key() != c.key {
			t.Errorf("period %d %+v: season %v key %q, want %v %q", c.period, c.opt, m.Options.Season, m.Key(), c.season, c.key)
		}
		if c.season == TSLMSeasonFourier && (m.Options.K < 1 || len(m.AICcByK) == 0) {
			t.Errorf("period %d: K %d, AICc %v: want a chosen K", c.period, m.Options.K, m.AICcByK)
		}
	}
	// MaxK bounds the search.
	m, err := TSLM(s.X, 12, nil, TSLMOptions{Season: TSLMSeasonFourier, MaxK: 1})
	if err != nil || m.Options.K != 1 || len(m.AICcByK) != 1 {
		t.Errorf("MaxK 1: %v, K %d, %d AICc", err, m.Options.K, len(m.AICcByK))
	}
}

// TestTSLMRefitAndPhase: Refit keeps the chosen K and re-estimates; Phase
// relabels the dummies without changing the forecast.
func TestTSLMRefitAndPhase(t *testing.T) {
	s := LoadSeries(t, "co2")
	n := len(s.X)
	m, err := TSLM(s.X[:n-24], 12, nil, TSLMOptions{Season: TSLMSeasonFourier})
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Refit(s.X, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := TSLM(s.X, 12, nil, TSLMOptions{Season: TSLMSeasonFourier, K: m.Options.K})
	if err != nil {
		t.Fatal(err)
	}
	if r.Options.K != m.Options.K || r.AICcByK != nil || !slices.Equal(r.Coef, want.Coef) {
		t.Errorf("refit K %d coef %v, want K %d coef %v", r.Options.K, r.Coef, m.Options.K, want.Coef)
	}
	if _, err := m.Refit(s.X, [][]float64{s.X}); err == nil {
		t.Error("refit with a regressor the model does not have: no error")
	}

	a, err := TSLM(s.X, 12, nil, TSLMOptions{Season: TSLMSeasonDummies})
	if err != nil {
		t.Fatal(err)
	}
	b, err := TSLM(s.X, 12, nil, TSLMOptions{Season: TSLMSeasonDummies, Phase: 17})
	if err != nil {
		t.Fatal(err)
	}
	if b.Options.Phase != 5 {
		t.Errorf("Phase 17 resolved to %d, want 5", b.Options.Phase)
	}
	fa, _ := a.Forecast(30, nil)
	fb, _ := b.Forecast(30, nil)
	for i := range fa.Mean {
		for l := range Levels {
			if math.Abs(fa.Quantiles[l][i]-fb.Quantiles[l][i]) > 1e-9*fa.Mean[i] {
				t.Fatalf("step %d level %v: phase 0 %v, phase 5 %v", i+1, Levels[l], fa.Quantiles[l][i], fb.Quantiles[l][i])
			}
		}
	}
}

func TestTSLMSkipsAndErrors(t *testing.T) {
	y := LoadSeries(t, "USAccDeaths").X
	isSkip := func(err error) bool { return err != nil && IsSkip(err) }
	isErr := func(err error) bool { return err != nil && !IsSkip(err) }
	nan := slices.Clone(y)
	nan[3] = math.NaN()
	inf := slices.Clone(y)
	inf[5] = math.Inf(-1)
	x := [][]float64{make([]float64, len(y))}
	badX := [][]float64{slices.Clone(y)}
	badX[0][0] = math.NaN()
	for _, c := range []struct {
		name string
		err  error
		want func(error) bool
	}{
		// n ≤ number of coefficients: 14 for trend + 11 dummies + intercept.
		{"n = p", tslmErr(TSLM(y[:13], 12, nil, TSLMOptions{})), isSkip},
		{"n = p+1 fits", tslmErr(TSLM(y[:14], 12, nil, TSLMOptions{})), func(err error) bool { return err == nil }},
		{"empty", tslmErr(TSLM(nil, 12, nil, TSLMOptions{})), isSkip},
		{"one point", tslmErr(TSLM(y[:1], 1, nil, TSLMOptions{})), isSkip},
		{"two points, trend", tslmErr(TSLM(y[:2], 1, nil, TSLMOptions{})), isSkip},
		{"Fourier, too short for K = 1", tslmErr(TSLM(y[:4], 12, nil, TSLMOptions{Season: TSLMSeasonFourier})), isSkip},
		{"dummies, period 1", tslmErr(TSLM(y, 1, nil, TSLMOptions{Season: TSLMSeasonDummies})), isSkip},
		{"Fourier, period 1", tslmErr(TSLM(y, 1, nil, TSLMOptions{Season: TSLMSeasonFourier})), isSkip},
		{"LM without regressors", tslmErr(LM(y, nil)), isSkip},
		{"NaN", tslmErr(TSLM(nan, 12, nil, TSLMOptions{})), isErr},
		{"Inf", tslmErr(TSLM(inf, 12, nil, TSLMOptions{})), isErr},
		{"NaN regressor", tslmErr(TSLM(y, 12, badX, TSLMOptions{})), isErr},
		{"short regressor", tslmErr(TSLM(y, 12, [][]float64{y[1:]}, TSLMOptions{})), isErr},
		{"period 0", tslmErr(TSLM(y, 0, nil, TSLMOptions{})), isErr},
		{"K too large", tslmErr(TSLM(y, 12, nil, TSLMOptions{Season: TSLMSeasonFourier, K: 7})), isErr},
		{"negative K", tslmErr(TSLM(y, 12, nil, TSLMOptions{K: -1})), isErr},
		{"NaN FourierPeriod", tslmErr(TSLM(y, 12, nil, TSLMOptions{FourierPeriod: math.NaN()})), isErr},
		{"names", tslmErr(TSLM(y, 12, x, TSLMOptions{XregNames: []string{"a", "b"}})), isErr},
	} {
		if !c.want(c.err) {
			t.Errorf("%s: error %v", c.name, c.err)
		}
	}

	m, err := TSLM(y, 12, x, TSLMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The zero regressor is aliased (a zero column), reported by name.
	if !slices.Equal(m.Aliased, []string{"xreg1"}) || !math.IsNaN(m.Coef[len(m.Coef)-1]) {
		t.Errorf("zero regressor: aliased %q, coef %v", m.Aliased, m.Coef[len(m.Coef)-1])
	}
	for _, c := range []struct {
		name string
		h    int
		xreg [][]float64
	}{
		{"h 0", 0, [][]float64{{}}},
		{"no future regressor", 3, nil},
		{"short future regressor", 3, [][]float64{{1, 2}}},
		{"NaN future regressor", 2, [][]float64{{1, math.NaN()}}},
	} {
		if _, err := m.Forecast(c.h, c.xreg); err == nil {
			t.Errorf("Forecast %s: no error", c.name)
		}
	}
}

func tslmErr(_ *TSLMModel, err error) error { return err }

// TestTSLMConstantAndZeros: an exact fit gives the constant as forecast
// and every quantile (R's bounds collapse onto the mean: σ = 0), and AICc
// −Inf as R's CV() reports; the K search then keeps K = 1.
func TestTSLMConstantAndZeros(t *testing.T) {
	for _, v := range []float64{0, 42, -3.5e6} {
		y := make([]float64, 60)
		for i := range y {
			y[i] = v
		}
		for _, opt := range []TSLMOptions{{}, {Season: TSLMSeasonFourier}, {NoTrend: true, Season: TSLMSeasonNone}} {
			m, err := TSLM(y, 12, nil, opt)
			if err != nil {
				t.Fatal(err)
			}
			if opt.Season == TSLMSeasonFourier && m.Options.K != 1 {
				t.Errorf("constant %v: chose K = %d, want 1 (ties keep the smallest)", v, m.Options.K)
			}
			if m.Sigma != 0 || !math.IsInf(m.Criteria.AICc, -1) {
				t.Errorf("constant %v %+v: sigma %v AICc %v, want 0 and -Inf", v, opt, m.Sigma, m.Criteria.AICc)
			}
			f, err := m.Forecast(7, nil)
			if err != nil {
				t.Fatal(err)
			}
			for l := range Levels {
				for i := range f.Mean {
					if g := f.Quantiles[l][i]; math.Abs(g-v) > 1e-9*max(1, math.Abs(v)) {
						t.Fatalf("constant %v %+v: level %v step %d = %v", v, opt, Levels[l], i+1, g)
					}
				}
			}
		}
	}
}

// TestTSLMNoPanics fits random finite inputs of every small length, with
// and without regressors (some of them aliased), and forecasts.
func TestTSLMNoPanics(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 40 {
		for _, period := range []int{1, 2, 4, 7, 12, 52} {
			y := make([]float64, n)
			for i := range y {
				switch rng.IntN(4) {
				case 0:
					y[i] = 0
				case 1:
					y[i] = float64(rng.IntN(3))
				default:
					y[i] = rng.NormFloat64() * 1e3
				}
			}
			xs := [][][]float64{nil, {slices.Clone(y)}, {make([]float64, n), make([]float64, n)}}
			for j := range n {
				xs[2][0][j] = float64(j % 2)
				xs[2][1][j] = 1 - float64(j%2)
			}
			for _, x := range xs {
				for _, opt := range []TSLMOptions{{}, {Season: TSLMSeasonFourier}, {Season: TSLMSeasonDummies, NoTrend: true}, {FourierPeriod: 52.18}} {
					m, err := TSLM(y, period, x, opt)
					if err != nil {
						if !IsSkip(err) {
							t.Fatalf("n %d period %d %+v: %v", n, period, opt, err)
						}
						continue
					}
					fx := make([][]float64, len(x))
					for j := range fx {
						fx[j] = make([]float64, 5)
					}
					f, err := m.Forecast(5, fx)
					if err != nil {
						t.Fatal(err)
					}
					for l := range Levels {
						for _, v := range f.Quantiles[l] {
							if math.IsNaN(v) || math.IsInf(v, 0) {
								t.Fatalf("n %d period %d %+v: quantile %v", n, period, opt, v)
							}
						}
					}
				}
			}
		}
	}
}

// tslmLongSeries is an hourly-like series: daily and weekly cycles, a
// trend and noise.
func tslmLongSeries(n int) []float64 {
	rng := rand.New(rand.NewPCG(3, 4))
	y := make([]float64, n)
	for i := range y {
		t := float64(i)
		y[i] = 100 + 0.01*t + 10*math.Sin(2*math.Pi*t/24) + 5*math.Cos(2*math.Pi*t/168) + rng.NormFloat64()
	}
	return y
}

// TestTSLMLongSeries: 10 000 hourly points with the weekly period 168
// (Fourier terms, K searched over 1…84) and the daily one (dummies) stay
// fast.
func TestTSLMLongSeries(t *testing.T) {
	y := tslmLongSeries(10_000)
	start := time.Now()
	m, err := TSLM(y, 168, nil, TSLMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Options.Season != TSLMSeasonFourier || m.Options.K < 1 {
		t.Errorf("season %v K %d", m.Options.Season, m.Options.K)
	}
	d, err := TSLM(y, 24, nil, TSLMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Forecast(48, nil); err != nil {
		t.Fatal(err)
	}
	// About 0.5 s on an idle 2-core machine; the bound leaves room for a
	// busy one.
	if el := time.Since(start); el > 10*time.Second && !tslmRace {
		t.Errorf("took %v", el)
	}
	t.Logf("K = %d for period 168, %v for both fits", m.Options.K, time.Since(start))
}

func BenchmarkTSLM(b *testing.B) {
	co2 := LoadSeries(b, "co2").X
	long := tslmLongSeries(2000)
	for _, c := range []struct {
		name   string
		y      []float64
		period int
		opt    TSLMOptions
	}{
		{"co2/dummies", co2, 12, TSLMOptions{}},
		{"co2/fourier-auto", co2, 12, TSLMOptions{Season: TSLMSeasonFourier}},
		{"n2000/P365.25-fourier-auto", long, 7, TSLMOptions{FourierPeriod: 365.25}},
		{"n2000/P168-fourier-auto", long, 168, TSLMOptions{}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				m, err := TSLM(c.y, c.period, nil, c.opt)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := m.Forecast(24, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
