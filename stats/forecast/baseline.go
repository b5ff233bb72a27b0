package forecast

import (
	"errors"
	"math"
	"slices"
)

var (
	_ Model = (*NaiveModel)(nil)
	_ Model = (*SeasonalMeanModel)(nil)
	_ Model = (*Naive2Model)(nil)
	_ Model = (*ThetaModel)(nil)
)

// NaiveModel is the naive forecast (the last value, R's naive()) or the
// seasonal naive forecast (the value one season back, R's snaive()): a
// random walk with lag Lag, with R's Gaussian prediction intervals.
type NaiveModel struct {
	// Lag is 1 for naive and the seasonal period for seasonal naive.
	Lag int
	// Sigma2 is R's residual variance of the lag walk: the mean of the
	// squared in-sample residuals y[t] − y[t−Lag] (divisor n − Lag, as
	// forecast.lagwalk computes it).
	Sigma2 float64
	last   []float64 // the last Lag observations
}

// Naive fits R's naive(y): the point forecast is the last value and the
// h-step standard deviation is σ√h with σ² the mean squared one-step
// difference (MODELLING §2.7). It needs at least 2 points; NaN or Inf is
// an error.
func Naive(y []float64) (*NaiveModel, error) {
	return naiveFit("naive", y, 1)
}

// SeasonalNaive fits R's snaive(y) for the given period: the point
// forecast repeats the last cycle and the h-step standard deviation is
// σ·√(⌊(h−1)/m⌋+1), σ² the mean squared lag-m difference. It needs
// period ≥ 2 and more than one full cycle (at least one lag-m residual to
// estimate σ; R would return NaN intervals on exactly one cycle).
func SeasonalNaive(y []float64, period int) (*NaiveModel, error) {
	if period < 2 {
		return nil, skip("seasonal_naive", "needs a seasonal period ≥ 2 (period %d)", period)
	}
	return naiveFit("seasonal_naive", y, period)
}

func naiveFit(method string, y []float64, lag int) (*NaiveModel, error) {
	if err := baseFinite(method, y); err != nil {
		return nil, err
	}
	n := len(y)
	if n <= lag {
		if lag == 1 {
			return nil, skip(method, "needs at least 2 points (%d given)", n)
		}
		return nil, skip(method, "needs more than one full cycle of %d points (%d given)", lag, n)
	}
	ss := 0.0
	for t := lag; t < n; t++ {
		d := y[t] - y[t-lag]
		ss += d * d
	}
	return &NaiveModel{Lag: lag, Sigma2: ss / float64(n-lag), last: slices.Clone(y[n-lag:])}, nil
}

// Key is "naive" or "seasonal_naive".
func (m *NaiveModel) Key() string {
	if m.Lag == 1 {
		return "naive"
	}
	return "seasonal_naive"
}

// NumParams is 0: the forecasts are data, nothing is estimated but σ.
func (m *NaiveModel) NumParams() int { return 0 }

// Forecast returns R's forecast: point forecasts repeat the last Lag
// values; the quantiles are Gaussian with R's standard deviations.
func (m *NaiveModel) Forecast(h int, xreg [][]float64) (Forecast, error) {
	if err := baseHorizon(m.Key(), h, xreg); err != nil {
		return Forecast{}, err
	}
	f := Forecast{Mean: make([]float64, h)}
	sd := make([]float64, h)
	for k := range h {
		f.Mean[k] = m.last[k%m.Lag]
		sd[k] = math.Sqrt(m.Sigma2 * float64(k/m.Lag+1))
	}
	GaussianQuantiles(&f, sd)
	return f, nil
}

// Refit fits the same method (same lag) on new data.
func (m *NaiveModel) Refit(y []float64) (*NaiveModel, error) {
	if m.Lag == 1 {
		return Naive(y)
	}
	return SeasonalNaive(y, m.Lag)
}

// SeasonalMeanModel forecasts each future point by the mean (or the
// median) of all past values of the same season, the former service's
// seasonal_mean and seasonal_median (MODELLING §2.6). It has no R
// counterpart in the forecast package; its point forecasts equal R's
// tapply(y, cycle(y), mean) (or median) recycled.
//
// Quantiles (MODELLING §2.9, point-only models): the k-step forecast's
// p-quantile is ŷ(k) plus the type-7 p-quantile of the model's in-sample
// k-step errors on a rolling origin: for every origin o = m, m+1, …, n−k
// (the model refitted on the first o points, at least one full cycle),
// the error y[o+k−1] − ŷ_o(k) (0-based y). For long horizons, where fewer
// than min(10, n−m) such errors exist, the errors of the longest horizon
// that has that many are used instead.
type SeasonalMeanModel struct {
	// Period is the seasonal period m.
	Period int
	// Median is true for seasonal_median.
	Median bool
	// Season[s] is the forecast for the season of 0-based position s mod
	// m, counted from the first observation.
	Season []float64
	y      []float64
	// running[s][c] is the mean (median) of the first c+1 values of season s.
	running [][]float64
}

