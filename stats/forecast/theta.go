package forecast

import (
	"math"
	"slices"
)

// ThetaModel is the standard Theta method as R's thetaf() computes it
// (Hyndman & Billah 2003): simple exponential smoothing with drift equal
// to half the OLS slope, on the multiplicatively seasonally adjusted
// series when the lag-m autocorrelation is significant.
type ThetaModel struct {
	// Period is the seasonal period the model was asked to consider.
	Period int
	// Alpha is the SES smoothing parameter (at least 1e-10, as thetaf).
	Alpha float64
	// Level0 is the optimised initial level and Level the final one.
	Level0, Level float64
	// Drift is half the OLS slope of the (adjusted) series on time.
	Drift float64
	// Sigma2 is the SES residual variance, Σe²/(n−2) (R's ets sigma2).
	Sigma2 float64
	// Index holds the last cycle's multiplicative seasonal indices; nil
	// when the series was not seasonally adjusted.
	Index []float64
	n     int
}

// Theta fits R's thetaf(y): the seasonality test and multiplicative
// adjustment of naive2 (SeasonalityTest, baseSeasonalAdjust: negative
// data are not adjusted), ses() on the adjusted series — ETS(A,N,N)
// fitted by mean squared error with R's starting values (α = 0.20006,
// ℓ₀ = mean of the first ten points), R's bounds (1e-4 ≤ α ≤ 0.9999) and
// R's Nelder–Mead (a port of optim's nmmin with ets()'s settings) — and
// thetaf's drift. It needs at least 7 points: below that R's ses()
// switches to HoltWinters(), which is not reproduced (*SkipError).
func Theta(y []float64, period int) (*ThetaModel, error) {
	if err := baseFinite("theta", y); err != nil {
		return nil, err
	}
	n := len(y)
	if n < 7 {
		return nil, skip("theta", "needs at least 7 points (%d given; R's ses() uses HoltWinters below that)", n)
	}
	adj, seas := baseSeasonalAdjust(y, period)
	fit := thetaSESFit(adj)
	m := &ThetaModel{Period: period, Alpha: math.Max(1e-10, fit.alpha), Level0: fit.l0, Level: fit.level,
		Sigma2: fit.sse / float64(n-2), n: n}
	m.Drift = thetaOLSSlope(adj) / 2
	if seas != nil {
		m.Index = slices.Clone(seas[n-period:])
	}
	return m, nil
}

// Key is "theta".
func (m *ThetaModel) Key() string { return "theta" }

// NumParams counts α, ℓ₀ and the drift, plus m−1 seasonal indices when
// the series was adjusted.
func (m *ThetaModel) NumParams() int {
	if m.Index == nil {
		return 3
	}
	return 3 + m.Period - 1
}

// Forecast returns thetaf's point forecasts, ℓ_n + b·(k−1 + (1−(1−α)ⁿ)/α)
// times the seasonal index, and Gaussian quantiles around them with
// thetaf's standard deviation σ·√((k−1)α² + 1) (not scaled by the index:
// R's formula).
func (m *ThetaModel) Forecast(h int, xreg [][]float64) (Forecast, error) {
	if err := baseHorizon("theta", h, xreg); err != nil {
		return Forecast{}, err
	}
	f := Forecast{Mean: make([]float64, h)}
	sd := make([]float64, h)
	a := m.Alpha
	c := (1 - math.Pow(1-a, float64(m.n))) / a
	s := math.Sqrt(m.Sigma2)
	for k := range h {
		f.Mean[k] = m.Level + m.Drift*(float64(k)+c)
		if m.Index != nil {
			f.Mean[k] *= m.Index[k%m.Period]
		}
		sd[k] = s * math.Sqrt(float64(k)*a*a+1)
	}
	GaussianQuantiles(&f, sd)
	return f, nil
}

// Refit fits the Theta method with the same period on new data.
func (m *ThetaModel) Refit(y []float64) (*ThetaModel, error) {
	return Theta(y, m.Period)
}

// thetaOLSSlope is the least-squares slope of x on 0…n−1 (lsfit).
func thetaOLSSlope(x []float64) float64 {
	n := float64(len(x))
	tm := (n - 1) / 2
	xm := baseMeanR(x)
	var sxy, sxx float64
	for i, v := range x {
		d := float64(i) - tm
		sxy += d * (v - xm)
		sxx += d * d
	}
	return sxy / sxx
}

// thetaSES is a fitted ETS(A,N,N).
type thetaSES struct {
	alpha, l0, level, sse float64
}

// thetaSESFit fits ETS(A,N,N) as R's ets(x, "ANN", opt.crit = "mse")
// does: Nelder–Mead on (α, ℓ₀) from α = 1e-4 + 0.2·(0.9999 − 1e-4) and
// ℓ₀ = mean(x[1:min(10, n)]), minimising the mean squared one-step error;
// α outside [1e-4, 0.9999] is infeasible.
func thetaSESFit(x []float64) thetaSES {
	const lower, upper = 1e-4, 0.9999
	start := []float64{lower + 0.2*(upper-lower), baseMeanR(x[:min(10, len(x))])}
	obj := func(p []float64) float64 {
		if p[0] < lower || p[0] > upper {
			return math.Inf(1)
		}
		mse, _, _ := thetaSESRun(x, p[0], p[1])
		return mse
	}
	par, _ := thetaNelderMead(obj, start, math.Inf(-1), 1.4901161193847656e-08, 1, 0.5, 2, 2000)
	_, level, sse := thetaSESRun(x, par[0], par[1])
	return thetaSES{alpha: par[0], l0: par[1], level: level, sse: sse}
}

