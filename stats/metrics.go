package stats

import "math"

// Regression metric keys (MODELLING §6.1, §15), as the API returns them.
const (
	MeanAbsoluteError        = "meanAbsoluteError"
	MeanAbsolutePercentError = "meanAbsolutePercentError"
	RootMeanSquareError      = "rootMeanSquareError"
	RSquared                 = "rSquared"
)

// RegressionMetrics scores predictions yhat against actuals y with the
// keys and formulas of MODELLING §6.1: MAE, MAPE as a fraction with a
// denominator of 1 where the actual is 0 (§2.8, Q5), RMSE, and R² as the
// coefficient of determination 1 − SSE/SST (may be negative). A metric
// that is not finite (R² of a constant y, anything of an empty slice) is
// left out, never sent as NaN (§0). It panics when the lengths differ.
func RegressionMetrics(y, yhat []float64) map[string]float64 {
	if len(y) != len(yhat) {
		panic("stats: RegressionMetrics length mismatch")
	}
	out := make(map[string]float64, 4)
	n := float64(len(y))
	if len(y) == 0 {
		return out
	}
	var sae, sape, sse, sum float64
	for i, v := range y {
		e := v - yhat[i]
		ae := math.Abs(e)
		sae += ae
		d := math.Abs(v)
		if v == 0 {
			d = 1
		}
		sape += ae / d
		sse += e * e
		sum += v
	}
	mean := sum / n
	var sst float64
	for _, v := range y {
		d := v - mean
		sst += d * d
	}
	put := func(k string, v float64) {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			out[k] = v
		}
	}
	put(MeanAbsoluteError, sae/n)
	put(MeanAbsolutePercentError, sape/n)
	put(RootMeanSquareError, math.Sqrt(sse/n))
	if sst > 0 {
		put(RSquared, 1-sse/sst)
	}
	return out
}
