package forecast

import "math"

// The ETS recursions of Hyndman et al. (2008), in the parameterisation of
// R's forecast package (src/etscalc.c): with q the trend part of the
// one-step forecast (l, l + φb or l·b^φ) and s the seasonal state of m
// steps back,
//
//	ŷ = q, q + s or q·s
//	l' = q + α(p − q),          p = y, y − s or y/s
//	b' = φb + (β/α)(r − φb),    r = l' − l or l'/l (b^φ for a multiplicative trend)
//	s' = s + γ(t − s),          t = y − q or y/q
//
// and the likelihood criterion lik = n·log(Σe²) (+ 2·Σ log|ŷ| for
// multiplicative errors), which is −2 log L up to a constant. The seasonal
// states live in a ring buffer, so a step costs O(1) whatever the period.

const (
	etsTol  = 1e-10 // R's TOL: guards against division by ~0
	etsHuge = 1e10  // R's HUGEN: the value used instead
)

// etsParams are the smoothing parameters of one evaluation; Beta is 0
// without a trend, Gamma 0 without a season and Phi 1 without damping.
type etsParams struct {
	Alpha, Beta, Gamma, Phi float64
}

// etsRun is one pass of the recursion over y.
type etsRun struct {
	f    etsForm
	m    int       // seasonal period (1 without a season)
	ring []float64 // seasonal states, len m; ring[i%m] is the one y[i] uses
}

// load copies the state vector x (l, b, s1..sm) into the run and returns l
// and b. ring[0] receives sm, the state the first observation uses.
func (r *etsRun) load(x []float64) (l, b float64) {
	l = x[0]
	k := 1
	if r.f.trend != 'N' {
		b = x[1]
		k = 2
	}
	if r.f.season != 'N' {
		for j := range r.m {
			r.ring[j] = x[k+r.m-1-j]
		}
	}
	return l, b
}

// lik returns the likelihood criterion of the initial state x0 under p, or
// NaN when the recursion breaks down (a negative multiplicative growth).
// It allocates nothing.
func (r *etsRun) lik(y, x0 []float64, p etsParams) float64 {
	l, b := r.load(x0)
	trend, season, multErr := r.f.trend, r.f.season, r.f.err == 'M'
	ring, m := r.ring, r.m
	alpha, gamma, phi := p.Alpha, p.Gamma, p.Phi
	ba := p.Beta / alpha
	phiOne := math.Abs(phi-1) < etsTol
	var sse float64
	// The product of |ŷ| kept as mant·2^exp2 so that one log at the end
	// replaces n of them.
	mant, exp2 := 1.0, 0
	j := 0
	for _, yi := range y {
		var q, phib float64
		switch trend {
		case 'N':
			q = l
		case 'A':
			phib = phi * b
			q = l + phib
		default:
			if b < 0 {
				return math.NaN()
			}
			if phiOne {
				phib = b
			} else {
				phib = math.Pow(b, phi)
			}
			q = l * phib
		}
		var s, f float64
		switch season {
		case 'N':
			f = q
		case 'A':
			s = ring[j]
			f = q + s
		default:
			s = ring[j]
			f = q * s
		}
		e := yi - f
		if multErr {
			e /= f
			mant *= math.Abs(f)
			if mant > 0x1p500 || mant < 0x1p-500 {
				var k int
				mant, k = math.Frexp(mant)
				exp2 += k
			}
		}
		sse += e * e

		// Update the state.
		var pp float64
		switch season {
		case 'N':
			pp = yi
		case 'A':
			pp = yi - s
		default:
			if math.Abs(s) < etsTol {
				pp = etsHuge
			} else {
				pp = yi / s
			}
		}
		ln := q + alpha*(pp-q)
		switch trend {
		case 'A':
			b = phib + ba*((ln-l)-phib)
		case 'M':
			rr := etsHuge
			if math.Abs(l) >= etsTol {
				rr = ln / l
			}
			b = phib + ba*(rr-phib)
		}
		switch season {
		case 'A':
			ring[j] = s + gamma*((yi-q)-s)
		case 'M':
			t := etsHuge
			if math.Abs(q) >= etsTol {
				t = yi / q
			}
			ring[j] = s + gamma*(t-s)
		}
		l = ln
		if j++; j == m {
			j = 0
		}
	}
	lik := float64(len(y)) * math.Log(sse)
	if multErr {
		lik += 2 * (math.Log(mant) + float64(exp2)*math.Ln2)
	}
	return lik
}

// etsPass is the full output of one pass: what R's pegelsresid.C returns.
type etsPass struct {
	lik       float64
	amse      [3]float64 // mean squared 1-, 2- and 3-step errors (nmse = 3)
	e, fitted []float64
	last      []float64 // the state after the last observation
}