// SeasonalMean fits the seasonal mean model. It needs period ≥ 2 and more
// than one full cycle (one full cycle to forecast every season, one more
// point for the in-sample errors behind the quantiles).
func SeasonalMean(y []float64, period int) (*SeasonalMeanModel, error) {
	return seasonalMeanFit(y, period, false)
}

// SeasonalMedian fits the seasonal median model (median of the season's
// values, the mean of the two middle ones for an even count, as R's
// median()). Requirements as SeasonalMean.
func SeasonalMedian(y []float64, period int) (*SeasonalMeanModel, error) {
	return seasonalMeanFit(y, period, true)
}

func seasonalMeanFit(y []float64, period int, median bool) (*SeasonalMeanModel, error) {
	key := "seasonal_mean"
	if median {
		key = "seasonal_median"
	}
	if err := baseFinite(key, y); err != nil {
		return nil, err
	}
	if period < 2 {
		return nil, skip(key, "needs a seasonal period ≥ 2 (period %d)", period)
	}
	n := len(y)
	if n <= period {
		return nil, skip(key, "needs more than one full cycle of %d points (%d given)", period, n)
	}
	m := &SeasonalMeanModel{Period: period, Median: median, y: slices.Clone(y)}
	m.running = make([][]float64, period)
	m.Season = make([]float64, period)
	for s := range period {
		var vals []float64 // sorted, for the median
		sum := 0.0
		run := make([]float64, 0, (n-s+period-1)/period)
		for t := s; t < n; t += period {
			if median {
				i, _ := slices.BinarySearch(vals, y[t])
				vals = slices.Insert(vals, i, y[t])
				c := len(vals)
				if c%2 == 1 {
					run = append(run, vals[c/2])
				} else {
					run = append(run, (vals[c/2-1]+vals[c/2])/2)
				}
			} else {
				sum += y[t]
				run = append(run, sum/float64(len(run)+1))
			}
		}
		m.running[s] = run
		m.Season[s] = run[len(run)-1]
	}
	return m, nil
}

// Key is "seasonal_mean" or "seasonal_median".
func (m *SeasonalMeanModel) Key() string {
	if m.Median {
		return "seasonal_median"
	}
	return "seasonal_mean"
}

// NumParams is the period: one mean (median) per season.
func (m *SeasonalMeanModel) NumParams() int { return m.Period }

// Forecast returns the seasonal means (medians) and the empirical
// quantiles described on SeasonalMeanModel.
func (m *SeasonalMeanModel) Forecast(h int, xreg [][]float64) (Forecast, error) {
	if err := baseHorizon(m.Key(), h, xreg); err != nil {
		return Forecast{}, err
	}
	n, p := len(m.y), m.Period
	f := Forecast{Mean: make([]float64, h)}
	for k := range h {
		f.Mean[k] = m.Season[(n+k)%p]
	}
	// Errors at horizon k (1-based) exist for origins o = p … n−k.
	minErr := min(10, n-p)
	kmax := max(1, n-p+1-minErr)
	for i := range Levels {
		f.Quantiles[i] = make([]float64, h)
	}
	errs := make([]float64, 0, n-p)
	var q [NumLevels]float64
	for k := 1; k <= min(h, kmax); k++ {
		errs = errs[:0]
		for o := p; o <= n-k; o++ {
			t := o + k - 1
			s := t % p
			c := (o - s + p - 1) / p // values of season s among y[0:o]
			errs = append(errs, m.y[t]-m.running[s][c-1])
		}
		slices.Sort(errs)
		for i, lv := range Levels {
			q[i] = Quantile7(errs, lv)
		}
		for i := range Levels {
			f.Quantiles[i][k-1] = q[i]
		}
	}
	for k := kmax + 1; k <= h; k++ {
		for i := range Levels {
			f.Quantiles[i][k-1] = f.Quantiles[i][kmax-1]
		}
	}
	for k := range h {
		for i := range Levels {
			if i == MedianLevel {
				f.Quantiles[i][k] = f.Mean[k]
				continue
			}
			f.Quantiles[i][k] += f.Mean[k]
		}
	}
	SortQuantiles(&f)
	return f, nil
}

// Refit fits the same method with the same period on new data.
func (m *SeasonalMeanModel) Refit(y []float64) (*SeasonalMeanModel, error) {
	return seasonalMeanFit(y, m.Period, m.Median)
}

// baseHorizon checks Forecast's arguments for the models without
// regressors.
func baseHorizon(method string, h int, xreg [][]float64) error {
	if h < 0 {
		return errors.New("forecast: " + method + ": negative horizon")
	}
	if xreg != nil {
		return errors.New("forecast: " + method + ": the model takes no regressors")
	}
	return nil
}
