package forecast

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/vaticml/vatic/stats"
)

// Season is one seasonal period a contest considers and the suffix its
// seasonal candidates carry (MODELLING §2.6, §2.7): 7 "W", 12 "MA",
// 24 "HD", 168 "HW", 52.18 "WA", 365.25 "A".
type Season struct {
	Period float64
	Code   string
}

// lag is the season's whole number of buckets (52.18 → 52).
func (s Season) lag() int { return int(math.Round(s.Period)) }

// ContestOptions configure Contest.
type ContestOptions struct {
	// Seasons are the seasonal periods to consider, shortest first; a
	// period is used when the fitting part holds two full cycles of it.
	Seasons []Season
	// Holdout is the number of last buckets of the history every
	// candidate is scored on (MODELLING §2.5: the forecast window's
	// length). It must leave at least as many buckets to fit on.
	Holdout int
	// Horizon is the number of buckets after the history the champion
	// forecasts (the window, plus any gap before it).
	Horizon int
	// Xreg holds the regressors over the history, one slice of len(y)
	// values per column, and FutureXreg the same columns over the
	// Horizon buckets. Nil when there are none.
	Xreg, FutureXreg [][]float64
	// Smoothed also runs every candidate on the series with its outliers
	// replaced (Clean; MODELLING §2.4).
	Smoothed bool
	// Seed seeds every random choice (simulated intervals).
	Seed uint64
	// Workers bounds the fits that run at once (≥ 1).
	Workers int
	// Progress, when set, is called after each candidate fit (one
	// candidate on one variant) with the number done and the total; calls
	// are serialised.
	Progress func(done, total int)
}

// Contestant is how one candidate fared on the holdout.
type Contestant struct {
	// Key is the candidate's key with its seasonality suffix:
	// "ETS+MA", "seasonal_mean+W", "ARIMAX", "ENSEMBLE".
	Key string
	// Smoothed says it was fitted on the Smoothed variant.
	Smoothed bool
	// Metrics are the holdout metrics of MODELLING §2.8; empty when Err
	// is set.
	Metrics map[string]float64
	// Err says why the candidate was skipped (a *SkipError) or failed.
	Err error
	// Params is the fitted model's number of parameters.
	Params int
	// Holdout is the forecast of the holdout buckets.
	Holdout Forecast
	// Members names the ensemble's members (ENSEMBLE only).
	Members []string
	// Elapsed is the time its fits took.
	Elapsed time.Duration

	model Model
	cand  *candidate
	vmae  float64 // MAE on the validation window, +Inf when unknown
}

// ContestResult is a contest's outcome.
type ContestResult struct {
	Contestants []Contestant
	// Champion indexes Contestants: the lowest meanAbsoluteError, ties to
	// fewer parameters, then to the unsmoothed variant.
	Champion int
	// Model is the champion refitted on the whole history (of its
	// variant), and Forecast its forecast of Horizon buckets. The model
	// of a candidate that takes no regressors is wrapped so that its
	// Forecast ignores them.
	Model    Model
	Forecast Forecast
	// Outliers are the history's time-series outliers (MODELLING §4),
	// found when Smoothed is set.
	Outliers Outliers
}

// Metric keys of forecast sessions (MODELLING §2.8).
const (
	MeanAbsoluteError        = stats.MeanAbsoluteError
	RootMeanSquareError      = stats.RootMeanSquareError
	MeanAbsolutePercentError = stats.MeanAbsolutePercentError
	MeanAbsoluteScaledError  = "meanAbsoluteScaledError"
	RSquared                 = stats.RSquared
)

// ErrNoChampion is returned when every candidate was skipped or failed.
var ErrNoChampion = errors.New("forecast: no candidate could be fitted")

// candidate is one member of the line-up: fit searches the method's
// form on a series, refit re-estimates that form on another one.
type candidate struct {
	key   string
	fit   func(y []float64, xreg [][]float64) (Model, error)
	refit func(m Model, y []float64, xreg [][]float64) (Model, error)
}

// variant is a series the candidates are fitted on.
type variant struct {
	smoothed bool
	y        []float64
}