// full runs the recursion keeping the innovations, the fitted values, the
// multi-step errors of R's amse and the last state.
func (r *etsRun) full(y, x0 []float64, p etsParams) etsPass {
	const nmse = 3
	n := len(y)
	out := etsPass{e: make([]float64, n), fitted: make([]float64, n), last: make([]float64, len(x0))}
	l, b := r.load(x0)
	m := r.m
	var denom [nmse]float64
	var sse, logf float64
	var fc [nmse]float64
	j := 0
	for i, yi := range y {
		// Forecasts 1..nmse steps ahead from the current state, as R's
		// forecast() in etscalc.c.
		phistar := p.Phi
		for h := range nmse {
			var v float64
			switch r.f.trend {
			case 'N':
				v = l
			case 'A':
				v = l + phistar*b
			default:
				if b < 0 {
					v = math.NaN()
				} else {
					v = l * math.Pow(b, phistar)
				}
			}
			if r.f.season != 'N' {
				s := r.ring[(j+h)%m]
				if r.f.season == 'A' {
					v += s
				} else {
					v *= s
				}
			}
			fc[h] = v
			if math.Abs(p.Phi-1) < etsTol {
				phistar++
			} else {
				phistar += math.Pow(p.Phi, float64(h+1))
			}
		}
		f := fc[0]
		out.fitted[i] = f
		if r.f.err == 'A' {
			out.e[i] = yi - f
		} else {
			out.e[i] = (yi - f) / f
		}
		for h := range nmse {
			if i+h < n {
				denom[h]++
				d := y[i+h] - fc[h]
				out.amse[h] = (out.amse[h]*(denom[h]-1) + d*d) / denom[h]
			}
		}
		sse += out.e[i] * out.e[i]
		logf += math.Log(math.Abs(f))
		l, b = r.step(l, b, j, yi, p)
		if j++; j == m {
			j = 0
		}
	}
	out.lik = float64(n) * math.Log(sse)
	if r.f.err == 'M' {
		out.lik += 2 * logf
	}
	r.store(out.last, l, b, j)
	return out
}

// step updates the state (l, b, ring[j]) with observation y and returns the
// new level and growth. It is the update of lik, kept separate for the
// passes where speed does not matter.
func (r *etsRun) step(l, b float64, j int, y float64, p etsParams) (float64, float64) {
	var q, phib float64
	switch r.f.trend {
	case 'N':
		q = l
	case 'A':
		phib = p.Phi * b
		q = l + phib
	default:
		if math.Abs(p.Phi-1) < etsTol {
			phib = b
		} else {
			phib = math.Pow(b, p.Phi)
		}
		q = l * phib
	}
	var pp, s float64
	switch r.f.season {
	case 'N':
		pp = y
	case 'A':
		s = r.ring[j]
		pp = y - s
	default:
		s = r.ring[j]
		if math.Abs(s) < etsTol {
			pp = etsHuge
		} else {
			pp = y / s
		}
	}
	ln := q + p.Alpha*(pp-q)
	switch r.f.trend {
	case 'A':
		b = phib + (p.Beta/p.Alpha)*((ln-l)-phib)
	case 'M':
		rr := etsHuge
		if math.Abs(l) >= etsTol {
			rr = ln / l
		}
		b = phib + (p.Beta/p.Alpha)*(rr-phib)
	}
	switch r.f.season {
	case 'A':
		r.ring[j] = s + p.Gamma*((y-q)-s)
	case 'M':
		t := etsHuge
		if math.Abs(q) >= etsTol {
			t = y / q
		}
		r.ring[j] = s + p.Gamma*(t-s)
	}
	return ln, b
}

// store writes the state (l, b and the ring, j the slot the next
// observation would use) into x in R's order l, b, s1..sm.
func (r *etsRun) store(x []float64, l, b float64, j int) {
	x[0] = l
	k := 1
	if r.f.trend != 'N' {
		x[1] = b
		k = 2
	}
	if r.f.season != 'N' {
		// s1 is the most recent seasonal state, in slot j−1; sm is in slot j.
		for i := range r.m {
			x[k+i] = r.ring[((j-1-i)%r.m+r.m)%r.m]
		}
	}
}

// etsPoint returns the h point forecasts from state x (R's etsforecast):
// NaN for a multiplicative trend whose growth is negative.
func etsPoint(f etsForm, m int, x []float64, phi float64, h int) []float64 {
	out := make([]float64, h)
	l, b := x[0], 0.0
	k := 1
	if f.trend != 'N' {
		b = x[1]
		k = 2
	}
	phistar := phi
	for i := range h {
		var v float64
		switch f.trend {
		case 'N':
			v = l
		case 'A':
			v = l + phistar*b
		default:
			if b < 0 {
				v = math.NaN()
			} else {
				v = l * math.Pow(b, phistar)
			}
		}
		if f.season != 'N' {
			// s_{m-1-i mod m} in R's 0-based order: sm first, then sm−1, …
			s := x[k+((m-1-i)%m+m)%m]
			if f.season == 'A' {
				v += s
			} else {
				v *= s
			}
		}
		out[i] = v
		if math.Abs(phi-1) < etsTol {
			phistar++
		} else {
			phistar += math.Pow(phi, float64(i+1))
		}
	}
	return out
}
