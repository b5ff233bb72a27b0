package forecast

import "math"

// Friedman's super smoother constants. R's Fortran declares them double
// precision but initialises them from single-precision literals, so they
// carry float32 rounding (0.05 is 0.0500000007…); keeping that rounding
// reproduces R's window sizes exactly.
var (
	supsmuSpans = [3]float64{float64(float32(0.05)), float64(float32(0.2)), float64(float32(0.5))}
	supsmuBig   = float64(float32(1.0e20))
	supsmuSml   = float64(float32(1.0e-7))
	supsmuEps   = float64(float32(1.0e-3))
)

// Supsmu is R's supsmu(1:n, y) with its defaults (span "cv", bass 0): the
// super smoother of Friedman (1984), a port of the Fortran routine in R's
// ppr.f. It chooses, point by point, among running-line smoothers of
// spans 0.05, 0.2 and 0.5 of the data by cross-validated residuals, and
// returns the smoothed values, len(y) of them. y must be finite; an empty
// y gives nil.
func Supsmu(y []float64) []float64 {
	n := len(y)
	if n == 0 {
		return nil
	}
	x := make([]float64, n)
	w := make([]float64, n)
	for i := range x {
		x[i] = float64(i + 1)
		w[i] = 1
	}
	return supsmuFit(x, y, w, 0, 0)
}

// supsmuFit is Fortran supsmu for abscissae x sorted ascending (ties
// allowed), weights w, a fixed span (0 = cross-validated choice) and the
// bass control alpha (no effect unless 0 < alpha ≤ 10). Arrays are
// 1-based internally like the Fortran code.
func supsmuFit(x0, y0, w0 []float64, span, alpha float64) []float64 {
	n := len(y0)
	x := make([]float64, n+1)
	y := make([]float64, n+1)
	w := make([]float64, n+1)
	copy(x[1:], x0)
	copy(y[1:], y0)
	copy(w[1:], w0)
	smo := make([]float64, n+1)
	if !(x[n] > x[1]) {
		sy, sw := 0.0, 0.0
		for j := 1; j <= n; j++ {
			sy += w[j] * y[j]
			sw += w[j]
		}
		a := 0.0
		if sw > 0 {
			a = sy / sw
		}
		for j := 1; j <= n; j++ {
			smo[j] = a
		}
		return smo[1:]
	}
	// R's code reads x(0) when n < 4; start from the first point instead.
	i := max(1, n/4)
	j := max(1, 3*(n/4))
	scale := x[j] - x[i]
	for !(scale > 0) {
		if j < n {
			j++
		}
		if i > 1 {
			i--
		}
		scale = x[j] - x[i]
	}
	vsmlsq := (supsmuEps * scale) * (supsmuEps * scale)
	const jper = 1
	if span > 0 {
		supsmuSmooth(n, x, y, w, span, jper, vsmlsq, smo, make([]float64, n+1))
		return smo[1:]
	}
	sc := make([][]float64, 8) // sc[1..7], each 1-based
	for k := 1; k <= 7; k++ {
		sc[k] = make([]float64, n+1)
	}
	h := make([]float64, n+1)
	for k := 1; k <= 3; k++ {
		supsmuSmooth(n, x, y, w, supsmuSpans[k-1], jper, vsmlsq, sc[2*k-1], sc[7])
		supsmuSmooth(n, x, sc[7], w, supsmuSpans[1], -jper, vsmlsq, sc[2*k], h)
	}
	for j := 1; j <= n; j++ {
		resmin := supsmuBig
		for k := 1; k <= 3; k++ {
			if sc[2*k][j] < resmin {
				resmin = sc[2*k][j]
				sc[7][j] = supsmuSpans[k-1]
			}
		}
		if alpha > 0 && alpha <= 10 && resmin < sc[6][j] && resmin > 0 {
			sc[7][j] += (supsmuSpans[2] - sc[7][j]) * math.Pow(math.Max(supsmuSml, resmin/sc[6][j]), 10-alpha)
		}
	}
	supsmuSmooth(n, x, sc[7], w, supsmuSpans[1], -jper, vsmlsq, sc[2], h)
	for j := 1; j <= n; j++ {
		if sc[2][j] <= supsmuSpans[0] {
			sc[2][j] = supsmuSpans[0]
		}
		if sc[2][j] >= supsmuSpans[2] {
			sc[2][j] = supsmuSpans[2]
		}
		f := sc[2][j] - supsmuSpans[1]
		if f < 0 {
			f = -f / (supsmuSpans[1] - supsmuSpans[0])
			sc[4][j] = (1-f)*sc[3][j] + f*sc[1][j]
		} else {
			f /= supsmuSpans[2] - supsmuSpans[1]
			sc[4][j] = (1-f)*sc[3][j] + f*sc[5][j]
		}
	}
	supsmuSmooth(n, x, sc[4], w, supsmuSpans[0], -jper, vsmlsq, smo, h)
	return smo[1:]
}