// Contest runs the time-series contest of MODELLING §2.5 on a history y
// (regular, imputed, oldest first): every candidate of the line-up on
// each variant is fitted on y without its last Holdout buckets and scored
// on them against the raw values; an ENSEMBLE per variant takes the
// median of the three candidates that forecast best a validation window
// cut from the end of the fitting part (its last 20 %, at most Holdout
// buckets; never the holdout). The champion is refitted, same form, on
// the whole history and forecasts Horizon buckets.
func Contest(y []float64, opt ContestOptions) (*ContestResult, error) {
	return ContestContext(context.Background(), y, opt)
}

// ContestContext is Contest that stops early when ctx is done: no new fit
// starts, the ones running end (a single fit is not interrupted; the
// longest, auto-ARIMA on 2000 buckets, takes about a second), and it
// returns ctx's error without refitting a champion.
func ContestContext(ctx context.Context, y []float64, opt ContestOptions) (*ContestResult, error) {
	n := len(y)
	h := opt.Holdout
	if h < 1 || opt.Horizon < 1 {
		return nil, fmt.Errorf("forecast: contest: holdout %d and horizon %d must be positive", h, opt.Horizon)
	}
	if n < 2*h {
		return nil, fmt.Errorf("forecast: contest: %d buckets of history, need at least twice the holdout of %d", n, h)
	}
	for _, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, errors.New("forecast: contest: the history has a missing or infinite value")
		}
	}
	if err := checkXreg(opt.Xreg, n, "history"); err != nil {
		return nil, err
	}
	if err := checkXreg(opt.FutureXreg, opt.Horizon, "horizon"); err != nil {
		return nil, err
	}
	if len(opt.Xreg) != len(opt.FutureXreg) {
		return nil, fmt.Errorf("forecast: contest: %d regressors over the history, %d over the horizon", len(opt.Xreg), len(opt.FutureXreg))
	}
	res := &ContestResult{}
	variants := []variant{{y: y}}
	if opt.Smoothed {
		period := 1
		if len(opt.Seasons) > 0 && opt.Seasons[0].lag() < n/2 {
			period = opt.Seasons[0].lag()
		}
		if o, err := TSOutliers(y, period); err == nil && len(o.Index) > 0 {
			res.Outliers = o
			clean := slices.Clone(y)
			for i, t := range o.Index {
				clean[t] = o.Replacement[i]
			}
			variants = append(variants, variant{smoothed: true, y: clean})
		}
	}
	train := n - h
	cands := lineup(opt, train)
	xtrain, xhold := splitXreg(opt.Xreg, train)
	v := min(h, max(1, train/5))

	type job struct{ vi, ci int }
	var jobs []job
	for vi := range variants {
		for ci := range cands {
			jobs = append(jobs, job{vi, ci})
		}
	}
	out := make([]Contestant, len(jobs))
	xval, _ := splitXreg(xtrain, train-v)
	_, xvalFuture := splitXreg(xtrain, train-v)
	run := func(j job) {
		c := &cands[j.ci]
		vr := variants[j.vi]
		ct := Contestant{Key: c.key, Smoothed: vr.smoothed, cand: c, vmae: math.Inf(1)}
		start := time.Now()
		defer func() {
			if p := recover(); p != nil {
				ct.Err = fmt.Errorf("forecast: %s panicked: %v\n%s", c.key, p, debug.Stack())
				ct.Metrics = nil
			}
			ct.Elapsed = time.Since(start)
			out[j.vi*len(cands)+j.ci] = ct
		}()
		m, err := c.fit(vr.y[:train], xtrain)
		if err != nil {
			ct.Err = err
			return
		}
		f, err := m.Forecast(h, xhold)
		if err != nil {
			ct.Err = err
			return
		}
		ct.model, ct.Holdout, ct.Params = m, f, m.NumParams()
		ct.Metrics = Metrics(y[train:], f.Mean, vr.y[:train])
		// The validation window ranks the ensemble's members.
		if vm, err := c.refit(m, vr.y[:train-v], xval); err == nil {
			if vf, err := vm.Forecast(v, xvalFuture); err == nil {
				ct.vmae = mae(y[train-v:train], vf.Mean)
			}
		}
	}
	workers := max(opt.Workers, 1)
	ch := make(chan job)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range min(workers, len(jobs)) {
		wg.Go(func() {
			for j := range ch {
				if ctx.Err() != nil {
					continue // sent as ctx was done
				}
				run(j)
				if opt.Progress != nil {
					mu.Lock()
					done++
					opt.Progress(done, len(jobs))
					mu.Unlock()
				}
			}
		})
	}