// thetaSESRun runs the ETS(A,N,N) recursion from level l0 and returns
// the mean squared one-step error (accumulated as forecast's etscalc
// does), the final level and the sum of squared errors.
func thetaSESRun(x []float64, alpha, l0 float64) (mse, level, sse float64) {
	l := l0
	for i, v := range x {
		e := v - l
		d := float64(i + 1)
		mse = (mse*(d-1) + e*e) / d
		sse += e * e
		l += alpha * (v - l)
	}
	return mse, l, sse
}

// thetaNelderMead is R's Nelder–Mead minimiser (nmmin in optim.c, which
// forecast's ets() calls with abstol −Inf, reltol √ε, coefficients 1, 0.5,
// 2 and at most 2000 evaluations), ported step for step so that it stops
// where R stops. Non-finite values count as 1e35. fail is 0 on
// convergence, 1 when maxit was reached and 10 when a shrink failed.
func thetaNelderMead(fn func([]float64) float64, bvec []float64, abstol, intol, alpha, bet, gamm float64, maxit int) (x []float64, fail int) {
	const big = 1.0e35
	n := len(bvec)
	b := slices.Clone(bvec)
	eval := func() float64 {
		f := fn(b)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return big
		}
		return f
	}
	if maxit <= 0 {
		return b, 0
	}
	n1 := n + 1
	C := n + 2
	P := make([][]float64, n1)
	for i := range P {
		P[i] = make([]float64, n+2)
	}
	f := fn(b)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, 1
	}
	funcount := 1
	convtol := intol * (math.Abs(f) + intol)
	P[n1-1][0] = f
	for i := range n {
		P[i][0] = b[i]
	}
	L := 1
	size := 0.0
	step := 0.0
	for i := range n {
		if 0.1*math.Abs(b[i]) > step {
			step = 0.1 * math.Abs(b[i])
		}
	}
	if step == 0 {
		step = 0.1
	}
	for j := 2; j <= n1; j++ {
		for i := range n {
			P[i][j-1] = b[i]
		}
		trystep := step
		for P[j-2][j-1] == b[j-2] {
			P[j-2][j-1] = b[j-2] + trystep
			trystep *= 10
		}
		size += trystep
	}
	oldsize := size
	calcvert := true
	shrinkfail := false
	var VH, VL, VR float64
	for {
		if calcvert {
			for j := range n1 {
				if j+1 != L {
					for i := range n {
						b[i] = P[i][j]
					}
					f = eval()
					funcount++
					P[n1-1][j] = f
				}
			}
			calcvert = false
		}
		VL = P[n1-1][L-1]
		VH = VL
		H := L
		for j := 1; j <= n1; j++ {
			if j != L {
				f = P[n1-1][j-1]
				if f < VL {
					L = j
					VL = f
				}
				if f > VH {
					H = j
					VH = f
				}
			}
		}
		if VH > VL+convtol && VL > abstol {
			for i := range n {
				temp := -P[i][H-1]
				for j := range n1 {
					temp += P[i][j]
				}
				P[i][C-1] = temp / float64(n)
			}
			for i := range n {
				b[i] = (1+alpha)*P[i][C-1] - alpha*P[i][H-1]
			}
			f = eval()
			funcount++
			VR = f
			if VR < VL {
				P[n1-1][C-1] = f
				for i := range n {
					f = gamm*b[i] + (1-gamm)*P[i][C-1]
					P[i][C-1] = b[i]
					b[i] = f
				}
				f = eval()
				funcount++
				if f < VR {
					for i := range n {
						P[i][H-1] = b[i]
					}
					P[n1-1][H-1] = f
				} else {
					for i := range n {
						P[i][H-1] = P[i][C-1]
					}
					P[n1-1][H-1] = VR
				}
			} else {
				if VR < VH {
					for i := range n {
						P[i][H-1] = b[i]
					}
					P[n1-1][H-1] = VR
				}
				for i := range n {
					b[i] = (1-bet)*P[i][H-1] + bet*P[i][C-1]
				}
				f = eval()
				funcount++
				if f < P[n1-1][H-1] {
					for i := range n {
						P[i][H-1] = b[i]
					}
					P[n1-1][H-1] = f
				} else if VR >= VH {
					calcvert = true
					size = 0
					for j := range n1 {
						if j+1 != L {
							for i := range n {
								P[i][j] = bet*(P[i][j]-P[i][L-1]) + P[i][L-1]
								size += math.Abs(P[i][j] - P[i][L-1])
							}
						}
					}
					if size < oldsize {
						shrinkfail = false
						oldsize = size
					} else {
						shrinkfail = true
					}
				}
			}
		}
		if VH <= VL+convtol || VL <= abstol || shrinkfail || funcount > maxit {
			break
		}
	}
	x = make([]float64, n)
	for i := range n {
		x[i] = P[i][L-1]
	}
	switch {
	case funcount > maxit:
		fail = 1
	case shrinkfail:
		fail = 10
	}
	return x, fail
}
