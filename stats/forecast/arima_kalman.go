package forecast

import "math"

// This file holds the numerical core of ARIMA estimation, following R's
// stats package (src/library/stats/src/arima.c and R/arima.R): the
// parameter transformation that keeps the AR parts stationary, the
// expansion of seasonal ARMA polynomials, the initial state covariance of
// Gardner, Harvey & Phillips (1980, AS154), the exact Gaussian likelihood
// by a Kalman filter on the state-space form of makeARIMA (with the
// differencing in the state and a diffuse prior of variance kappa for its
// initial values), the conditional sum of squares, and the Kalman forecast.
// Matrices are flat, column-major (m[i+n*j]), as in R, so that every sum
// runs in R's order and the results agree with R's to rounding.

// arimaArma mirrors R's arma vector: c(p, q, P, Q, period, d, D).
type arimaArma struct {
	p, q, sp, sq, period, d, sd int
}

// narma is the number of ARMA coefficients, p+q+P+Q.
func (a arimaArma) narma() int { return a.p + a.q + a.sp + a.sq }

// fullP and fullQ are the orders of the expanded AR and MA polynomials.
func (a arimaArma) fullP() int { return a.p + a.period*a.sp }
func (a arimaArma) fullQ() int { return a.q + a.period*a.sq }

// arimaPartrans maps p unconstrained values to the coefficients of a
// stationary AR polynomial: tanh gives partial autocorrelations, the
// Durbin–Levinson recursion turns them into coefficients (R's partrans).
func arimaPartrans(raw, out []float64) {
	p := len(raw)
	var wbuf [100]float64
	var work []float64
	if p > len(wbuf) {
		work = make([]float64, p)
	} else {
		work = wbuf[:p]
	}
	for j := range p {
		out[j] = math.Tanh(raw[j])
		work[j] = out[j]
	}
	for j := 1; j < p; j++ {
		a := out[j]
		for k := range j {
			work[k] -= a * out[j-k-1]
		}
		copy(out[:j], work[:j])
	}
}

// arimaInvPartrans is the inverse of arimaPartrans (R's invpartrans).
func arimaInvPartrans(phi, out []float64) {
	p := len(phi)
	work := make([]float64, p)
	copy(out, phi[:p])
	copy(work, phi[:p])
	for j := p - 1; j > 0; j-- {
		a := out[j]
		for k := range j {
			work[k] = (out[k] + a*out[j-k-1]) / (1 - a*a)
		}
		copy(out[:j], work[:j])
	}
	for j := range p {
		out[j] = math.Atanh(out[j])
	}
}

// arimaUndoPars applies the AR transformation to the AR and seasonal AR
// blocks of par (R's ARIMA_undoPars).
func arimaUndoPars(par []float64, a arimaArma) []float64 {
	out := append([]float64(nil), par...)
	if a.p > 0 {
		arimaPartrans(par[:a.p], out[:a.p])
	}
	if v := a.p + a.q; a.sp > 0 {
		arimaPartrans(par[v:v+a.sp], out[v:v+a.sp])
	}
	return out
}

// arimaInvtrans is R's ARIMA_Invtrans: the inverse transformation of the
// AR blocks.
func arimaInvtrans(par []float64, a arimaArma) []float64 {
	out := append([]float64(nil), par...)
	if a.p > 0 {
		arimaInvPartrans(par[:a.p], out[:a.p])
	}
	if v := a.p + a.q; a.sp > 0 {
		arimaInvPartrans(par[v:v+a.sp], out[v:v+a.sp])
	}
	return out
}

// arimaGradtrans is R's ARIMA_Gradtrans: the Jacobian of the
// transformation by forward differences of step 1e-3, n×n column-major
// with A[i+n*j] = d out_j / d raw_i.
func arimaGradtrans(par []float64, a arimaArma) []float64 {
	const eps = 1e-3
	n := len(par)
	A := make([]float64, n*n)
	for i := range n {
		A[i+i*n] = 1
	}
	block := func(off, m int) {
		w1 := append([]float64(nil), par[off:off+m]...)
		w2 := make([]float64, m)
		w3 := make([]float64, m)
		arimaPartrans(w1, w2)
		for i := range m {
			w1[i] += eps
			arimaPartrans(w1, w3)
			for j := range m {
				A[i+off+(j+off)*n] = (w3[j] - w2[j]) / eps
			}
			w1[i] -= eps
		}
	}
	if a.p > 0 {
		block(0, a.p)
	}
	if a.sp > 0 {
		block(a.p+a.q, a.sp)
	}
	return A
}

