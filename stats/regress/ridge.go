package regress

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats/internal/scale"
)

const ridgeKey = "ridge"

// Ridge is L2-penalised least squares on standardised columns (key
// "ridge", MODELLING §6.2). It minimises
//
//	‖y − b − Zβ‖² + n·α·‖β‖²
//
// over the z-scored columns Z (training mean, sample sd; zero-variance
// columns get β = 0) with the intercept b unpenalised. The per-row penalty
// α is chosen from RidgeAlphas by exact leave-one-out error, computed for
// the whole grid from one thin SVD Z = U·S·Vᵀ: with f_k = s_k²/(s_k² + nα),
// the hat diagonal is h_ii = 1/n + Σ_k U_ik²·f_k and the LOO residual
// e_i/(1 − h_ii) (Hastie, Tibshirani & Friedman, ESL §7.10; the same
// criterion as scikit-learn's RidgeCV with gcv_mode="svd"). Ties go to the
// smaller α. Refit keeps α, so the penalty scales with the new row count.
//
// With words (Data.Words) the same leave-one-out errors and solution come
// from the eigendecomposition of ZᵀZ (linear_sparse.go: U·S = Z·V, read a
// row at a time), the directions below the gramCut dropped (they add
// nothing to the fit, nor, up to rounding, to the leverages).
type Ridge struct{}

// RidgeAlphas returns the grid of per-row penalties Ridge searches: 50
// values evenly spaced in log10 from 1e-4 to 1e4.
func RidgeAlphas() []float64 {
	const m = 50
	a := make([]float64, m)
	for i := range a {
		a[i] = math.Pow(10, -4+8*float64(i)/(m-1))
	}
	return a
}

// Key is "ridge".
func (Ridge) Key() string { return ridgeKey }

// Name is "Ridge Regression".
func (Ridge) Name() string { return "Ridge Regression" }

// Scaled is true: the penalty acts on standardised columns.
func (Ridge) Scaled() bool { return true }

// Fit chooses α by leave-one-out error and fits on all of d. It needs
// three rows (ErrTooFewRows). Without words one SVD does all the work;
// with words the leave-one-out errors are summed over the rows on up to
// opt.Workers goroutines (the result does not depend on opt.Workers).
func (Ridge) Fit(data Data, opt Options) (Model, error) {
	if data.Words != nil {
		gr, ge, err := eigenOf(data, 3)
		if err != nil {
			return nil, err
		}
		alpha := lowestAlpha(RidgeAlphas(), ge.looMSE(data, gr, RidgeAlphas(), max(opt.Workers, 1)))
		return linearFromStd(ridgeKey, alpha, gr.st, gr.ymean, ge.solve(gr.p, float64(gr.n)*alpha)), nil
	}
	x, y := data.X, data.Y
	if err := fitInputCheck(x, y, 3); err != nil {
		return nil, err
	}
	st := scale.New(x)
	ymean, yc := linearCenterY(y)
	dec, err := newRidgeSVD(st.Transform(x), yc)
	if err != nil {
		return nil, err
	}
	alpha := lowestAlpha(RidgeAlphas(), dec.looMSE(RidgeAlphas()))
	return linearFromStd(ridgeKey, alpha, st, ymean, dec.solve(alpha)), nil
}

// fitRidgeAt fits Ridge with a given per-row penalty α (> 0).
func fitRidgeAt(data Data, alpha float64) (Model, error) {
	if data.Words != nil {
		gr, ge, err := eigenOf(data, 1)
		if err != nil {
			return nil, err
		}
		return linearFromStd(ridgeKey, alpha, gr.st, gr.ymean, ge.solve(gr.p, float64(gr.n)*alpha)), nil
	}
	x, y := data.X, data.Y
	if err := fitInputCheck(x, y, 1); err != nil {
		return nil, err
	}
	st := scale.New(x)
	ymean, yc := linearCenterY(y)
	dec, err := newRidgeSVD(st.Transform(x), yc)
	if err != nil {
		return nil, err
	}
	return linearFromStd(ridgeKey, alpha, st, ymean, dec.solve(alpha)), nil
}

// ridgeSVD is the thin SVD of the standardised design Z = U·S·Vᵀ and Uᵀy
// for the centred target.
type ridgeSVD struct {
	n    int
	s    []float64 // singular values, decreasing
	u, v mat.Dense // n×r and p×r
	uty  []float64 // Uᵀ·y, length r
	yc   []float64 // centred target
}

var errRidgeSVD = errors.New("regress: ridge: SVD did not converge")

func newRidgeSVD(z *mat.Dense, yc []float64) (*ridgeSVD, error) {
	n, _ := z.Dims()
	d := &ridgeSVD{n: n, yc: yc}
	var svd mat.SVD
	if !svd.Factorize(z, mat.SVDThin) {
		return nil, errRidgeSVD
	}
	d.s = svd.Values(nil)
	svd.UTo(&d.u)
	svd.VTo(&d.v)
	var uty mat.VecDense
	uty.MulVec(d.u.T(), mat.NewVecDense(n, yc))
	d.uty = uty.RawVector().Data
	return d, nil
}

// looMSE returns the mean squared leave-one-out residual for each α;
// +Inf where some row has leverage 1 (its LOO residual is undefined).
func (d *ridgeSVD) looMSE(alphas []float64) []float64 {
	r := len(d.s)
	// f[a][k] = s_k²/(s_k²+λ) and g[a][k] = f·(Uᵀy)_k, λ = n·α.
	f := make([]float64, len(alphas)*r)
	g := make([]float64, len(alphas)*r)
	for a, alpha := range alphas {
		lambda := float64(d.n) * alpha
		for k, sk := range d.s {
			s2 := sk * sk
			if den := s2 + lambda; den > 0 {
				f[a*r+k] = s2 / den
			}
			g[a*r+k] = f[a*r+k] * d.uty[k]
		}
	}
	sse := make([]float64, len(alphas))
	inv := 1 / float64(d.n)
	for i := range d.n {
		urow := d.u.RawRowView(i)[:r]
		for a := range alphas {
			fa, ga := f[a*r:(a+1)*r], g[a*r:(a+1)*r]
			h, fit := inv, 0.0
			for k, uk := range urow {
				h += uk * uk * fa[k]
				fit += uk * ga[k]
			}
			den := 1 - h
			if !(den > 1e-12) {
				sse[a] = math.Inf(1)
				continue
			}
			e := (d.yc[i] - fit) / den
			sse[a] += e * e
		}
	}
	for a := range sse {
		sse[a] *= inv
	}
	return sse
}

// lowestAlpha returns the α with the lowest LOO error mse (the first on
// ties; the largest α when none is finite).
func lowestAlpha(alphas, mses []float64) float64 {
	best, bestMSE := len(alphas)-1, math.Inf(1)
	for a, mse := range mses {
		if mse < bestMSE {
			best, bestMSE = a, mse
		}
	}
	return alphas[best]
}

// solve returns β = V·diag(s/(s² + nα))·Uᵀy on the standardised scale.
func (d *ridgeSVD) solve(alpha float64) []float64 {
	lambda := float64(d.n) * alpha
	w := make([]float64, len(d.s))
	for k, sk := range d.s {
		if den := sk*sk + lambda; den > 0 {
			w[k] = sk / den * d.uty[k]
		}
	}
	p, _ := d.v.Dims()
	beta := make([]float64, p)
	if len(w) > 0 {
		mat.NewVecDense(p, beta).MulVec(&d.v, mat.NewVecDense(len(w), w))
	}
	return beta
}

func unmarshalRidge(data []byte) (Model, error) { return unmarshalLinear(ridgeKey, data) }
