package forecast

import (
	"math"

	"github.com/vaticml/vatic/stats"
)

// BootstrapSums simulates n sample paths of the next h values by the
// residual bootstrap — each innovation drawn with replacement from the
// fitted model's Residuals (added to the one-step forecast for additive
// errors, as a relative error for multiplicative ones), the state updated
// by the model's recursion — and returns each path's sum of steps from
// (0-based) to h−1: the draws of a window total that impact sessions
// (MODELLING §3.3) take the variance of. The parameters are not
// re-estimated. A path whose multiplicative trend turns negative is left
// out. Nil when the model has no finite residual.
func (e *ETSModel) BootstrapSums(h, from, n int, seed uint64) []float64 {
	var res []float64
	for _, r := range e.Residuals {
		if !math.IsNaN(r) && !math.IsInf(r, 0) {
			res = append(res, r)
		}
	}
	if len(res) == 0 || h < 1 || n < 1 || len(e.LastState) == 0 {
		return nil
	}
	f := etsForm{e.Error, e.Trend, e.Season, e.Damped}
	m := e.Period
	rng := stats.Rand(seed, "ets/bootstrap")
	p := etsParams{Alpha: e.Alpha, Beta: e.Beta, Gamma: e.Gamma, Phi: e.Phi}
	run := etsRun{f: f, m: m, ring: make([]float64, max(m, 1))}
	out := make([]float64, 0, n)
paths:
	for range n {
		l, b := run.load(e.LastState)
		j, sum := 0, 0.0
		for t := range h {
			fc := run.onestep(l, b, j, p)
			if math.IsNaN(fc) {
				continue paths
			}
			eps := res[rng.IntN(len(res))]
			y := fc + eps
			if f.err != 'A' {
				y = fc * (1 + max(eps, -1))
			}
			if t >= from {
				sum += y
			}
			l, b = run.step(l, b, j, y, p)
			if j++; j >= m {
				j = 0
			}
		}
		out = append(out, sum)
	}
	return out
}