// arimaTransPars expands the coefficient vector into the full AR (phi,
// len p+period·P) and MA (theta, len q+period·Q) polynomials, applying the
// AR transformation first when trans is set (R's ARIMA_transPars).
func arimaTransPars(in []float64, a arimaArma, trans bool, phi, theta []float64) {
	params := in
	if trans {
		params = make([]float64, a.narma())
		copy(params, in[:a.narma()])
		if a.p > 0 {
			arimaPartrans(in[:a.p], params[:a.p])
		}
		if v := a.p + a.q; a.sp > 0 {
			arimaPartrans(in[v:v+a.sp], params[v:v+a.sp])
		}
	}
	mp, mq, msp, msq, ns := a.p, a.q, a.sp, a.sq, a.period
	p, q := a.fullP(), a.fullQ()
	for i := range mp {
		phi[i] = params[i]
	}
	for i := range mq {
		theta[i] = params[i+mp]
	}
	for i := mp; i < p; i++ {
		phi[i] = 0
	}
	for i := mq; i < q; i++ {
		theta[i] = 0
	}
	for j := range msp {
		phi[(j+1)*ns-1] += params[j+mp+mq]
		for i := range mp {
			phi[(j+1)*ns+i] -= params[i] * params[j+mp+mq]
		}
	}
	for j := range msq {
		theta[(j+1)*ns-1] += params[j+mp+mq+msp]
		for i := range mq {
			theta[(j+1)*ns+i] += params[i+mp] * params[j+mp+mq+msp]
		}
	}
}

// arimaQ0Work holds the scratch space of arimaGetQ0, reused across the
// likelihood evaluations of one fit.
type arimaQ0Work struct {
	xnext, xrow, rbar, thetab, v []float64
}

func (w *arimaQ0Work) grow(np, nrbar int) {
	if cap(w.xnext) < np {
		w.xnext = make([]float64, np)
		w.xrow = make([]float64, np)
		w.thetab = make([]float64, np)
		w.v = make([]float64, np)
	}
	w.xnext, w.xrow, w.thetab, w.v = w.xnext[:np], w.xrow[:np], w.thetab[:np], w.v[:np]
	if cap(w.rbar) < nrbar {
		w.rbar = make([]float64, nrbar)
	}
	w.rbar = w.rbar[:nrbar]
}

// arimaGardnerMaxR is the largest state dimension r for which the initial
// covariance is computed by Gardner's method, as R does for every r ≤ 350.
// Its workspace grows as r⁴/8 (13 MB at r = 60, which covers period 24
// with P ≤ 2); above this limit arimaQ0Direct, the exact solution of the
// same equation in O(r²+p³), takes over. The two agree to rounding for
// most models, but Gardner's method is inaccurate near non-stationarity
// (R's PR#14682; the tests hold a case where it is 12 % off): the
// likelihood R maximises carries that error, so for r ≤ 60 this package
// carries it too, and above it departs from R towards the exact value.
const arimaGardnerMaxR = 60

// arimaGetQ0 returns the r×r covariance of the initial ARMA state, r =
// max(p, q+1), for unit innovation variance: Gardner, Harvey & Phillips
// (1980) as R's getQ0 (SSinit "Gardner1980"), or arimaQ0Direct for large r.
func arimaGetQ0(phi, theta []float64, w *arimaQ0Work) []float64 {
	if max(len(phi), len(theta)+1) > arimaGardnerMaxR {
		return arimaQ0Direct(phi, theta)
	}
	return arimaQ0Gardner(phi, theta, w)
}

