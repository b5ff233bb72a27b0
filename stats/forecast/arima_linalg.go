package forecast

import (
	"errors"
	"math"
	"math/cmplx"

	"gonum.org/v1/gonum/mat"
)

// Small dense linear-algebra helpers of the ARIMA code: least squares as
// R's lm, R's solve() with its singularity test, polynomial roots as R's
// polyroot, and the stationarity and invertibility tools of stats::arima.

var errArimaSingular = errors.New("system is computationally singular")

// arimaLM is the least-squares fit of y on the columns of X (no implicit
// intercept), as R's lm(y ~ X - 1): coefficients, their standard errors
// (NaN without residual degrees of freedom), residuals and the rank.
// A column that is (numerically) a linear combination of the ones before
// it makes the fit rank-deficient: R's lm then reports NA for it, which
// the callers treat as an error; here rank < len(X) and coef is nil.
type arimaLMFit struct {
	coef, se, resid []float64
	rank            int
}

func arimaLM(y []float64, X [][]float64) arimaLMFit {
	n, k := len(y), len(X)
	if k == 0 || n == 0 {
		return arimaLMFit{resid: append([]float64(nil), y...)}
	}
	A := mat.NewDense(n, k, nil)
	norms := make([]float64, k)
	for j, col := range X {
		s := 0.0
		for i, v := range col {
			A.Set(i, j, v)
			s += v * v
		}
		norms[j] = math.Sqrt(s)
	}
	if n < k {
		return arimaLMFit{rank: 0}
	}
	var qr mat.QR
	qr.Factorize(A)
	var R mat.Dense
	qr.RTo(&R)
	rank := 0
	for j := range k {
		// R's dqrdc2 drops a column whose norm after the previous
		// columns were projected out is below 1e-7 of its own norm.
		if norms[j] == 0 || math.Abs(R.At(j, j)) < 1e-7*norms[j] {
			continue
		}
		rank++
	}
	if rank < k {
		return arimaLMFit{rank: rank}
	}
	yv := mat.NewVecDense(n, append([]float64(nil), y...))
	var b mat.VecDense
	if err := qr.SolveVecTo(&b, false, yv); err != nil {
		var c mat.Condition
		if !errors.As(err, &c) {
			return arimaLMFit{rank: 0}
		}
	}
	coef := make([]float64, k)
	for j := range k {
		coef[j] = b.AtVec(j)
	}
	resid := make([]float64, n)
	rss := 0.0
	for i := range n {
		f := 0.0
		for j := range k {
			f += X[j][i] * coef[j]
		}
		resid[i] = y[i] - f
		rss += resid[i] * resid[i]
	}
	se := make([]float64, k)
	rdf := n - k
	// (RᵀR)⁻¹ = R⁻¹ R⁻ᵀ: its diagonal is the row sums of squares of R⁻¹.
	Rk := mat.NewTriDense(k, mat.Upper, nil)
	for i := range k {
		for j := i; j < k; j++ {
			Rk.SetTri(i, j, R.At(i, j))
		}
	}
	var Rinv mat.TriDense
	errInv := Rinv.InverseTri(Rk)
	for j := range k {
		if rdf <= 0 || errInv != nil && !isCondition(errInv) {
			se[j] = math.NaN()
			continue
		}
		s := 0.0
		for l := j; l < k; l++ {
			v := Rinv.At(j, l)
			s += v * v
		}
		se[j] = math.Sqrt(s * rss / float64(rdf))
	}
	return arimaLMFit{coef: coef, se: se, resid: resid, rank: k}
}

func isCondition(err error) bool {
	var c mat.Condition
	return errors.As(err, &c)
}

