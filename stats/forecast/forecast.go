package forecast

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Levels are the quantile levels every forecast offers (MODELLING §2.9):
// the bounds of central 60 %, 90 % and 98 % intervals and the median.
var Levels = [NumLevels]float64{0.01, 0.05, 0.2, 0.5, 0.8, 0.95, 0.99}

// NumLevels is len(Levels).
const NumLevels = 7

// MedianLevel is the index of 0.5 in Levels.
const MedianLevel = 3

// Forecast is a model's prediction of the h points after its data.
type Forecast struct {
	// Mean holds the point forecasts, len h.
	Mean []float64
	// Quantiles[i][t] is the Levels[i]-quantile of the predictive
	// distribution at step t+1. Per step they never decrease with i.
	Quantiles [NumLevels][]float64
}

// Model is a fitted time-series model.
type Model interface {
	// Key is the method's key without the seasonality suffix: "ETS",
	// "ARIMA", "theta", "seasonal_naive", …
	Key() string
	// Forecast predicts the next h points. xreg holds the regressors'
	// future values, one slice of h values per regressor column the model
	// was fitted with (nil when it was fitted with none).
	Forecast(h int, xreg [][]float64) (Forecast, error)
	// NumParams is the number of estimated parameters (initial states
	// included), the contest's first tie-break (MODELLING §2.5).
	NumParams() int
}

// SkipError says why a method does not apply to a series (MODELLING §2.5:
// the contest keeps the candidate with the reason).
type SkipError struct {
	Method string
	Reason string
}

func (e *SkipError) Error() string { return "forecast: " + e.Method + ": " + e.Reason }

// skip returns a *SkipError.
func skip(method, format string, args ...any) error {
	return &SkipError{Method: method, Reason: fmt.Sprintf(format, args...)}
}

// IsSkip reports whether err is a *SkipError.
func IsSkip(err error) bool {
	var s *SkipError
	return errors.As(err, &s)
}

// GaussianQuantiles fills f.Quantiles from f.Mean and the standard
// deviation of each step's Gaussian predictive distribution (len h).
func GaussianQuantiles(f *Forecast, sd []float64) {
	h := len(f.Mean)
	for i, p := range Levels {
		z := distuv.UnitNormal.Quantile(p)
		q := make([]float64, h)
		for t := range h {
			q[t] = f.Mean[t] + z*sd[t]
		}
		f.Quantiles[i] = q
	}
	if p := Levels[MedianLevel]; p == 0.5 {
		copy(f.Quantiles[MedianLevel], f.Mean)
	}
}

// EmpiricalQuantiles fills f.Quantiles from sample paths: paths[k][t] is
// path k's value at step t+1. It uses R's default quantile definition
// (type 7). NaN paths are ignored; the median level stays the point
// forecast in Mean, and the levels are sorted so that they never cross.
func EmpiricalQuantiles(f *Forecast, paths [][]float64) {
	h := len(f.Mean)
	for i := range Levels {
		f.Quantiles[i] = make([]float64, h)
	}
	col := make([]float64, 0, len(paths))
	for t := range h {
		col = col[:0]
		for _, p := range paths {
			if v := p[t]; !math.IsNaN(v) {
				col = append(col, v)
			}
		}
		slices.Sort(col)
		for i, p := range Levels {
			if i == MedianLevel {
				f.Quantiles[i][t] = f.Mean[t]
				continue
			}
			f.Quantiles[i][t] = Quantile7(col, p)
		}
	}
	SortQuantiles(f)
}

// Quantile7 is R's type-7 quantile of sorted values; NaN when empty.
func Quantile7(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	h := float64(n-1) * p
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return sorted[n-1]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}

// SortQuantiles sorts each step's quantiles so that they never cross.
func SortQuantiles(f *Forecast) {
	var col [NumLevels]float64
	for t := range f.Mean {
		for i := range Levels {
			col[i] = f.Quantiles[i][t]
		}
		slices.Sort(col[:])
		for i := range Levels {
			f.Quantiles[i][t] = col[i]
		}
	}
}
