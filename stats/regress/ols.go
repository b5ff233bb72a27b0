package regress

import (
	"errors"

	"gonum.org/v1/gonum/mat"

	"github.com/vaticml/vatic/stats/internal/scale"
)

const olsKey = "ols"

// OLS is ordinary least squares with an intercept (key "ols", MODELLING
// §6.2). It has no hyper-parameters and does not scale its inputs. The
// coefficients are the minimum-norm least-squares solution on centred
// columns, computed from a thin SVD with singular values below
// max(n, p)·ε·s_max treated as zero (NumPy's lstsq cut-off), so collinear
// columns such as a full one-hot block share their effect instead of
// failing the fit. Zero-variance columns get coefficient 0.
//
// With words (Data.Words) it solves on the Gram matrix of the standardised
// columns instead (linear_sparse.go), with the directions below the
// gramCut dropped: where columns are collinear the solution is then of
// minimum norm on the standardised scale, not the raw one (the same
// predictions on the training rows, the effect split differently across
// the collinear columns), and the cut-off is relative to each column's
// own scale, not to whichever has the largest unit.
type OLS struct{}

// Key is "ols".
func (OLS) Key() string { return olsKey }

// Name is "Linear Regression".
func (OLS) Name() string { return "Linear Regression" }

// Scaled is false: OLS fits the columns as given (its predictions do not
// depend on their scale).
func (OLS) Scaled() bool { return false }

// Fit fits least squares on d; it needs one row at least
// (ErrTooFewRows). opt is unused.
func (OLS) Fit(d Data, _ Options) (Model, error) {
	return fitOLS(d)
}

// errOLSSVD reports an SVD that did not converge (not expected for finite
// input).
var errOLSSVD = errors.New("regress: ols: SVD did not converge")

func fitOLS(d Data) (Model, error) {
	if d.Words != nil {
		gr, ge, err := eigenOf(d, 1)
		if err != nil {
			return nil, err
		}
		return linearFromStd(olsKey, 0, gr.st, gr.ymean, ge.solve(gr.p, 0)), nil
	}
	x, y := d.X, d.Y
	if err := fitInputCheck(x, y, 1); err != nil {
		return nil, err
	}
	n, p := x.Dims()
	st := scale.New(x)
	ymean, yc := linearCenterY(y)
	// Centre the columns (as scikit-learn's LinearRegression does) but do
	// not scale them: the minimum-norm solution depends on the scale.
	xc := mat.NewDense(n, p, nil)
	for i := range n {
		src, dst := x.RawRowView(i), xc.RawRowView(i)
		for j, v := range src {
			if st.SD[j] > 0 {
				dst[j] = v - st.Mean[j]
			}
		}
	}
	var svd mat.SVD
	if !svd.Factorize(xc, mat.SVDThin) {
		return nil, errOLSSVD
	}
	s := svd.Values(nil)
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	tol := 0.0
	if len(s) > 0 {
		tol = s[0] * float64(max(n, p)) * 0x1p-52
	}
	// β = V·Σ⁺·Uᵀ·y over the singular values above the cut-off.
	var uty mat.VecDense
	uty.MulVec(u.T(), mat.NewVecDense(n, yc))
	w := make([]float64, len(s))
	for k, sk := range s {
		if sk > tol {
			w[k] = uty.AtVec(k) / sk
		}
	}
	beta := make([]float64, p)
	if len(w) > 0 {
		mat.NewVecDense(p, beta).MulVec(&v, mat.NewVecDense(len(w), w))
	}
	return linearFromRaw(olsKey, 0, st, ymean, beta), nil
}

// linearCenterY returns the mean of y and y minus it.
func linearCenterY(y []float64) (mean float64, yc []float64) {
	for _, v := range y {
		mean += v
	}
	mean /= float64(len(y))
	yc = make([]float64, len(y))
	for i, v := range y {
		yc[i] = v - mean
	}
	return mean, yc
}

func unmarshalOLS(data []byte) (Model, error) { return unmarshalLinear(olsKey, data) }