dispatch:
	for _, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		select {
		case ch <- j:
		case <-ctx.Done():
			break dispatch
		}
	}
	close(ch)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	for vi, vr := range variants {
		out = append(out, ensemble(out[vi*len(cands):(vi+1)*len(cands)], vr, y, train, h))
	}
	res.Contestants = out
	res.Champion = champion(out)
	if res.Champion < 0 {
		return res, ErrNoChampion
	}
	ch0 := &out[res.Champion]
	full := y
	if ch0.Smoothed {
		full = variants[len(variants)-1].y
	}
	m, f, err := refitChampion(ch0, full, opt)
	if err != nil {
		return res, fmt.Errorf("forecast: refit the champion %s: %w", ch0.Key, err)
	}
	res.Model, res.Forecast = m, f
	return res, nil
}

func checkXreg(x [][]float64, n int, what string) error {
	for j, col := range x {
		if len(col) != n {
			return fmt.Errorf("forecast: contest: regressor %d has %d values over the %s of %d buckets", j, len(col), what, n)
		}
		for _, v := range col {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("forecast: contest: regressor %d has a missing or infinite value", j)
			}
		}
	}
	return nil
}

// splitXreg cuts regressor columns at row k.
func splitXreg(x [][]float64, k int) (head, tail [][]float64) {
	if x == nil {
		return nil, nil
	}
	head, tail = make([][]float64, len(x)), make([][]float64, len(x))
	for j, col := range x {
		head[j], tail[j] = col[:k], col[k:]
	}
	return head, tail
}

// ensemble builds a variant's ENSEMBLE contestant from its candidates:
// the three with the lowest validation MAE (ties by key), combined by
// the median of their holdout forecasts, level by level.
func ensemble(cs []Contestant, vr variant, y []float64, train, h int) Contestant {
	ct := Contestant{Key: "ENSEMBLE", Smoothed: vr.smoothed, vmae: math.Inf(1)}
	var ranked []*Contestant
	for i := range cs {
		if cs[i].Err == nil && !math.IsInf(cs[i].vmae, 1) && !math.IsNaN(cs[i].vmae) {
			ranked = append(ranked, &cs[i])
		}
	}
	sort.SliceStable(ranked, func(a, b int) bool {
		if ranked[a].vmae != ranked[b].vmae {
			return ranked[a].vmae < ranked[b].vmae
		}
		return ranked[a].Key < ranked[b].Key
	})
	if len(ranked) < 3 {
		ct.Err = skip("ENSEMBLE", "needs three candidates scored on the validation window (%d were)", len(ranked))
		return ct
	}
	members := ranked[:3]
	fs := make([]Forecast, len(members))
	for i, m := range members {
		fs[i] = m.Holdout
		ct.Members = append(ct.Members, m.Key)
		ct.Params += m.Params
		ct.Elapsed += m.Elapsed
	}
	ct.Holdout = medianForecast(fs)
	ct.Metrics = Metrics(y[train:train+h], ct.Holdout.Mean, vr.y[:train])
	ct.model = &EnsembleModel{members: []Model{members[0].model, members[1].model, members[2].model}}
	ct.cand = &candidate{key: "ENSEMBLE"}
	memberCands := []*candidate{members[0].cand, members[1].cand, members[2].cand}
	ct.cand.refit = func(m Model, y []float64, xreg [][]float64) (Model, error) {
		em := m.(*EnsembleModel)
		out := &EnsembleModel{}
		for i, mm := range em.members {
			r, err := memberCands[i].refit(mm, y, xreg)
			if err != nil {
				return nil, err
			}
			out.members = append(out.members, r)
		}
		return out, nil
	}
	return ct
}

// EnsembleModel is the median of its members' forecasts (MODELLING §2.7,
// ENSEMBLE), quantile level by quantile level.
type EnsembleModel struct{ members []Model }

// Key is "ENSEMBLE".
func (m *EnsembleModel) Key() string { return "ENSEMBLE" }