// arimaQ0Gardner is R's getQ0 (AS154's method).
func arimaQ0Gardner(phi, theta []float64, w *arimaQ0Work) []float64 {
	p, q := len(phi), len(theta)
	r := max(p, q+1)
	np := r * (r + 1) / 2
	nrbar := np * (np - 1) / 2
	w.grow(np, nrbar)
	V := w.v
	ind := 0
	for j := range r {
		vj := 0.0
		if j == 0 {
			vj = 1
		} else if j-1 < q {
			vj = theta[j-1]
		}
		for i := j; i < r; i++ {
			vi := 0.0
			if i == 0 {
				vi = 1
			} else if i-1 < q {
				vi = theta[i-1]
			}
			V[ind] = vi * vj
			ind++
		}
	}
	P := make([]float64, r*r)
	if r == 1 {
		if p == 0 {
			P[0] = 1
		} else {
			P[0] = 1 / (1 - phi[0]*phi[0])
		}
		return P
	}
	if p > 0 {
		rbar, thetab, xnext, xrow := w.rbar, w.thetab, w.xnext, w.xrow
		clear(rbar)
		for i := range np {
			P[i] = 0
			thetab[i] = 0
			xnext[i] = 0
		}
		ind = 0
		ind1 := -1
		npr := np - r
		npr1 := npr + 1
		indj := npr
		ind2 := npr - 1
		for j := range r {
			phij := 0.0
			if j < p {
				phij = phi[j]
			}
			xnext[indj] = 0
			indj++
			indi := npr1 + j
			for i := j; i < r; i++ {
				ynext := V[ind]
				ind++
				phii := 0.0
				if i < p {
					phii = phi[i]
				}
				if j != r-1 {
					xnext[indj] = -phii
					if i != r-1 {
						xnext[indi] -= phij
						ind1++
						xnext[ind1] = -1
					}
				}
				xnext[npr] = -phii * phij
				ind2++
				if ind2 >= np {
					ind2 = 0
				}
				xnext[ind2] += 1
				arimaInclu2(np, xnext, xrow, ynext, P, rbar, thetab)
				xnext[ind2] = 0
				if i != r-1 {
					xnext[indi] = 0
					indi++
					xnext[ind1] = 0
				}
			}
		}
		ithisr := nrbar - 1
		im := np - 1
		for i := range np {
			bi := thetab[im]
			jm := np - 1
			for j := 0; j < i; j++ {
				bi -= rbar[ithisr] * P[jm]
				ithisr--
				jm--
			}
			P[im] = bi
			im--
		}
		// Re-order P.
		ind = npr
		for i := range r {
			xnext[i] = P[ind]
			ind++
		}
		ind = np - 1
		ind1 = npr - 1
		for range npr {
			P[ind] = P[ind1]
			ind--
			ind1--
		}
		copy(P[:r], xnext[:r])
	} else {
		// A pure moving average: back-substitution.
		indn := np
		ind = np
		for i := range r {
			for j := 0; j <= i; j++ {
				ind--
				P[ind] = V[ind]
				if j != 0 {
					indn--
					P[ind] += P[indn]
				}
			}
		}
	}
	// Unpack to a full matrix.
	ind = np
	for i := r - 1; i > 0; i-- {
		for j := r - 1; j >= i; j-- {
			ind--
			P[r*i+j] = P[ind]
		}
	}
	for i := 0; i < r-1; i++ {
		for j := i + 1; j < r; j++ {
			P[i+r*j] = P[j+r*i]
		}
	}
	return P
}

// arimaInclu2 updates d, rbar and thetab by the inclusion of the row
// xnext with right-hand side ynext (AS154's INCLU2, by Givens rotations).
func arimaInclu2(np int, xnext, xrow []float64, ynext float64, d, rbar, thetab []float64) {
	copy(xrow[:np], xnext[:np])
	ithisr := 0
	for i := range np {
		if xrow[i] != 0 {
			xi := xrow[i]
			di := d[i]
			dpi := di + xi*xi
			d[i] = dpi
			cbar := di / dpi
			sbar := xi / dpi
			for k := i + 1; k < np; k++ {
				xk := xrow[k]
				rbthis := rbar[ithisr]
				xrow[k] = xk - xi*rbthis
				rbar[ithisr] = cbar*rbthis + sbar*xk
				ithisr++
			}
			xk := ynext
			ynext = xk - xi*thetab[i]
			thetab[i] = cbar*thetab[i] + sbar*xk
			if di == 0 {
				return
			}
		} else {
			ithisr += np - i - 1
		}
	}
}

// arimaQ0Direct solves P = T P Tᵀ + R Rᵀ for the ARMA state of makeARIMA
// from the process's autocovariances: the first row of P is
// Cov(x_t, a_t[k]) = Σ_{j>k} φ_j γ(j−k) + Σ_{j≥k} θ_j ψ_{j−k}, and the
// equation's diagonals give the rest. Used for state dimensions too large
// for Gardner's method; a non-stationary phi gives a meaningless (but
// finite or NaN) matrix, as Gardner's does.
func arimaQ0Direct(phi, theta []float64) []float64 {
	p, q := len(phi), len(theta)
	r := max(p, q+1)
	ph := func(j int) float64 { // φ_j, 1-based
		if j >= 1 && j <= p {
			return phi[j-1]
		}
		return 0
	}
	th := func(j int) float64 { // θ_j with θ_0 = 1
		if j == 0 {
			return 1
		}
		if j <= q {
			return theta[j-1]
		}
		return 0
	}
	psi := arimaPsi(phi, theta, r+1)
	gamma := arimaAutocov(phi, theta, r+1, psi)
	P := make([]float64, r*r)
	row := make([]float64, r) // P[0][k]
	for k := range r {
		s := 0.0
		for j := k + 1; j <= r; j++ {
			s += ph(j) * gamma[j-k]
		}
		for j := k; j < r; j++ {
			s += th(j) * psi[j-k]
		}
		row[k] = s
	}
	get := func(i, k int) float64 {
		if i >= r || k >= r {
			return 0
		}
		return P[i+r*k]
	}
	p00 := row[0]
	for i := r - 1; i >= 0; i-- {
		for k := r - 1; k >= i; k-- {
			var v float64
			if i == 0 {
				v = row[k]
			} else {
				v = get(i+1, k+1) + ph(i+1)*ph(k+1)*p00 + th(i)*th(k)
				if k+1 < r {
					v += ph(i+1) * row[k+1]
				}
				if i+1 < r {
					v += ph(k+1) * row[i+1]
				}
			}
			P[i+r*k] = v
			P[k+r*i] = v
		}
	}
	return P
}