// arimaSolve returns A⁻¹B (A n×n row-major, B n×m row-major) as R's
// solve(A, B): an error when A is singular or its reciprocal condition
// number is below machine epsilon.
func arimaSolve(A []float64, n int, B []float64, m int) ([]float64, error) {
	var lu mat.LU
	lu.Factorize(mat.NewDense(n, n, append([]float64(nil), A...)))
	if c := lu.Cond(); math.IsInf(c, 1) || math.IsNaN(c) || 1/c < 2.220446049250313e-16 {
		return nil, errArimaSingular
	}
	var x mat.Dense
	if err := lu.SolveTo(&x, false, mat.NewDense(n, m, append([]float64(nil), B...))); err != nil && !isCondition(err) {
		return nil, err
	}
	out := make([]float64, n*m)
	for i := range n {
		for j := range m {
			out[i*m+j] = x.At(i, j)
		}
	}
	return out, nil
}

// arimaPolyroot returns the complex roots of c[0] + c[1] z + … + c[k] z^k
// (c[k] ≠ 0) as the eigenvalues of the companion matrix. R's polyroot
// uses the Jenkins–Traub algorithm; both are accurate far beyond the 1 %
// margins the ARIMA checks apply to the roots' moduli.
func arimaPolyroot(c []float64) ([]complex128, error) {
	k := len(c) - 1
	for k > 0 && c[k] == 0 {
		k--
	}
	if k <= 0 {
		return nil, nil
	}
	if k == 1 {
		return []complex128{complex(-c[0]/c[1], 0)}, nil
	}
	C := mat.NewDense(k, k, nil)
	for i := range k {
		C.Set(i, k-1, -c[i]/c[k])
		if i > 0 {
			C.Set(i, i-1, 1)
		}
	}
	var e mat.Eigen
	if !e.Factorize(C, mat.EigenNone) {
		return nil, errors.New("polyroot: eigenvalue decomposition failed")
	}
	return e.Values(nil), nil
}

// arimaARCheck is stats::arima's arCheck: whether the AR polynomial
// 1 − φ₁z − … has all its roots outside the unit circle.
func arimaARCheck(ar []float64) bool {
	p := 0
	for i, v := range ar {
		if v != 0 {
			p = i + 1
		}
	}
	if p == 0 {
		return true
	}
	c := make([]float64, p+1)
	c[0] = 1
	for i := range p {
		c[i+1] = -ar[i]
	}
	roots, err := arimaPolyroot(c)
	if err != nil {
		return false
	}
	for _, r := range roots {
		if !(cmplx.Abs(r) > 1) {
			return false
		}
	}
	return true
}

// arimaMAInvert is stats::arima's maInvert: it reflects the roots of the
// MA polynomial 1 + θ₁z + … that lie inside the unit circle.
func arimaMAInvert(ma []float64) []float64 {
	q := len(ma)
	q0 := 0
	for i, v := range ma {
		if v != 0 {
			q0 = i + 1
		}
	}
	if q0 == 0 {
		return ma
	}
	c := make([]float64, q0+1)
	c[0] = 1
	copy(c[1:], ma[:q0])
	roots, err := arimaPolyroot(c)
	if err != nil {
		return ma
	}
	inside := false
	for _, r := range roots {
		if cmplx.Abs(r) < 1 {
			inside = true
		}
	}
	if !inside {
		return ma
	}
	out := make([]float64, q)
	if q0 == 1 {
		out[0] = 1 / ma[0]
		return out
	}
	for i, r := range roots {
		if cmplx.Abs(r) < 1 {
			roots[i] = 1 / r
		}
	}
	x := []complex128{1}
	for _, r := range roots {
		nx := make([]complex128, len(x)+1)
		for i := range x {
			nx[i] += x[i]
			nx[i+1] -= x[i] / r
		}
		x = nx
	}
	for i := 1; i < len(x) && i-1 < q; i++ {
		out[i-1] = real(x[i])
	}
	return out
}

// arimaMinRootMod is the smallest modulus of the roots of c (2 when c has
// no roots), as auto.arima's test of near non-stationarity and
// non-invertibility computes it.
func arimaMinRootMod(c []float64) (float64, error) {
	roots, err := arimaPolyroot(c)
	if err != nil {
		return 0, err
	}
	m := 2.0
	for _, r := range roots {
		m = min(m, cmplx.Abs(r))
	}
	return m, nil
}