// NumParams sums the members'.
func (m *EnsembleModel) NumParams() int {
	n := 0
	for _, mm := range m.members {
		n += mm.NumParams()
	}
	return n
}

// Forecast is the median of the members' forecasts.
func (m *EnsembleModel) Forecast(h int, xreg [][]float64) (Forecast, error) {
	fs := make([]Forecast, len(m.members))
	for i, mm := range m.members {
		f, err := mm.Forecast(h, xreg)
		if err != nil {
			return Forecast{}, err
		}
		fs[i] = f
	}
	return medianForecast(fs), nil
}

func medianForecast(fs []Forecast) Forecast {
	h := len(fs[0].Mean)
	med := func(get func(Forecast) []float64) []float64 {
		out := make([]float64, h)
		col := make([]float64, len(fs))
		for t := range h {
			for i, f := range fs {
				col[i] = get(f)[t]
			}
			slices.Sort(col)
			out[t] = Quantile7(col, 0.5)
		}
		return out
	}
	out := Forecast{Mean: med(func(f Forecast) []float64 { return f.Mean })}
	for i := range Levels {
		out.Quantiles[i] = med(func(f Forecast) []float64 { return f.Quantiles[i] })
	}
	copy(out.Quantiles[MedianLevel], out.Mean)
	SortQuantiles(&out)
	return out
}