// supsmuSmooth is Fortran smooth: a running-line smoother with a window of
// 2·ibw+1 points (ibw = span·n/2 rounded), non-periodic. When iper > 0 it
// also returns the absolute cross-validated residuals in acvr.
func supsmuSmooth(n int, x, y, w []float64, span float64, iper int, vsmlsq float64, smo, acvr []float64) {
	var xm, ym, vr, cvar, fbw float64
	ibw := int(0.5*span*float64(n) + 0.5)
	if ibw < 2 {
		ibw = 2
	}
	it := min(2*ibw+1, n)
	for j := 1; j <= it; j++ {
		xti := x[j]
		wt := w[j]
		fbo := fbw
		fbw += wt
		if fbw > 0 {
			xm = (fbo*xm + wt*xti) / fbw
			ym = (fbo*ym + wt*y[j]) / fbw
		}
		tmp := 0.0
		if fbo > 0 {
			tmp = fbw * wt * (xti - xm) / fbo
		}
		vr += tmp * (xti - xm)
		cvar += tmp * (y[j] - ym)
	}
	for j := 1; j <= n; j++ {
		out := j - ibw - 1
		in := j + ibw
		if out >= 1 && in <= n {
			xto := x[out]
			xti := x[in]
			wt := w[out]
			fbo := fbw
			fbw -= wt
			tmp := 0.0
			if fbw > 0 {
				tmp = fbo * wt * (xto - xm) / fbw
			}
			vr -= tmp * (xto - xm)
			cvar -= tmp * (y[out] - ym)
			if fbw > 0 {
				xm = (fbo*xm - wt*xto) / fbw
				ym = (fbo*ym - wt*y[out]) / fbw
			}
			wt = w[in]
			fbo = fbw
			fbw += wt
			if fbw > 0 {
				xm = (fbo*xm + wt*xti) / fbw
				ym = (fbo*ym + wt*y[in]) / fbw
			}
			tmp = 0
			if fbo > 0 {
				tmp = fbw * wt * (xti - xm) / fbo
			}
			vr += tmp * (xti - xm)
			cvar += tmp * (y[in] - ym)
		}
		a := 0.0
		if vr > vsmlsq {
			a = cvar / vr
		}
		smo[j] = a*(x[j]-xm) + ym
		if iper > 0 {
			h := 0.0
			if fbw > 0 {
				h = 1 / fbw
			}
			if vr > vsmlsq {
				d := x[j] - xm
				h += d * d / vr
			}
			a = 1 - w[j]*h
			switch {
			case a > 0:
				acvr[j] = math.Abs(y[j]-smo[j]) / a
			case j > 1:
				acvr[j] = acvr[j-1]
			default:
				acvr[j] = 0
			}
		}
	}
	// Tied abscissae share the weighted mean of their fitted values.
	for j := 1; j <= n; {
		j0 := j
		sy := smo[j] * w[j]
		fbw = w[j]
		for j < n && !(x[j+1] > x[j]) {
			j++
			sy += w[j] * smo[j]
			fbw += w[j]
		}
		if j > j0 {
			a := 0.0
			if fbw > 0 {
				a = sy / fbw
			}
			for i := j0; i <= j; i++ {
				smo[i] = a
			}
		}
		j++
	}
}