// arimaPsi returns the first n ψ-weights (ψ_0 = 1) of the ARMA model
// φ(B) x = θ(B) ε, as R's ARMAtoMA with ψ_0 prepended.
func arimaPsi(phi, theta []float64, n int) []float64 {
	psi := make([]float64, n)
	if n == 0 {
		return psi
	}
	psi[0] = 1
	for j := 1; j < n; j++ {
		v := 0.0
		if j <= len(theta) {
			v = theta[j-1]
		}
		for i := 1; i <= min(j, len(phi)); i++ {
			v += phi[i-1] * psi[j-i]
		}
		psi[j] = v
	}
	return psi
}

// arimaAutocov returns γ(0..n−1) of the ARMA process with unit innovation
// variance: γ(0..p) from the linear equations
// γ(k) − Σ φ_j γ(|k−j|) = Σ_{j≥k} θ_j ψ_{j−k}, then the recursion
// γ(k) = Σ φ_j γ(k−j) + Σ_{j≥k} θ_j ψ_{j−k}.
func arimaAutocov(phi, theta []float64, n int, psi []float64) []float64 {
	p, q := len(phi), len(theta)
	if len(psi) < q+1 {
		psi = arimaPsi(phi, theta, q+1)
	}
	th := func(j int) float64 {
		if j == 0 {
			return 1
		}
		if j <= q {
			return theta[j-1]
		}
		return 0
	}
	rhs := func(k int) float64 {
		s := 0.0
		for j := k; j <= q; j++ {
			s += th(j) * psi[j-k]
		}
		return s
	}
	g := make([]float64, max(n, p+1))
	if p > 0 {
		m := p + 1
		A := make([]float64, m*m) // row-major
		b := make([]float64, m)
		for k := 0; k <= p; k++ {
			A[k*m+k] += 1
			for j := 1; j <= p; j++ {
				A[k*m+abs(k-j)] -= phi[j-1]
			}
			b[k] = rhs(k)
		}
		sol := arimaSolveDense(A, b, m)
		copy(g, sol)
		for k := p + 1; k < len(g); k++ {
			s := rhs(k)
			for j := 1; j <= p; j++ {
				s += phi[j-1] * g[k-j]
			}
			g[k] = s
		}
	} else {
		for k := range g {
			g[k] = rhs(k)
		}
	}
	return g[:n]
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// arimaSolveDense solves A x = b (A row-major m×m) by Gaussian elimination
// with partial pivoting; a singular A gives NaNs.
func arimaSolveDense(A, b []float64, m int) []float64 {
	A = append([]float64(nil), A...)
	x := append([]float64(nil), b...)
	for c := range m {
		piv := c
		for r := c + 1; r < m; r++ {
			if math.Abs(A[r*m+c]) > math.Abs(A[piv*m+c]) {
				piv = r
			}
		}
		if A[piv*m+c] == 0 {
			for i := range x {
				x[i] = math.NaN()
			}
			return x
		}
		if piv != c {
			for k := range m {
				A[c*m+k], A[piv*m+k] = A[piv*m+k], A[c*m+k]
			}
			x[c], x[piv] = x[piv], x[c]
		}
		for r := c + 1; r < m; r++ {
			f := A[r*m+c] / A[c*m+c]
			for k := c; k < m; k++ {
				A[r*m+k] -= f * A[c*m+k]
			}
			x[r] -= f * x[c]
		}
	}
	for c := m - 1; c >= 0; c-- {
		s := x[c]
		for k := c + 1; k < m; k++ {
			s -= A[c*m+k] * x[k]
		}
		x[c] = s / A[c*m+c]
	}
	return x
}

// arimaSS is the state-space model of R's makeARIMA: state a (len rd =
// r+d), its covariance P, the covariance Pn of the one-step prediction,
// and the ARMA and differencing polynomials. After a likelihood pass it
// holds the filtered state at the end of the data, from which
// arimaSS.forecast predicts (R keeps it in fit$model).
type arimaSS struct {
	phi, theta, delta []float64
	r, d              int
	a, P, Pn          []float64
}

// arimaDelta returns the differencing polynomial's coefficients without
// its leading 1, negated: (1−B)^d (1−B^m)^D = 1 − Σ delta_i B^i.
func arimaDelta(d, sd, period int) []float64 {
	conv := func(a, b []float64) []float64 {
		out := make([]float64, len(a)+len(b)-1)
		for i := range a {
			for j := range b {
				out[i+j] += a[i] * b[j]
			}
		}
		return out
	}
	D := []float64{1}
	for range d {
		D = conv(D, []float64{1, -1})
	}
	if sd > 0 {
		s := make([]float64, period+1)
		s[0], s[period] = 1, -1
		for range sd {
			D = conv(D, s)
		}
	}
	out := make([]float64, len(D)-1)
	for i := range out {
		out[i] = -D[i+1]
	}
	return out
}

// newArimaSS is R's makeARIMA with SSinit "Gardner1980": the initial state
// is zero, its ARMA block has the stationary covariance, the differencing
// block the diffuse variance kappa.
func newArimaSS(phi, theta, delta []float64, kappa float64, w *arimaQ0Work) *arimaSS {
	p, q := len(phi), len(theta)
	r := max(p, q+1)
	d := len(delta)
	rd := r + d
	m := &arimaSS{phi: phi, theta: theta, delta: delta, r: r, d: d,
		a: make([]float64, rd), P: make([]float64, rd*rd), Pn: make([]float64, rd*rd)}
	m.setQ0(w)
	for i := range d {
		m.Pn[(r+i)+rd*(r+i)] = kappa
	}
	return m
}

// setQ0 writes the ARMA block of Pn (R's upARIMA after new coefficients).
func (m *arimaSS) setQ0(w *arimaQ0Work) {
	r, rd := m.r, m.r+m.d
	var q0 []float64
	if r > 1 {
		q0 = arimaGetQ0(m.phi, m.theta, w)
	} else if len(m.phi) > 0 {
		q0 = []float64{1 / (1 - m.phi[0]*m.phi[0])}
	} else {
		q0 = []float64{1}
	}
	for j := range r {
		for i := range r {
			m.Pn[i+rd*j] = q0[i+r*j]
		}
	}
}

// arimaSteadyEvery and arimaSteadyTol define when the Kalman covariance
// counts as settled (see like).
const (
	arimaSteadyEvery = 8
	arimaSteadyTol   = 1e-13
)

// arimaLikeResult holds R's ARIMA_Like values: the sum of squared
// standardized innovations, the sum of the logs of their variances, and
// the number of observations that entered both (those with a prediction
// variance below 1e4, which leaves out the diffuse start).
type arimaLikeResult struct {
	ssq, sumlog float64
	nu          int
}

// like runs R's ARIMA_Like on y (NaN = missing) from the model's current
// state, which it updates in place; resid, when not nil, receives the
// standardized innovations.
//
// It computes what R computes — the same prediction, gain and update
// equations in the same state space — but organises the covariance
// prediction Pnew = T P Tᵀ + V around the structure of T, a shift plus
// two sparse rank-one terms (the AR coefficients in the first column, the
// differencing polynomial in row r), instead of R's dense products. The
// sums therefore run in a different order and the results differ from
// R's in the last bits (with the diffuse prior of the differencing states
// amplifying rounding, the tests hold the likelihood terms to 1e-8 of a
// literal port of R's code, which carry the same noise);
// the work per observation drops from about four to two passes over the
// (r+d)² covariance, which is what makes auto-ARIMA faster than R.
//
// Once the filtered covariance has settled (it moved by less than
// arimaSteadyTol·(1+max|P|) over arimaSteadyEvery observations), the
// gain is kept and only the state is updated: the steady-state Kalman
// filter, O(r+d) per observation. R keeps iterating the covariance
// recursion; what remains of its convergence then changes the
// log-likelihood by less than 1e-9 (P is in units of the innovation
// variance), far below what moves the estimates. Long series gain the
// most: their covariance settles early.
func (m *arimaSS) like(y []float64, resid []float64, anew, M, mm []float64) arimaLikeResult {
	phi, theta, delta := m.phi, m.theta, m.delta
	p, q, d, r := len(phi), len(theta), m.d, m.r
	rd := r + d
	a, P, Pnew := m.a[:rd], m.P[:rd*rd], m.Pn[:rd*rd]
	anew, M = anew[:rd], M[:rd]
	var nzPhi, nzDelta []int
	for i, v := range phi {
		if v != 0 {
			nzPhi = append(nzPhi, i)
		}
	}
	for i, v := range delta {
		if v != 0 {
			nzDelta = append(nzDelta, i)
		}
	}
	tv := make([]float64, min(q+1, r))
	tv[0] = 1
	for i := 1; i < len(tv); i++ {
		tv[i] = theta[i-1]
	}
	// sc0 and scw hold S·P[:,0] and S·(Σ δ_k P[:, r+k]), S the shift part
	// of T; mm is scratch for them.
	var sc0, scw []float64
	if len(mm) >= 2*rd {
		sc0, scw = mm[:rd], mm[rd:2*rd]
	} else {
		sc0, scw = make([]float64, rd), make([]float64, rd)
	}
	// Only the upper triangles (row ≤ column) of P and Pnew are kept up
	// to date; both are symmetrised on return.
	var ssq, sumlog, gain float64
	nu := 0
	steady := false
	var snap []float64
	for l := range y {
		for i := range r {
			tmp := 0.0
			if i < r-1 {
				tmp = a[i+1]
			}
			if i < p {
				tmp += phi[i] * a[0]
			}
			anew[i] = tmp
		}
		if d > 0 {
			for i := r + 1; i < rd; i++ {
				anew[i] = a[i-1]
			}
			tmp := a[0]
			for _, i := range nzDelta {
				tmp += delta[i] * a[r+i]
			}
			anew[r] = tmp
		}
		if l > 0 && !steady {
			m.predictCov(P, Pnew, tv, sc0, scw, nzPhi, nzDelta)
		}
		if !math.IsNaN(y[l]) {
			res := y[l] - anew[0]
			for _, i := range nzDelta {
				res -= delta[i] * anew[r+i]
			}
			if steady {
				if gain < 1e4 {
					nu++
					ssq += res * res / gain
					sumlog += math.Log(gain)
				}
				if resid != nil {
					resid[l] = res / math.Sqrt(gain)
				}
				for i := range rd {
					a[i] = anew[i] + M[i]*res/gain
				}
				continue
			}
			// M = Pnew Zᵀ with Z = e₀ + Σ δ_k e_{r+k}, from the upper
			// triangle: M_i = Pnew[0, i] + Σ δ_k Pnew[min(i, r+k), max(i, r+k)].
			for i := range M {
				M[i] = Pnew[i*rd]
			}
			for _, k := range nzDelta {
				dk := delta[k]
				c := r + k
				col := Pnew[c*rd : (c+1)*rd]
				for i := 0; i <= c; i++ {
					M[i] += col[i] * dk
				}
				for i := c + 1; i < rd; i++ {
					M[i] += Pnew[c+i*rd] * dk
				}
			}
			gain = M[0]
			for _, j := range nzDelta {
				gain += delta[j] * M[r+j]
			}
			if gain < 1e4 {
				nu++
				ssq += res * res / gain
				sumlog += math.Log(gain)
			}
			if resid != nil {
				resid[l] = res / math.Sqrt(gain)
			}
			for i := range rd {
				a[i] = anew[i] + M[i]*res/gain
			}
			for j := range rd {
				f := M[j] / gain
				col := P[j*rd : j*rd+j+1]
				pcol := Pnew[j*rd : j*rd+j+1]
				for i := range col {
					col[i] = pcol[i] - M[i]*f
				}
			}
			// Every arimaSteadyEvery observations, compare P with its
			// last snapshot; once it has settled, keep the gain.
			if l >= rd && l%arimaSteadyEvery == 0 {
				if snap != nil {
					var maxd, maxa float64
					for j := range rd {
						col := P[j*rd : j*rd+j+1]
						old := snap[j*rd : j*rd+j+1]
						for i, v := range col {
							maxd = max(maxd, math.Abs(v-old[i]))
							maxa = max(maxa, math.Abs(v))
						}
					}
					steady = maxd <= arimaSteadyTol*(1+maxa)
				} else {
					snap = make([]float64, len(P))
				}
				copy(snap, P)
			}
		} else {
			steady = false
			copy(a, anew)
			copy(P, Pnew)
			if resid != nil {
				resid[l] = math.NaN()
			}
		}
	}
	for j := range rd {
		for i := j + 1; i < rd; i++ {
			P[i+j*rd] = P[j+i*rd]
			Pnew[i+j*rd] = Pnew[j+i*rd]
		}
	}
	return arimaLikeResult{ssq: ssq, sumlog: sumlog, nu: nu}
}

// predictCov sets the upper triangle of Pnew = T P Tᵀ + V from the upper
// triangle of P, with T = S + u e₀ᵀ + e_r wᵀ: S the shift (state i takes
// state i+1 for i < r−1, state r takes state 0, state r+i takes r+i−1), u
// the AR coefficients, w the differencing coefficients on the states
// r…r+d−1. With c₀ = P e₀ and c_w = P w,
//
//	Pnew = S P Sᵀ + (S c₀) uᵀ + u (S c₀)ᵀ + P₀₀ u uᵀ
//	     + (S c_w) e_rᵀ + e_r (S c_w)ᵀ + (c₀·w)(u e_rᵀ + e_r uᵀ) + (wᵀ c_w) e_r e_rᵀ + V.
func (m *arimaSS) predictCov(P, Pnew, tv, sc0, scw []float64, nzPhi, nzDelta []int) {
	phi, delta := m.phi, m.delta
	d, r := m.d, m.r
	rd := r + d
	p := len(phi)
	p00 := P[0]
	// sc0 = S P[:, 0] (P[i, 0] is stored as P[0, i]).
	for i := 0; i < r-1; i++ {
		sc0[i] = P[(i+1)*rd]
	}
	sc0[r-1] = 0
	if d > 0 {
		sc0[r] = P[0]
		for i := r + 1; i < rd; i++ {
			sc0[i] = P[(i-1)*rd]
		}
	}
	var cw0, wPw float64
	if d > 0 {
		// cw = Σ δ_k P[:, r+k] (in Pnew's last column, overwritten
		// below), scw = S cw.
		cw := Pnew[(rd-1)*rd : rd*rd]
		clear(cw)
		for _, k := range nzDelta {
			c := r + k
			col := P[c*rd : (c+1)*rd]
			dk := delta[k]
			for i := 0; i <= c; i++ {
				cw[i] += dk * col[i]
			}
			for i := c + 1; i < rd; i++ {
				cw[i] += dk * P[c+i*rd]
			}
		}
		for i := 0; i < r-1; i++ {
			scw[i] = cw[i+1]
		}
		scw[r-1] = 0
		scw[r] = cw[0]
		for i := r + 1; i < rd; i++ {
			scw[i] = cw[i-1]
		}
		cw0 = cw[0]
		for _, k := range nzDelta {
			wPw += delta[k] * cw[r+k]
		}
	}
	for j := range rd {
		col := Pnew[j*rd : j*rd+j+1 : j*rd+j+1] // rows 0…j
		// S P Sᵀ.
		switch {
		case j == r-1:
			for i := range col {
				col[i] = 0
			}
		case j == r:
			// Source column 0: P[i+1, 0] = P[0, i+1] for i < r−1.
			for i := 0; i < r-1; i++ {
				col[i] = P[(i+1)*rd]
			}
			col[r-1] = 0
			col[r] = P[0]
		default:
			sj := j + 1
			if j > r {
				sj = j - 1
			}
			src := P[sj*rd : (sj+1)*rd : (sj+1)*rd]
			top := min(j, r-2)
			for i := 0; i <= top; i++ {
				col[i] = src[i+1]
			}
			if j > r {
				col[r-1] = 0
				col[r] = src[0]
				for i := r + 1; i <= j; i++ {
					col[i] = src[i-1]
				}
			}
		}
		// u (S c0)ᵀ: column j gets u · sc0[j].
		if f := sc0[j]; f != 0 {
			for _, i := range nzPhi {
				if i > j {
					break
				}
				col[i] += phi[i] * f
			}
		}
		if j < p && phi[j] != 0 {
			uj := phi[j]
			// (S c0) uᵀ and P00 u uᵀ.
			for i, v := range sc0[:j+1] {
				col[i] += v * uj
			}
			f := p00 * uj
			for _, i := range nzPhi {
				if i > j {
					break
				}
				col[i] += phi[i] * f
			}
		}
		if d > 0 && j >= r {
			// e_r (S cw)ᵀ and (c0·w) e_r uᵀ: row r of column j.
			col[r] += scw[j]
			if j < p {
				col[r] += cw0 * phi[j]
			}
			if j == r {
				// (S cw) e_rᵀ, (c0·w) u e_rᵀ and (wᵀcw) e_r e_rᵀ.
				for i, v := range scw[:r+1] {
					col[i] += v
				}
				for _, i := range nzPhi {
					col[i] += cw0 * phi[i]
				}
				col[r] += wPw
			}
		}
		if j < len(tv) {
			tj := tv[j]
			for i, ti := range tv[:j+1] {
				col[i] += ti * tj
			}
		}
	}
}

// transition returns the dense transition matrix T and the innovation
// covariance V = R Rᵀ of makeARIMA, both rd×rd column-major.
func (m *arimaSS) transition() (T, V []float64) {
	r, d := m.r, m.d
	rd := r + d
	T = make([]float64, rd*rd)
	copy(T, m.phi)
	for i := 1; i < r; i++ {
		T[(i-1)+rd*i] = 1
	}
	if d > 0 {
		T[r] = 1
		for j, v := range m.delta {
			T[r+rd*(r+j)] = v
		}
		for i := 1; i < d; i++ {
			T[(r+i)+rd*(r+i-1)] = 1
		}
	}
	R := make([]float64, rd)
	R[0] = 1
	for i := 1; i < r && i-1 < len(m.theta); i++ {
		R[i] = m.theta[i-1]
	}
	V = make([]float64, rd*rd)
	for j := range rd {
		for i := range rd {
			V[i+rd*j] = R[i] * R[j]
		}
	}
	return T, V
}

// forecast is R's KalmanForecast from the model's filtered state: the
// h-step predictions of the (regression-error) series and their
// variances for unit innovation variance.
func (m *arimaSS) forecast(h int) (mean, variance []float64) {
	rd := m.r + m.d
	T, V := m.transition()
	Z := make([]float64, rd)
	Z[0] = 1
	copy(Z[m.r:], m.delta)
	a := append([]float64(nil), m.a...)
	P := append([]float64(nil), m.P...)
	anew := make([]float64, rd)
	mm := make([]float64, rd*rd)
	Pnew := make([]float64, rd*rd)
	mean = make([]float64, h)
	variance = make([]float64, h)
	for l := range h {
		fc := 0.0
		for i := range rd {
			tmp := 0.0
			for k := range rd {
				tmp += T[i+rd*k] * a[k]
			}
			anew[i] = tmp
			fc += tmp * Z[i]
		}
		copy(a, anew)
		mean[l] = fc
		for i := range rd {
			for j := range rd {
				tmp := 0.0
				for k := range rd {
					tmp += T[i+rd*k] * P[k+rd*j]
				}
				mm[i+rd*j] = tmp
			}
		}
		for i := range rd {
			for j := range rd {
				tmp := V[i+rd*j]
				for k := range rd {
					tmp += mm[i+rd*k] * T[j+rd*k]
				}
				Pnew[i+rd*j] = tmp
			}
		}
		tmp := 0.0
		for i := range rd {
			for j := range rd {
				P[i+j*rd] = Pnew[i+j*rd]
				tmp += Z[i] * Z[j] * P[i+j*rd]
			}
		}
		variance[l] = tmp
	}
	return mean, variance
}

// arimaCSS is R's ARIMA_CSS: it differences y, runs the ARMA recursion
// from observation ncond on, with the innovations before it taken as zero,
// and returns the mean squared innovation; resid, when not nil, receives
// the innovations (zero before ncond).
func arimaCSS(y []float64, a arimaArma, phi, theta []float64, ncond int, w, resid []float64) float64 {
	arimaCSSDiff(y, a, w)
	return arimaCSSCore(w, phi, theta, ncond, resid)
}

// arimaCSSDiff writes into w the series y differenced as ARIMA_CSS does
// it, in place from the end (the first values are left partly
// differenced; the recursion starts after them).
func arimaCSSDiff(y []float64, a arimaArma, w []float64) {
	n := len(y)
	copy(w, y)
	for range a.d {
		for l := n - 1; l > 0; l-- {
			w[l] -= w[l-1]
		}
	}
	ns := a.period
	for range a.sd {
		for l := n - 1; l >= ns; l-- {
			w[l] -= w[l-ns]
		}
	}
}

// arimaCSSCore is ARIMA_CSS's recursion on the differenced series w.
func arimaCSSCore(w, phi, theta []float64, ncond int, resid []float64) float64 {
	n := len(w)
	// Terms with a zero coefficient change nothing; skip them (expanded
	// seasonal polynomials are mostly zeros).
	type term struct {
		c   float64
		lag int
	}
	var bp, bq [64]term
	tp, tq := bp[:0], bq[:0]
	for j, v := range phi {
		if v != 0 {
			tp = append(tp, term{v, j + 1})
		}
	}
	for j, v := range theta {
		if v != 0 {
			tq = append(tq, term{v, j + 1})
		}
	}
	for l := 0; l < ncond && l < n; l++ {
		resid[l] = 0
	}
	if ncond >= n {
		return math.NaN() // R: 0/0, no innovation after the conditioning ones
	}
	// The AR part does not depend on the innovations: compute it for all
	// observations first, term by term (each observation still subtracts
	// its terms in R's order), then run the MA recursion in place.
	for l := ncond; l < n; l++ {
		resid[l] = w[l]
	}
	dst := resid[ncond:n]
	m := len(dst)
	for len(tp) > 0 {
		// Up to four terms per pass over the series.
		switch {
		case len(tp) >= 4:
			c0, c1, c2, c3 := tp[0].c, tp[1].c, tp[2].c, tp[3].c
			s0 := w[ncond-tp[0].lag:][:m]
			s1 := w[ncond-tp[1].lag:][:m]
			s2 := w[ncond-tp[2].lag:][:m]
			s3 := w[ncond-tp[3].lag:][:m]
			for i := range dst {
				x := dst[i]
				x -= c0 * s0[i]
				x -= c1 * s1[i]
				x -= c2 * s2[i]
				x -= c3 * s3[i]
				dst[i] = x
			}
			tp = tp[4:]
		case len(tp) >= 2:
			c0, c1 := tp[0].c, tp[1].c
			s0 := w[ncond-tp[0].lag:][:m]
			s1 := w[ncond-tp[1].lag:][:m]
			for i := range dst {
				x := dst[i]
				x -= c0 * s0[i]
				x -= c1 * s1[i]
				dst[i] = x
			}
			tp = tp[2:]
		default:
			c0 := tp[0].c
			s0 := w[ncond-tp[0].lag:][:m]
			for i := range dst {
				dst[i] -= c0 * s0[i]
			}
			tp = tp[1:]
		}
	}
	ssq := 0.0
	nu := 0
	for l := ncond; l < n; l++ {
		tmp := resid[l]
		lim := l - ncond
		for _, t := range tq {
			if t.lag > lim {
				break
			}
			tmp -= t.c * resid[l-t.lag]
		}
		resid[l] = tmp
		if !math.IsNaN(tmp) {
			nu++
			ssq += tmp * tmp
		}
	}
	return ssq / float64(nu)
}