// champion picks the lowest MAE; ties go to fewer parameters, then to the
// unsmoothed variant, then to the earlier contestant. -1 when none
// succeeded.
func champion(cs []Contestant) int {
	best := -1
	for i, c := range cs {
		mae, ok := c.Metrics[MeanAbsoluteError]
		if c.Err != nil || !ok {
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		b := cs[best]
		bm := b.Metrics[MeanAbsoluteError]
		switch {
		case mae < bm:
			best = i
		case mae == bm && c.Params < b.Params:
			best = i
		case mae == bm && c.Params == b.Params && !c.Smoothed && b.Smoothed:
			best = i
		}
	}
	return best
}

func refitChampion(c *Contestant, y []float64, opt ContestOptions) (Model, Forecast, error) {
	m, err := c.cand.refit(c.model, y, opt.Xreg)
	if err != nil {
		return nil, Forecast{}, err
	}
	f, err := m.Forecast(opt.Horizon, opt.FutureXreg)
	return m, f, err
}

// Metrics scores a forecast yhat of actuals y with the keys of MODELLING
// §2.8; train is the series the model was fitted on, whose in-sample
// one-step naive MAE scales MASE. A metric that is not finite is left
// out, and rSquared (the squared correlation) is left out when y or yhat
// is constant.
func Metrics(y, yhat, train []float64) map[string]float64 {
	out := stats.RegressionMetrics(y, yhat)
	delete(out, stats.RSquared)
	var d float64
	for t := 1; t < len(train); t++ {
		d += math.Abs(train[t] - train[t-1])
	}
	if len(train) > 1 && d > 0 {
		out[MeanAbsoluteScaledError] = out[MeanAbsoluteError] / (d / float64(len(train)-1))
	}
	if r, ok := corr(y, yhat); ok {
		out[RSquared] = r * r
	}
	return out
}

func corr(a, b []float64) (float64, bool) {
	n := float64(len(a))
	if len(a) < 2 {
		return 0, false
	}
	var ma, mb float64
	for i := range a {
		ma += a[i]
		mb += b[i]
	}
	ma /= n
	mb /= n
	var sab, saa, sbb float64
	for i := range a {
		da, db := a[i]-ma, b[i]-mb
		sab += da * db
		saa += da * da
		sbb += db * db
	}
	if saa == 0 || sbb == 0 {
		return 0, false
	}
	r := sab / math.Sqrt(saa*sbb)
	return r, !math.IsNaN(r)
}

func mae(y, yhat []float64) float64 {
	var s float64
	for i := range y {
		s += math.Abs(y[i] - yhat[i])
	}
	return s / float64(len(y))
}

// suffix is a seasonal key's suffix: "+MA".
func suffix(s Season) string { return "+" + s.Code }

// seasonalKey joins a base key and a season.
func seasonalKey(base string, s Season) string { return base + suffix(s) }

// lineup is the candidate list of MODELLING §2.7 for a fitting part of
// train buckets: the baselines, Theta, naive2, and per season with two
// full cycles in the fitting part the seasonal ones.
func lineup(opt ContestOptions, train int) []candidate {
	var seasons []Season
	for _, s := range opt.Seasons {
		if s.lag() >= 2 && 2*s.lag() <= train {
			seasons = append(seasons, s)
		}
	}
	first := 1
	if len(seasons) > 0 {
		first = seasons[0].lag()
	}
	cs := []candidate{
		simple("naive", func(y []float64) (Model, error) { return Naive(y) }),
		simple("naive2", func(y []float64) (Model, error) { return Naive2(y, first) }),
		simple("theta", func(y []float64) (Model, error) { return Theta(y, first) }),
	}
	for _, s := range seasons {
		m := s.lag()
		cs = append(cs,
			simple(seasonalKey("seasonal_naive", s), func(y []float64) (Model, error) { return SeasonalNaive(y, m) }),
			simple(seasonalKey("seasonal_mean", s), func(y []float64) (Model, error) { return SeasonalMean(y, m) }),
			simple(seasonalKey("seasonal_median", s), func(y []float64) (Model, error) { return SeasonalMedian(y, m) }),
		)
	}
	cs = append(cs, etsCandidates(opt, seasons)...)
	cs = append(cs, stlCandidates(opt, seasons)...)
	cs = append(cs, arimaCandidates(opt, seasons)...)
	cs = append(cs, tslmCandidates(opt, seasons)...)
	// Keys stay unique when two seasons share a code.
	seen := map[string]int{}
	for i := range cs {
		if k := seen[cs[i].key]; k > 0 {
			cs[i].key += strings.Repeat("'", k)
		}
		seen[cs[i].key]++
	}
	return cs
}

// simple is a candidate without hyper-parameters: a refit fits again.
func simple(key string, fit func(y []float64) (Model, error)) candidate {
	f := func(y []float64, _ [][]float64) (Model, error) { return fit(y) }
	return withoutXreg(candidate{key: key, fit: f, refit: func(_ Model, y []float64, x [][]float64) (Model, error) { return f(y, x) }})
}

// univariate is a model of a candidate that takes no regressors: its
// forecast ignores them, so that with regressors in the contest it still
// competes, and joins an ensemble, beside the models that use them.
type univariate struct{ Model }

// Forecast forecasts without the regressors.
func (u univariate) Forecast(h int, _ [][]float64) (Forecast, error) { return u.Model.Forecast(h, nil) }

// withoutXreg makes a candidate that takes no regressors fit, refit and
// forecast without them: its refit sees its own model, unwrapped.
func withoutXreg(c candidate) candidate {
	fit, refit := c.fit, c.refit
	wrap := func(m Model, err error) (Model, error) {
		if err != nil {
			return nil, err
		}
		return univariate{m}, nil
	}
	c.fit = func(y []float64, _ [][]float64) (Model, error) { return wrap(fit(y, nil)) }
	c.refit = func(m Model, y []float64, _ [][]float64) (Model, error) {
		if u, ok := m.(univariate); ok {
			m = u.Model
		}
		return wrap(refit(m, y, nil))
	}
	return c
}

// etsMaxPeriod is the longest season ETS models (R's ets() refuses longer
// ones; STL-ETS covers them).
const etsMaxPeriod = 24

// etsCandidates are ETS per season up to etsMaxPeriod ("ETS+MA": the
// automatic choice over every form with that season or none), or "ETS"
// (non-seasonal forms) when there is no such season.
func etsCandidates(opt ContestOptions, seasons []Season) []candidate {
	var out []candidate
	add := func(key string, period int) {
		out = append(out, withoutXreg(candidate{key: key,
			fit: func(y []float64, _ [][]float64) (Model, error) {
				return ETS(y, period, ETSOptions{Seed: opt.Seed})
			},
			refit: func(m Model, y []float64, _ [][]float64) (Model, error) { return m.(*ETSModel).Refit(y) },
		}))
	}
	for _, s := range seasons {
		if s.lag() <= etsMaxPeriod {
			add(seasonalKey("ETS", s), s.lag())
		}
	}
	if len(out) == 0 {
		add("ETS", 1)
	}
	return out
}

// stlCandidates are STL-ETS per season that has more than two full
// cycles in the fitting part (MSTL's need).
func stlCandidates(opt ContestOptions, seasons []Season) []candidate {
	var out []candidate
	for _, s := range seasons {
		m := s.lag()
		key := seasonalKey("STL-ETS", s)
		out = append(out, withoutXreg(candidate{key: key,
			fit: func(y []float64, _ [][]float64) (Model, error) {
				return STLModelFit(y, m, "STL-ETS", func(adj []float64) (Model, error) {
					return ETSNonSeasonal(adj, ETSOptions{Seed: opt.Seed})
				})
			},
			refit: func(old Model, y []float64, _ [][]float64) (Model, error) {
				inner := old.(*STLModel).Inner.(*ETSModel)
				return STLModelFit(y, m, "STL-ETS", func(adj []float64) (Model, error) { return inner.Refit(adj) })
			},
		}))
	}
	return out
}

// tslmCandidates are TSLM per season (trend, seasonal dummies up to 24
// seasons or Fourier pairs with K by AICc, and the regressors), "TSLM"
// (trend and regressors) without seasons, and "LM" (regressors only)
// when there are regressors.
func tslmCandidates(opt ContestOptions, seasons []Season) []candidate {
	refit := func(m Model, y []float64, x [][]float64) (Model, error) { return m.(*TSLMModel).Refit(y, x) }
	var out []candidate
	for _, s := range seasons {
		o := TSLMOptions{}
		if s.Period != float64(s.lag()) {
			o.FourierPeriod = s.Period
		}
		m := s.lag()
		out = append(out, candidate{key: seasonalKey("TSLM", s), refit: refit,
			fit: func(y []float64, x [][]float64) (Model, error) { return TSLM(y, m, x, o) }})
	}
	if len(seasons) == 0 {
		out = append(out, candidate{key: "TSLM", refit: refit,
			fit: func(y []float64, x [][]float64) (Model, error) { return TSLM(y, 1, x, TSLMOptions{}) }})
	}
	if len(opt.Xreg) > 0 {
		out = append(out, candidate{key: "LM", refit: refit,
			fit: func(y []float64, x [][]float64) (Model, error) { return LM(y, x) }})
	}
	return out
}

// arimaMaxPeriod is the longest season seasonal ARIMA models in the
// contest; longer ones (52, 168, 365) go through STL-ARIMA (MODELLING §2.7).
const arimaMaxPeriod = 24

// arimaCandidates are auto-ARIMA per season up to arimaMaxPeriod
// ("ARIMA+MA", or "ARIMAX+MA" with regressors), or non-seasonal "ARIMA"
// when there is no such season, and STL-ARIMA per season.
func arimaCandidates(opt ContestOptions, seasons []Season) []candidate {
	base := "ARIMA"
	if len(opt.Xreg) > 0 {
		base = "ARIMAX"
	}
	refit := func(m Model, y []float64, x [][]float64) (Model, error) { return m.(*ARIMAModel).Refit(y, x) }
	var out []candidate
	add := func(key string, period int) {
		out = append(out, candidate{key: key, refit: refit,
			fit: func(y []float64, x [][]float64) (Model, error) {
				return AutoARIMA(y, period, x, DefaultAutoARIMAOptions())
			}})
	}
	for _, s := range seasons {
		if s.lag() <= arimaMaxPeriod {
			add(seasonalKey(base, s), s.lag())
		}
	}
	if len(out) == 0 {
		add(base, 1)
	}
	for _, s := range seasons {
		m := s.lag()
		out = append(out, candidate{key: seasonalKey("STL-"+base, s),
			fit: func(y []float64, x [][]float64) (Model, error) {
				return STLModelFit(y, m, "STL-"+base, func(adj []float64) (Model, error) {
					o := DefaultAutoARIMAOptions()
					o.NonSeasonal = true
					return AutoARIMA(adj, 1, x, o)
				})
			},
			refit: func(old Model, y []float64, x [][]float64) (Model, error) {
				inner := old.(*STLModel).Inner.(*ARIMAModel)
				return STLModelFit(y, m, "STL-"+base, func(adj []float64) (Model, error) { return inner.Refit(adj, x) })
			},
		})
	}
	return out
}
